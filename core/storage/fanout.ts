/**
 * The watcher fan-out shared by the storage implementations: per-watcher pending queues,
 * asynchronous in-order delivery from a microtask, back-pressure through {@link WatchSink.event}'s
 * return value, and the slow-watcher policy (terminate with TooSlow past a bound, and count it).
 */
import { StorageError, type KeyValue, type StorageEvent, type Watch, type WatchSink, type WatchTrigger } from './interface.ts';

/** Counters of a fan-out, as reported by `stats()` of the storages that use one. */
export interface WatchStats {
  /** Watches currently registered (catching up or live). */
  readonly watchers: number;
  /** Events handed to sinks since the start. */
  readonly eventsDispatched: number;
  /** Watches terminated with StorageError TooSlow because their pending queue overflowed. */
  readonly slowWatchersTerminated: number;
}

/**
 * A synchronous source of past events for a catching-up watcher: the next events under the
 * watcher's prefix with revision strictly greater than `afterRevision`, in revision order, at
 * most `max` of them. An empty answer means "caught up with every change made so far", and the
 * watcher then goes live. A thrown StorageError closes the watcher with that error.
 */
export type CatchUpSource = (afterRevision: number, max: number) => readonly StorageEvent[];

/** Options of {@link WatchFanout}. */
export interface WatchFanoutOptions {
  /** Live events a watcher may have pending before it is terminated with TooSlow (default 10,000). */
  maxPendingPerWatcher?: number;
  /** How many past events a catching-up watcher reads at a time (default 256). */
  catchUpBatch?: number;
}

type Mode = 'idle' | 'catchup' | 'live' | 'done';

/** The live watchers of one prefix: without a trigger, and indexed by trigger function and value. */
interface LiveGroup {
  plain: Set<FanoutWatcher>;
  triggered: Map<(kv: KeyValue) => string | undefined, Map<string, Set<FanoutWatcher>>>;
  size: number;
}

const NONE: ReadonlySet<FanoutWatcher> = new Set();

/** True if `ev` concerns a watcher with this trigger (always true without one). */
export function triggered(t: WatchTrigger | undefined, ev: StorageEvent): boolean {
  if (!t) return true;
  return t.fn(ev.kv) === t.value || (ev.prevKv !== undefined && t.fn(ev.prevKv) === t.value);
}

/**
 * One registered watch. It is the {@link Watch} handed to the caller; the storage that owns the
 * fan-out drives its mode (catching up from a {@link CatchUpSource}, fed by {@link WatchFanout.offer},
 * or live).
 */
export class FanoutWatcher implements Watch {
  /** The revision of the last event queued for this watcher (or the watch's start revision). */
  cursor: number;
  /** Called once when the watch stops or is closed (to release an upstream watch). */
  onStop?: () => void;
  /** Called when the sink can take events again. */
  onResume?: () => void;

  /** @internal */ mode: Mode = 'idle';
  /** @internal */ queue: StorageEvent[] = [];
  /** @internal */ head = 0;
  /** @internal */ paused = false;
  /** @internal */ source?: CatchUpSource;

  constructor(
    private readonly fanout: WatchFanout,
    readonly prefix: string,
    fromRevision: number,
    readonly sink: WatchSink,
    readonly trigger?: WatchTrigger,
  ) {
    this.cursor = fromRevision;
  }

  /** Stops delivery without calling `sink.close`. Idempotent. */
  stop(): void {
    this.fanout.detach(this);
  }

  /** The sink takes events again; delivery restarts from a microtask. */
  resume(): void {
    if (this.mode === 'done' || !this.paused) return;
    this.paused = false;
    this.fanout.wake(this);
    this.onResume?.();
  }

  /** Number of queued, undelivered events. */
  pending(): number {
    return this.queue.length - this.head;
  }
}

/**
 * Fans storage events out to watchers.
 *
 * Guarantees: each watcher sees events with strictly increasing revisions, each at most once;
 * delivery happens only from a microtask, never inside the `publish` call (so never re-entrantly
 * inside a storage write); watchers are served in registration order, so delivery is
 * deterministic.
 *
 * Slow-watcher policy: when a sink's `event()` returns false the watcher is paused and its live
 * events queue up; `resume()` drains the queue. If a paused watcher has more than
 * `maxPendingPerWatcher` events pending, it is removed, its queue dropped,
 * `slowWatchersTerminated` is incremented and `sink.close(StorageError('TooSlow'))` is called
 * from the next delivery microtask. A watcher that keeps accepting is never terminated, however
 * large a burst of synchronous writes (its queue holds references to shared events). A
 * catching-up watcher reads past events only while it is not paused, so catching up never
 * overflows.
 */
