/**
 * The storage contract of the API server, after Kubernetes' storage.Interface and kine's log:
 * every write gets the next global revision (the resourceVersion), updates and deletes are
 * compare-and-swap on the key's current revision, and history since the compaction point can be
 * read and watched. Implementations are synchronous (better-sqlite3) so that a simulation sees
 * no interleaving it did not schedule; watch delivery is the only asynchronous part.
 */

/**
 * A value an in-memory store may keep in place of its JSON text: the text is then made only when
 * something reads {@link KeyValue.value} (in the simulator nothing may ever read it). `text()`
 * returns the same string every time it is called. A store that persists (SQLite) takes the text
 * at once; only {@link MemoryStorage} keeps deferred values.
 */
export interface DeferredValue {
  text(): string;
}

/** What a write stores: JSON text, or a {@link DeferredValue}. */
export type StoredValue = string | DeferredValue;

/** The JSON text of a stored value. */
export function textOf(value: StoredValue): string {
  return typeof value === 'string' ? value : value.text();
}

/** One version of one key. */
export interface KeyValue {
  /** e.g. `/registry/pods/default/web-0`. */
  readonly key: string;
  /** The serialized object (JSON text), stored without metadata.resourceVersion. */
  readonly value: string;
  /** The deferred value `value` comes from, when the store kept one (see {@link DeferredValue}). */
  readonly deferred?: DeferredValue;
  /** The revision of the change that wrote this value (for a deletion event: the deletion's revision). */
  readonly modRevision: number;
  /** The revision at which the key was created. */
  readonly createRevision: number;
}

/** What happened to a key. */
export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, as watchers see it. */
export interface StorageEvent {
  readonly type: StorageEventType;
  /** The new value; for DELETED the last value, with modRevision set to the deletion's revision. */
  readonly kv: KeyValue;
  /** The value before this change (absent for ADDED). */
  readonly prevKv?: KeyValue;
}

/** Options of {@link Storage.list}. */
export interface ListOptions {
  /** Read the state as of this revision (0 or absent: current). Older than the compaction point: StorageError Compacted. Newer than current: FutureRevision. */
  revision?: number;
  /** Start at the first key strictly greater than this one (for continue tokens). */
  afterKey?: string;
  /** At most this many items (0 or absent: all). */
  limit?: number;
  /** Only keys this predicate accepts count towards `limit` (selectors); `remaining` is then not computed. */
  filter?: (kv: KeyValue) => boolean;
}

/** The answer of {@link Storage.list}. */
export interface ListResult {
  readonly items: KeyValue[];
  /** The revision the list was read at. */
  readonly revision: number;
  /** True when more matching keys follow the last returned one. */
  readonly more: boolean;
  /** How many keys follow the last item (only without a filter; otherwise undefined). */
  readonly remaining?: number;
}

/**
 * Receives a watch's events. `event` returns false when the receiver is backed up; the
 * implementation then buffers and waits for {@link Watch.resume}, and applies its slow-watcher
 * policy (documented per implementation) when the buffer overflows.
 */
export interface WatchSink {
  event(ev: StorageEvent): boolean;
  /** The watch can continue no further (compaction, slow watcher, store closed). */
  close(err?: StorageError): void;
}

/** A running watch. */
export interface Watch {
  /** Stops delivery; `close` is not called. Idempotent. */
  stop(): void;
  /** The sink can take events again after returning false. */
  resume(): void;
}

/**
 * An index hint, after Kubernetes' cacher triggers: the watcher only needs events whose old or new
 * value gives `value` under `fn`. Implementations may use it to skip watchers cheaply (watchers
 * sharing one `fn` are indexed by value) or ignore it; sinks must still filter what they get.
 */
export interface WatchTrigger {
  /** Must be the same function object for watchers that should share an index. */
  fn: (kv: KeyValue) => string | undefined;
  value: string;
}

/** Options of {@link Storage.watch}. */
export interface WatchOptions {
  /** Keys starting with this prefix. */
  prefix: string;
  /** Deliver every change with revision strictly greater than this one, in revision order. */
  fromRevision: number;
  /** Optional: only changes matching this trigger are needed (see {@link WatchTrigger}). */
  trigger?: WatchTrigger;
}

/** The storage contract. All methods are synchronous except watch delivery. */
export interface Storage {
  /** The revision of the newest change (0 for an empty store). */
  currentRevision(): number;
  /** The oldest revision whose state can still be read or watched from. */
  compactedRevision(): number;
  /** Creates `key`. Throws StorageError KeyExists if it exists. Returns the new KeyValue. */
  create(key: string, value: StoredValue): KeyValue;
  /** The current value of `key` (or as of `revision`), or undefined. */
  get(key: string, revision?: number): KeyValue | undefined;
  /** Keys under `prefix`, in key order. */
  list(prefix: string, opts?: ListOptions): ListResult;
  /** How many live keys are under `prefix`. */
  count(prefix: string): number;
  /**
   * Replaces `key` if its modRevision equals `expectedRevision`. Throws KeyNotFound if absent,
   * Conflict if the revision moved on.
   */
  update(key: string, value: StoredValue, expectedRevision: number): KeyValue;
  /** Deletes `key` (if `expectedRevision` is given, only at that revision). Returns the deletion's KeyValue (last value, modRevision = deletion revision). */
  delete(key: string, expectedRevision?: number): KeyValue;
  /** Starts a watch. Throws StorageError Compacted if `fromRevision` is older than the history kept, FutureRevision if newer than current. */
  watch(opts: WatchOptions, sink: WatchSink): Watch;
  /** Drops history older than `revision` (the latest value of every live key is kept). */
  compact(revision: number): void;
  /** Releases resources; open watches are closed. */
  close(): void;
}

/** Codes of {@link StorageError}; the API server maps them to Status reasons. */
export type StorageErrorCode = 'KeyExists' | 'KeyNotFound' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'TooSlow' | 'Closed';

/** A typed storage failure. Nothing above storage sees SQL errors. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    readonly revision: number,
    message?: string,
  ) {
    super(message ?? `${code}: ${key} @ ${revision}`);
    this.name = 'StorageError';
  }
}

/** True if `err` is a StorageError with `code`. */
export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
