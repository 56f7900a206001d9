/**
 * An in-memory revision log: the {@link Storage} of simulated clusters, where durability is not
 * wanted and the API server's write path should cost what a simulation can afford.
 */
import {
  StorageError,
  type DeferredValue,
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
import { WatchFanout, type WatchStats } from './fanout.ts';
import { SortedEntries } from './sorted.ts';

/** Options of {@link MemoryStorage}. */
export interface MemoryStorageOptions {
  /** Slow-watcher bound of the fan-out (default 10,000 pending events). */
  maxPendingPerWatcher?: number;
  /**
   * Bound on the characters of keys and values the change log holds (default: none). Past it, the
   * store compacts itself to the revision that brings the log under 90% of the bound, as a
   * compactor would: reads and watches before that revision then fail with Compacted (410).
   * Deferred values (see {@link DeferredValue}) count only their keys: `maxLogEntries` bounds them.
   */
  maxLogBytes?: number;
  /** Bound on the changes the log holds (default: none); past it, the store compacts itself to 90% as above. */
  maxLogEntries?: number;
}

function logBytes(ev: StorageEvent): number {
  return ev.kv.key.length + (ev.kv.deferred === undefined ? ev.kv.value.length : 0);
}

/** A KeyValue whose text is made from its deferred value on first read. */
class DeferredKeyValue implements KeyValue {
  constructor(
    readonly key: string,
    readonly deferred: DeferredValue,
    readonly modRevision: number,
    readonly createRevision: number,
  ) {}

  get value(): string {
    return this.deferred.text();
  }
}

function keyValue(key: string, value: StoredValue, modRevision: number, createRevision: number): KeyValue {
  return typeof value === 'string' ? { key, value, modRevision, createRevision } : new DeferredKeyValue(key, value, modRevision, createRevision);
}

/**
 * A {@link Storage} held in memory, with the same contract as the SQLite log (the shared
 * conformance suite runs on both): every write takes the next revision, updates and deletes are
 * compare-and-swap on the key's revision, and the state at any revision since the last
 * compaction can be read and watched from.
 *
 * Layout: the current state (a map plus a sorted index) and the log of every change since the
 * compacted revision. A read at an older revision starts from the current state and undoes the
 * changes made after it, so its cost grows with the number of changes since that revision, not
 * with the size of the store; reads of the current state cost a map lookup or one sorted range.
 * Nothing survives the process: this store is for simulations (`orrery simulate`), not `serve`.
 * It keeps {@link DeferredValue}s as they are: their text is made only if something reads it.
 */
export class MemoryStorage implements Storage {
  private readonly fanout: WatchFanout;
  private readonly entries = new SortedEntries();
  private rev = 0;
  private compacted = 0;
  /** Every change with a revision greater than `compacted`, in revision order, from `logHead`. */
  private log: StorageEvent[] = [];
  private logHead = 0;
  private logSize = 0;
  private readonly maxLogBytes: number;
  private readonly maxLogEntries: number;
  private closed = false;

  constructor(opts: MemoryStorageOptions = {}) {
    this.fanout = new WatchFanout({ maxPendingPerWatcher: opts.maxPendingPerWatcher });
    this.maxLogBytes = opts.maxLogBytes ?? Infinity;
    this.maxLogEntries = Math.max(1, opts.maxLogEntries ?? Infinity);
  }

  private assertOpen(key = ''): void {
    if (this.closed) throw new StorageError('Closed', key, 0, 'storage is closed');
  }

  /** The revision of the newest change (0 for an empty store). */
  currentRevision(): number {
    this.assertOpen();
    return this.rev;
  }

  /** The revision passed to the last effective {@link compact} (0 if never compacted). */
  compactedRevision(): number {
    this.assertOpen();
    return this.compacted;
  }

  private append(ev: StorageEvent): void {
    this.rev = ev.kv.modRevision;
    this.log.push(ev);
    this.logSize += logBytes(ev);
    if (this.logSize > this.maxLogBytes || this.log.length - this.logHead > this.maxLogEntries) {
      // NOTE: compacts to the newest revision that leaves at most 90% of each bound in the log.
      let size = this.logSize;
      let i = this.logHead;
      const keep = Math.floor(this.maxLogEntries * 0.9);
      while (i < this.log.length - 1 && (size > this.maxLogBytes * 0.9 || this.log.length - i > keep)) size -= logBytes(this.log[i++]);
      if (i > this.logHead) this.compact(this.log[i - 1].kv.modRevision);
    }
    if (this.fanout.hasWatchers()) this.fanout.publish(ev);
  }

  /** Creates `key` at the next revision; KeyExists if it is live. */
  create(key: string, value: StoredValue): KeyValue {
    this.assertOpen(key);
    const existing = this.entries.get(key);
    if (existing) throw new StorageError('KeyExists', key, existing.modRevision, `key ${key} already exists`);
    const id = this.rev + 1;
    const kv = keyValue(key, value, id, id);
    this.entries.upsert(kv);
    this.append({ type: 'ADDED', kv });
    return kv;
  }

  /** Compare-and-swap on the key's modRevision: KeyNotFound if absent, Conflict if it moved on. */
  update(key: string, value: StoredValue, expectedRevision: number): KeyValue {
    this.assertOpen(key);
    const prevKv = this.entries.get(key);
    if (!prevKv) throw new StorageError('KeyNotFound', key, expectedRevision, `key ${key} not found`);
    if (prevKv.modRevision !== expectedRevision) {
      throw new StorageError('Conflict', key, prevKv.modRevision, `key ${key} is at revision ${prevKv.modRevision}, not ${expectedRevision}`);
    }
    const kv = keyValue(key, value, this.rev + 1, prevKv.createRevision);
    this.entries.upsert(kv);
    this.append({ type: 'MODIFIED', kv, prevKv });
    return kv;
  }

  /** Deletes `key` (only at `expectedRevision` if given); returns its last value at the deletion's revision. */
  delete(key: string, expectedRevision?: number): KeyValue {
    this.assertOpen(key);
    const prevKv = this.entries.get(key);
    if (!prevKv) throw new StorageError('KeyNotFound', key, expectedRevision ?? 0, `key ${key} not found`);
    if (expectedRevision !== undefined && prevKv.modRevision !== expectedRevision) {
      throw new StorageError('Conflict', key, prevKv.modRevision, `key ${key} is at revision ${prevKv.modRevision}, not ${expectedRevision}`);
    }
    const kv = keyValue(key, prevKv.deferred ?? prevKv.value, this.rev + 1, prevKv.createRevision);
    this.entries.remove(key);
    this.append({ type: 'DELETED', kv, prevKv });
    return kv;
  }

  /** Throws Compacted / FutureRevision unless the state at `revision` can be read. */
  private checkReadable(key: string, revision: number): void {
    if (revision > this.rev) {
      throw new StorageError('FutureRevision', key, this.rev, `revision ${revision} is newer than the current revision ${this.rev}`);
    }
    if (revision < this.compacted) {
      throw new StorageError('Compacted', key, this.compacted, `revision ${revision} has been compacted (oldest available: ${this.compacted})`);
    }
  }

  /** Index in the log of the first change with a revision greater than `revision`. */
  private logIndexAfter(revision: number): number {
    const log = this.log;
    let lo = this.logHead;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid].kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The keys under `prefix` changed after `revision`, each with its value at `revision`
   * (undefined where it did not exist then): the first change after `revision` tells.
   */
  private undo(prefix: string, revision: number): Map<string, KeyValue | undefined> {
    const before = new Map<string, KeyValue | undefined>();
    const log = this.log;
    for (let i = log.length - 1, stop = this.logIndexAfter(revision); i >= stop; i--) {
      const ev = log[i];
      if (ev.kv.key.startsWith(prefix)) before.set(ev.kv.key, ev.type === 'ADDED' ? undefined : ev.prevKv);
    }
    return before;
  }

  /** The value of `key` now, or as of `revision` (Compacted / FutureRevision outside the readable range). */
  get(key: string, revision?: number): KeyValue | undefined {
    this.assertOpen(key);
    if (!revision || revision === this.rev) return this.entries.get(key);
    this.checkReadable(key, revision);
    // The first change after `revision` holds the value the key had at `revision`.
    const log = this.log;
    for (let i = this.logIndexAfter(revision); i < log.length; i++) {
      const ev = log[i];
      if (ev.kv.key === key) return ev.type === 'ADDED' ? undefined : ev.prevKv;
    }
    return this.entries.get(key);
  }

  /** Live keys under `prefix` at the current revision or `opts.revision`, in key order, paged. */
  list(prefix: string, opts: ListOptions = {}): ListResult {
    this.assertOpen(prefix);
    const at = opts.revision && opts.revision !== this.rev ? opts.revision : 0;
    if (!at) return { ...this.entries.page(prefix, opts), revision: this.rev };
    this.checkReadable(prefix, at);
    const before = this.undo(prefix, at);
    const past = new SortedEntries();
    const all: KeyValue[] = [];
    for (const kv of this.entries.page(prefix, {}).items) if (!before.has(kv.key)) all.push(kv);
    for (const kv of before.values()) if (kv) all.push(kv);
    all.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    past.load(all);
    return { ...past.page(prefix, opts), revision: at };
  }

  /** How many live keys are under `prefix` now. */
  count(prefix: string): number {
    this.assertOpen(prefix);
    return this.entries.count(prefix);
  }

  /**
   * Watches `opts.prefix` after `opts.fromRevision`: Compacted if older than the compacted
   * revision, FutureRevision if newer than the current one.
   */
  watch(opts: WatchOptions, sink: WatchSink): Watch {
    this.assertOpen(opts.prefix);
    const { prefix, fromRevision: from } = opts;
    this.checkReadable(prefix, from);
    const w = this.fanout.add(prefix, from, sink, opts.trigger);
    if (from === this.rev) {
      this.fanout.goLive(w);
    } else {
      this.fanout.catchUp(w, (after, max) => {
        if (this.closed) throw new StorageError('Closed', prefix, after, 'storage is closed');
        if (after < this.compacted) {
          throw new StorageError('Compacted', prefix, this.compacted, `revision ${after} has been compacted (oldest available: ${this.compacted})`);
        }
        const out: StorageEvent[] = [];
        const log = this.log;
        for (let i = this.logIndexAfter(after); i < log.length && out.length < max; i++) {
          if (log[i].kv.key.startsWith(prefix)) out.push(log[i]);
        }
        return out;
      });
    }
    return w;
  }

  /**
   * Forgets the changes at or before `revision`: the state at `revision` and everything after it
   * stays readable. FutureRevision if `revision` is newer than the current one; compacting to an
   * older revision than before does nothing.
   */
  compact(revision: number): void {
    this.assertOpen();
    if (revision > this.rev) throw new StorageError('FutureRevision', '', this.rev, `revision ${revision} is newer than the current revision ${this.rev}`);
    if (revision <= this.compacted) return;
    this.compacted = revision;
    const h = this.logIndexAfter(revision);
    for (let i = this.logHead; i < h; i++) this.logSize -= logBytes(this.log[i]);
    if (h === this.log.length) {
      this.log = [];
      this.logHead = 0;
    } else if (h >= 1024 && h * 2 >= this.log.length) {
      this.log = this.log.slice(h);
      this.logHead = 0;
    } else {
      for (let i = this.logHead; i < h; i++) this.log[i] = undefined as unknown as StorageEvent;
      this.logHead = h;
    }
  }

  /** The fan-out's watcher counters (see {@link WatchFanout} for the slow-watcher policy). */
  stats(): WatchStats {
    return this.fanout.stats();
  }

  /** Closes every watch with StorageError Closed. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fanout.closeAll(new StorageError('Closed', '', 0, 'storage is closed'));
  }
}
