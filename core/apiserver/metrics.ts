import client from 'prom-client';
import type { Registry } from './registry.ts';
import type { RequestInfo } from './request.ts';
import type { ApiRequest } from './types.ts';
import { RESOURCES } from './resources.ts';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The series of one metric by label set, in first-use order (the order prom-client prints them in). */
class LabelledSeries<S extends { labels: Record<string, string> }> {
  readonly aggregator = 'sum';
  protected readonly all = new Map<string, S>();

  constructor(readonly name: string, readonly help: string, private readonly make: (labels: Record<string, string>) => S) {}

  /** The series of a label set, created empty on first use. */
  series(labels: Record<string, string>): S {
    const key = JSON.stringify(labels);
    let s = this.all.get(key);
    if (!s) this.all.set(key, (s = this.make(labels)));
    return s;
  }

  reset(): void {
    this.all.clear();
  }
}

/**
 * A counter whose series are plain objects callers keep and bump directly: prom-client's own
 * counters hash their labels on every increment, which costs more than the rest of a simulated
 * request's bookkeeping. prom-client's Registry formats it like any counter of its own.
 */
class SeriesCounter extends LabelledSeries<{ labels: Record<string, string>; value: number }> {
  readonly type = 'counter';

  constructor(name: string, help: string) {
    super(name, help, (labels) => ({ labels, value: 0 }));
  }

  /** prom-client's metric interface, for Registry.metrics(). */
  async get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...this.all.values()].map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

/** One label set of a {@link SeriesHistogram}: non-cumulative counts per bucket (the last is +Inf). */
interface HistogramSeries {
  labels: Record<string, string>;
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram with directly updated series, formatted as prom-client formats its histograms (see {@link SeriesCounter}). */
class SeriesHistogram extends LabelledSeries<HistogramSeries> {
  readonly type = 'histogram';

  constructor(name: string, help: string, private readonly bounds: readonly number[]) {
    super(name, help, (labels) => ({ labels, counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 }));
  }

  observe(s: HistogramSeries, value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  /** prom-client's metric interface: cumulative buckets, then +Inf, sum and count per series. */
  async get() {
    const values: { labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string }[] = [];
    for (const s of this.all.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i];
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** The request counter and duration histogram series of one label set and code. */
interface Series {
  method: string;
  count: { value: number };
  /** Undefined for watches, which are counted, not timed. */
  duration: HistogramSeries | undefined;
}

/**
 * The API server's Prometheus metrics under Kubernetes' standard names
 * (`apiserver_request_total`, `apiserver_request_duration_seconds`, `apiserver_storage_objects`,
 * `apiserver_watch_events_total`, `apiserver_longrunning_requests`), in a registry of its own so
 * several servers can live in one process.
 */
export class ApiMetrics {
  readonly registry = new client.Registry();
  private readonly requests = new SeriesCounter('apiserver_request_total', 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
  private readonly duration = new SeriesHistogram('apiserver_request_duration_seconds', 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', BUCKETS);
  private readonly watchEvents = new SeriesCounter('apiserver_watch_events_total', 'Number of events sent in watch clients');
  private readonly longRunning: client.Gauge<string>;
  /** Series by their labels and code. */
  private readonly series = new Map<string, Series>();
  /** Watch event counters by kind, group and version. */
  private readonly watchSeries = new Map<string, { value: number }>();

  constructor(store: Registry) {
    const registers = [this.registry];
    // NOTE: prom-client's Registry takes any object with its metric interface (name, help, type, get()).
    this.registry.registerMetric(this.requests as unknown as client.Metric);
    this.registry.registerMetric(this.duration as unknown as client.Metric);
    this.registry.registerMetric(this.watchEvents as unknown as client.Metric);
    this.longRunning = new client.Gauge({ name: 'apiserver_longrunning_requests', help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.', labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], registers });
    const storage = store.storage;
    new client.Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers,
      collect() {
        const seen = new Set<string>();
        for (const r of RESOURCES) {
          if (r.group === 'authorization.k8s.io') continue;
          const name = r.group ? `${r.resource}.${r.group}` : r.resource;
          if (seen.has(name)) continue;
          seen.add(name);
          this.set({ resource: name }, storage.count(store.prefix(r)));
        }
      },
    });
  }

  /** Series by request info and code: infos are cached per method and path, so most requests find theirs here. */
  private readonly seriesByInfo = new WeakMap<RequestInfo, Map<number, Series>>();

  /** Records one finished request. */
  observe(req: ApiRequest, info: RequestInfo | undefined, code: number, seconds: number): void {
    let series: Series | undefined;
    // NOTE: a dry run changes a label, so it takes the slower path (it is rare).
    if (info && !req.query.has('dryRun')) {
      let byCode = this.seriesByInfo.get(info);
      if (!byCode) this.seriesByInfo.set(info, (byCode = new Map()));
      series = byCode.get(code);
      if (!series || series.method !== req.method) {
        series = this.seriesFor(req, info, code);
        byCode.set(code, series);
      }
    } else series = this.seriesFor(req, info, code);
    series.count.value++;
    if (series.duration) this.duration.observe(series.duration, seconds);
  }

  private seriesFor(req: ApiRequest, info: RequestInfo | undefined, code: number): Series {
    const labels = info?.isResource
      ? {
          verb: info.verb === 'watch' ? 'WATCH' : info.verb === 'list' ? 'LIST' : req.method === 'PUT' ? 'PUT' : req.method === 'POST' ? 'POST' : req.method,
          dry_run: req.query.has('dryRun') ? 'All' : '',
          group: info.group,
          version: info.version,
          resource: info.resource.resource,
          subresource: info.subresource?.name ?? '',
          scope: info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster',
          component: 'apiserver',
        }
      : { verb: req.method, dry_run: '', group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
    const key = `${labels.verb}|${labels.dry_run}|${labels.group}|${labels.version}|${labels.resource}|${labels.subresource}|${labels.scope}|${code}`;
    let series = this.series.get(key);
    if (!series) {
      // NOTE: watches are counted, not timed: they get no histogram series at all.
      series = { method: req.method, count: this.requests.series({ ...labels, code: String(code) }), duration: labels.verb === 'WATCH' ? undefined : this.duration.series(labels) };
      this.series.set(key, series);
    }
    return series;
  }

  /** Counts one watch event sent. */
  watchEvent(kind: string, group: string, version: string): void {
    const key = `${kind}|${group}|${version}`;
    let series = this.watchSeries.get(key);
    if (!series) this.watchSeries.set(key, (series = this.watchEvents.series({ group, version, kind })));
    series.value++;
  }

  /** Tracks open watches. */
  longRunningDelta(labels: Record<string, string>, delta: number): void {
    this.longRunning.inc(labels, delta);
  }

  /** The exposition format content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The current metrics in Prometheus text format. prom-client's render is async; this uses its sync path. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
