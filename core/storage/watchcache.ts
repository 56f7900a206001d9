/**
 * The watch cache (Kubernetes' cacher): a {@link Storage} that wraps another one, serves reads of
 * the current state and watches from memory, and writes through.
 */
import { realClock, type Clock } from '../machinery/clock.ts';
import {
  StorageError,
  type KeyValue,
  type StoredValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type Watch,
  type WatchOptions,
  type WatchSink,
} from './interface.ts';
import { WatchFanout, type CatchUpSource, type FanoutWatcher, type WatchStats } from './fanout.ts';
import { SortedEntries } from './sorted.ts';

/** Options of {@link WatchCache}. */
export interface WatchCacheOptions {
  /** Times the history window (default: the wall clock). */
  clock?: Clock;
  /** How long recent events stay in the in-memory history (default 5 minutes). */
  historyWindowMs?: number;
  /** At most this many events in the in-memory history (default 100,000). */
  maxHistoryEvents?: number;
  /**
   * At most this many characters of keys and values (kv and prevKv, counted per event) in the
   * in-memory history (default: no bound). Watches starting before the history read `inner`.
   * Deferred values (see DeferredValue) count only their keys: `maxHistoryEvents` bounds them.
   */
  maxHistoryBytes?: number;
  /** Slow-watcher bound: pending live events per watcher before it is terminated (default 10,000). */
  maxPendingPerWatcher?: number;
  /**
   * Serve reads of the current state from `inner` instead of a copy of it: for an in-memory
   * `inner` (MemoryStorage) whose current reads cost what the cache's own would, so every key is
   * indexed once, not twice. The cache then keeps only its history and watchers. Default false.
   */
  readThrough?: boolean;
}

/**
 * The resource part of a key or prefix (`/registry/core/pods/` of `/registry/core/pods/ns/name`):
 * up to and including its fourth `/`; undefined for shorter ones.
 */
function resourcePrefix(key: string): string | undefined {
  let i = -1;
  for (let n = 0; n < 4; n++) {
    i = key.indexOf('/', i + 1);
    if (i < 0) return undefined;
  }
  return key.slice(0, i + 1);
}

/** The history events of one resource, in revision order, from `head`. */
interface ResourceHistory {
  /** The resource prefix (see {@link resourcePrefix}). */
  prefix: string;
  events: StorageEvent[];
  head: number;
}

