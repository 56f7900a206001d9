import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Client } from '../client/client.ts';
import { HttpTransport } from '../client/http-transport.ts';
import { loadKubeconfig } from '../client/kubeconfig.ts';
import { LeaderElector, type LeaderElectionConfig } from '../client/leaderelection.ts';
import { realClock } from '../machinery/clock.ts';
import { CryptoRng, type Rng } from '../machinery/rng.ts';
import { parseSchedulerConfig, type SchedulerConfig } from './config.ts';
import { Scheduler, type SchedulingDecision } from './scheduler.ts';

/** The Lease kube-scheduler elects its leader on. */
export const SCHEDULER_LEASE = { namespace: 'kube-system', name: 'kube-scheduler' } as const;

/** Options of {@link runLiveScheduler}. */
export interface LiveSchedulerOptions {
  /** Kubeconfig of the API server (its current context). */
  kubeconfigPath: string;
  /** A KubeSchedulerConfiguration file (`--config`); Kubernetes' default profile without it. */
  configPath?: string;
  /** `--leader-elect`: campaign on the Lease kube-system/kube-scheduler first (default: the config's `leaderElection.leaderElect`, true without a file). */
  leaderElect?: boolean;
  /** Holder identity (default `<hostname>_<uuid>`, as kube-scheduler). */
  identity?: string;
  /** Leader election timing overrides (`--leader-elect-lease-duration` etc., seconds). */
  leaderElection?: Pick<LeaderElectionConfig, 'leaseDurationSeconds' | 'renewDeadlineSeconds' | 'retryPeriodSeconds'>;
  /** `--kube-api-qps` / `--kube-api-burst` (default 50 / 100, kube-scheduler's defaults). */
  qps?: number;
  burst?: number;
  rng?: Rng;
  /** Told about every scheduling decision. */
  onDecision?(d: SchedulingDecision): void;
  /** Told about failures that do not stop the scheduler. */
  onError?(err: unknown): void;
  /** Told when this instance starts (true) or stops (false) leading. */
  onLeading?(leading: boolean): void;
}

/** A running live scheduler. */
export interface LiveScheduler {
  /** Stops scheduling, releases the Lease if leading, closes connections. Idempotent. */
  stop(): Promise<void>;
  /** Whether this instance schedules now (always true once started without leader election). */
  leading(): boolean;
  /** The scheduler while leading (undefined otherwise). */
  scheduler(): Scheduler | undefined;
  readonly identity: string;
}

/** Awaited between scheduling cycles so HTTP responses and watch events get processed. */
function macrotaskYield(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * Runs the scheduler live over HTTP(S) against the API server of a kubeconfig, on the real clock.
 * With leader election it schedules only while holding the Lease `kube-system/kube-scheduler`;
 * when leadership is lost, the scheduler is stopped (its informers too) and the instance campaigns
 * again, starting a fresh scheduler when it next leads. Configuration errors
 * (SchedulerConfigInvalid, KubeconfigInvalid, LeaderElectionConfigInvalid) are thrown before
 * anything starts.
 */
export async function runLiveScheduler(opts: LiveSchedulerOptions): Promise<LiveScheduler> {
  const config: SchedulerConfig | undefined = opts.configPath ? parseSchedulerConfig(readFileSync(opts.configPath, 'utf8')) : undefined;
  const leaderElect = opts.leaderElect ?? config?.leaderElect ?? true;
  const rng = opts.rng ?? new CryptoRng();
  const identity = opts.identity ?? `${hostname()}_${rng.uuid()}`;
  const transport = new HttpTransport(loadKubeconfig(opts.kubeconfigPath), { userAgent: 'orrery-scheduler/v1.27.0' });
  const client = new Client({ transport, qps: opts.qps ?? 50, burst: opts.burst ?? 100, clock: realClock, userAgent: 'orrery-scheduler/v1.27.0' });

  let current: Scheduler | undefined;
  let starting: Promise<void> | undefined;
  let stopped = false;
  const newScheduler = () =>
    new Scheduler({
      client,
      clock: realClock,
      rng,
      profiles: config?.profiles,
      podInitialBackoffMs: config?.podInitialBackoffMs,
      podMaxBackoffMs: config?.podMaxBackoffMs,
      yieldBetweenCycles: macrotaskYield,
      onDecision: opts.onDecision,
      onError: opts.onError,
      identity,
    });
  const startScheduling = () => {
    const s = newScheduler();
    current = s;
    starting = s.start().catch((e) => opts.onError?.(e));
    opts.onLeading?.(true);
  };
  const stopScheduling = async () => {
    const s = current;
    if (!s) return;
    current = undefined;
    await starting;
    await s.stop();
    opts.onLeading?.(false);
  };

  let elector: LeaderElector | undefined;
  let campaigns: Promise<void> | undefined;
  if (!leaderElect) startScheduling();
  else {
    const cfg: LeaderElectionConfig = {
      lockNamespace: SCHEDULER_LEASE.namespace,
      lockName: SCHEDULER_LEASE.name,
      identity,
      ...opts.leaderElection,
      clock: realClock,
      rng,
      callbacks: { onStartedLeading: () => startScheduling() },
    };
    elector = new LeaderElector(client, cfg);
    campaigns = (async () => {
      while (!stopped) {
        await elector!.run();
        await stopScheduling();
        if (!stopped) elector = new LeaderElector(client, cfg);
      }
    })();
  }

  let stopping: Promise<void> | undefined;
  return {
    identity,
    leading: () => current !== undefined,
    scheduler: () => current,
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        if (elector) {
          await stopScheduling();
          await elector.stop();
          await campaigns;
        } else await stopScheduling();
        transport.close();
      })()),
  };
}
