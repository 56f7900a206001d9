import type { Clock } from '../machinery/clock.ts';
import type { Rng } from '../machinery/rng.ts';
import { StatusError, alreadyExists, badRequest, conflict, gone, invalid, notFound, tooLargeResourceVersion, type StatusCause } from '../machinery/status.ts';
import { isStorageError, type DeferredValue, type KeyValue, type Storage, type WatchTrigger } from '../storage/interface.ts';
import { parseLabelSelector, type LabelSelector } from '../machinery/labels.ts';
import { parseFieldSelector, type FieldSelector } from '../machinery/fields.ts';
import { checkFieldSelector, fieldSelectorAttributes } from './fieldselectors.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../machinery/metavalidation.ts';
import { nameValidatorFor, type NameValidator } from '../machinery/names.ts';
import { groupVersion, type ResourceInfo } from './resources.ts';
import { editedManagedFields, updateManagedFields } from './managedfields.ts';
import { messageNameForKind } from './typemodel.ts';
import { deepEqualExcept } from '../machinery/deepequal.ts';
import { formatTime } from '../machinery/time.ts';
import { jsonClone } from '../machinery/jsonclone.ts';

/** What a strategy may use. */
export interface StrategyContext {
  readonly clock: Clock;
  readonly rng: Rng;
  readonly registry: Registry;
  /** The current time as Kubernetes serializes metav1.Time (RFC 3339, seconds). */
  nowTime(): string;
}

/**
 * The behaviour one kind adds to the generic store. Every method is optional: a kind without a
 * strategy is stored as sent (after the generic metadata handling).
 */
export interface Strategy {
  /** Sets server-owned fields on create (status, allocated addresses, defaults). */
  prepareForCreate?(obj: any, ctx: StrategyContext): void;
  /** Sets server-owned fields on update of the main resource (keeps status) or a subresource. */
  prepareForUpdate?(obj: any, old: any, ctx: StrategyContext, subresource?: string): void;
  /** Kind-specific validation; causes become 422 Invalid. */
  validate?(obj: any, ctx: StrategyContext): StatusCause[];
  validateUpdate?(obj: any, old: any, ctx: StrategyContext, subresource?: string): StatusCause[];
  /** Seconds of graceful deletion for this object and request (0: remove at once). */
  gracePeriodSeconds?(obj: any, requested: number | undefined): number;
  /** True while the object holds finalization outside metadata.finalizers (a namespace's spec.finalizers). */
  pendingFinalization?(obj: any): boolean;
  /** Called when deletion starts on an object that stays (sets e.g. a Terminating phase). */
  onTerminating?(obj: any): void;
  /** After the object left storage (release allocations). */
  afterDelete?(obj: any, ctx: StrategyContext): void;
  /** DELETE answers with the deleted object rather than a Success Status (pods, namespaces). */
  returnDeletedObject?: boolean;
  /**
   * The kind keeps metadata.generation: 1 on create, one more on every update that changes
   * anything but metadata and status, as Kubernetes' strategies of workloads, PodDisruptionBudgets
   * and EndpointSlices do. Other kinds (Pods in 1.27, Nodes, Leases, Services…) have none.
   */
  generation?: boolean;
  /** Converts the stored form to the served version (same-storage kinds served in several groups). */
  toServed?(stored: any): any;
  /** Converts a served-version object to the stored form. */
  toStored?(obj: any): any;
}

