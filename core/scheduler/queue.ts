import type { Clock, TimerHandle } from '../machinery/clock.ts';
import { podKey } from './nodeinfo.ts';

/** A binary heap keyed by a string, with update and delete by key in O(log n). */
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  /** Number of items. */
  get size(): number {
    return this.items.length;
  }

  /** Whether an item with this key is present. */
  has(key: string): boolean {
    return this.index.has(key);
  }

  /** The item stored under `key`. */
  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  /** Adds an item, or replaces the one with the same key and restores heap order. */
  addOrUpdate(item: T): void {
    const key = this.keyOf(item);
    const i = this.index.get(key);
    if (i !== undefined) {
      this.items[i] = item;
      this.fix(i);
      return;
    }
    this.items.push(item);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  /** Removes the item with this key; returns it. */
  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const item = this.items[i];
    const last = this.items.pop()!;
    this.index.delete(key);
    if (i < this.items.length) {
      this.items[i] = last;
      this.index.set(this.keyOf(last), i);
      this.fix(i);
    }
    return item;
  }

  /** The least item, without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Removes and returns the least item. */
  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.delete(this.keyOf(top));
    return top;
  }

  /** Every item, in no particular order. */
  values(): T[] {
    return [...this.items];
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private swap(i: number, j: number): void {
    const a = this.items[i];
    const b = this.items[j];
    this.items[i] = b;
    this.items[j] = a;
    this.index.set(this.keyOf(b), i);
    this.index.set(this.keyOf(a), j);
  }

  private up(i: number): boolean {
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.items[i], this.items[p])) break;
      this.swap(i, p);
      i = p;
    }
    return i !== start;
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(this.items[l], this.items[m])) m = l;
      if (r < n && this.less(this.items[r], this.items[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}

/** A pod waiting in the scheduling queue, with its attempt history. */
export interface QueuedPodInfo {
  pod: any;
  key: string;
  /** When the pod was (re)added to a queue; orders pods of equal priority, and starts its backoff. */
  timestamp: number;
  /** When the pod first entered the queue. */
  initialAttemptTimestamp: number;
  /** Scheduling attempts so far. */
  attempts: number;
  /** Plugins that rejected the pod in its last attempt (empty: any cluster event may help). */
  unschedulablePlugins: Set<string>;
}

/** Cluster events that may make unschedulable pods schedulable. */
export type ClusterEvent = 'NodeAdd' | 'NodeUpdate' | 'NodeDelete' | 'AssignedPodAdd' | 'AssignedPodUpdate' | 'AssignedPodDelete' | 'UnschedulableTimeout';

/** Options of a {@link SchedulingQueue}. */
export interface SchedulingQueueOptions {
  clock: Clock;
  /** First backoff after a failed attempt (`podInitialBackoffSeconds`, default 1 s). */
  podInitialBackoffMs?: number;
  /** Longest backoff (`podMaxBackoffSeconds`, default 10 s). */
  podMaxBackoffMs?: number;
  /** How long a pod may stay unschedulable before it is retried anyway (default 5 min). */
  podMaxInUnschedulablePodsMs?: number;
  /** Which plugins care about which events; plugins not listed care about every event. */
  pluginEvents?: Record<string, readonly ClusterEvent[]>;
}

/** Pod priority (`spec.priority`, 0 when unset). */
export function podPriority(pod: any): number {
  return typeof pod?.spec?.priority === 'number' ? pod.spec.priority : 0;
}

function stripForCompare(pod: any): string {
  const { resourceVersion: _rv, generation: _g, managedFields: _m, ...meta } = pod?.metadata ?? {};
  return JSON.stringify([meta, pod?.spec]);
}

/**
 * Kubernetes' PriorityQueue: activeQ (a heap by priority, then queue timestamp), backoffQ (pods
 * waiting out a per-pod exponential backoff of initial·2^(attempts−1), capped at the maximum) and
 * unschedulable pods (parked until a cluster event that one of their rejecting plugins cares about
 * moves them, or `podMaxInUnschedulablePodsMs` passes). Backoff completion is flushed every
 * second and leftover unschedulable pods every 30 s, on the injected clock. A failed pod whose
 * cycle overlapped a move request goes to backoffQ instead of being parked, so no event is lost.
 */
export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxUnschedulable: number;
  private readonly pluginEvents: Record<string, readonly ClusterEvent[]>;
  readonly activeQ: KeyedHeap<QueuedPodInfo>;
  readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  readonly unschedulablePods = new Map<string, QueuedPodInfo>();
  private readonly inFlight = new Map<string, QueuedPodInfo>();
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private waiters: ((p: QueuedPodInfo | undefined) => void)[] = [];
  private closed = false;
  private timers: TimerHandle[] = [];

  constructor(opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    this.initialBackoff = opts.podInitialBackoffMs ?? 1000;
    this.maxBackoff = opts.podMaxBackoffMs ?? 10_000;
    this.maxUnschedulable = opts.podMaxInUnschedulablePodsMs ?? 5 * 60_000;
    this.pluginEvents = opts.pluginEvents ?? {};
    this.activeQ = new KeyedHeap(
      (p) => p.key,
      (a, b) => {
        const pa = podPriority(a.pod);
        const pb = podPriority(b.pod);
        return pa > pb || (pa === pb && a.timestamp < b.timestamp);
      },
    );
    this.backoffQ = new KeyedHeap(
      (p) => p.key,
      (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b),
    );
  }

  /** Starts the periodic flushes (every 1 s for backoffQ, every 30 s for unschedulable pods). */
  run(): void {
    const every = (ms: number, fn: () => void) => {
      const tick = () => {
        if (this.closed) return;
        fn();
        this.timers.push(this.clock.setTimer(ms, tick));
      };
      this.timers.push(this.clock.setTimer(ms, tick));
    };
    every(1000, () => this.flushBackoffQCompleted());
    every(30_000, () => this.flushUnschedulablePodsLeftover());
  }

  /** Stops timers; pending and future `pop()`s resolve to undefined. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) this.clock.clearTimer(t);
    this.timers = [];
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** The current scheduling cycle number (incremented by each pop). */
  cycle(): number {
    return this.schedulingCycle;
  }

  /** The backoff a pod with this many attempts waits: initial·2^(attempts−1), capped. */
  backoffDuration(attempts: number): number {
    let d = this.initialBackoff;
    for (let i = 1; i < attempts; i++) {
      d *= 2;
      if (d >= this.maxBackoff) return this.maxBackoff;
    }
    return Math.min(d, this.maxBackoff);
  }

  /** When a queued pod's backoff ends. */
  backoffExpiry(p: QueuedPodInfo): number {
    return p.timestamp + this.backoffDuration(p.attempts);
  }

  private isBackingOff(p: QueuedPodInfo): boolean {
    return p.attempts > 0 && this.backoffExpiry(p) > this.clock.now();
  }

  private newInfo(pod: any): QueuedPodInfo {
    const now = this.clock.now();
    return { pod, key: podKey(pod), timestamp: now, initialAttemptTimestamp: now, attempts: 0, unschedulablePlugins: new Set() };
  }

  private pushActive(p: QueuedPodInfo): void {
    const w = this.waiters.shift();
    if (w) {
      this.startAttempt(p);
      w(p);
      return;
    }
    this.activeQ.addOrUpdate(p);
  }

  private startAttempt(p: QueuedPodInfo): void {
    this.schedulingCycle++;
    p.attempts++;
    this.inFlight.set(p.key, p);
  }

  /** A new pending pod: into activeQ (unless already queued, which becomes an update). */
  add(pod: any): void {
    const key = podKey(pod);
    if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulablePods.has(key)) {
      this.update(pod, pod);
      return;
    }
    if (this.inFlight.has(key)) {
      this.inFlight.get(key)!.pod = pod;
      return;
    }
    this.pushActive(this.newInfo(pod));
  }

  /**
   * A pending pod changed. In activeQ or backoffQ it is replaced in place; a parked unschedulable
   * pod whose metadata or spec changed (not just status) moves to backoffQ or activeQ.
   */
  update(oldPod: any, pod: any): void {
    const key = podKey(pod);
    const a = this.activeQ.get(key);
    if (a) {
      a.pod = pod;
      this.activeQ.addOrUpdate(a);
      return;
    }
    const b = this.backoffQ.get(key);
    if (b) {
      b.pod = pod;
      this.backoffQ.addOrUpdate(b);
      return;
    }
    const u = this.unschedulablePods.get(key);
    if (u) {
      const changed = stripForCompare(oldPod) !== stripForCompare(pod);
      u.pod = pod;
      if (!changed) return;
      this.unschedulablePods.delete(key);
      if (this.isBackingOff(u)) this.backoffQ.addOrUpdate(u);
      else this.pushActive(u);
      return;
    }
    const f = this.inFlight.get(key);
    if (f) {
      f.pod = pod;
      return;
    }
    this.pushActive(this.newInfo(pod));
  }

  /** A pod was deleted or bound elsewhere: forget it. */
  delete(pod: any): void {
    const key = podKey(pod);
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulablePods.delete(key);
    this.inFlight.delete(key);
  }

  /** Whether the queue holds (or is scheduling) this pod. */
  has(pod: any): boolean {
    const key = podKey(pod);
    return this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulablePods.has(key) || this.inFlight.has(key);
  }

  /** Resolves with the highest-priority active pod, waiting for one; undefined once closed. */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const p = this.activeQ.pop();
    if (p) {
      this.startAttempt(p);
      return Promise.resolve(p);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The attempt of this pod ended (bound or given up); it leaves the in-flight set. */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * Returns a pod whose attempt failed. It is parked as unschedulable, unless a move request
   * happened during its cycle (then it waits in backoffQ). `unschedulablePlugins` are the plugins
   * that rejected it; an empty set means an error, which always goes to backoffQ.
   */
  addUnschedulableIfNotPresent(p: QueuedPodInfo, podSchedulingCycle: number, unschedulablePlugins: Iterable<string> = []): void {
    this.inFlight.delete(p.key);
    if (this.closed || this.activeQ.has(p.key) || this.backoffQ.has(p.key) || this.unschedulablePods.has(p.key)) return;
    p.timestamp = this.clock.now();
    p.unschedulablePlugins = new Set(unschedulablePlugins);
    if (p.unschedulablePlugins.size === 0 || this.moveRequestCycle >= podSchedulingCycle) {
      this.backoffQ.addOrUpdate(p);
      return;
    }
    this.unschedulablePods.set(p.key, p);
  }

  /** Moves pods whose backoff has ended from backoffQ to activeQ. */
  flushBackoffQCompleted(): void {
    const now = this.clock.now();
    for (;;) {
      const p = this.backoffQ.peek();
      if (!p || this.backoffExpiry(p) > now) return;
      this.backoffQ.pop();
      this.pushActive(p);
    }
  }

  /** Retries pods that stayed unschedulable longer than `podMaxInUnschedulablePodsMs`. */
  flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    const stale = [...this.unschedulablePods.values()].filter((p) => now - p.timestamp > this.maxUnschedulable);
    this.movePods(stale);
  }

  private interested(p: QueuedPodInfo, event: ClusterEvent): boolean {
    if (event === 'UnschedulableTimeout' || p.unschedulablePlugins.size === 0) return true;
    for (const plugin of p.unschedulablePlugins) {
      const events = this.pluginEvents[plugin];
      if (!events || events.includes(event)) return true;
    }
    return false;
  }

  private movePods(pods: QueuedPodInfo[]): void {
    pods.sort((a, b) => a.timestamp - b.timestamp || (a.key < b.key ? -1 : 1));
    for (const p of pods) {
      this.unschedulablePods.delete(p.key);
      if (this.isBackingOff(p)) this.backoffQ.addOrUpdate(p);
      else this.pushActive(p);
    }
  }

  /**
   * A cluster event happened: every parked pod that one of its rejecting plugins cares about
   * moves to activeQ (or backoffQ while still backing off), and pods being scheduled right now
   * will not be parked when they fail.
   */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent): void {
    this.moveRequestCycle = this.schedulingCycle;
    const pods = [...this.unschedulablePods.values()].filter((p) => this.interested(p, event));
    this.movePods(pods);
  }

  /** Counts of each sub-queue. */
  lengths(): { active: number; backoff: number; unschedulable: number; inFlight: number } {
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulablePods.size, inFlight: this.inFlight.size };
  }
}
