import type { Clock, TimerHandle } from '../machinery/clock.ts';
import { StatusError, gone, tooLargeResourceVersion, badRequest } from '../machinery/status.ts';
import { isStorageError, type StorageEvent, type Watch } from '../storage/interface.ts';
import type { Registry, ListQuery } from './registry.ts';
import type { ResourceInfo } from './resources.ts';
import type { ChunkWriter, ResponseStream, StreamStartOptions } from './types.ts';

/** How a watch event's object is put on the wire. */
export interface WatchEncoder {
  /** Encodes one event (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) as a frame. */
  frame(type: string, object: any): Buffer | string;
  /** The frames are plain JSON of `{ type, object }`: the stream passes the event alongside (see {@link ResponseStream}). */
  json?: boolean;
}

/** The watch request, as parsed by the handler. */
export interface WatchRequest {
  resource: ResourceInfo;
  namespace: string;
  /** Watch one object (metadata.name=…) when set. */
  name?: string;
  query: ListQuery;
  allowWatchBookmarks: boolean;
  /** true / false / undefined (not given). */
  sendInitialEvents?: boolean;
  timeoutSeconds: number;
  bookmarkIntervalMs: number;
}

/** Counts the events this server has sent, for `apiserver_watch_events_total`. */
export type WatchEventCounter = (kind: string, group: string, version: string) => void;

/**
 * One watch, as a streamed response: synthetic ADDED events for Get-State semantics (unset or `0`
 * resourceVersion) and streaming lists (sendInitialEvents, ending with a BOOKMARK annotated
 * `k8s.io/initial-events-end`), then every change after the start revision in order, with selector
 * transitions turned into ADDED/DELETED as Kubernetes' cacher does, periodic BOOKMARKs when asked,
 * and an ERROR event (410 Expired) for a start version no longer retained. Ends at `timeoutSeconds`.
 */
export class WatchResponseStream implements ResponseStream {
  private watch?: Watch;
  private timers: TimerHandle[] = [];
  private write?: ChunkWriter;
  private end?: () => void;
  private lastRevision = 0;
  private done = false;
  private backedUp = false;
  private readonly pred: ((obj: any) => boolean) | undefined;
  /** The peer reads only decoded events: JSON frames are not built (see StreamStartOptions). */
  private decodedOnly = false;

