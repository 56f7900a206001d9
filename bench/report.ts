/**
 * Pure helpers of the API server benchmark: latency samples with exact percentiles, the
 * orrery-versus-bare-server comparison, and the Markdown rendering of a run.
 */

/**
 * Latency samples in milliseconds, kept exactly (a growable Float64Array), so percentiles are
 * exact nearest-rank values rather than bucket estimates.
 */
export class LatencySamples {
  private values = new Float64Array(1024);
  private n = 0;
  private sorted = true;

  /** Records one latency (ms). Non-finite values are refused with a thrown RangeError. */
  record(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`latency must be finite, got ${ms}`);
    if (this.n === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.n++] = ms;
    this.sorted = false;
  }

  /** How many samples were recorded. */
  get count(): number {
    return this.n;
  }

  /**
   * The nearest-rank p-th percentile (0 < p ≤ 100): the smallest sample such that at least p% of
   * samples are ≤ it. NaN when there are no samples.
   */
  percentile(p: number): number {
    if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
    if (this.n === 0) return NaN;
    if (!this.sorted) {
      this.values.subarray(0, this.n).sort();
      this.sorted = true;
    }
    return this.values[Math.max(0, Math.ceil((p / 100) * this.n) - 1)]!;
  }

  /** The arithmetic mean; NaN when empty. */
  mean(): number {
    if (this.n === 0) return NaN;
    let s = 0;
    for (let i = 0; i < this.n; i++) s += this.values[i]!;
    return s / this.n;
  }

  /** count, mean, p50, p90, p99, max in one object (NaN fields when empty). */
  summary(): LatencySummary {
    return {
      count: this.n,
      mean: this.mean(),
      p50: this.percentile(50),
      p90: this.percentile(90),
      p99: this.percentile(99),
      max: this.n === 0 ? NaN : this.percentile(100),
    };
  }
}

/** A latency distribution summary, in milliseconds. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** One load run (orrery or the bare server) of one request scenario. */
export interface LoadRun {
  /** Completed responses per second over the measured window. */
  requestsPerSecond: number;
  latency: LatencySummary;
  /** Connection errors and timeouts. */
  errors: number;
  /** Responses with a status outside 2xx. */
  non2xx: number;
  /** Response counts by HTTP status. */
  statusCodes: Record<string, number>;
  /** Bytes of the response body of a representative request. */
  responseBytes: number;
  /** Share of one core used by the server process during the measured window (1 = one full core); NaN if unknown. */
  serverCpu: number;
  /** Share of one core used by the load generator (this process); NaN if unknown. */
  clientCpu: number;
  /** Cores' worth of CPU used by every other process on the machine meanwhile; NaN if unknown. */
  otherCpu: number;
  durationSeconds: number;
}

/** One request scenario: orrery against a bare node:https server returning a body of the same size. */
export interface ScenarioResult {
  name: string;
  description: string;
  orrery: LoadRun;
  baseline: LoadRun;
  /** orrery req/s ÷ bare req/s. */
  ratio: number;
  /** The minimum ratio the project aims for, when there is one. */
  targetRatio?: number;
}

/** The watch delivery scenario. */
export interface WatchResult {
  /** broadcast: every watcher sees every write; selective: each write reaches one watcher (kubelet-like label selectors). */
  mode?: 'broadcast' | 'selective';
  watchers: number;
  /** Watch streams that reached 200 OK. */
  watchersEstablished: number;
  /** Seconds taken to open all watch streams. */
  connectSeconds: number;
  targetEventsPerSecond: number;
  /** Writes per second acknowledged with 2xx during the measured window. */
  achievedEventsPerSecond: number;
  /**
   * Writes sent in the measured window: acknowledged with 2xx (`measured`), failed (non-2xx or
   * connection error), still unanswered when the benchmark gave up waiting, and skipped because
   * too many writes were already in flight.
   */
  writes: { measured: number; failed: number; unacknowledged: number; skipped: number; latency: LatencySummary };
  /** Events expected (measured writes × established watchers) and received. */
  expectedDeliveries: number;
  delivered: number;
  /** Events (of any write, warm-up included) received by all watchers per second during the measured window: the delivery throughput reached. */
  receivedPerSecond: number;
  /** Streams that ended (or reported an ERROR event) before the benchmark closed them. */
  streamsEndedEarly: number;
  errorEvents: number;
  /** From the write's send time (the annotation it carries) to a watcher parsing the event. */
  fromSent: LatencySummary;
  /** From the write's acknowledgement (its response) to a watcher parsing the event; 0 when the event came first. */
  fromAck: LatencySummary;
  targetP99Ms: number;
  serverCpu: number;
  clientCpu: number;
  /** Cores' worth of CPU used by every other process on the machine meanwhile; NaN if unknown. */
  otherCpu: number;
  /** p99 of the load generator's event-loop delay (ms): when high, the client, not the server, limited delivery. */
  clientEventLoopDelayP99Ms: number;
  durationSeconds: number;
}

