import { performance } from 'node:perf_hooks';
import { ApiServer } from '../core/apiserver/handler.ts';
import { bootstrap } from '../core/apiserver/housekeeping.ts';
import { lookupResource } from '../core/apiserver/request.ts';
import { Client } from '../core/client/client.ts';
import { defaultNodeAgentConfig } from '../core/nodeagent/config.ts';
import { NodeAgent } from '../core/nodeagent/agent.ts';
import { SimulatedRuntime } from '../core/nodeagent/runtime.ts';
import { Scheduler } from '../core/scheduler/scheduler.ts';
import type { StorageEvent } from '../core/storage/interface.ts';
import { startCompactor } from '../core/storage/compactor.ts';
import { MemoryStorage } from '../core/storage/memory.ts';
import { SqliteStorage } from '../core/storage/sqlite.ts';
import { WatchCache } from '../core/storage/watchcache.ts';
import { SimClock } from './clock.ts';
import { parseDistribution, type Distribution } from './distributions.ts';
import { SimEnvironment } from './env.ts';
import { RngStreams } from './rng.ts';
import { SimNetwork, type LatencySpec } from './transport.ts';

/** Options of a simulated cluster run (`orrery simulate`). */
export interface SimulationOptions {
  nodes: number;
  pods: number;
  seed: string | number;
  /** Record the ordered trace of pod phase changes (and return it). */
  trace?: boolean;
  /** Stop at this virtual time even if not every pod is Running (ms; default 24 h). */
  untilMs?: number;
  /** Each node's capacity (default 32 CPUs, 128Gi, 110 pods). */
  nodeCapacity?: { cpu: string; memory: string };
  /** Each pod's requests (default 100m CPU, 128Mi). */
  podRequests?: { cpu: string; memory: string };
  /** Client → server and server → client latency (default lognormal median 1 ms, p99 10 ms each way). */
  requestLatency?: LatencySpec;
  responseLatency?: LatencySpec;
  /** Container runtime latencies (defaults: pull lognormal median 2 s, p99 10 s; start lognormal median 500 ms, p99 2 s). */
  pullLatency?: unknown;
  startLatency?: unknown;
  /** Pods created at once, at most (the load generator's concurrency; default 100). */
  createConcurrency?: number;
  /**
   * The API server's store under its watch cache: `memory` (default; the in-memory revision log)
   * or `sqlite` (the SQLite log of `orrery serve`, in memory) — same contract, different cost.
   */
  storage?: 'memory' | 'sqlite';
  /** Called after every 5% of the pods reach Running (for progress lines on long runs). */
  onProgress?: (p: { virtualSeconds: number; wallSeconds: number; podsRunning: number; podsScheduled: number; rssMB: number }) => void;
  /**
   * Record Kubernetes Events as the real components do (the node agents' Pulling/Pulled/Created/
   * Started…, the scheduler's Scheduled/FailedScheduling): default true. About four extra writes
   * per pod; false leaves them out.
   */
  events?: boolean;
  /** Pace virtual time to wall time by this factor (1: real time); default as fast as possible. */
  realtime?: number;
  /** After all pods run, keep simulating this much idle virtual time (heartbeats, leases) and report it. */
  idleAfterMs?: number;
  /**
   * Deep-freeze the objects the API server shares with its watchers and in-process clients (the
   * decoded watch events of the simulated network), so a component that mutates one throws instead
   * of corrupting what the others see. For tests: it costs time. Default false.
   */
  freezeShared?: boolean;
  /**
   * Pass decoded objects between the API server and its in-process clients (request bodies,
   * responses, watch events; see sim/README.md) instead of JSON text. Default true; false is the
   * slower path of HTTP clients, with the same trace.
   */
  decodedObjects?: boolean;
}

/** The one-line result of a simulation. */
export interface SimulationSummary {
  nodes: number;
  pods: number;
  seed: string;
  virtualSeconds: number;
  wallSeconds: number;
  events: number;
  podsRunning: number;
  podsScheduled: number;
  podsScheduledPerWallSecond: number;
  podsScheduledPerVirtualSecond: number;
  peakRssMB: number;
  /** The idle stretch after all pods ran, when asked for. */
  idle?: { virtualSeconds: number; wallSeconds: number; events: number };
  /** The trace, when asked for. */
  trace?: readonly string[];
}

