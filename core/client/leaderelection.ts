import { realClock, type Clock, type TimerHandle } from '../machinery/clock.ts';
import type { Rng } from '../machinery/rng.ts';
import { isAlreadyExists, isConflict, isNotFound, type Client, type ResourceClient } from './client.ts';
import { formatMicroTime } from '../machinery/time.ts';

/** The `--leader-elect-resource-lock` values Kubernetes accepts; all use a Lease here. */
export const RESOURCE_LOCKS = ['leases', 'endpointsleases', 'configmapsleases'] as const;

/** Leader election settings, named after the `--leader-elect-*` options. */
export interface LeaderElectionConfig {
  /** `--leader-elect-resource-namespace`. */
  lockNamespace: string;
  /** `--leader-elect-resource-name`. */
  lockName: string;
  /** This candidate's identity (holderIdentity). */
  identity: string;
  /** `--leader-elect-lease-duration`, seconds (default 15). */
  leaseDurationSeconds?: number;
  /** `--leader-elect-renew-deadline`, seconds (default 10, must be below the lease duration). */
  renewDeadlineSeconds?: number;
  /** `--leader-elect-retry-period`, seconds (default 2). */
  retryPeriodSeconds?: number;
  /** `--leader-elect-resource-lock` (default `leases`). */
  resourceLock?: string;
  /** Clear the holder when stopped gracefully while leading (default true). */
  releaseOnCancel?: boolean;
  callbacks?: LeaderCallbacks;
  clock?: Clock;
  /** Jitters the retry period by up to 20 % as client-go does; none when absent. */
  rng?: Rng;
}

/** What a candidate is told. */
export interface LeaderCallbacks {
  /** Became leader; `signal` aborts when leadership ends. */
  onStartedLeading?(signal: AbortSignal): void;
  /** Stopped being leader (lost the lease, or stopped). */
  onStoppedLeading?(): void;
  /** The observed leader changed (including to this candidate). */
  onNewLeader?(identity: string): void;
}

/** A leader election setting is invalid; `option` names the offending `--leader-elect-*` option. */
export class LeaderElectionConfigInvalid extends Error {
  readonly code = 'LEADER_ELECTION_CONFIG_INVALID';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`${option}: ${message}`);
    this.name = 'LeaderElectionConfigInvalid';
  }
}

/** Jitter factor client-go applies to the retry period, which the renew deadline must exceed. */
const JITTER_FACTOR = 1.2;

/** Resolves defaults and validates; throws LeaderElectionConfigInvalid naming the option. */
export function validateLeaderElectionConfig(cfg: LeaderElectionConfig): Required<Pick<LeaderElectionConfig, 'leaseDurationSeconds' | 'renewDeadlineSeconds' | 'retryPeriodSeconds' | 'resourceLock'>> {
  const leaseDurationSeconds = cfg.leaseDurationSeconds ?? 15;
  const renewDeadlineSeconds = cfg.renewDeadlineSeconds ?? 10;
  const retryPeriodSeconds = cfg.retryPeriodSeconds ?? 2;
  const resourceLock = cfg.resourceLock ?? 'leases';
  if (!(leaseDurationSeconds > 0)) throw new LeaderElectionConfigInvalid('leader-elect-lease-duration', `must be greater than zero, got ${leaseDurationSeconds}s`);
  if (!(renewDeadlineSeconds > 0)) throw new LeaderElectionConfigInvalid('leader-elect-renew-deadline', `must be greater than zero, got ${renewDeadlineSeconds}s`);
  if (!(retryPeriodSeconds > 0)) throw new LeaderElectionConfigInvalid('leader-elect-retry-period', `must be greater than zero, got ${retryPeriodSeconds}s`);
  if (!(leaseDurationSeconds > renewDeadlineSeconds)) {
    throw new LeaderElectionConfigInvalid('leader-elect-renew-deadline', `must be less than leader-elect-lease-duration (${renewDeadlineSeconds}s >= ${leaseDurationSeconds}s)`);
  }
  if (!(renewDeadlineSeconds > JITTER_FACTOR * retryPeriodSeconds)) {
    throw new LeaderElectionConfigInvalid('leader-elect-renew-deadline', `must be greater than leader-elect-retry-period * ${JITTER_FACTOR} (${renewDeadlineSeconds}s <= ${JITTER_FACTOR * retryPeriodSeconds}s)`);
  }
  if (!(RESOURCE_LOCKS as readonly string[]).includes(resourceLock)) {
    throw new LeaderElectionConfigInvalid('leader-elect-resource-lock', `unsupported value "${resourceLock}": supported values: ${RESOURCE_LOCKS.map((v) => `"${v}"`).join(', ')}`);
  }
  if (!cfg.lockName) throw new LeaderElectionConfigInvalid('leader-elect-resource-name', 'must not be empty');
  if (!cfg.lockNamespace) throw new LeaderElectionConfigInvalid('leader-elect-resource-namespace', 'must not be empty');
  if (!cfg.identity) throw new LeaderElectionConfigInvalid('identity', 'lock identity is empty');
  return { leaseDurationSeconds, renewDeadlineSeconds, retryPeriodSeconds, resourceLock };
}

export { formatMicroTime };

const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true } as const;