/** Parsed list options (the query of a list or watch). */
export interface ListQuery {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** The answer of a list: items in the served version plus list metadata. */
export interface ListOutcome {
  items: any[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Options of a write. */
export interface WriteOptions {
  manager: string;
  dryRun: boolean;
  subresource?: string;
  /** Server-side apply: the object's managedFields were computed by the apply and are kept as they are. */
  applied?: boolean;
}

/** How {@link Registry.patch} may treat the object it passes to the patch function. */
export interface PatchOptions {
  /**
   * The patch function never mutates its input and returns a new object sharing no structure with
   * it (as strategic merge, JSON merge and JSON patch with copying do), so the registry need not
   * copy the current object before calling it.
   */
  applyCopies?: boolean;
}

/** DeleteOptions as the server understands them. */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

/** The outcome of a delete: the object, and whether it left storage. */
export interface DeleteOutcome {
  obj: any;
  deleted: boolean;
}

const CONTINUE_VERSION = 'meta.k8s.io/v1';

/** Encodes a continue token the way Kubernetes does (base64 of `{"v","rv","start"}`). */
export function encodeContinue(rv: number, startKey: string): string {
  return Buffer.from(JSON.stringify({ v: CONTINUE_VERSION, rv, start: startKey })).toString('base64url');
}

/** Decodes a continue token; throws 400 for garbage. */
export function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (t.v !== CONTINUE_VERSION || typeof t.rv !== 'number' || typeof t.start !== 'string' || t.rv <= 0) throw new Error('bad');
    return { rv: t.rv, start: t.start };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

function parseRV(rv: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(rv)) throw badRequest(`Invalid value: "${rv}": invalid ${what}`);
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw badRequest(`Invalid value: "${rv}": invalid ${what}`);
  return n;
}

/** The wire form of metav1.Time for a millisecond timestamp. */
export { formatTime };

function deepFreeze(v: unknown): void {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
}

const NOT_SPEC = new Set(['metadata', 'status', 'apiVersion', 'kind']);
const METADATA = new Set(['metadata']);
const NOOP_META = new Set(['resourceVersion', 'managedFields']);
const RESOURCE_VERSION = new Set(['resourceVersion']);

/** The trigger values of a key's two newest KeyValues seen (see {@link memoizedTrigger}). */
interface TriggerMemo {
  kv: KeyValue;
  value: string | undefined;
  prevKv: KeyValue | undefined;
  prevValue: string | undefined;
}

/** Keys remembered per trigger function before the memo starts over (a bound for key churn). */
const TRIGGER_MEMO_KEYS = 500_000;

/**
 * `trigger` with the values of each key's two newest KeyValues remembered: an update's event asks
 * for the new KeyValue's value, and the next update's event for it again as `prevKv`, which by
 * then may have left the shared decoded objects. Values depend only on the KeyValue, so the memo
 * never changes a result.
 */
export function memoizedTrigger(trigger: (kv: KeyValue) => string | undefined): (kv: KeyValue) => string | undefined {
  let memo = new Map<string, TriggerMemo>();
  return (kv) => {
    const m = memo.get(kv.key);
    if (m !== undefined) {
      if (m.kv === kv) return m.value;
      if (m.prevKv === kv) return m.prevValue;
    }
    const value = trigger(kv);
    if (m === undefined) {
      if (memo.size >= TRIGGER_MEMO_KEYS) memo = new Map();
      memo.set(kv.key, { kv, value, prevKv: undefined, prevValue: undefined });
    } else if (kv.modRevision > m.kv.modRevision) {
      m.prevKv = m.kv;
      m.prevValue = m.value;
      m.kv = kv;
      m.value = value;
    }
    return value;
  };
}

/**
 * What the registry stores for a kind stored as served: a {@link DeferredValue} whose JSON text is
 * made on first read. Until the write's revision is known it holds the written object (its
 * resourceVersion unset); then, settled, the shared decoded object of that revision, and the text
 * is that object's without its resourceVersion. Either way the text is what JSON.stringify of the
 * written object gives.
 */
class StoredObject implements DeferredValue {
  private written: any;
  /** The shared decoded object of `revision` (undefined until settled). */
  shared: any = undefined;
  revision = 0;
  private cached: string | undefined;

  constructor(obj: any) {
    this.written = obj;
  }

  settle(shared: any, revision: number): void {
    this.shared = shared;
    this.revision = revision;
    this.written = undefined;
  }

  text(): string {
    if (this.cached === undefined) {
      const o = this.shared;
      // NOTE: resourceVersion set to undefined in place keeps the key order of the written object.
      this.cached = o === undefined ? JSON.stringify(this.written) : JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
    }
    return this.cached;
  }

