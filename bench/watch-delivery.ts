/**
 * Watch delivery benchmark: many HTTPS watch streams on configmaps in one namespace, a writer
 * patching/creating configmaps at a fixed rate with each write's send time in an annotation, and
 * the latency from send (and from acknowledgement) to each watcher parsing the event.
 *
 * Also holds the small HTTPS client the benchmark uses to talk to the API server (127.0.0.1 only).
 */
import https from 'node:https';
import type http from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { LatencySamples, type WatchResult } from './report.ts';

/** Where and how to reach the API server: always 127.0.0.1; CA and credentials from its kubeconfig. */
export interface ApiTarget {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly ca: string;
  /** Headers every request carries (Authorization from the kubeconfig's user, when it has one). */
  readonly headers: Record<string, string>;
  /** Client certificate/key from the kubeconfig's user, when it has one. */
  readonly cert?: string;
  readonly key?: string;
}

/** The response of `apiRequest`: status and the whole body as text. */
export interface ApiResponse {
  status: number;
  body: string;
}

/** A keep-alive agent trusting the target's CA, with at most `maxSockets` sockets. */
export function agentFor(target: ApiTarget, maxSockets: number, keepAlive = true): https.Agent {
  return new https.Agent({ keepAlive, maxSockets, ca: target.ca, cert: target.cert, key: target.key });
}

/**
 * One request to the API server; resolves with status and body for any HTTP status, rejects only
 * on connection errors. `body` objects are sent as JSON with `contentType` (default application/json).
 */