/** Thrown for options that cannot describe a cluster, naming the option. */
export class SimulationInvalid extends Error {
  readonly code = 'SIMULATION_INVALID';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`${option}: ${message}`);
    this.name = 'SimulationInvalid';
  }
}

/** Pods per second over the window from the first to the last binding (ms timestamps). */
function rate(count: number, from: number | undefined, to: number | undefined): number {
  if (from === undefined || to === undefined || count === 0) return 0;
  return Math.round((count / Math.max((to - from) / 1000, 0.001)) * 10) / 10;
}

function sampler(spec: unknown, fallback: unknown, option: string): Distribution {
  try {
    return parseDistribution(spec ?? fallback, option);
  } catch (e) {
    throw new SimulationInvalid(option, (e as Error).message);
  }
}

/** The parts every simulated run shares: the clock, the random streams, the API server and its network. */
export interface SimulatedControlPlane {
  clock: SimClock;
  streams: RngStreams;
  storage: WatchCache;
  api: ApiServer;
  net: SimNetwork;
}

/**
 * The real API server (bootstrapped: system namespaces, built-in PriorityClasses) on `env`, over
 * the in-memory revision log (or SQLite) behind a watch cache, reachable through a simulated
 * network with the options' latencies (default lognormal median 1 ms, p99 10 ms each way).
 * Memory stays bounded on long runs: the in-memory log keeps at most 150,000 changes and the watch
 * history 75,000 (their objects, whose JSON is made only if something reads it); over SQLite the
 * history keeps at most 128 MiB of text.
 */
export function simulatedControlPlane(
  env: SimEnvironment,
  o: Pick<SimulationOptions, 'seed' | 'storage' | 'requestLatency' | 'responseLatency' | 'freezeShared' | 'decodedObjects'>,
): SimulatedControlPlane {
  const clock = new SimClock(env);
  const streams = new RngStreams(o.seed);
  const inner = o.storage === 'sqlite' ? new SqliteStorage({ path: ':memory:' }) : new MemoryStorage({ maxLogEntries: 150_000 });
  // NOTE: over the in-memory log the cache reads through it: one index of the keys, not two.
  const storage = new WatchCache(inner, { clock, maxHistoryEvents: 75_000, maxHistoryBytes: 128 * 1024 * 1024, readThrough: o.storage !== 'sqlite' });
  // NOTE: the shared decoded objects of a resource's 20,000 most recent writes stay cached: the next
  // status patch of a pod, and the fan-out of its change, then parse nothing. Most of them are
  // held by the informers anyway. Events are written once and seldom read: 1,000 of them, so the
  // cache alone does not carry them into the old generation.
  const api = new ApiServer({ storage, clock, rng: streams.stream('apiserver'), sharedDecodeLimit: (r) => (r.resource === 'events' ? 1_000 : 20_000) });
  api.registry.freezeShared = o.freezeShared ?? false;
  bootstrap(api.registry);
  const net = new SimNetwork({
    env,
    server: api,
    rngFor: (c) => streams.stream(`network/${c}`),
    requestLatency: o.requestLatency ?? { dist: 'lognormal', median: '1ms', p99: '10ms' },
    responseLatency: o.responseLatency ?? { dist: 'lognormal', median: '1ms', p99: '10ms' },
    decodedBodies: o.decodedObjects,
    decodedResponses: o.decodedObjects,
    decodedWatchEvents: o.decodedObjects,
  });
  return { clock, streams, storage, api, net };
}

/**
 * Assembles a simulated cluster on one discrete-event environment — the real API server (SQLite
 * in memory behind the watch cache), the real scheduler and N real node agents with simulated
 * container runtimes, all talking through the simulated network — creates `pods` pods and runs
 * until every one is Running (or `untilMs`). The same options and seed give the same trace.
 */