  constructor(
    private readonly registry: Registry,
    private readonly req: WatchRequest,
    private readonly encoder: WatchEncoder,
    private readonly clock: Clock,
    private readonly onEvent?: WatchEventCounter,
  ) {
    const q = req.query;
    const match = q.resourceVersionMatch;
    if (req.sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan') {
        throw new StatusError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`, {
          kind: 'ListOptions',
          group: 'meta.k8s.io',
          causes: [{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' }],
        });
      }
    } else if (match) {
      throw badRequest(`resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`);
    }
    this.pred = registry.selectors(req.resource, q);
    const rv = q.resourceVersion;
    if (rv && rv !== '0' && !/^\d+$/.test(rv)) throw badRequest(`Invalid value: "${rv}": invalid resourceVersion`);
  }

  private matches(obj: any): boolean {
    if (this.req.name && obj.metadata?.name !== this.req.name) return false;
    return this.pred ? this.pred(obj) : true;
  }

  private send(type: string, object: any): boolean {
    if (this.done || !this.write) return true;
    this.onEvent?.(this.req.resource.kind, this.req.resource.group, this.req.resource.version);
    const ok = this.encoder.json ? this.write(this.decodedOnly ? '' : this.encoder.frame(type, object), { type, object }) : this.write(this.encoder.frame(type, object));
    if (!ok) this.backedUp = true;
    return ok;
  }

  private bookmark(annotations?: Record<string, string>): boolean {
    const r = this.req.resource;
    // NOTE: timers run after the fan-out's microtasks, so a watcher that is not backed up has been
    // sent every change so far: its bookmark can carry the store's current revision, which keeps
    // selective watchers (and their informers) from falling behind the compaction window.
    if (!this.backedUp) this.lastRevision = Math.max(this.lastRevision, this.registry.storage.currentRevision());
    const metadata: any = { resourceVersion: String(this.lastRevision) };
    if (annotations) metadata.annotations = annotations;
    return this.send('BOOKMARK', { kind: r.kind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, metadata });
  }

  private fail(err: StatusError): void {
    this.send('ERROR', err.toStatus());
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.watch?.stop();
    for (const t of this.timers) this.clock.clearTimer(t);
    this.timers = [];
    this.end?.();
  }

  start(write: ChunkWriter, end: () => void, opts?: StreamStartOptions): void {
    this.write = write;
    this.end = end;
    this.decodedOnly = opts?.decodedOnly === true;
    const { registry, req } = this;
    const rv = req.query.resourceVersion;
    let from: number;
    const initial = req.sendInitialEvents ?? (!rv || rv === '0');
    try {
      if (initial) {
        const listed = registry.list(req.resource, req.namespace, {
          labelSelector: req.query.labelSelector,
          fieldSelector: req.query.fieldSelector,
          resourceVersion: req.sendInitialEvents && rv && rv !== '0' ? rv : undefined,
        }, { shared: true });
        from = Number(listed.resourceVersion);
        this.lastRevision = from;
        for (const item of listed.items) if (!req.name || item.metadata.name === req.name) this.send('ADDED', item);
        if (req.sendInitialEvents && req.allowWatchBookmarks) this.bookmark({ 'k8s.io/initial-events-end': 'true' });
      } else {
        from = Number(rv);
        const cur = registry.storage.currentRevision();
        if (from > cur) {
          this.fail(tooLargeResourceVersion(from, cur));
          return;
        }
        if (from < registry.storage.compactedRevision()) {
          this.fail(gone(`too old resource version: ${from} (${registry.storage.compactedRevision()})`, 'Expired'));
          return;
        }
        this.lastRevision = from;
      }
      this.watch = registry.storage.watch(
        { prefix: req.name ? registry.key(req.resource, req.namespace, req.name) : registry.prefix(req.resource, req.namespace), fromRevision: from, trigger: registry.watchTrigger(req.resource, req.query) },
        { event: (ev) => this.onStorageEvent(ev), close: (err) => (err && err.code === 'Compacted' ? this.fail(gone(`too old resource version: ${from}`, 'Expired')) : this.finish()) },
      );
    } catch (e) {
      if (isStorageError(e, 'Compacted')) return this.fail(gone(`too old resource version: ${rv} (${registry.storage.compactedRevision()})`, 'Expired'));
      if (e instanceof StatusError) return this.fail(e);
      throw e;
    }
    const timeoutMs = req.timeoutSeconds * 1000;
    this.timers.push(this.clock.setTimer(timeoutMs, () => this.finish()));
    if (req.allowWatchBookmarks) this.scheduleBookmark();
  }

  private scheduleBookmark(): void {
    const t = this.clock.setTimer(this.req.bookmarkIntervalMs, () => {
      this.timers = this.timers.filter((x) => x !== t);
      if (this.done) return;
      this.bookmark();
      this.scheduleBookmark();
    });
    t.unref?.();
    this.timers.push(t);
  }

  /** Objects passed to the encoder may be shared between watchers: encoders must not mutate them. */
  private onStorageEvent(ev: StorageEvent): boolean {
    if (this.done) return true;
    if (this.req.name && ev.kv.key !== this.registry.key(this.req.resource, this.req.namespace, this.req.name)) return true;
    this.lastRevision = ev.kv.modRevision;
    const r = this.req.resource;
    const obj = this.registry.decodeShared(r, ev.kv);
    if (ev.type === 'DELETED') return this.matches(obj) ? this.send('DELETED', obj) : true;
    const now = this.matches(obj);
    if (ev.type === 'ADDED') return now ? this.send('ADDED', obj) : true;
    // NOTE: without a selector only the name counts, and the previous version has the same key.
    const before = ev.prevKv ? (this.pred ? this.matches(this.registry.decodeShared(r, ev.prevKv)) : now) : false;
    if (now && before) return this.send('MODIFIED', obj);
    if (now) return this.send('ADDED', obj);
    if (before) {
      const old = this.registry.decode(r, ev.prevKv!);
      old.metadata.resourceVersion = obj.metadata.resourceVersion;
      // NOTE: a fresh decode, since shared objects must not be mutated.
      return this.send('DELETED', old);
    }
    return true;
  }

  resume(): void {
    this.backedUp = false;
    this.watch?.resume();
  }

  cancel(): void {
    this.finish();
  }
}