export function apiRequest(target: ApiTarget, agent: https.Agent, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json', ...target.headers };
    if (payload !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const req = https.request({ host: target.host, port: target.port, method, path, headers, agent }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The annotation each benchmark write carries. Its value is the write's stamp,
 * `@<send time in epoch ms, 3 decimals>/<write index>`: the `@` (found nowhere else in the
 * benchmark's objects) lets a watcher find it with a one-character search.
 */
export const SENT_AT_ANNOTATION = 'bench.orrery.io/sent-at';

/** The label that ties a seed configmap to its one watcher in selective mode. */
export const WATCHER_LABEL = 'bench.orrery.io/watcher';

/** The annotation value of write `writeIndex` sent at `sentAt` (epoch ms). */
export function benchStamp(sentAt: number, writeIndex: number): string {
  return `@${sentAt.toFixed(3)}/${writeIndex}`;
}

/** What the benchmark needs from one watch event line. */
export interface ScannedWatchEvent {
  /** ADDED, MODIFIED, DELETED, BOOKMARK, ERROR; undefined when the line is not a watch event. */
  type?: string;
  /** The send time (epoch ms) of the write that produced the event, from its stamp. */
  sentAt?: number;
  /** The index of that write, from its stamp. */
  writeIndex?: number;
}

const TYPE_PREFIX = '{"type":"';
const QUOTE = 34;

function typeAt(text: string, start: number, end: number): string | undefined {
  if (!text.startsWith(TYPE_PREFIX, start)) return undefined;
  const from = start + TYPE_PREFIX.length;
  const close = text.indexOf('"', from);
  return close < 0 || close >= end ? undefined : text.slice(from, close);
}

function parseStamp(v: unknown): { sentAt: number; writeIndex: number } | undefined {
  if (typeof v !== 'string' || v[0] !== '@') return undefined;
  const slash = v.indexOf('/');
  const sentAt = Number(v.slice(1, slash));
  const writeIndex = Number(v.slice(slash + 1));
  return slash > 1 && Number.isFinite(sentAt) && Number.isInteger(writeIndex) ? { sentAt, writeIndex } : undefined;
}

/**
 * Reads the type and the write stamp from the watch event in `text[start, end)` (one line of a
 * newline-delimited JSON watch stream). The stamp is found by its `@` without parsing the object;
 * a line without one, or with a malformed one, falls back to JSON.parse. An unparsable line gives `{}`.
 */
export function scanWatchEvent(text: string, start = 0, end = text.length): ScannedWatchEvent {
  const at = text.indexOf('@', start);
  if (at > start && at < end && text.charCodeAt(at - 1) === QUOTE) {
    const close = text.indexOf('"', at);
    if (close > at && close < end) {
      const stamp = parseStamp(text.slice(at, close));
      if (stamp) return { type: typeAt(text, start, end), ...stamp };
    }
  }
  if (text.startsWith('{"type":"ERROR"', start)) return { type: 'ERROR' };
  try {
    const ev = JSON.parse(text.slice(start, end)) as { type?: unknown; object?: { metadata?: { annotations?: Record<string, unknown> } } };
    const stamp = parseStamp(ev.object?.metadata?.annotations?.[SENT_AT_ANNOTATION]);
    return { type: typeof ev.type === 'string' ? ev.type : undefined, ...stamp };
  } catch {
    return {};
  }
}

/** Calls `onLine(text, start, end)` for each complete line of a stream fed chunk by chunk. */
export class LineSplitter {
  private carry = '';

  constructor(private readonly onLine: (text: string, start: number, end: number) => void) {}

  /** Feeds one chunk; complete lines are delivered, a trailing partial line is kept. */
  push(chunk: string): void {
    const text = this.carry.length > 0 ? this.carry + chunk : chunk;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      if (nl > start) this.onLine(text, start, nl);
      start = nl + 1;
    }
    this.carry = start < text.length ? text.slice(start) : '';
  }

  /** The partial line kept so far. */
  get pending(): string {
    return this.carry;
  }
}

/** Options of the watch delivery benchmark. */
export interface WatchDeliveryOptions {
  target: ApiTarget;
  /** Namespace to create (if missing) and watch. */
  namespace: string;
  watchers: number;
  eventsPerSecond: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** How long to wait after the writer stops for the last events (default 10 s). */
  drainSeconds?: number;
  /** Configmaps created before the watches start, patched round-robin (default 100; `watchers` in selective mode). */
  seedObjects?: number;
  /**
   * `broadcast` (default): every watcher sees every event. `selective`: watcher i watches with the
   * label selector `bench.orrery.io/watcher=i` and only seed-i carries that label, as kubelets each
   * watch their own node's pods; every write then reaches exactly one watcher.
   */
  mode?: 'broadcast' | 'selective';
  /** Every Nth write is a create instead of a patch (default 5). */
  createEvery?: number;
  /** Writes in flight beyond which the writer skips (and counts) a due write (default 2 s worth, at least 64). */
  maxInflightWrites?: number;
  /** Watch streams opened at a time (default 50). */
  connectConcurrency?: number;
  /** CPU seconds used so far by the server process, for its utilization. */
  serverCpuSeconds?: () => number;
  /** CPU seconds all CPUs have spent busy, to tell how much other processes used. */
  machineBusyCpuSeconds?: () => number;
  log?: (line: string) => void;
}

const nowEpochMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function ensureNamespace(target: ApiTarget, agent: https.Agent, name: string): Promise<void> {
  const r = await apiRequest(target, agent, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${name}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
}

async function inBatches<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Runs the watch delivery benchmark and resolves with its result. Opens every watch stream from
 * one resourceVersion, writes for warm-up + duration seconds (only writes sent in the measured
 * window count), waits for stragglers up to `drainSeconds`, then closes all streams.
 */
export async function runWatchDelivery(o: WatchDeliveryOptions): Promise<WatchResult> {
  const log = o.log ?? (() => {});
  const selective = o.mode === 'selective';
  const seedObjects = selective ? o.watchers : (o.seedObjects ?? 100);
  const createEvery = selective ? 0 : (o.createEvery ?? 5);
  const drainMs = (o.drainSeconds ?? 10) * 1000;
  const target = o.target;
  const ns = o.namespace;
  const setupAgent = agentFor(target, 16);
  const writeAgent = agentFor(target, 32);
  const watchAgent = agentFor(target, Infinity, false);
  const requests: http.ClientRequest[] = [];
  let closing = false;
  try {
    await ensureNamespace(target, setupAgent, ns);
    const seeds = Array.from({ length: seedObjects }, (_, i) => `seed-${i}`);
    await inBatches(seeds, 16, async (name) => {
      const labels = selective ? { [WATCHER_LABEL]: name.slice('seed-'.length) } : undefined;
      const r = await apiRequest(target, setupAgent, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { payload: 'x'.repeat(64) } });
      if (r.status !== 201 && r.status !== 409) throw new Error(`create configmap ${name}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    });
    const list = await apiRequest(target, setupAgent, 'GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
    if (list.status !== 200) throw new Error(`list configmaps: HTTP ${list.status}: ${list.body.slice(0, 300)}`);
    const rv = (JSON.parse(list.body) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    if (!rv) throw new Error('list configmaps: no metadata.resourceVersion');

    const fromSent = new LatencySamples();
    const fromAck = new LatencySamples();
    const ackAt: number[] = [];
    const beforeAck: number[] = [];
    let measureStart = Infinity;
    let measureEnd = Infinity;
    let delivered = 0;
    let receivedInWindow = 0;
    let streamsEndedEarly = 0;
    let errorEvents = 0;

    const onEvent = (text: string, start: number, end: number, receivedAt: number) => {
      const ev = scanWatchEvent(text, start, end);
      if (ev.type === 'ERROR') {
        errorEvents++;
        return;
      }
      if (ev.sentAt === undefined) return;
      if (receivedAt >= measureStart && receivedAt < measureEnd) receivedInWindow++;
      if (ev.sentAt < measureStart || ev.sentAt >= measureEnd) return;
      delivered++;
      fromSent.record(receivedAt - ev.sentAt);
      const ack = ackAt[ev.writeIndex!];
      if (ack !== undefined) fromAck.record(Math.max(0, receivedAt - ack));
      else beforeAck.push(ev.writeIndex!);
    };

    const pathFor = (i: number) =>
      `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=3600` +
      (selective ? `&labelSelector=${encodeURIComponent(`${WATCHER_LABEL}=${i}`)}` : '');
    const openWatch = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const req = https.request({ host: target.host, port: target.port, method: 'GET', path: pathFor(i), headers: { accept: 'application/json', ...target.headers }, agent: watchAgent }, (res) => {
          if (res.statusCode !== 200) {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => reject(new Error(`watch: HTTP ${res.statusCode}: ${text.slice(0, 300)}`)));
            return;
          }
          res.setEncoding('utf8');
          let receivedAt = 0;
          const splitter = new LineSplitter((text, s, e) => onEvent(text, s, e, receivedAt));
          res.on('data', (chunk: string) => {
            receivedAt = nowEpochMs();
            splitter.push(chunk);
          });
          res.on('end', () => {
            if (!closing) streamsEndedEarly++;
          });
          res.on('error', () => {
            if (!closing) streamsEndedEarly++;
          });
          resolve();
        });
        req.on('error', reject);
        req.end();
        requests.push(req);
      });

    const connectStart = performance.now();
    let established = 0;
    let connectErrors = 0;
    let firstConnectError = '';
    await inBatches(
      Array.from({ length: o.watchers }, (_, i) => i),
      o.connectConcurrency ?? 50,
      async (i) => {
        try {
          await openWatch(i);
          established++;
        } catch (e) {
          connectErrors++;
          firstConnectError ||= (e as Error).message;
        }
      },
    );
    const connectSeconds = (performance.now() - connectStart) / 1000;
    log(`watch: ${established}/${o.watchers} streams open in ${connectSeconds.toFixed(1)} s${connectErrors ? ` (${connectErrors} failed: ${firstConnectError})` : ''}`);
    if (established === 0) throw new Error(`no watch stream could be opened: ${firstConnectError}`);

    const writeLatency = new LatencySamples();
    let measuredAcked = 0;
    let measuredFailed = 0;
    let measuredSent = 0;
    let measuredSkipped = 0;
    let createCounter = 0;
    const maxInflight = o.maxInflightWrites ?? Math.max(64, Math.ceil(2 * o.eventsPerSecond));
    const inflight = new Set<Promise<void>>();
    const write = (k: number) => {
      const sentAt = nowEpochMs();
      const inWindow = sentAt >= measureStart && sentAt < measureEnd;
      if (inflight.size >= maxInflight) {
        if (inWindow) measuredSkipped++;
        return;
      }
      if (inWindow) measuredSent++;
      const stamp = benchStamp(sentAt, k);
      const isCreate = createEvery > 0 && k % createEvery === createEvery - 1;
      const p = (
        isCreate
          ? apiRequest(target, writeAgent, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `w-${createCounter++}`, annotations: { [SENT_AT_ANNOTATION]: stamp } },
              data: { payload: 'x'.repeat(64) },
            })
          : apiRequest(target, writeAgent, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/seed-${k % seedObjects}`, { metadata: { annotations: { [SENT_AT_ANNOTATION]: stamp } } }, 'application/merge-patch+json')
      ).then(
        (r) => {
          const acked = nowEpochMs();
          if (r.status >= 200 && r.status < 300) {
            ackAt[k] = acked;
            if (!inWindow) return;
            measuredAcked++;
            writeLatency.record(acked - sentAt);
          } else if (inWindow) {
            measuredFailed++;
            if (measuredFailed === 1 && !closing) log(`watch: write failed: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
          }
        },
        (e: Error) => {
          if (!inWindow) return;
          measuredFailed++;
          if (measuredFailed === 1 && !closing) log(`watch: write failed: ${e.message}`);
        },
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    };

    const intervalMs = 1000 / o.eventsPerSecond;
    const writeStart = nowEpochMs();
    measureStart = writeStart + o.warmupSeconds * 1000;
    measureEnd = measureStart + o.durationSeconds * 1000;
    let cpuServerStart = NaN;
    let cpuMachineStart = NaN;
    let cpuClientStart: NodeJS.CpuUsage | undefined;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    let k = 0;
    for (;;) {
      const now = nowEpochMs();
      if (cpuClientStart === undefined && now >= measureStart) {
        cpuServerStart = o.serverCpuSeconds?.() ?? NaN;
        cpuMachineStart = o.machineBusyCpuSeconds?.() ?? NaN;
        cpuClientStart = process.cpuUsage();
        loopDelay.enable();
      }
      if (now >= measureEnd) break;
      const due = Math.floor((now - writeStart) / intervalMs) + 1;
      while (k < due) write(k++);
      await sleep(1);
    }
    const cpuServer = (o.serverCpuSeconds?.() ?? NaN) - cpuServerStart;
    const cpuMachine = (o.machineBusyCpuSeconds?.() ?? NaN) - cpuMachineStart;
    const cpuClientUsage = process.cpuUsage(cpuClientStart);
    const cpuClient = (cpuClientUsage.user + cpuClientUsage.system) / 1e6;
    loopDelay.disable();
    const measuredWall = (nowEpochMs() - measureStart) / 1000;
    log(`watch: writer done (${k} writes), waiting for acknowledgements and deliveries`);

    const drainDeadline = nowEpochMs() + drainMs;
    while (inflight.size > 0 && nowEpochMs() < drainDeadline) await sleep(20);
    const expected = selective ? measuredAcked : measuredAcked * established;
    while (delivered < expected && nowEpochMs() < drainDeadline) await sleep(50);

    for (const w of beforeAck) if (ackAt[w] !== undefined) fromAck.record(0);

    return {
      mode: selective ? 'selective' : 'broadcast',
      watchers: o.watchers,
      watchersEstablished: established,
      connectSeconds,
      targetEventsPerSecond: o.eventsPerSecond,
      achievedEventsPerSecond: measuredAcked / o.durationSeconds,
      writes: {
        measured: measuredAcked,
        failed: measuredFailed,
        unacknowledged: measuredSent - measuredAcked - measuredFailed,
        skipped: measuredSkipped,
        latency: writeLatency.summary(),
      },
      expectedDeliveries: expected,
      delivered,
      receivedPerSecond: receivedInWindow / o.durationSeconds,
      streamsEndedEarly,
      errorEvents,
      fromSent: fromSent.summary(),
      fromAck: fromAck.summary(),
      targetP99Ms: 100,
      serverCpu: cpuServer / measuredWall,
      clientCpu: cpuClient / measuredWall,
      otherCpu: Math.max(0, cpuMachine - cpuServer - cpuClient) / measuredWall,
      clientEventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      durationSeconds: o.durationSeconds,
    };
  } finally {
    closing = true;
    for (const r of requests) r.destroy();
    setupAgent.destroy();
    writeAgent.destroy();
    watchAgent.destroy();
  }
}