/** Facts about the machine and the run, printed above the tables. */
export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  loadAverage: number[];
  /** 1/5/15-minute load average when the run ended. */
  loadAverageAtEnd?: number[];
  /** How processes were placed on CPUs, e.g. "server cpu 1, load generator cpu 0", or "not pinned". */
  pinning: string;
}

/** Everything one benchmark run produced; written as JSON and rendered as Markdown. */
export interface BenchReport {
  startedAt: string;
  command: string;
  settings: { durationSeconds: number; warmupSeconds: number; connections: number };
  machine: MachineFacts;
  scenarios: ScenarioResult[];
  /** One watch delivery run per configured write rate, in the order they ran. */
  watches: WatchResult[];
  /** Scenarios that could not run, with the reason. */
  failures: { name: string; error: string }[];
}

/** a ÷ b, NaN when b is not positive. */
export function ratioOf(a: number, b: number): number {
  return b > 0 ? a / b : NaN;
}

/** A number with thousands separators and the given decimals; "–" for NaN/undefined. */
export function fmtNumber(v: number | undefined, decimals = 0): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Milliseconds with a precision that suits their size (0.12, 1.23, 12.3, 123). */
export function fmtMs(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  if (v < 10) return v.toFixed(2);
  if (v < 100) return v.toFixed(1);
  return fmtNumber(v, 0);
}

/** A ratio as a whole percentage ("37%"); "–" when NaN. */
export function fmtPercent(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  return `${Math.round(v * 100)}%`;
}

/** A byte count as B, KiB or MiB. */
export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

/** "met" / "missed" against a minimum (higher is better), "" without a target. */
export function verdictAtLeast(value: number, target: number | undefined): string {
  if (target === undefined) return '';
  return value >= target ? 'met' : 'missed';
}

/**
 * A GitHub-flavoured Markdown table. Cells containing `|` are escaped; every row is padded or
 * cut to the header's width.
 */
