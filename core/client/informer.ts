import { realClock, type Clock, type TimerHandle } from '../machinery/clock.ts';
import { isGone, type Client, type ListOptions, type ResourceClient, type ResourceRef, type WatchStream } from './client.ts';

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function metaNamespaceKey(obj: any): string {
  const ns = obj?.metadata?.namespace;
  const name = obj?.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** Index functions by index name: each returns the index values of an object. */
export type Indexers = Record<string, (obj: any) => string[]>;

/** The index of objects by namespace (client-go's NamespaceIndex). */
export const NAMESPACE_INDEX = 'namespace';

/**
 * A thread-safe-by-construction (single-threaded) keyed store with secondary indexes. The
 * `namespace` index is always present; `addIndexers` adds more and indexes existing objects.
 */
export class Indexer<T = any> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Indexers = {};
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(
    indexers: Indexers = {},
    readonly keyFunc: (obj: T) => string = metaNamespaceKey,
  ) {
    this.addIndexers({ [NAMESPACE_INDEX]: (o: any) => [o?.metadata?.namespace ?? ''], ...indexers });
  }

  /** Adds index functions; an index name already defined is an error. */
  addIndexers(indexers: Indexers): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers[name]) throw new Error(`indexer conflict: ${name}`);
      this.indexers[name] = fn;
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(index, v, key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) index.delete(v);
      }
    }
  }

  /** Inserts or replaces the object under its key; returns the previous object. */
  upsert(obj: T): T | undefined {
    const key = this.keyFunc(obj);
    const old = this.items.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of Object.entries(this.indexers)) for (const v of fn(obj)) addTo(this.indices.get(name)!, v, key);
    return old;
  }

  /** Removes the object stored under `key`; returns it. */
  deleteKey(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /** The object stored under `key` (`namespace/name` or `name`). */
  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  /** The object with this namespace and name. */
  get(namespace: string, name: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Every object, in key order. */
  list(): T[] {
    return [...this.items.keys()].sort().map((k) => this.items.get(k)!);
  }

  /** Every key, sorted. */
  listKeys(): string[] {
    return [...this.items.keys()].sort();
  }

  /** Number of objects. */
  size(): number {
    return this.items.size;
  }

  /** The objects whose index `indexName` contains `value`, in key order. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`index with name ${indexName} does not exist`);
    return [...(index.get(value) ?? [])].sort().map((k) => this.items.get(k)!);
  }

  /** The objects of one namespace. */
  listByNamespace(namespace: string): T[] {
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (!set) index.set(value, (set = new Set()));
  set.add(key);
}

/** Callbacks for changes of an informer's cache. Resyncs call `onUpdate(obj, obj)`. */
export interface EventHandler<T = any> {
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** Gets the last state the cache knew. */
  onDelete?(obj: T): void;
}

/** Options of an {@link Informer}. */
export interface InformerOptions {
  clock?: Clock;
  /** Re-deliver every cached object as an update this often (0: never). */
  resyncPeriodMs?: number;
  /** Restrict the informer to one namespace. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size of the initial list (0: unpaginated). Default 500. */
  pageSize?: number;
  /** `timeoutSeconds` of each watch request (server default when unset). */
  watchTimeoutSeconds?: number;
  /** Additional indexers of the store. */
  indexers?: Indexers;
  /** Told about list/watch failures and handler exceptions (which never stop the informer). */
  onError?(err: unknown): void;
}

/** Reflector backoff after a failed list or watch: 800 ms doubling to 30 s, like client-go's. */
const BACKOFF_INITIAL_MS = 800;
const BACKOFF_MAX_MS = 30_000;

class RelistNeeded extends Error {}

/**
 * A shared informer for one resource type: lists, then watches from the list's resourceVersion
 * with bookmarks; bookmarks and events advance the resourceVersion; a watch that ends is resumed
 * from the last resourceVersion; a 410 (an HTTP 410 or an ERROR event with code 410) causes a
 * relist, after which the cache equals the list and handlers see the differences (adds, updates,
 * deletes). Every `resyncPeriodMs` every cached object is re-delivered as `onUpdate(obj, obj)`.
 * Handlers run synchronously in event order; a throwing handler is reported to `onError` only.
 */
export class Informer<T = any> {
  readonly store: Indexer<T>;
  private readonly clock: Clock;
  private readonly client: ResourceClient<T>;
  private readonly handlers: EventHandler<T>[] = [];
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running?: Promise<void>;
  private stopped = false;
  private watch?: WatchStream<T>;
  private resyncTimer?: TimerHandle;
  private sleepTimer?: { handle: TimerHandle; resolve: () => void };
  private rv = '';
  /** Lists done so far (1 after the first sync); useful to observe relists. */
  lists = 0;

  constructor(
    client: ResourceClient<T>,
    private readonly opts: InformerOptions = {},
  ) {
    this.client = opts.namespace ? client.namespace(opts.namespace) : client;
    this.clock = opts.clock ?? realClock;
    this.store = new Indexer<T>(opts.indexers ?? {});
  }

  /** The resourceVersion the informer has seen up to. */
  lastSyncResourceVersion(): string {
    return this.rv;
  }

  /** Registers handlers; when the cache is already filled, `onAdd` is replayed for every object. */
  addEventHandler(h: EventHandler<T>): void {
    this.handlers.push(h);
    if (this.running) for (const obj of this.store.list()) this.call(() => h.onAdd?.(obj, true));
  }

  /** Adds indexers to the store (allowed before and after start). */
  addIndexers(indexers: Indexers): void {
    this.store.addIndexers(indexers);
  }

  /** Whether the first list has been applied to the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been applied (or the informer was stopped). */
  waitForSync(): Promise<void> {
    if (this.synced || this.stopped) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  /** Starts list+watch; idempotent. */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.run();
    this.scheduleResync();
  }

  /** Stops watching and timers; resolves when the loop has ended. The cache keeps its contents. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    if (this.resyncTimer) this.clock.clearTimer(this.resyncTimer);
    if (this.sleepTimer) {
      this.clock.clearTimer(this.sleepTimer.handle);
      this.sleepTimer.resolve();
    }
    for (const w of this.syncWaiters.splice(0)) w();
    await this.running;
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private scheduleResync(): void {
    const period = this.opts.resyncPeriodMs ?? 0;
    if (period <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimer(period, () => {
      if (this.stopped) return;
      if (this.synced) for (const obj of this.store.list()) for (const h of this.handlers) this.call(() => h.onUpdate?.(obj, obj));
      this.scheduleResync();
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const handle = this.clock.setTimer(ms, () => {
        this.sleepTimer = undefined;
        resolve();
      });
      this.sleepTimer = { handle, resolve };
    });
  }

  private async run(): Promise<void> {
    let backoff = BACKOFF_INITIAL_MS;
    while (!this.stopped) {
      try {
        await this.listAndReplace();
        backoff = BACKOFF_INITIAL_MS;
        await this.watchLoop();
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof RelistNeeded) continue;
        this.opts.onError?.(err);
        await this.sleep(backoff);
        backoff = Math.min(BACKOFF_MAX_MS, backoff * 2);
      }
    }
  }

  private listOptions(): ListOptions {
    return { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector };
  }

  private async listAll(): Promise<{ items: T[]; resourceVersion: string }> {
    const pageSize = this.opts.pageSize ?? 500;
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    try {
      do {
        const page = await this.client.list({ ...this.listOptions(), limit: pageSize > 0 ? pageSize : undefined, continue: cont });
        items.push(...page.items);
        cont = page.metadata.continue || undefined;
        if (!rv) rv = page.metadata.resourceVersion ?? '';
      } while (cont && !this.stopped);
    } catch (err) {
      if (!isGone(err) || !cont) throw err;
      const all = await this.client.list(this.listOptions());
      return { items: all.items, resourceVersion: all.metadata.resourceVersion ?? '' };
    }
    return { items, resourceVersion: rv };
  }

  private async listAndReplace(): Promise<void> {
    const { items, resourceVersion } = await this.listAll();
    if (this.stopped) return;
    this.lists++;
    const initial = !this.synced;
    const seen = new Set<string>();
    for (const obj of items) {
      const key = this.store.keyFunc(obj);
      seen.add(key);
      const old = this.store.upsert(obj);
      for (const h of this.handlers) this.call(() => (old === undefined ? h.onAdd?.(obj, initial) : h.onUpdate?.(old, obj)));
    }
    for (const key of this.store.listKeys()) {
      if (seen.has(key)) continue;
      const old = this.store.deleteKey(key)!;
      for (const h of this.handlers) this.call(() => h.onDelete?.(old));
    }
    this.rv = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private async watchLoop(): Promise<void> {
    while (!this.stopped) {
      let stream: WatchStream<T>;
      try {
        stream = await this.client.watch({
          ...this.listOptions(),
          resourceVersion: this.rv,
          allowWatchBookmarks: true,
          timeoutSeconds: this.opts.watchTimeoutSeconds,
        });
      } catch (err) {
        if (isGone(err)) throw new RelistNeeded();
        throw err;
      }
      if (this.stopped) {
        stream.stop();
        return;
      }
      this.watch = stream;
      for await (const ev of stream) {
        if (this.stopped) return;
        const obj: any = ev.object;
        switch (ev.type) {
          case 'ADDED':
          case 'MODIFIED': {
            const old = this.store.upsert(obj);
            for (const h of this.handlers) this.call(() => (old === undefined ? h.onAdd?.(obj, false) : h.onUpdate?.(old, obj)));
            break;
          }
          case 'DELETED': {
            const old = this.store.deleteKey(this.store.keyFunc(obj));
            if (old !== undefined) for (const h of this.handlers) this.call(() => h.onDelete?.(obj));
            break;
          }
          case 'BOOKMARK':
            break;
          case 'ERROR':
            if (obj?.code === 410) throw new RelistNeeded();
            throw new Error(`watch error: ${obj?.message ?? JSON.stringify(obj)}`);
        }
        const rv = obj?.metadata?.resourceVersion;
        if (rv) this.rv = rv;
      }
      this.watch = undefined;
    }
  }
}

/** Options of a {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  clock?: Clock;
  /** Default resync period of its informers (0: none). */
  resyncPeriodMs?: number;
  /** Restrict every informer to one namespace. */
  namespace?: string;
  onError?(err: unknown): void;
}

/**
 * Hands out one {@link Informer} per resource type, so every component that asks for the same
 * resource shares one list and one watch. `start()` starts the ones not yet started (informers
 * requested later need another `start()`); `shutdown()` stops them all.
 */
export class SharedInformerFactory {
  private readonly informers = new Map<string, Informer>();

  constructor(
    private readonly client: Client,
    private readonly opts: SharedInformerFactoryOptions = {},
  ) {}

  /** The shared informer of `ref` (created on first request). */
  informerFor<T = any>(ref: ResourceRef): Informer<T> {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new Informer(this.client.resource(ref), {
        clock: this.opts.clock,
        resyncPeriodMs: this.opts.resyncPeriodMs,
        namespace: this.opts.namespace,
        onError: this.opts.onError,
      });
      this.informers.set(key, inf);
    }
    return inf as Informer<T>;
  }

  /** Starts every informer requested so far. */
  start(): void {
    for (const inf of this.informers.values()) inf.start();
  }

  /** Resolves once every started informer has synced. */
  async waitForCacheSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  /** Stops every informer. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