export async function runSimulation(o: SimulationOptions): Promise<SimulationSummary> {
  if (!Number.isInteger(o.nodes) || o.nodes < 1) throw new SimulationInvalid('nodes', `must be a positive integer, got ${o.nodes}`);
  if (!Number.isInteger(o.pods) || o.pods < 0) throw new SimulationInvalid('pods', `must be a non-negative integer, got ${o.pods}`);
  if (o.realtime !== undefined && !(o.realtime > 0 && Number.isFinite(o.realtime))) throw new SimulationInvalid('realtime', `must be a positive number, got ${o.realtime}`);
  if (o.storage !== undefined && o.storage !== 'memory' && o.storage !== 'sqlite') throw new SimulationInvalid('storage', `must be memory or sqlite, got ${o.storage}`);
  const wallStart = performance.now();
  let peakRss = process.memoryUsage().rss;
  const env = new SimEnvironment({ trace: o.trace });
  const { clock, streams, storage, api, net } = simulatedControlPlane(env, o);
  // As a real API server does: history older than the watch window (5 min) is compacted, which
  // bounds the revision log and the watch cache over long runs.
  const compactor = startCompactor(storage, { clock, onError: (e) => env.fail(e) });
  const pull = sampler(o.pullLatency, { dist: 'lognormal', median: '2s', p99: '10s' }, 'pullLatency');
  const start = sampler(o.startLatency, { dist: 'lognormal', median: '500ms', p99: '2s' }, 'startLatency');

  // Pod phases, observed from the store's own watch (no client, no latency).
  const phases = new Map<string, string>();
  const bound = new Set<string>();
  let running = 0;
  let scheduled = 0;
  let firstScheduled: { virtual: number; wall: number } | undefined;
  let lastScheduled: { virtual: number; wall: number } | undefined;
  const podPrefix = '/registry/core/pods/';
  const podsResource = lookupResource('', 'v1', 'pods')!;
  storage.watch(
    { prefix: podPrefix, fromRevision: storage.currentRevision() },
    {
      event(ev: StorageEvent) {
        const name = ev.kv.key.slice(podPrefix.length);
        if (ev.type === 'DELETED') {
          if (phases.get(name) === 'Running') running--;
          phases.delete(name);
          bound.delete(name);
          return true;
        }
        // NOTE: the decoded object the API server's own watchers share (parsed once per version).
        const pod = api.registry.decodeShared(podsResource, ev.kv);
        // NOTE: whether the previous version was bound is remembered, not re-parsed from prevKv.
        if (pod.spec?.nodeName && !bound.has(name)) {
          bound.add(name);
          scheduled++;
          firstScheduled ??= { virtual: env.now, wall: performance.now() };
          lastScheduled = { virtual: env.now, wall: performance.now() };
          env.record('scheduled', `${name} ${pod.spec.nodeName}`);
        }
        const phase = pod.status?.phase ?? '';
        const prev = phases.get(name);
        if (phase !== prev) {
          if (prev === 'Running') running--;
          if (phase === 'Running') running++;
          phases.set(name, phase);
          env.record('phase', `${name} ${phase}`);
        }
        return true;
      },
      close() {},
    },
  );

  const config = defaultNodeAgentConfig();
  const capacity = o.nodeCapacity ?? { cpu: '32', memory: '128Gi' };
  const agents: NodeAgent[] = [];
  for (let i = 0; i < o.nodes; i++) {
    const name = `node-${String(i).padStart(5, '0')}`;
    const rng = streams.stream(`node/${name}`);
    const runtime = new SimulatedRuntime({ clock, rng, pullLatency: pull, startLatency: start });
    const agent = new NodeAgent({
      // NOTE: the user agents of the live fleet and scheduler, so field managers are named alike.
      client: new Client({ transport: net.transport(name), qps: -1, clock, userAgent: `orrery-node-agent/v1.27.0 (${name})` }),
      clock,
      rng,
      nodeName: name,
      config,
      capacity,
      runtime,
      nodeIP: `10.${64 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`,
      podCIDR: `10.${128 + (i >> 16)}.${(i >> 8) & 255}.0/24`,
      labels: { 'topology.kubernetes.io/zone': `zone-${i % 3}` },
      ...(o.events === false ? { events: false as const } : {}),
    });
    agents.push(agent);
    env.process(agent.start());
  }
  const scheduler = new Scheduler({ client: new Client({ transport: net.transport('kube-scheduler'), qps: -1, clock, userAgent: 'orrery-scheduler/v1.27.0' }), clock, rng: streams.stream('scheduler'), recordEvents: o.events !== false, decisionHistory: 0 });
  env.process(scheduler.start());

  const load = new Client({ transport: net.transport('load'), qps: -1, clock, userAgent: 'orrery-simulate/v1.27.0' });
  const pods = load.resource({ group: '', version: 'v1', resource: 'pods' }).namespace('default');
  const requests = o.podRequests ?? { cpu: '100m', memory: '128Mi' };
  const concurrency = o.createConcurrency ?? 100;
  let next = 0;
  const createLoop = async () => {
    while (next < o.pods) {
      const i = next++;
      const name = `pod-${String(i).padStart(6, '0')}`;
      for (;;) {
        try {
          await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: `registry.example/app:${i % 10}`, resources: { requests } }] } });
          break;
        } catch (e) {
          if ((e as { reason?: string }).reason === 'AlreadyExists') break;
          await clock.sleep(100);
        }
      }
    }
  };
  // Wait until the nodes registered, then start the load.
  const realtime = o.realtime ? { factor: o.realtime } : undefined;
  await env.run({ until: 10_000, realtime });
  for (let c = 0; c < Math.min(concurrency, o.pods); c++) env.process(createLoop());
  const until = o.untilMs ?? 24 * 3600_000;
  const sampleRss = () => {
    const rss = process.memoryUsage().rss;
    if (rss > peakRss) peakRss = rss;
  };
  const stopAt = (target: number) => () => running >= target || env.now >= until;
  while (running < o.pods && env.now < until) {
    await env.run({ until: stopAt(Math.min(o.pods, running + Math.max(1, Math.ceil(o.pods / 20)))), realtime });
    sampleRss();
    o.onProgress?.({ virtualSeconds: env.now / 1000, wallSeconds: (performance.now() - wallStart) / 1000, podsRunning: running, podsScheduled: scheduled, rssMB: Math.round(process.memoryUsage().rss / 1e6) });
    if (env.pending === 0) break;
  }
  sampleRss();
  const virtualSeconds = env.now / 1000;
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const summary: SimulationSummary = {
    nodes: o.nodes,
    pods: o.pods,
    seed: String(o.seed),
    virtualSeconds: Math.round(virtualSeconds * 1000) / 1000,
    wallSeconds: Math.round(wallSeconds * 1000) / 1000,
    events: env.eventsFired,
    podsRunning: running,
    podsScheduled: scheduled,
    podsScheduledPerWallSecond: rate(scheduled, firstScheduled?.wall, lastScheduled?.wall),
    podsScheduledPerVirtualSecond: rate(scheduled, firstScheduled?.virtual, lastScheduled?.virtual),
    peakRssMB: Math.round(peakRss / 1e6),
  };
  if (o.idleAfterMs && o.idleAfterMs > 0) {
    const w0 = performance.now();
    const e0 = env.eventsFired;
    await env.run({ until: env.now + o.idleAfterMs, realtime });
    sampleRss();
    summary.idle = { virtualSeconds: o.idleAfterMs / 1000, wallSeconds: Math.round(((performance.now() - w0) / 1000) * 1000) / 1000, events: env.eventsFired - e0 };
    summary.peakRssMB = Math.round(peakRss / 1e6);
  }
  if (o.trace) summary.trace = env.trace();
  // Components stop through their clients, which need the environment to keep running.
  let stopped = false;
  env.process(
    (async () => {
      await scheduler.stop();
      await Promise.all(agents.map((a) => a.stop()));
      stopped = true;
    })(),
  );
  compactor.stop();
  await env.run({ until: () => stopped || env.pending === 0 });
  storage.close();
  return summary;
}