/**
 * One candidate in a leader election on a `coordination.k8s.io/v1` Lease, as client-go's
 * LeaderElector: every retry period it tries to create or take the Lease; it takes a Lease held by
 * someone else only when the holder's record has not changed for a whole lease duration of this
 * candidate's clock (or the holder is empty). The leader renews every retry period and gives up
 * (`onStoppedLeading`) when it could not renew within the renew deadline. On `stop()` a leader
 * releases the Lease by clearing `holderIdentity` (unless `releaseOnCancel` is false), so another
 * candidate takes over at its next retry. Updates carry the resourceVersion read, so two
 * candidates can never both succeed.
 */
export class LeaderElector {
  private readonly clock: Clock;
  private readonly leases: ResourceClient;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private observedRecord = '';
  private observedTime = 0;
  private observedLease?: any;
  private leader = false;
  private reportedLeader = '';
  private stopped = false;
  private sleepTimer?: { handle: TimerHandle; resolve: () => void };
  private running?: Promise<void>;
  private abort?: AbortController;

  constructor(
    client: Client,
    private readonly cfg: LeaderElectionConfig,
  ) {
    const v = validateLeaderElectionConfig(cfg);
    this.clock = cfg.clock ?? realClock;
    this.leases = client.resource(LEASES).namespace(cfg.lockNamespace);
    this.leaseDurationMs = v.leaseDurationSeconds * 1000;
    this.renewDeadlineMs = v.renewDeadlineSeconds * 1000;
    this.retryPeriodMs = v.retryPeriodSeconds * 1000;
  }

  /** Whether this candidate currently holds the lease. */
  isLeader(): boolean {
    return this.leader;
  }

  /** The holder identity last observed ('' when none). */
  getLeader(): string {
    return this.observedLease?.spec?.holderIdentity ?? '';
  }

  /** Starts campaigning; the returned promise resolves when leadership is lost or `stop()` is called. */
  run(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  /** Stops campaigning; releases the lease if leading (and releaseOnCancel); resolves when done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sleepTimer) {
      this.clock.clearTimer(this.sleepTimer.handle);
      this.sleepTimer.resolve();
    }
    await this.running;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const handle = this.clock.setTimer(ms, () => {
        this.sleepTimer = undefined;
        resolve();
      });
      this.sleepTimer = { handle, resolve };
    });
  }

  private retryDelay(): number {
    const rng = this.cfg.rng;
    return rng ? this.retryPeriodMs * (1 + rng.next() * (JITTER_FACTOR - 1)) : this.retryPeriodMs;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (await this.tryAcquireOrRenew()) break;
      await this.sleep(this.retryDelay());
    }
    if (this.stopped) return;
    this.leader = true;
    this.abort = new AbortController();
    try {
      this.cfg.callbacks?.onStartedLeading?.(this.abort.signal);
    } catch {
      /* a callback's failure does not end leadership */
    }
    let lastRenew = this.clock.now();
    while (!this.stopped) {
      await this.sleep(this.retryPeriodMs);
      if (this.stopped) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenew = this.clock.now();
        continue;
      }
      if (this.clock.now() - lastRenew >= this.renewDeadlineMs || (this.getLeader() !== '' && this.getLeader() !== this.cfg.identity)) break;
    }
    if (this.stopped && (this.cfg.releaseOnCancel ?? true)) await this.release();
    this.leader = false;
    this.abort.abort();
    this.cfg.callbacks?.onStoppedLeading?.();
  }

  private observe(lease: any): void {
    const record = JSON.stringify(lease?.spec ?? {});
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedTime = this.clock.now();
    }
    this.observedLease = lease;
    const holder = lease?.spec?.holderIdentity ?? '';
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      try {
        this.cfg.callbacks?.onNewLeader?.(holder);
      } catch {
        /* ignored */
      }
    }
  }

  private spec(now: number, acquireTime: string, transitions: number): any {
    return {
      holderIdentity: this.cfg.identity,
      leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000),
      acquireTime,
      renewTime: formatMicroTime(now),
      leaseTransitions: transitions,
    };
  }

  /** One attempt (client-go's tryAcquireOrRenew): true when this candidate holds the lease after it. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    let current: any;
    try {
      current = await this.leases.get(this.cfg.lockName);
    } catch (err) {
      if (!isNotFound(err)) return false;
      try {
        const created = await this.leases.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.cfg.lockName, namespace: this.cfg.lockNamespace },
          spec: this.spec(now, formatMicroTime(now), 0),
        });
        this.observe(created);
        return true;
      } catch (e) {
        if (!isAlreadyExists(e)) return false;
        return false;
      }
    }
    this.observe(current);
    const spec = current.spec ?? {};
    const holder: string = spec.holderIdentity ?? '';
    const mine = holder === this.cfg.identity;
    if (holder && !mine && this.observedTime + this.leaseDurationMs > now) return false;
    const transitions = mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1;
    const acquireTime = mine && spec.acquireTime ? spec.acquireTime : formatMicroTime(now);
    try {
      const updated = await this.leases.update({ ...current, spec: { ...spec, ...this.spec(now, acquireTime, transitions) } });
      this.observe(updated);
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      return false;
    }
  }

  /** Clears the holder so another candidate can take the lease at once (client-go's release). */
  private async release(): Promise<void> {
    const lease = this.observedLease;
    if (!lease || lease.spec?.holderIdentity !== this.cfg.identity) return;
    const now = this.clock.now();
    try {
      const updated = await this.leases.update({
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: formatMicroTime(now), renewTime: formatMicroTime(now) },
      });
      this.observedLease = updated;
    } catch {
      /* the lease expires by itself */
    }
  }
}
