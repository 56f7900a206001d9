import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { loadKubeconfig } from '../client/kubeconfig.ts';
import { realClock, type TimerHandle } from '../machinery/clock.ts';
import { parseNodeAgentConfig } from './config.ts';
import type { FleetNodeSpec, FleetWorkerMessage, FleetWorkerResult, FleetWorkerTask } from './fleet-worker.ts';

/** The JavaScript entry piscina loads in each worker (it registers tsx, then loads fleet-worker.ts). */
const WORKER_ENTRY = new URL('./fleet-worker.mjs', import.meta.url).href;

/** A fleet worker thread that failed: its agents are gone, the other workers' agents keep running. */
export class FleetWorkerFailed extends Error {
  readonly code = 'FLEET_WORKER_FAILED';
  constructor(
    readonly worker: number,
    readonly nodeNames: readonly string[],
    cause: unknown,
  ) {
    super(`node agent fleet worker ${worker} (${nodeNames.length} agents: ${nodeNames[0] ?? ''}…${nodeNames[nodeNames.length - 1] ?? ''}) failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'FleetWorkerFailed';
    this.cause = cause;
  }
}

/** Options of {@link runNodeAgentFleet}. */
export interface NodeAgentFleetOptions {
  /** Kubeconfig of the API server (its current context). */
  kubeconfigPath: string;
  /** How many node agents to run. */
  count: number;
  /** Node names are `${namePrefix}${i}` for i in [0, count) (default `orrery-node-`). */
  namePrefix?: string;
  /** A KubeletConfiguration file (`--config`); defaults without it. */
  configPath?: string;
  /** Kubelet flags overriding the file (`max-pods` → `'50'`). */
  flags?: Record<string, string>;
  /** Worker threads (default: min(count, available parallelism)). */
  threads?: number;
  /** Machine capacity of every node (default 4 CPUs, 16Gi memory, 100Gi ephemeral-storage). */
  capacity?: { cpu: string; memory: string; pods?: number; 'ephemeral-storage'?: string };
  /** Simulated image pull time (default 200 ms). */
  pullLatencyMs?: number;
  /** Simulated container start time (default 100 ms). */
  startLatencyMs?: number;
  /** How long `stop()` waits for agents to stop before terminating the threads (default 10 s). */
  stopGracePeriodMs?: number;
  /** Told about a failed worker (default: written to stderr). */
  onWorkerError?(err: FleetWorkerFailed): void;
  /** Told about an agent's failed (and retried) API call or sync, at most once per node per second. */
  onAgentError?(nodeName: string, message: string): void;
}

/** A running fleet. */
export interface NodeAgentFleet {
  /** Resolves when every agent registered its Node; rejects with the failures if any worker failed first. */
  ready: Promise<void>;
  /** Stops every agent (their Nodes stay; they simply go silent), then the worker threads. Never rejects. */
  stop(): Promise<void>;
  /** Nodes registered so far. */
  registered(): number;
  /** Workers that failed so far. */
  failures(): readonly FleetWorkerFailed[];
}

/** The InternalIP of fleet node `i`: consecutive addresses from 172.16.0.2 (up to ~1M nodes). */
export function fleetNodeIP(i: number): string {
  const n = 0xac100000 + 2 + i;
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** The pod range of fleet node `i`: a /24 each from 10.64.0.0 (up to 49,152 nodes). */
export function fleetPodCIDR(i: number): string {
  return `10.${64 + Math.floor(i / 256)}.${i % 256}.0/24`;
}

/**
 * Runs `count` live node agents against the API server of a kubeconfig, spread evenly over
 * piscina worker threads; each worker runs its share as one long-running task with one shared
 * keep-alive HttpTransport. The configuration file and flags are validated here before any thread
 * starts (throwing NodeAgentConfigInvalid / KubeconfigInvalid). A worker that fails is reported
 * through `onWorkerError` and `failures()` and rejects `ready`, while the other workers' agents
 * keep running. `stop()` stops every agent gracefully and destroys the pool, leaving no handles.
 */
export async function runNodeAgentFleet(opts: NodeAgentFleetOptions): Promise<NodeAgentFleet> {
  if (!Number.isInteger(opts.count) || opts.count < 1) throw new RangeError(`count must be a positive integer, got ${opts.count}`);
  const configText = opts.configPath ? readFileSync(opts.configPath, 'utf8') : '';
  const flags = opts.flags ?? {};
  const config = parseNodeAgentConfig(configText, { flags });
  loadKubeconfig(opts.kubeconfigPath);
  const threads = Math.max(1, Math.min(opts.count, opts.threads ?? availableParallelism()));
  const prefix = opts.namePrefix ?? 'orrery-node-';
  const nodes: FleetNodeSpec[] = Array.from({ length: opts.count }, (_, i) => ({
    nodeName: `${prefix}${i}`,
    nodeIP: fleetNodeIP(i),
    ...(config.podCIDR ? {} : { podCIDR: fleetPodCIDR(i) }),
  }));
  const onWorkerError = opts.onWorkerError ?? ((e: FleetWorkerFailed) => process.stderr.write(`${e.message}\n`));

  const pool = new Piscina<FleetWorkerTask, FleetWorkerResult>({ filename: WORKER_ENTRY, minThreads: threads, maxThreads: threads, idleTimeout: 1000, maxQueue: 0 });
  const failures: FleetWorkerFailed[] = [];
  const ports: MessagePort[] = [];
  const readyWorkers = new Set<number>();
  let registered = 0;
  let settleReady!: (err?: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = (err) => (err ? reject(err) : resolve());
  });
  ready.catch(() => undefined);
  const checkReady = () => {
    if (failures.length > 0) settleReady(new AggregateError(failures, failures.map((f) => f.message).join('; ')));
    else if (readyWorkers.size === threads) settleReady();
  };

  const tasks: Promise<void>[] = [];
  for (let w = 0; w < threads; w++) {
    const mine = nodes.filter((_, i) => i % threads === w);
    const channel = new MessageChannel();
    ports.push(channel.port1);
    channel.port1.on('message', (m: FleetWorkerMessage) => {
      if (m.type === 'registered') registered++;
      else if (m.type === 'ready') {
        readyWorkers.add(m.worker);
        checkReady();
      } else if (m.type === 'agentError') opts.onAgentError?.(m.nodeName, m.message);
    });
    const task: FleetWorkerTask = {
      worker: w,
      kubeconfigPath: opts.kubeconfigPath,
      configText,
      flags,
      nodes: mine,
      capacity: opts.capacity ?? { cpu: '4', memory: '16Gi', 'ephemeral-storage': '100Gi' },
      pullLatencyMs: opts.pullLatencyMs ?? 200,
      startLatencyMs: opts.startLatencyMs ?? 100,
      port: channel.port2,
    };
    tasks.push(
      pool.run(task, { transferList: [channel.port2] }).then(
        () => undefined,
        (cause: unknown) => {
          const failure = new FleetWorkerFailed(w, mine.map((n) => n.nodeName), cause);
          failures.push(failure);
          channel.port1.close();
          onWorkerError(failure);
          checkReady();
        },
      ),
    );
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const p of ports) p.postMessage({ type: 'stop' });
      let timer: TimerHandle | undefined;
      const grace = new Promise<void>((r) => (timer = realClock.setTimer(opts.stopGracePeriodMs ?? 10_000, r)));
      await Promise.race([Promise.all(tasks), grace]);
      realClock.clearTimer(timer!);
      for (const p of ports) p.close();
      await pool.destroy();
      settleReady(new Error('node agent fleet stopped before it was ready'));
    })());

  return { ready, stop, registered: () => registered, failures: () => failures };
}