  /** Whether `kv` holds this value: kept deferred, or as the text this value gave (a store that takes text). */
  holds(kv: KeyValue): boolean {
    return kv.deferred === this || (kv.deferred === undefined && this.cached !== undefined && kv.value === this.cached);
  }
}

// NOTE: marks on the objects themselves rather than entries of a WeakMap or WeakSet: a simulator
// writes hundreds of thousands of objects, and looking one up in weak tables that size cost more
// than the rest of the check. The marks are non-enumerable: spreads, JSON, Object.keys and
// assert's deep equality do not see them, so a copy never claims the original's stored value.
// (A spread of a marked object leaves V8's fast path, about 60 ns more; in-process A/B runs were
// still 4–7 % faster with marks than with the weak tables, idle and with 20,000 pods.)
const STORED = Symbol('orrery.storedValue');
const SHARED_PART = Symbol('orrery.sharedPart');

/**
 * Records that `obj` is a shared decoded object whose stored value is `v`: the JSON it was decoded
 * from, or the deferred value it settles, whose text may not exist (see Registry.servedJson).
 */
function markStored(obj: object, v: string | StoredObject): void {
  Object.defineProperty(obj, STORED, { value: v });
}

function storedOf(obj: object): string | StoredObject | undefined {
  return (obj as Record<symbol, string | StoredObject | undefined>)[STORED];
}

/** Records that `array` is a shared object's managedFields or ownerReferences list, which clients may send back uncopied. */
function markSharedPart(array: unknown[]): void {
  if ((array as unknown as Record<symbol, unknown>)[SHARED_PART] !== true) Object.defineProperty(array, SHARED_PART, { value: true });
}

/** Whether a resource has a status subresource. */
function hasStatus(r: ResourceInfo): boolean {
  for (const s of r.subresources) if (s.name === 'status') return true;
  return false;
}

/**
 * Leaves out empty labels, annotations, ownerReferences and finalizers, as Kubernetes stores
 * metadata (its fields are `omitempty`): a patch that removes the last label leaves no `labels: {}`.
 */
function dropEmptyCollections(meta: any): void {
  dropEmptyMap(meta, 'labels');
  dropEmptyMap(meta, 'annotations');
  dropEmptyList(meta, 'ownerReferences');
  dropEmptyList(meta, 'finalizers');
}

function dropEmptyMap(meta: any, f: string): void {
  const v = meta[f];
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !hasOwnKeys(v)) delete meta[f];
}

function dropEmptyList(meta: any, f: string): void {
  const v = meta[f];
  if (Array.isArray(v) && v.length === 0) delete meta[f];
}

function hasOwnKeys(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/** The shared decoded objects of one resource, most recent last (see Registry.decodeShared). */
interface SharedCache {
  group: string;
  objects: WeakMap<KeyValue, any>;
  /** Cached KeyValues, oldest first from `head`. */
  ring: KeyValue[];
  head: number;
  /** Another resource's cache with the same resource name (another group). */
  next: SharedCache | undefined;
  /** At most this many objects are cached. */
  limit: number;
}

/**
 * The one generic registry store: storage keys, resourceVersion semantics, metadata, finalizers,
 * graceful deletion, managed fields, selectors and paging for every kind; kinds add strategies.
 */
export class Registry {
  readonly ctx: StrategyContext;

  constructor(
    readonly storage: Storage,
    readonly clock: Clock,
    readonly rng: Rng,
    private readonly strategies: ReadonlyMap<string, Strategy>,
    /** At most this many decoded objects per resource are kept for {@link decodeShared} (default 20,000), or a bound per resource. */
    private readonly sharedDecodeLimit: number | ((r: ResourceInfo) => number) = 20_000,
  ) {
    this.ctx = { clock, rng, registry: this, nowTime: () => formatTime(clock.now()) };
  }

  /**
   * Deep-freezes every shared decoded object (see {@link decodeShared}), so code that mutates one
   * throws instead of corrupting what other callers see. Off by default; the test server turns it on.
   */
  freezeShared = false;

  private readonly strategyOf = new WeakMap<ResourceInfo, Strategy>();

  /** The strategy of a resource (an empty one if it has none). */
  strategy(r: ResourceInfo): Strategy {
    // NOTE: looked up several times per request: cached per ResourceInfo object, not by a built key.
    let s = this.strategyOf.get(r);
    if (s === undefined) this.strategyOf.set(r, (s = this.strategies.get(`${r.group}/${r.resource}`) ?? {}));
    return s;
  }

  /** The storage key prefix of a resource (all namespaces, or one). Resources sharing storage share prefixes. */
  prefix(r: ResourceInfo, namespace = ''): string {
    const group = r.resource === 'events' ? 'core' : r.group || 'core';
    const base = `/registry/${group}/${r.resource}/`;
    return r.namespaced && namespace ? `${base}${namespace}/` : base;
  }

  /** The storage key of one object. */
  key(r: ResourceInfo, namespace: string, name: string): string {
    return `${this.prefix(r, namespace)}${name}`;
  }

  /**
   * Shared decoded objects per resource. Each resource keeps its own most recent ones, so a kind
   * written often (Events) does not push out the objects of another (Pods) before their next update.
   */
  private readonly shared = new Map<string, SharedCache>();

  /**
   * Like {@link decode}, but one decoded object per stored KeyValue and resource is shared by
   * every caller. A store that keeps deferred values (MemoryStorage) keeps it with the KeyValue,
   * for as long as the KeyValue lives, and nothing is parsed; over text (SQLite) it is shared while
   * it is among the resource's `sharedDecodeLimit` most recently decoded ones (a watch event
   * fanned out to many watchers is parsed once; the watch history does not keep every version
   * decoded). Callers must not mutate it.
   */
  decodeShared(r: ResourceInfo, kv: KeyValue): any {
    const d = kv.deferred;
    if (d instanceof StoredObject) {
      if (d.shared === undefined) {
        // A watcher told of the write in progress: the write's revision is known now.
        const w = this.writing;
        if (w?.stored !== d) throw new Error(`registry: ${kv.key} at ${kv.modRevision} read before its write completed`);
        this.settle(d, w.obj, kv);
      }
      if (d.revision === kv.modRevision) return d.shared;
      // Otherwise a deletion's KeyValue: the last value at the deletion's revision (cached below).
    }
    const cache = this.sharedCache(r);
    let obj = cache.objects.get(kv);
    if (obj === undefined) {
      const w = this.writing;
      if (d instanceof StoredObject) {
        obj = this.sharedCopy(d.shared, kv);
        markStored(obj, d);
      } else {
        // A watcher told of the write in progress gets the written object, without parsing it.
        obj = w && w.r === r && w.stored.holds(kv) ? this.sharedCopy(w.obj, kv) : this.decode(r, kv);
        if (this.isPlain(r)) markStored(obj, kv.value);
      }
      this.share(obj);
      this.remember(cache, kv, obj);
    }
    return obj;
  }

  /** Makes a copy of written object `obj` the shared decoded object of `d`, stored as `kv`. */
  private settle(d: StoredObject, obj: any, kv: KeyValue): void {
    const shared = this.sharedCopy(obj, kv);
    markStored(shared, d);
    this.share(shared);
    d.settle(shared, kv.modRevision);
  }

  /**
   * Whether `array` is the managedFields or ownerReferences list of a shared decoded object (see
   * {@link decodeShared}): JSON data that never changes, which the server only ever reads. Request
   * bodies from in-process clients may hold it uncopied.
   */
  isSharedPart(array: readonly unknown[]): boolean {
    return (array as unknown as Record<symbol, unknown>)[SHARED_PART] === true;
  }

  /** What every new shared decoded object gets: frozen in tests, its managedFields and ownerReferences lists marked. */
  private share(obj: any): void {
    const m = obj.metadata;
    if (m !== undefined && m !== null) {
      if (Array.isArray(m.managedFields)) markSharedPart(m.managedFields);
      if (Array.isArray(m.ownerReferences)) markSharedPart(m.ownerReferences);
    }
    if (this.freezeShared) deepFreeze(obj);
  }

  private sharedCache(r: ResourceInfo): SharedCache {
    let cache = this.shared.get(r.resource);
    // NOTE: keyed by resource name, then checked by group (a Map of Maps would cost a lookup more).
    while (cache && cache.group !== r.group) cache = cache.next;
    if (!cache) {
      const first = this.shared.get(r.resource);
      const limit = typeof this.sharedDecodeLimit === 'number' ? this.sharedDecodeLimit : this.sharedDecodeLimit(r);
      cache = { group: r.group, objects: new WeakMap(), ring: [], head: 0, next: first, limit };
      this.shared.set(r.resource, cache);
    }
    return cache;
  }

  /** Whether a resource is stored as it is served (no conversion), so stored text and served JSON agree. */
  private isPlain(r: ResourceInfo): boolean {
    const s = this.strategy(r);
    return !s.toStored && !s.toServed;
  }

  /** The object being written now and its stored value (see {@link store}). */
  private writing: { r: ResourceInfo; obj: any; stored: StoredObject } | undefined;

  /**
   * A copy of written object `obj` as decoding `kv` would give it: resourceVersion set, and fresh
   * top-level and metadata objects (the write path deletes metadata fields, which leaves V8
   * objects in slow dictionary mode). Everything below metadata is shared with `obj`.
   */
  private sharedCopy(obj: any, kv: KeyValue): any {
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(kv.modRevision) } };
  }