function bisectAfter(h: readonly StorageEvent[], lo: number, after: number): number {
  let hi = h.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (h[mid].kv.modRevision <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The characters of a value's text; 0 for a deferred value, whose text may never be made. */
function valueBytes(kv: KeyValue): number {
  return kv.deferred === undefined ? kv.value.length : 0;
}

function eventBytes(ev: StorageEvent): number {
  return ev.kv.key.length + valueBytes(ev.kv) + (ev.prevKv ? valueBytes(ev.prevKv) : 0);
}

/**
 * A {@link Storage} that caches another one (the Kubernetes cacher pattern).
 *
 * - Writes go to `inner` first; when it succeeds the cache updates its in-memory current state
 *   and appends the event to its history. The cache must therefore be the only writer of
 *   `inner`: writes that bypass it are not seen.
 * - get/list/count at the current revision are served from memory (a sorted key index with a
 *   slot per key), or with `readThrough` from `inner`'s own; reads at an older revision are
 *   delegated to `inner`.
 * - The history keeps the events of the last `historyWindowMs` (by the injected clock), at most
 *   `maxHistoryEvents`. A watch starting inside the history is served from it and then live; a
 *   watch starting before it (but not before `inner`'s compacted revision) catches up through a
 *   watch on `inner` and switches to the history once it reaches it; before the compacted
 *   revision: StorageError Compacted; after the current revision: FutureRevision.
 * - Delivery is asynchronous (from a microtask), in revision order, never inside a write call.
 *
 * Slow-watcher policy: when a sink's `event()` returns false the cache stops pushing to it and
 * queues its events; `resume()` drains the queue. A paused watcher with more than
 * `maxPendingPerWatcher` queued events is terminated: its queue is dropped, `sink.close` gets
 * StorageError TooSlow (from a microtask), and `stats().slowWatchersTerminated` is incremented.
 * A watcher that keeps accepting is never terminated, however large a burst of writes. A watcher
 * paused while still reading history only stops reading, so catching up never counts against
 * it; if the history moves past it meanwhile, it catches up through `inner` (or is closed with
 * Compacted). A watcher fed from `inner` that `inner` terminates as TooSlow is closed with
 * TooSlow and counted here too.
 *
 * `close()` closes every watch with StorageError Closed and closes `inner`.
 */
export class WatchCache implements Storage {
  private readonly clock: Clock;
  private readonly windowMs: number;
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private historyBytes = 0;
  private readonly fanout: WatchFanout;
  private readonly entries = new SortedEntries();
  private readonly readThrough: boolean;
  private rev: number;
  private history: StorageEvent[] = [];
  private historyTimes: number[] = [];
  /** The resource history each history event is also in (undefined for short keys). */
  private historyOwners: (ResourceHistory | undefined)[] = [];
  /** The resource history of the last write, tried first: writes come in runs of one resource. */
  private lastOwner: ResourceHistory | undefined;
  private historyHead = 0;
  /** The history again, per resource, so a catching-up watcher reads only its resource's events. */
  private byResource = new Map<string, ResourceHistory>();
  /** Every event with a revision greater than this one is in the history. */
  private historyFrom: number;
  private closed = false;

  constructor(
    private readonly inner: Storage,
    opts: WatchCacheOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.windowMs = opts.historyWindowMs ?? 5 * 60_000;
    this.maxEvents = Math.max(1, opts.maxHistoryEvents ?? 100_000);
    this.maxBytes = opts.maxHistoryBytes ?? Infinity;
    this.fanout = new WatchFanout({ maxPendingPerWatcher: opts.maxPendingPerWatcher });
    this.readThrough = opts.readThrough ?? false;
    if (this.readThrough) {
      this.rev = this.historyFrom = inner.currentRevision();
      return;
    }
    const all = inner.list('');
    this.entries.load([...all.items].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)));
    this.rev = all.revision;
    this.historyFrom = all.revision;
  }

  private assertOpen(key = ''): void {
    if (this.closed) throw new StorageError('Closed', key, 0, 'storage is closed');
  }

  /** The revision of the newest write made through this cache (or found in `inner` at start). */
  currentRevision(): number {
    this.assertOpen();
    return this.rev;
  }

  /** `inner`'s compacted revision. */
  compactedRevision(): number {
    this.assertOpen();
    return this.inner.compactedRevision();
  }

  /** Creates through `inner`, then caches. */
  create(key: string, value: StoredValue): KeyValue {
    this.assertOpen(key);
    const kv = this.inner.create(key, value);
    if (!this.readThrough) this.entries.upsert(kv);
    this.record({ type: 'ADDED', kv });
    return kv;
  }

  /** Updates through `inner` (which decides Conflict / KeyNotFound), then caches. */
  update(key: string, value: StoredValue, expectedRevision: number): KeyValue {
    this.assertOpen(key);
    const prevKv = this.current(key);
    const kv = this.inner.update(key, value, expectedRevision);
    if (!this.readThrough) this.entries.upsert(kv);
    this.record(prevKv ? { type: 'MODIFIED', kv, prevKv } : { type: 'MODIFIED', kv });
    return kv;
  }

  /** Deletes through `inner`, then drops the key from the cache. */
  delete(key: string, expectedRevision?: number): KeyValue {
    this.assertOpen(key);
    const prevKv = this.current(key);
    const kv = this.inner.delete(key, expectedRevision);
    if (!this.readThrough) this.entries.remove(key);
    this.record(prevKv ? { type: 'DELETED', kv, prevKv } : { type: 'DELETED', kv });
    return kv;
  }

  private record(ev: StorageEvent): void {
    this.rev = ev.kv.modRevision;
    this.history.push(ev);
    const rh = this.ownerOf(ev.kv.key);
    rh?.events.push(ev);
    this.historyOwners.push(rh);
    this.historyTimes.push(this.clock.now());
    this.historyBytes += eventBytes(ev);
    this.evict();
    this.fanout.publish(ev);
  }

  /** The resource history of a key, created when missing; undefined for keys without a resource part. */
  private ownerOf(key: string): ResourceHistory | undefined {
    const last = this.lastOwner;
    // NOTE: a prefix ends at the key's fourth '/', so a key starting with it has that resource part.
    if (last !== undefined && key.startsWith(last.prefix)) return last;
    const r = resourcePrefix(key);
    if (r === undefined) return undefined;
    let rh = this.byResource.get(r);
    if (!rh) this.byResource.set(r, (rh = { prefix: r, events: [], head: 0 }));
    return (this.lastOwner = rh);
  }

  /** Drops history events older than the window or beyond the count bound. */
  private evict(): void {
    const cutoff = this.clock.now() - this.windowMs;
    let h = this.historyHead;
    const n = this.history.length;
    while (h < n && (n - h > this.maxEvents || this.historyTimes[h] < cutoff || this.historyBytes > this.maxBytes)) {
      const ev = this.history[h];
      this.historyBytes -= eventBytes(ev);
      const rh = this.historyOwners[h];
      if (rh !== undefined) {
        // NOTE: events leave in revision order, so the evicted one is the head of its resource's history.
        rh.events[rh.head++] = undefined as unknown as StorageEvent;
        if (rh.head === rh.events.length) {
          this.byResource.delete(rh.prefix);
          if (this.lastOwner === rh) this.lastOwner = undefined;
        } else if (rh.head >= 1024 && rh.head * 2 >= rh.events.length) {
          rh.events = rh.events.slice(rh.head);
          rh.head = 0;
        }
      }
      h++;
    }
    if (h === this.historyHead) return;
    this.historyFrom = this.history[h - 1].kv.modRevision;
    if (h === n) {
      this.history = [];
      this.historyTimes = [];
      this.historyOwners = [];
      this.historyHead = 0;
      this.historyBytes = 0;
    } else if (h >= 1024 && h * 2 >= n) {
      this.history = this.history.slice(h);
      this.historyTimes = this.historyTimes.slice(h);
      this.historyOwners = this.historyOwners.slice(h);
      this.historyHead = 0;
    } else {
      for (let i = this.historyHead; i < h; i++) {
        this.history[i] = undefined as unknown as StorageEvent;
        this.historyOwners[i] = undefined;
      }
      this.historyHead = h;
    }
  }

  /** The current value of `key` from memory; at an older revision from `inner`. */
  get(key: string, revision?: number): KeyValue | undefined {
    this.assertOpen(key);
    if (revision && revision !== this.rev) return this.inner.get(key, revision);
    return this.current(key);
  }

  /** The current KeyValue of `key`: from `inner` when reading through, else from the cache's index. */
  private current(key: string): KeyValue | undefined {
    return this.readThrough ? this.inner.get(key) : this.entries.get(key);
  }

  /** Keys under `prefix` in key order from memory (at an older revision: from `inner`). */
  list(prefix: string, opts: ListOptions = {}): ListResult {
    this.assertOpen(prefix);
    if (opts.revision && opts.revision !== this.rev) return this.inner.list(prefix, opts);
    if (this.readThrough) return this.inner.list(prefix, opts.revision ? { ...opts, revision: undefined } : opts);
    return { ...this.entries.page(prefix, opts), revision: this.rev };
  }

  /** Live keys under `prefix`, from memory. */
  count(prefix: string): number {
    this.assertOpen(prefix);
    return this.readThrough ? this.inner.count(prefix) : this.entries.count(prefix);
  }

  /**
   * Watches `opts.prefix` after `opts.fromRevision`, from the in-memory history when it reaches
   * back far enough, otherwise catching up through `inner` first.
   */
  watch(opts: WatchOptions, sink: WatchSink): Watch {
    this.assertOpen(opts.prefix);
    const { prefix, fromRevision: from } = opts;
    const compacted = this.inner.compactedRevision();
    if (from < compacted) {
      throw new StorageError('Compacted', prefix, compacted, `revision ${from} has been compacted (oldest available: ${compacted})`);
    }
    if (from > this.rev) {
      throw new StorageError('FutureRevision', prefix, this.rev, `revision ${from} is newer than the current revision ${this.rev}`);
    }
    this.evict();
    if (from >= this.historyFrom) {
      const w = this.fanout.add(prefix, from, sink, opts.trigger);
      if (from === this.rev) this.fanout.goLive(w);
      else this.fanout.catchUp(w, this.historySource(w));
      return w;
    }
    const ref: { w?: FanoutWatcher } = {};
    const upstream = this.bridge(prefix, from, () => ref.w!);
    const w = this.fanout.add(prefix, from, sink, opts.trigger);
    ref.w = w;
    this.attach(w, upstream);
    return w;
  }

  /**
   * Starts a watch on `inner` whose events feed the cache watcher returned by `watcher()`, until
   * that watcher reaches the history; then the upstream watch stops and the watcher reads the
   * history. Throws what `inner.watch` throws.
   */
  private bridge(prefix: string, from: number, watcher: () => FanoutWatcher): { watch?: Watch } {
    const upstream: { watch?: Watch } = {};
    const sink: WatchSink = {
      event: (ev) => {
        const w = watcher();
        const accepted = this.fanout.offer(w, ev);
        if (upstream.watch && w.cursor >= this.historyFrom) {
          // NOTE: with no matching events between the start and the history, the watcher keeps
          // following `inner` (still correct, as `inner` sees every write of this cache).
          const up = upstream.watch;
          upstream.watch = undefined;
          w.onStop = undefined;
          w.onResume = undefined;
          up.stop();
          this.fanout.catchUp(w, this.historySource(w));
        }
        return accepted;
      },
      close: (err) => {
        upstream.watch = undefined;
        this.fanout.close(watcher(), err ?? new StorageError('Closed', prefix, 0, 'upstream watch closed'));
      },
    };
    upstream.watch = this.inner.watch({ prefix, fromRevision: from }, sink);
    return upstream;
  }

  private attach(w: FanoutWatcher, upstream: { watch?: Watch }): void {
    this.fanout.goIdle(w);
    w.onStop = () => upstream.watch?.stop();
    w.onResume = () => upstream.watch?.resume();
  }

  /** Reads the history for `w`; if it has been evicted past `w`'s cursor, falls back to `inner`. */
  private historySource(w: FanoutWatcher): CatchUpSource {
    return (after, max) => {
      if (after < this.historyFrom) {
        let upstream: { watch?: Watch };
        try {
          upstream = this.bridge(w.prefix, after, () => w);
        } catch (err) {
          if (!(err instanceof StorageError)) throw err;
          this.fanout.close(w, err);
          return [];
        }
        this.attach(w, upstream);
        return [];
      }
      const out: StorageEvent[] = [];
      const r = resourcePrefix(w.prefix);
      const rh = r === undefined ? undefined : this.byResource.get(r);
      // No event of the watcher's resource in the history: nothing to catch up on.
      if (r !== undefined && !rh) return out;
      const h = rh ? rh.events : this.history;
      for (let i = bisectAfter(h, rh ? rh.head : this.historyHead, after); i < h.length && out.length < max; i++) {
        if (h[i].kv.key.startsWith(w.prefix)) out.push(h[i]);
      }
      return out;
    };
  }

  /** Compacts `inner`; watches and reads before `revision` then fail with Compacted. */
  compact(revision: number): void {
    this.assertOpen();
    this.inner.compact(revision);
  }

  /** Watcher counters of the cache's fan-out (the slow-watcher policy is in the class comment). */
  stats(): WatchStats {
    return this.fanout.stats();
  }

  /** Closes every watch with StorageError Closed, then `inner`. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fanout.closeAll(new StorageError('Closed', '', 0, 'storage is closed'));
    this.inner.close();
  }
}