export class WatchFanout {
  private readonly maxPending: number;
  private readonly batch: number;
  /**
   * Live watchers grouped by prefix, so publishing costs one startsWith per distinct prefix; within
   * a prefix, watchers with a trigger are indexed by trigger function and value, so an event costs
   * one call per distinct function plus the watchers it concerns (not one check per watcher).
   */
  private readonly live = new Map<string, LiveGroup>();
  private readonly all = new Set<FanoutWatcher>();
  private readonly dirty = new Set<FanoutWatcher>();
  private closes: Array<[WatchSink, StorageError]> = [];
  private scheduled = false;
  private dispatched = 0;
  private slowTerminated = 0;

  constructor(opts: WatchFanoutOptions = {}) {
    this.maxPending = opts.maxPendingPerWatcher ?? 10_000;
    this.batch = opts.catchUpBatch ?? 256;
  }

  /** True when at least one watcher is registered (lets writers skip building events). */
  hasWatchers(): boolean {
    return this.all.size > 0;
  }

  /**
   * Registers a watcher starting after `fromRevision`. It receives nothing until the caller puts
   * it live ({@link goLive}), catching up ({@link catchUp}), or feeds it ({@link offer}).
   */
  add(prefix: string, fromRevision: number, sink: WatchSink, trigger?: WatchTrigger): FanoutWatcher {
    const w = new FanoutWatcher(this, prefix, fromRevision, sink, trigger);
    this.all.add(w);
    return w;
  }

  /** Makes `w` receive every published event under its prefix with a revision above its cursor. */
  goLive(w: FanoutWatcher): void {
    if (w.mode === 'done') return;
    w.mode = 'live';
    w.source = undefined;
    let group = this.live.get(w.prefix);
    if (!group) {
      group = { plain: new Set(), triggered: new Map(), size: 0 };
      this.live.set(w.prefix, group);
    }
    group.size++;
    const t = w.trigger;
    if (!t) {
      group.plain.add(w);
      return;
    }
    let byValue = group.triggered.get(t.fn);
    if (!byValue) group.triggered.set(t.fn, (byValue = new Map()));
    let set = byValue.get(t.value);
    if (!set) byValue.set(t.value, (set = new Set()));
    set.add(w);
  }

  /** Makes `w` read past events from `source` (while not paused), then go live when it is caught up. */
  catchUp(w: FanoutWatcher, source: CatchUpSource): void {
    if (w.mode === 'done') return;
    this.leaveLive(w);
    w.mode = 'catchup';
    w.source = source;
    this.wake(w);
  }

  /** Makes `w` receive events only through {@link offer} (e.g. bridged from an upstream watch). */
  goIdle(w: FanoutWatcher): void {
    if (w.mode === 'done') return;
    this.leaveLive(w);
    w.mode = 'idle';
    w.source = undefined;
  }

  /** Queues `ev` for `w` if it is newer than its cursor (and matches its trigger). Returns false when `w`'s sink is backed up. */
  offer(w: FanoutWatcher, ev: StorageEvent): boolean {
    if (w.mode === 'done') return false;
    if (ev.kv.modRevision > w.cursor && triggered(w.trigger, ev)) {
      w.queue.push(ev);
      w.cursor = ev.kv.modRevision;
      this.wake(w);
    }
    return !w.paused;
  }

  /** Queues `ev` for every live watcher whose prefix matches, applying the slow-watcher policy. */
  publish(ev: StorageEvent): void {
    if (this.live.size === 0) return;
    const key = ev.kv.key;
    const rev = ev.kv.modRevision;
    // NOTE: most writes concern no watcher (an idle cluster's Lease renewals): they iterate without
    // entry pairs and queue no delivery microtask.
    for (const prefix of this.live.keys()) {
      if (!key.startsWith(prefix)) continue;
      const group = this.live.get(prefix)!;
      for (const w of group.plain) this.enqueue(w, ev, rev);
      for (const [fn, byValue] of group.triggered) {
        const now = fn(ev.kv);
        const before = ev.prevKv ? fn(ev.prevKv) : undefined;
        if (now !== undefined) for (const w of byValue.get(now) ?? NONE) this.enqueue(w, ev, rev);
        if (before !== undefined && before !== now) for (const w of byValue.get(before) ?? NONE) this.enqueue(w, ev, rev);
      }
    }
    if (this.dirty.size > 0) this.schedule();
  }

  private enqueue(w: FanoutWatcher, ev: StorageEvent, rev: number): void {
    if (rev <= w.cursor) return;
    w.queue.push(ev);
    w.cursor = rev;
    if (!w.paused) this.dirty.add(w);
    else if (w.pending() > this.maxPending) this.terminateSlow(w);
  }

  /**
   * Removes `w` and calls `sink.close(err)` from the next delivery microtask. A TooSlow error
   * (e.g. from an upstream watch that fed `w`) counts as a slow-watcher termination.
   */
  close(w: FanoutWatcher, err: StorageError): void {
    if (w.mode === 'done') return;
    if (err.code === 'TooSlow') this.slowTerminated++;
    this.finish(w, err);
    this.schedule();
  }

