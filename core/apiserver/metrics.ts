import client from 'prom-client';
import type { Registry } from './registry.ts';
import type { RequestInfo } from './request.ts';
import type { ApiRequest } from './types.ts';
import { RESOURCES } from './resources.ts';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The children of one label set: its request counter and duration histogram. */
interface Series {
  method: string;
  /** Watches are counted, not timed. */
  timed: boolean;
  count: client.Counter.Internal;
  duration: client.Histogram.Internal<string>;
}

/**
 * The API server's Prometheus metrics under Kubernetes' standard names
 * (`apiserver_request_total`, `apiserver_request_duration_seconds`, `apiserver_storage_objects`,
 * `apiserver_watch_events_total`, `apiserver_longrunning_requests`), in a registry of its own so
 * several servers can live in one process.
 */
export class ApiMetrics {
  readonly registry = new client.Registry();
  private readonly requests: client.Counter<string>;
  private readonly duration: client.Histogram<string>;
  private readonly watchEvents: client.Counter<string>;
  private readonly longRunning: client.Gauge<string>;
  /** Label children per series, so a request does not hash its labels twice. */
  private readonly series = new Map<string, Series>();

  constructor(store: Registry) {
    const registers = [this.registry];
    this.requests = new client.Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      registers,
    });
    this.duration = new client.Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: BUCKETS,
      registers,
    });
    this.watchEvents = new client.Counter({ name: 'apiserver_watch_events_total', help: 'Number of events sent in watch clients', labelNames: ['group', 'version', 'kind'], registers });
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
    series.count.inc();
    if (series.timed) series.duration.observe(seconds);
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
      series = { method: req.method, timed: labels.verb !== 'WATCH', count: this.requests.labels({ ...labels, code: String(code) }), duration: this.duration.labels(labels) };
      this.series.set(key, series);
    }
    return series;
  }

  /** Counts one watch event sent. */
  watchEvent(kind: string, group: string, version: string): void {
    this.watchEvents.inc({ group, version, kind });
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