  /** What a write of `obj` stores: a deferred {@link StoredObject} for kinds stored as served, else the converted text. */
  private storedValue(r: ResourceInfo, obj: any): StoredObject | string {
    return this.isPlain(r) ? new StoredObject(obj) : this.encode(r, obj);
  }

  /**
   * Stores `value` (see {@link storedValue}) of `obj` through `write` and returns the object to
   * answer with. For kinds stored as served (no conversion) that is the shared decoded form of the
   * new KeyValue, a copy of `obj` known to be JSON-exact (see {@link servedJson}), so neither the
   * watchers told of the write nor the next update or patch parse it, and `obj`'s own top level and
   * metadata (left in slow dictionary mode by the write path's deletes) die young; a store that
   * keeps deferred values never makes the text unless something reads it. From here on `obj` must
   * not be mutated below its top level and metadata, as any shared object.
   */
  private store(r: ResourceInfo, obj: any, value: StoredObject | string, write: () => KeyValue): any {
    if (typeof value === 'string') {
      const kv = write();
      obj.metadata.resourceVersion = String(kv.modRevision);
      return obj;
    }
    this.writing = { r, obj, stored: value };
    let kv: KeyValue;
    try {
      kv = write();
    } finally {
      this.writing = undefined;
    }
    if (kv.deferred === value) {
      if (value.shared === undefined) this.settle(value, obj, kv);
      return value.shared;
    }
    // A store that took the text (SQLite): the object joins the resource's shared decoded ones.
    const cache = this.sharedCache(r);
    let shared = cache.objects.get(kv);
    if (shared === undefined) {
      shared = this.sharedCopy(obj, kv);
      markStored(shared, kv.value);
      this.share(shared);
      this.remember(cache, kv, shared);
    }
    return shared;
  }

  /** Caches `obj` as the shared decoded form of `kv`, forgetting the resource's oldest past the limit. */
  private remember(cache: SharedCache, kv: KeyValue, obj: any): void {
    cache.objects.set(kv, obj);
    const ring = cache.ring;
    ring.push(kv);
    if (ring.length - cache.head <= cache.limit) return;
    const evicted = ring[cache.head];
    ring[cache.head++] = undefined as unknown as KeyValue;
    cache.objects.delete(evicted);
    if (cache.head >= 4096 && cache.head * 2 >= ring.length) {
      cache.ring = ring.slice(cache.head);
      cache.head = 0;
    }
  }

  /** Decodes a stored value into the served form with metadata.resourceVersion set: a new object, the caller's to change. */
  decode(r: ResourceInfo, kv: KeyValue): any {
    const d = kv.deferred;
    // NOTE: exactly what parsing the text would give (see jsonClone), without making the text.
    const obj = d instanceof StoredObject && d.shared !== undefined ? jsonClone(d.shared) : JSON.parse(kv.value);
    obj.metadata.resourceVersion = String(kv.modRevision);
    const s = this.strategy(r);
    return s.toServed ? s.toServed(obj) : obj;
  }

  /** Whether {@link servedJson} knows `obj`: it is JSON-exact (a written or shared decoded object). */
  hasServedJson(obj: object): boolean {
    return storedOf(obj) !== undefined;
  }

  /**
   * The JSON of an object this registry has just written (create, update, patch) or a shared
   * decoded object ({@link decodeShared}): built from the stored text plus its resourceVersion
   * instead of serializing it again, or serialized when its stored value is deferred (JSON-exact
   * all the same); undefined when that is not known to be exact (another object, a converted
   * kind, an unusual layout). Guarantee: when defined, JSON.parse of it deep-equals `obj` (only the
   * key order of metadata may differ).
   */
  servedJson(obj: object): string | undefined {
    const text = storedOf(obj);
    if (text === undefined) return undefined;
    if (typeof text !== 'string') return JSON.stringify(obj);
    const rv = (obj as any).metadata?.resourceVersion;
    if (typeof rv !== 'string' || !/^\d+$/.test(rv)) return undefined;
    const at = text.indexOf('"metadata":{');
    // Top level only: no other object may open before it (strings holding '{' just fall back).
    if (at < 0 || text.indexOf('{', 1) !== at + 11) return undefined;
    const cut = at + 12;
    return `${text.slice(0, cut)}"resourceVersion":"${rv}"${text[cut] === '}' ? '' : ','}${text.slice(cut)}`;
  }