  /** Removes every watcher and calls each sink's `close(err)` synchronously. */
  closeAll(err: StorageError): void {
    const sinks: WatchSink[] = [];
    for (const w of [...this.all]) {
      sinks.push(w.sink);
      this.detach(w);
    }
    const pendingCloses = this.closes;
    this.closes = [];
    for (const [sink, e] of pendingCloses) sink.close(e);
    for (const sink of sinks) sink.close(err);
  }

  /** The counters of this fan-out. */
  stats(): WatchStats {
    return { watchers: this.all.size, eventsDispatched: this.dispatched, slowWatchersTerminated: this.slowTerminated };
  }

  /** @internal Removes `w` without closing its sink. */
  detach(w: FanoutWatcher): void {
    if (w.mode === 'done') return;
    this.leaveLive(w);
    w.mode = 'done';
    w.source = undefined;
    w.queue = [];
    w.head = 0;
    this.all.delete(w);
    this.dirty.delete(w);
    const onStop = w.onStop;
    w.onStop = undefined;
    onStop?.();
  }

  /** @internal Marks `w` as having work and schedules delivery. */
  wake(w: FanoutWatcher): void {
    if (w.mode === 'done' || w.paused) return;
    this.dirty.add(w);
    this.schedule();
  }

  private terminateSlow(w: FanoutWatcher): void {
    this.slowTerminated++;
    const err = new StorageError('TooSlow', w.prefix, w.cursor, `watch on ${w.prefix} terminated: more than ${this.maxPending} events pending`);
    this.finish(w, err);
    this.schedule();
  }

  private finish(w: FanoutWatcher, err: StorageError): void {
    this.detach(w);
    this.closes.push([w.sink, err]);
  }

  private leaveLive(w: FanoutWatcher): void {
    if (w.mode !== 'live') return;
    const group = this.live.get(w.prefix);
    if (!group) return;
    const t = w.trigger;
    let removed: boolean;
    if (!t) removed = group.plain.delete(w);
    else {
      const byValue = group.triggered.get(t.fn);
      const set = byValue?.get(t.value);
      removed = set?.delete(w) ?? false;
      if (set && set.size === 0) byValue!.delete(t.value);
      if (byValue && byValue.size === 0) group.triggered.delete(t.fn);
    }
    if (removed) group.size--;
    if (group.size === 0) this.live.delete(w.prefix);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.closes.length > 0) {
      const closes = this.closes;
      this.closes = [];
      for (const [sink, err] of closes) callSafely(() => sink.close(err));
    }
    for (const w of this.dirty) {
      this.dirty.delete(w);
      this.drain(w);
    }
    if (this.closes.length > 0) this.schedule();
  };

  private drain(w: FanoutWatcher): void {
    for (;;) {
      if (w.mode === 'done' || w.paused) return;
      if (w.head < w.queue.length) {
        const ev = w.queue[w.head++];
        if (w.head === w.queue.length) {
          w.queue = [];
          w.head = 0;
        } else if (w.head >= 4096 && w.head * 2 >= w.queue.length) {
          w.queue = w.queue.slice(w.head);
          w.head = 0;
        }
        this.dispatched++;
        let accepted: boolean;
        try {
          accepted = w.sink.event(ev);
        } catch (err) {
          this.detach(w);
          rethrowLater(err);
          return;
        }
        if (accepted === false && (w.mode as Mode) !== 'done') {
          w.paused = true;
          if (w.pending() > this.maxPending) this.terminateSlow(w);
          return;
        }
        continue;
      }
      if (w.mode !== 'catchup' || !w.source) return;
      let events: readonly StorageEvent[];
      try {
        events = w.source(w.cursor, this.batch);
      } catch (err) {
        this.detach(w);
        if (err instanceof StorageError) callSafely(() => w.sink.close(err));
        else rethrowLater(err);
        return;
      }
      if (w.mode !== 'catchup') continue;
      if (events.length === 0) {
        this.goLive(w);
        return;
      }
      const before = w.cursor;
      for (const ev of events) {
        if (ev.kv.modRevision > w.cursor) {
          w.queue.push(ev);
          w.cursor = ev.kv.modRevision;
        }
      }
      if (w.cursor === before) {
        // NOTE: a source that only repeats old events is treated as caught up rather than
        // pulled forever.
        this.goLive(w);
        return;
      }
    }
  }
}

/**
 * A throwing sink or source is a bug in the receiver: its watch is dropped and the error is
 * re-thrown from its own microtask, so it surfaces without disturbing the other watchers.
 */
function rethrowLater(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}

function callSafely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    rethrowLater(err);
  }
}

/**
 * The smallest string greater than every string that starts with `prefix` (JavaScript's UTF-16
 * code-unit order, which equals SQLite's byte order for the ASCII keys Kubernetes uses), or
 * undefined when there is none (empty prefix).
 */
export function prefixEnd(prefix: string): string | undefined {
  let p = prefix;
  while (p.length > 0) {
    const last = p.charCodeAt(p.length - 1);
    if (last < 0xffff) return p.slice(0, -1) + String.fromCharCode(last + 1);
    p = p.slice(0, -1);
  }
  return undefined;
}