export function markdownTable(header: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const line = (cells: string[]) => `| ${header.map((_, i) => esc(cells[i] ?? '')).join(' | ')} |`;
  const rule = `|${header.map((_, i) => (align?.[i] === 'r' ? '---:' : '---')).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/**
 * The watch target: p99 from send within `targetP99Ms`, every expected event delivered, and
 * every write of the measured window sent and acknowledged.
 */
export function watchTargetMet(w: WatchResult): boolean {
  const writesOk = w.writes.measured > 0 && w.writes.failed + w.writes.unacknowledged + w.writes.skipped === 0;
  return writesOk && Number.isFinite(w.fromSent.p99) && w.fromSent.p99 <= w.targetP99Ms && w.delivered === w.expectedDeliveries;
}

/** A load generator using at least this share of its core is taken to have limited the run. */
export const CLIENT_BOUND = 0.9;

/** Whether the load generator, not the server, probably limited this run (client CPU ≥ CLIENT_BOUND). */
export function clientBound(run: LoadRun): boolean {
  return run.clientCpu >= CLIENT_BOUND;
}

/** Above this many cores' worth of CPU used by other processes in a measured window, the report warns. */
export const OTHER_CPU_WARNING = 0.25;

/** The Markdown report of a run: machine facts, the request table, the watch table, failures. */
export function renderMarkdown(r: BenchReport): string {
  const m = r.machine;
  const out: string[] = [];
  out.push(`## orrery API server benchmark — ${r.startedAt}`);
  out.push('');
  out.push(`Command: \`${r.command}\``);
  out.push('');
  out.push(
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB.toFixed(0)} GiB, Node ${m.node}, ${m.platform}; ` +
      `load average at start ${m.loadAverage.map((x) => x.toFixed(2)).join(' ')}` +
      (m.loadAverageAtEnd ? `, at end ${m.loadAverageAtEnd.map((x) => x.toFixed(2)).join(' ')}` : '') +
      `; ${m.pinning}. ` +
      `Each scenario: ${r.settings.warmupSeconds} s warm-up, then ${r.settings.durationSeconds} s measured, ` +
      `${r.settings.connections} keep-alive HTTPS connections (autocannon). ` +
      `"bare" is a node:https server with the same certificate answering a static JSON body of the same size.`,
  );
  out.push('');
  const others = [...r.scenarios.flatMap((s) => [s.orrery.otherCpu, s.baseline.otherCpu]), ...r.watches.map((w) => w.otherCpu)];
  const busiest = Math.max(0, ...others.filter(Number.isFinite));
  if (busiest > OTHER_CPU_WARNING) {
    out.push(
      `> Warning: other processes used up to ${fmtPercent(busiest)} of a core during a measured window (column "other"): ` +
        `they competed with the servers, so these numbers, ratios included, are less reliable.`,
    );
    out.push('');
  }
  if (r.scenarios.length > 0) out.push(requestTable(r));
  return renderRest(r, out);
}

function requestTable(r: BenchReport): string {
  const header = ['scenario', 'response', 'orrery req/s', 'p50 ms', 'p99 ms', 'errors / non-2xx', 'bare req/s', 'bare p99 ms', 'ratio', 'target', 'CPU server / client / other', 'bare CPU server / client'];
  const rows = r.scenarios.map((s) => [
    s.description,
    fmtBytes(s.orrery.responseBytes),
    fmtNumber(s.orrery.requestsPerSecond),
    fmtMs(s.orrery.latency.p50),
    fmtMs(s.orrery.latency.p99),
    `${s.orrery.errors} / ${s.orrery.non2xx}`,
    `${fmtNumber(s.baseline.requestsPerSecond)}${clientBound(s.baseline) ? '*' : ''}`,
    fmtMs(s.baseline.latency.p99),
    fmtPercent(s.ratio),
    s.targetRatio === undefined ? '' : `≥ ${fmtPercent(s.targetRatio)} ${verdictAtLeast(s.ratio, s.targetRatio)}`,
    `${fmtPercent(s.orrery.serverCpu)} / ${fmtPercent(s.orrery.clientCpu)} / ${fmtPercent(s.orrery.otherCpu)}`,
    `${fmtPercent(s.baseline.serverCpu)} / ${fmtPercent(s.baseline.clientCpu)}`,
  ]);
  const table = markdownTable(header, rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r']);
  if (!r.scenarios.some((s) => clientBound(s.baseline))) return table;
  return `${table}\n\n\\* the load generator used ≥ ${fmtPercent(CLIENT_BOUND)} of its core against the bare server, so that req/s is a lower bound and the ratio an upper bound.`;
}

function renderRest(r: BenchReport, out: string[]): string {
  if (r.watches.length > 0) {
    const w0 = r.watches[0]!;
    out.push('');
    out.push(
      `Watch delivery: ${fmtNumber(w0.watchers)} HTTPS watch streams (\`?watch=1&resourceVersion=RV\`) on configmaps in one namespace, ` +
        `one client process; a writer patching (4 of 5) or creating (1 of 5) configmaps at the given rate, open-loop, ` +
        `each write carrying its send time in an annotation; ${w0.durationSeconds} s measured after ${r.settings.warmupSeconds} s warm-up. ` +
        `Latency is from the write's send time (and from its acknowledgement) to a watcher reading the event. ` +
        `Mode broadcast: every watcher sees every write (deliveries = writes × watchers). Mode selective: watcher i watches with ` +
        `\`labelSelector=bench.orrery.io/watcher=i\` and writes only patch the one configmap carrying that label, as each kubelet watches its own pods ` +
        `(deliveries = writes; the server still evaluates every watcher's selector for every write).`,
    );
    out.push('');
    const wh = [
      'mode',
      'watchers open',
      'writes/s target (acked)',
      'writes failed / unanswered / skipped',
      'write p99 ms',
      'events received/s',
      'delivered / expected',
      'ended early / ERROR',
      'p50 ms from sent',
      'p99 ms from sent',
      'p50 ms from ack',
      'p99 ms from ack',
      'target p99',
      'CPU server / client / other',
      'client loop delay p99 ms',
    ];
    const rows = r.watches.map((w) => [
      w.mode ?? 'broadcast',
      `${fmtNumber(w.watchersEstablished)} (${w.connectSeconds.toFixed(1)} s)`,
      `${fmtNumber(w.targetEventsPerSecond)} (${fmtNumber(w.achievedEventsPerSecond)})`,
      `${w.writes.failed} / ${w.writes.unacknowledged} / ${w.writes.skipped}`,
      fmtMs(w.writes.latency.p99),
      fmtNumber(w.receivedPerSecond),
      `${fmtNumber(w.delivered)} / ${fmtNumber(w.expectedDeliveries)} (${fmtPercent(ratioOf(w.delivered, w.expectedDeliveries))})`,
      `${w.streamsEndedEarly} / ${w.errorEvents}`,
      fmtMs(w.fromSent.p50),
      fmtMs(w.fromSent.p99),
      fmtMs(w.fromAck.p50),
      fmtMs(w.fromAck.p99),
      `≤ ${w.targetP99Ms} ms ${watchTargetMet(w) ? 'met' : 'missed'}`,
      `${fmtPercent(w.serverCpu)} / ${fmtPercent(w.clientCpu)} / ${fmtPercent(w.otherCpu)}`,
      fmtMs(w.clientEventLoopDelayP99Ms),
    ]);
    out.push(markdownTable(wh, rows, ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r']));
  }
  if (r.failures.length > 0) {
    out.push('');
    out.push('Failed scenarios:');
    for (const f of r.failures) out.push(`- ${f.name}: ${f.error}`);
  }
  out.push('');
  return out.join('\n');
}

/** A file-name-safe UTC timestamp: 2024-05-01T12-30-05Z. */
export function fileTimestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
}