  private encode(r: ResourceInfo, obj: any): string {
    const s = this.strategy(r);
    const stored = s.toStored ? s.toStored(obj) : obj;
    const rv = stored.metadata.resourceVersion;
    if (rv === undefined) return JSON.stringify(stored);
    // NOTE: set to undefined (JSON leaves it out), not deleted: a delete would put the metadata
    // object into V8's slow dictionary mode for every later reader.
    stored.metadata.resourceVersion = undefined;
    const text = JSON.stringify(stored);
    stored.metadata.resourceVersion = rv;
    return text;
  }

  private gr(r: ResourceInfo) {
    return { group: r.group, resource: r.resource };
  }

  /** The newest revision, as a resourceVersion. */
  currentResourceVersion(): string {
    return String(this.storage.currentRevision());
  }

  private checkNotFuture(rv: number): void {
    const cur = this.storage.currentRevision();
    if (rv > cur) throw tooLargeResourceVersion(rv, cur);
  }

  private translate(err: unknown, r: ResourceInfo, name: string): never {
    if (isStorageError(err)) {
      switch (err.code) {
        case 'KeyExists':
          throw alreadyExists(this.gr(r), name);
        case 'KeyNotFound':
          throw notFound(this.gr(r), name);
        case 'Conflict':
          throw conflict(this.gr(r), name, 'the object has been modified; please apply your changes to the latest version and try again');
        case 'Compacted':
          throw gone(`The resourceVersion for the provided list is too old.`, 'Expired');
        case 'FutureRevision':
          throw tooLargeResourceVersion(err.revision, this.storage.currentRevision());
        default:
          throw new StatusError(503, 'ServiceUnavailable', err.message);
      }
    }
    throw err;
  }

  /**
   * GET of one object, with Kubernetes' resourceVersion semantics (unset: most recent; `0`: any;
   * other: not older than). With `shared`, the object may be shared with other readers: do not mutate it.
   */
  get(r: ResourceInfo, namespace: string, name: string, resourceVersion?: string, opts: { shared?: boolean } = {}): any {
    if (resourceVersion && resourceVersion !== '0') this.checkNotFuture(parseRV(resourceVersion));
    const kv = this.storage.get(this.key(r, namespace, name));
    if (!kv) throw notFound(this.gr(r), name);
    return opts.shared ? this.decodeShared(r, kv) : this.decode(r, kv);
  }

  /** Builds the label and field selector predicate of a list or watch (400 for bad selectors). */
  selectors(r: ResourceInfo, q: ListQuery): ((obj: any) => boolean) | undefined {
    let ls: LabelSelector | undefined;
    let fs: FieldSelector | undefined;
    try {
      if (q.labelSelector) ls = parseLabelSelector(q.labelSelector);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    try {
      if (q.fieldSelector) fs = parseFieldSelector(q.fieldSelector);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    if (ls && ls.empty()) ls = undefined;
    if (fs && fs.requirements.length === 0) fs = undefined;
    if (fs) checkFieldSelector(r.group, r.resource, fs);
    if (!ls && !fs) return undefined;
    const attrs = fieldSelectorAttributes(r.group, r.resource);
    return (obj: any) => {
      if (ls && !ls.matches(obj.metadata?.labels)) return false;
      if (fs && !fs.matches((field: string) => attrs[field]?.(obj))) return false;
      return true;
    };
  }

  private readonly triggerFns = new Map<string, (kv: KeyValue) => string | undefined>();

  /**
   * The storage watch trigger for a watch's selectors, after Kubernetes' cacher triggers: an
   * exact-match field requirement (e.g. pods' `spec.nodeName=NODE`, as kubelets watch) or else an
   * exact-match label requirement, so the watch cache dispatches an event only to the watchers it
   * concerns. Undefined when no requirement is an exact match.
   */
  watchTrigger(r: ResourceInfo, q: ListQuery): WatchTrigger | undefined {
    const id = `${r.group}/${r.resource}`;
    const memo = (kind: string, name: string, get: (obj: any) => string | undefined) => {
      const k = `${id}\0${kind}\0${name}`;
      let fn = this.triggerFns.get(k);
      if (!fn) this.triggerFns.set(k, (fn = memoizedTrigger((kv) => get(this.decodeShared(r, kv)))));
      return fn;
    };
    if (q.fieldSelector) {
      const attrs = fieldSelectorAttributes(r.group, r.resource);
      for (const req of parseFieldSelector(q.fieldSelector).requirements) {
        const attr = attrs[req.field];
        if (req.operator === '=' && attr) return { fn: memo('field', req.field, attr), value: req.value };
      }
    }
    if (q.labelSelector) {
      const sel = parseLabelSelector(q.labelSelector);
      for (const req of sel.requirements) {
        const value = sel.requiresExactMatch(req.key);
        if (value !== undefined) return { fn: memo('label', req.key, (obj) => obj.metadata?.labels?.[req.key]), value };
      }
    }
    return undefined;
  }

  /**
   * LIST with every cell of the seed's get/list table (with `shared`, items may be shared with other readers: do not mutate them): resourceVersion × resourceVersionMatch ×
   * limit/continue, one consistent snapshot across chunks, 410 for compacted versions and tokens.
   */
  list(r: ResourceInfo, namespace: string, q: ListQuery, opts: { shared?: boolean } = {}): ListOutcome {
    const rv = q.resourceVersion;
    const match = q.resourceVersionMatch;
    const limit = q.limit && q.limit > 0 ? q.limit : 0;
    let readAt = 0;
    let startAfter: string | undefined;
    const prefix = this.prefix(r, namespace);

    if (match !== undefined && match !== '') {
      if (match !== 'Exact' && match !== 'NotOlderThan') throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
      if (q.continue) throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`);
      if (!rv) throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`);
      if (match === 'Exact') {
        if (rv === '0') throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`);
        readAt = parseRV(rv);
        this.checkNotFuture(readAt);
      } else if (rv !== '0') {
        this.checkNotFuture(parseRV(rv));
      }
    } else if (q.continue) {
      if (rv && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
      const tok = decodeContinue(q.continue);
      if (tok.rv < this.storage.compactedRevision()) {
        throw gone(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          'Expired',
        );
      }
      if (tok.rv > this.storage.currentRevision()) throw badRequest('continue key is not valid: resource version is in the future');
      readAt = tok.rv;
      if (tok.start.includes('..') || tok.start.startsWith('/')) throw badRequest('continue key is not valid: invalid start key');
      startAfter = prefix + tok.start;
    } else if (rv && rv !== '0') {
      const n = parseRV(rv);
      this.checkNotFuture(n);
      if (limit > 0) readAt = n;
    }

    const pred = this.selectors(r, q);
    const filter = pred ? (kv: KeyValue) => pred(this.decodeShared(r, kv)) : undefined;
    let res;
    try {
      res = this.storage.list(prefix, { revision: readAt || undefined, afterKey: startAfter, limit, filter });
    } catch (e) {
      this.translate(e, r, '');
    }
    const items = res.items.map((kv) => (opts.shared ? this.decodeShared(r, kv) : this.decode(r, kv)));
    const out: ListOutcome = { items, resourceVersion: String(res.revision) };
    if (res.more && items.length > 0) {
      const lastKey = res.items[res.items.length - 1].key;
      out.continue = encodeContinue(res.revision, lastKey.slice(prefix.length));
      if (!pred && res.remaining !== undefined && res.remaining > 0) out.remainingItemCount = res.remaining;
    }
    return out;
  }

  /** Checks that a namespaced create may happen in `namespace` (exists, not terminating). */
  /** Whether a stored version of a namespace is terminating (one parse per version). */
  private readonly terminatingNamespaces = new WeakMap<KeyValue, boolean>();

  private checkNamespace(namespace: string): void {
    const kv = this.storage.get(`/registry/core/namespaces/${namespace}`);
    if (!kv) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    let terminating = this.terminatingNamespaces.get(kv);
    if (terminating === undefined) {
      const ns = JSON.parse(kv.value);
      terminating = Boolean(ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating');
      this.terminatingNamespaces.set(kv, terminating);
    }
    if (terminating) {
      throw new StatusError(403, 'Forbidden', `unable to create new content in namespace ${namespace} because it is being terminated`, {
        name: namespace,
        kind: 'namespaces',
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }

  private readonly nameValidatorOf = new WeakMap<ResourceInfo, NameValidator>();

  private validateMeta(r: ResourceInfo, obj: any, old: any | undefined): StatusCause[] {
    let nameValidator = this.nameValidatorOf.get(r);
    if (nameValidator === undefined) this.nameValidatorOf.set(r, (nameValidator = nameValidatorFor(r.group, r.resource)));
    const errs = validateObjectMeta(obj.metadata, { namespaced: r.namespaced, nameValidator, isCreate: !old, unchanged: old?.metadata });
    // NOTE: the update checks repeat the content checks above, whose errors would be dropped as duplicates.
    if (old) errs.push(...validateObjectMetaUpdate(obj.metadata, old.metadata, { contentChecked: true, resourceVersionChecked: true }));
    if (errs.length === 0) return [];
    const seen = new Set<string>();
    const causes: StatusCause[] = [];
    for (const e of errs) {
      const k = `${e.field}\0${e.message}`;
      if (seen.has(k)) continue;
      seen.add(k);
      causes.push({ reason: e.type, message: e.message, field: e.field });
    }
    return causes;
  }

  private failInvalid(r: ResourceInfo, obj: any, causes: StatusCause[]): void {
    if (causes.length > 0) throw invalid(r.kind, r.group, obj.metadata?.name ?? obj.metadata?.generateName ?? '', causes);
  }

  /** CREATE: generateName, uid, timestamps, generation, managedFields, namespace checks, strategy, storage. */
  create(r: ResourceInfo, namespace: string, obj: any, opts: WriteOptions): any {
    obj.apiVersion = groupVersion(r.group, r.version);
    obj.kind = r.kind;
    obj.metadata ??= {};
    const meta = obj.metadata;
    if (r.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace || meta.namespace;
    } else {
      delete meta.namespace;
    }
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${this.rng.alphanumeric(5)}`;
    if (meta.name && meta.generateName && meta.name.length > 253) meta.name = meta.name.slice(0, 253);
    for (const f of ['resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink']) delete meta[f];
    meta.uid = this.rng.uuid();
    meta.creationTimestamp = this.ctx.nowTime();
    const s = this.strategy(r);
    if (s.generation) meta.generation = 1;
    else if (meta.generation !== undefined) delete meta.generation;
    s.prepareForCreate?.(obj, this.ctx);
    dropEmptyCollections(meta);
    const causes = this.validateMeta(r, obj, undefined);
    if (causes.length === 0 && s.validate) causes.push(...s.validate(obj, this.ctx));
    this.failInvalid(r, obj, causes);
    if (r.namespaced) this.checkNamespace(meta.namespace);
    if (!opts.applied) meta.managedFields = updateManagedFields({ old: undefined, obj, manager: opts.manager, apiVersion: obj.apiVersion, time: meta.creationTimestamp, messageName: messageNameForKind(r.group, r.version, r.kind) });
    if (opts.dryRun) {
      if (this.storage.get(this.key(r, meta.namespace ?? '', meta.name))) throw alreadyExists(this.gr(r), meta.name);
      return obj;
    }
    try {
      const value = this.storedValue(r, obj);
      return this.store(r, obj, value, () => this.storage.create(this.key(r, meta.namespace ?? '', meta.name), value));
    } catch (e) {
      this.translate(e, r, meta.name);
    }
  }

  /**
   * UPDATE (PUT) of the main resource or a subresource. Creates the object when it does not exist
   * (the seed: PUT is classified as create or update). A set metadata.resourceVersion is a
   * precondition; an empty one updates unconditionally.
   */
  update(r: ResourceInfo, namespace: string, name: string, obj: any, opts: WriteOptions): { obj: any; created: boolean } {
    obj.metadata ??= {};
    if (obj.metadata.name && obj.metadata.name !== name) throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    if (r.namespaced && obj.metadata.namespace && obj.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.name = name;
    const key = this.key(r, namespace, name);
    const kv = this.storage.get(key);
    if (!kv) {
      if (opts.subresource) throw notFound(this.gr(r), name);
      if (obj.metadata.resourceVersion) throw notFound(this.gr(r), name);
      return { obj: this.create(r, namespace, obj, opts), created: true };
    }
    // NOTE: the shared decoded version: commitUpdate and the strategies only read `old` (and copy what they change).
    const old = this.decodeShared(r, kv);
    const precondition = obj.metadata.resourceVersion;
    if (precondition && precondition !== old.metadata.resourceVersion) {
      throw conflict(this.gr(r), name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    return { obj: this.commitUpdate(r, old, kv.modRevision, obj, opts, key), created: false };
  }

  /** Applies generic update rules and the strategy to `obj` over `old`, then stores with CAS under `key` (old's storage key). */
  private commitUpdate(r: ResourceInfo, old: any, oldRevision: number, obj: any, opts: WriteOptions, key: string): any {
    obj.apiVersion = groupVersion(r.group, r.version);
    obj.kind = r.kind;
    const meta = (obj.metadata ??= {});
    const om = old.metadata;
    if (meta.uid && meta.uid !== om.uid) {
      throw conflict(this.gr(r), om.name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${om.uid}`);
    }
    const sub = opts.subresource;
    if (sub === 'status') {
      const status = obj.status;
      const appliedFields = opts.applied ? obj.metadata?.managedFields : undefined;
      // NOTE: a shallow copy: spec and the rest are shared with `old`, which strategies only read and assign over.
      obj = { ...old, metadata: { ...om } };
      if (appliedFields) obj.metadata.managedFields = appliedFields;
      if (status === undefined) delete obj.status;
      else obj.status = status;
    } else if (!sub && hasStatus(r) && r.resource !== 'namespaces') {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    }
    const m = obj.metadata;
    m.name = om.name;
    if (r.namespaced) m.namespace = om.namespace;
    m.uid = om.uid;
    m.creationTimestamp = om.creationTimestamp;
    if (om.deletionTimestamp) m.deletionTimestamp = om.deletionTimestamp;
    else delete m.deletionTimestamp;
    if (om.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
    else delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    const s = this.strategy(r);
    if (!s.generation) {
      if (m.generation !== undefined) delete m.generation;
    } else if (om.generation !== undefined) m.generation = deepEqualExcept(obj, old, NOT_SPEC) ? om.generation : om.generation + 1;
    s.prepareForUpdate?.(obj, old, this.ctx, sub);
    dropEmptyCollections(m);
    // The entries this update starts from when the request edits or resets (`[{}]`) managedFields.
    const edited = opts.applied ? undefined : editedManagedFields(m.managedFields, om.managedFields, sub);
    if (edited !== undefined && edited.length === 0) m.managedFields = undefined;
    const causes = this.validateMeta(r, obj, old);
    if (causes.length === 0 && s.validateUpdate) causes.push(...s.validateUpdate(obj, old, this.ctx, sub));
    this.failInvalid(r, obj, causes);
    if (om.deletionTimestamp && Array.isArray(m.finalizers) && m.finalizers.some((f: string) => !(om.finalizers ?? []).includes(f))) {
      throw invalid(r.kind, r.group, om.name, [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: 'Forbidden: no new finalizers can be added if the object is being deleted' }]);
    }
    if (edited === undefined && deepEqualExcept(obj, old, METADATA) && deepEqualExcept(m, om, opts.applied ? RESOURCE_VERSION : NOOP_META)) return old;
    if (!opts.applied) {
      const entries = updateManagedFields({
        old,
        obj,
        manager: opts.manager,
        apiVersion: obj.apiVersion,
        time: this.ctx.nowTime(),
        messageName: messageNameForKind(r.group, r.version, r.kind),
        subresource: sub,
        previous: edited,
      });
      // NOTE: no entries left (a reset and nothing else changed): the list goes, as Kubernetes omits it.
      if (entries.length > 0) m.managedFields = entries;
      else delete m.managedFields;
    }
    // NOTE: not deleted (see encode); store() sets the new one.
    if (m.resourceVersion !== undefined) m.resourceVersion = undefined;
    // Two-phase deletion: once the last finalizer goes from a terminating object, it leaves storage.
    const finishing = m.deletionTimestamp && (!m.finalizers || m.finalizers.length === 0) && !(m.deletionGracePeriodSeconds > 0) && !s.pendingFinalization?.(obj);
    if (opts.dryRun) {
      m.resourceVersion = om.resourceVersion;
      return obj;
    }
    try {
      if (finishing) {
        const kv = this.storage.delete(key, oldRevision);
        s.afterDelete?.(obj, this.ctx);
        m.resourceVersion = String(kv.modRevision);
        return obj;
      }
      const value = this.storedValue(r, obj);
      return this.store(r, obj, value, () => this.storage.update(key, value, oldRevision));
    } catch (e) {
      this.translate(e, r, om.name);
    }
  }

  /**
   * PATCH: reads the current object, lets `apply` produce the patched one, and stores it with
   * compare-and-swap, retrying on conflicts unless the patch itself carries a resourceVersion.
   */
  patch(r: ResourceInfo, namespace: string, name: string, apply: (current: any) => any, opts: WriteOptions, how: PatchOptions = {}): any {
    const key = this.key(r, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = this.storage.get(key);
      if (!kv) throw notFound(this.gr(r), name);
      // NOTE: an applyCopies patch leaves `current` alone, so it can be the shared decoded version.
      const current = how.applyCopies ? this.decodeShared(r, kv) : this.decode(r, kv);
      const patched = apply(how.applyCopies ? current : structuredClone(current));
      if (how.applyCopies && patched === current) throw new Error('registry.patch: an applyCopies patch function returned its input');
      if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch did not produce an object');
      patched.metadata ??= {};
      if (patched.metadata.name !== undefined && patched.metadata.name !== name) {
        throw badRequest(`the name of the object (${patched.metadata.name}) does not match the name on the URL (${name})`);
      }
      const rv = patched.metadata.resourceVersion;
      if (rv && rv !== current.metadata.resourceVersion) {
        throw conflict(this.gr(r), name, 'the object has been modified; please apply your changes to the latest version and try again');
      }
      try {
        return this.commitUpdate(r, current, kv.modRevision, patched, opts, key);
      } catch (e) {
        if (e instanceof StatusError && e.reason === 'Conflict' && !rv && attempt < 5 && !/Precondition/.test(e.message)) continue;
        throw e;
      }
    }
  }

  /**
   * DELETE: preconditions, graceful deletion (deletionTimestamp + deletionGracePeriodSeconds) where
   * the strategy asks for it, finalizers (two-phase), propagationPolicy recorded as the
   * `orphan` / `foregroundDeletion` finalizers as Kubernetes records it.
   */
  delete(r: ResourceInfo, namespace: string, name: string, options: DeleteOptions): DeleteOutcome {
    const key = this.key(r, namespace, name);
    const kv = this.storage.get(key);
    if (!kv) throw notFound(this.gr(r), name);
    const obj = this.decode(r, kv);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(this.gr(r), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(this.gr(r), name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`);
    }
    const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : undefined);
    if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw invalid('DeleteOptions', 'meta.k8s.io', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"` }]);
    }
    if (options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0) options.gracePeriodSeconds = 1;
    const s = this.strategy(r);
    const grace = s.gracePeriodSeconds ? s.gracePeriodSeconds(obj, options.gracePeriodSeconds) : 0;
    const finalizers: string[] = [...(obj.metadata.finalizers ?? [])];
    if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');

    if (grace === 0 && finalizers.length === 0 && !s.pendingFinalization?.(obj)) {
      if (options.dryRun) return { obj, deleted: true };
      try {
        const del = this.storage.delete(key, kv.modRevision);
        obj.metadata.resourceVersion = String(del.modRevision);
      } catch (e) {
        this.translate(e, r, name);
      }
      s.afterDelete?.(obj, this.ctx);
      return { obj, deleted: true };
    }
    // Graceful or finalized: mark deletionTimestamp and keep the object until the node agent or the last finalizer lets go.
    const next = structuredClone(obj);
    const m = next.metadata;
    if (!m.deletionTimestamp || grace < (m.deletionGracePeriodSeconds ?? 0)) {
      m.deletionTimestamp = formatTime(this.clock.now() + grace * 1000);
      m.deletionGracePeriodSeconds = grace;
    }
    if (finalizers.length > 0) m.finalizers = finalizers;
    s.onTerminating?.(next);
    if (options.dryRun) return { obj: next, deleted: false };
    delete m.resourceVersion;
    try {
      const up = this.storage.update(key, this.encode(r, next), kv.modRevision);
      m.resourceVersion = String(up.modRevision);
    } catch (e) {
      this.translate(e, r, name);
    }
    return { obj: next, deleted: false };
  }

  /** DELETECOLLECTION: deletes every object the selectors match, each as a single DELETE. */
  deleteCollection(r: ResourceInfo, namespace: string, q: ListQuery, options: DeleteOptions): ListOutcome {
    const listed = this.list(r, namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
    const items: any[] = [];
    for (const item of listed.items) {
      try {
        items.push(this.delete(r, item.metadata.namespace ?? '', item.metadata.name, { ...options, preconditions: undefined }).obj);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    return { items, resourceVersion: this.currentResourceVersion() };
  }
}
