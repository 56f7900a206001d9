import type { ApiRequest, ApiResponse, DecodedWatchEvent } from '../apiserver/types.ts';
import { RESOURCES, type ResourceInfo } from '../apiserver/resources.ts';
import type { StatusDetails } from '../machinery/status.ts';
import type { Clock } from '../machinery/clock.ts';
import { jsonClone } from '../machinery/jsonclone.ts';
import { rateLimiterFor, type RateLimiter } from './ratelimit.ts';
import type { Transport } from './transport.ts';

/** Names a resource type: group ('' for core), version and plural resource name. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
  /** Scope; looked up in RESOURCES when omitted (unknown resources default to namespaced). */
  namespaced?: boolean;
}

/**
 * An error response from the API server, typed by its Status: `status` is the HTTP code,
 * `reason` the metav1.StatusReason (`NotFound`, `Conflict`, `Gone`, …), `details` as sent.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly details?: StatusDetails;
  /** The whole Status object, when the server sent one. */
  readonly body?: any;

  constructor(status: number, reason: string, message: string, details?: StatusDetails, body?: any) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
    this.details = details;
    this.body = body;
  }
}

function reasonOf(err: unknown): string | undefined {
  return err instanceof ApiError ? err.reason : undefined;
}

/** True for a 404 NotFound ApiError. */
export function isNotFound(err: unknown): boolean {
  return reasonOf(err) === 'NotFound' || (err instanceof ApiError && err.status === 404 && err.reason === '');
}
/** True for a 409 Conflict ApiError (an optimistic-concurrency failure). */
export function isConflict(err: unknown): boolean {
  return reasonOf(err) === 'Conflict';
}
/** True for a 409 AlreadyExists ApiError. */
export function isAlreadyExists(err: unknown): boolean {
  return reasonOf(err) === 'AlreadyExists';
}
/** True for a 410 ApiError (reason Gone or Expired): the resourceVersion is too old. */
export function isGone(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 410 || err.reason === 'Gone' || err.reason === 'Expired');
}

const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** Builds an ApiError from a Status object (or any error body) and its HTTP code. */
export function apiErrorFrom(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object' && (body as any).kind === 'Status') {
    const s = body as any;
    return new ApiError(s.code || status, s.reason || REASON_BY_CODE[s.code || status] || '', s.message ?? `status ${status}`, s.details, s);
  }
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return new ApiError(status, REASON_BY_CODE[status] ?? '', text || `the server responded with status ${status}`);
}

/** Options of list requests (and the list half of watch). */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
}

/** Options of a watch request. */
export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: string;
  /** Watch one object by name (`fieldSelector=metadata.name=…`). */
  name?: string;
}

/** Options shared by writes. */
export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Write a subresource (`status`, `scale`, …) instead of the object. */
  subresource?: string;
  /**
   * The caller does not use the written object: a successful response's body is not decoded and
   * the call resolves to undefined (an error response is decoded and thrown as always).
   */
  discardResult?: boolean;
  /**
   * The caller hands the body over and will not read or change it (nor anything it holds) again:
   * an in-process server may then take it as it is instead of a copy. Bodies are copied otherwise.
   */
  handOver?: boolean;
}

/** Options of delete. */
export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** The patch types the API server accepts, by their short names. */
export type PatchType = 'merge' | 'json' | 'strategic';

const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** One watch event as decoded from the stream. */
export interface WatchEvent<T = any> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/**
 * An open watch: an async iterable of its events, in order, that ends when the server ends the
 * stream or `stop()` is called. Events are buffered; past `highWaterMark` queued events the
 * stream asks the transport to pause and resumes once the reader drains it.
 */
export class WatchStream<T = any> implements AsyncIterable<WatchEvent<T>> {
  private readonly queue: WatchEvent<T>[] = [];
  private head = 0;
  private ended = false;
  private error?: Error;
  private waiter?: () => void;
  private paused = false;
  private partial = '';

  constructor(
    private readonly res: ApiResponse,
    private readonly highWaterMark = 1000,
  ) {
    const stream = res.stream!;
    stream.start(
      (chunk, decoded) => this.onChunk(chunk, decoded),
      () => this.finish(),
    );
  }

  private onChunk(chunk: Buffer | string, decoded?: DecodedWatchEvent): boolean {
    if (this.ended) return true;
    if (decoded && this.partial === '') {
      // An in-process transport handed over the frame's event: no parse (its object is shared, read-only).
      this.queue.push(decoded as WatchEvent<T>);
    } else {
      const text = this.partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        try {
          this.queue.push(JSON.parse(line));
        } catch (err) {
          this.error = new Error(`malformed watch event: ${(err as Error).message}`);
          this.stop();
          return true;
        }
      }
    }
    this.wake();
    if (this.queue.length - this.head > this.highWaterMark) {
      this.paused = true;
      return false;
    }
    return true;
  }

  private finish(): void {
    if (this.partial.trim()) {
      try {
        this.queue.push(JSON.parse(this.partial));
      } catch {
        /* a truncated final line is dropped */
      }
      this.partial = '';
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  /** Stops the watch: the transport releases it and iteration ends after buffered events. */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.stream!.cancel();
    this.wake();
  }

  /** Whether the stream has ended (by the server or `stop()`). */
  get done(): boolean {
    return this.ended && this.head >= this.queue.length;
  }

  /** The next event, or undefined once the stream has ended and its buffer is drained. */
  async next(): Promise<WatchEvent<T> | undefined> {
    for (;;) {
      if (this.head < this.queue.length) {
        const ev = this.queue[this.head]!;
        // NOTE: the consumed slot is cleared so a delivered event is not kept alive until compaction.
        this.queue[this.head++] = undefined as unknown as WatchEvent<T>;
        if (this.head === this.queue.length) {
          this.queue.length = 0;
          this.head = 0;
        } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
          this.queue.splice(0, this.head);
          this.head = 0;
        }
        if (this.paused && this.queue.length - this.head <= this.highWaterMark / 2) {
          this.paused = false;
          this.res.stream!.resume();
        }
        return ev;
      }
      if (this.error) throw this.error;
      if (this.ended) return undefined;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    try {
      for (;;) {
        const ev = await this.next();
        if (!ev) return;
        yield ev;
      }
    } finally {
      this.stop();
    }
  }
}

/** Options of a {@link Client}. */
export interface ClientOptions {
  transport: Transport;
  /** `--kube-api-qps`: 0 means client-go's default 5, negative means unlimited. Default 0. */
  qps?: number;
  /** `--kube-api-burst`: 0 means client-go's default 10. */
  burst?: number;
  /** A limiter to use instead of one built from qps/burst (e.g. shared among clients). */
  rateLimiter?: RateLimiter;
  /** The clock the rate limiter runs on. */
  clock?: Clock;
  userAgent?: string;
}

function findResource(ref: ResourceRef): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === ref.group && r.version === ref.version && r.resource === ref.resource);
}

/**
 * A REST client for the Kubernetes API over any {@link Transport}. Every request first waits for
 * a token of the client's rate limiter (`--kube-api-qps` / `--kube-api-burst`); error responses
 * become {@link ApiError}s carrying the Status reason.
 */
export class Client {
  readonly transport: Transport;
  readonly rateLimiter: RateLimiter;
  private readonly userAgent?: string;

  constructor(opts: ClientOptions) {
    this.transport = opts.transport;
    this.rateLimiter = opts.rateLimiter ?? rateLimiterFor(opts.qps ?? 0, opts.burst ?? 0, opts.clock);
    this.userAgent = opts.userAgent;
  }

  /** A client for one resource type, all namespaces (or cluster-scoped). */
  resource<T = any>(ref: ResourceRef): ResourceClient<T> {
    const info = findResource(ref);
    const namespaced = ref.namespaced ?? info?.namespaced ?? true;
    return new ResourceClient<T>(this, { group: ref.group, version: ref.version, resource: ref.resource, namespaced }, undefined);
  }

  /** Sends one raw request after waiting for the rate limiter; returns the raw response (a synchronous failure rejects). */
  send(method: string, path: string, query: URLSearchParams, body?: unknown, contentType = 'application/json', handOver = false): Promise<ApiResponse> {
    // NOTE: not an async function, and neither are the resource methods: each async layer returning
    // a promise costs a promise and two microtask turns more per request. A token available now is
    // taken without a promise turn; otherwise wait for one in order.
    if (!this.rateLimiter.tryAccept()) return this.rateLimiter.wait().then(() => this.dispatch(method, path, query, body, contentType, handOver));
    try {
      return this.dispatch(method, path, query, body, contentType, handOver);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private dispatch(method: string, path: string, query: URLSearchParams, body: unknown, contentType: string, handOver: boolean): Promise<ApiResponse> {
    const headers: Record<string, string | undefined> = { accept: 'application/json' };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    const req: ApiRequest = { method, path, query, headers };
    if (body !== undefined) {
      headers['content-type'] = contentType;
      // NOTE: an in-process server gets a copy it owns, exactly what it would have parsed. An object
      // sent whole (not a patch, which the server merges) may hold arrays the server shares with
      // its clients as they are: the server only reads those.
      if (this.transport.decodedBodies && (contentType === 'application/json' || contentType.endsWith('+json'))) {
        req.object = handOver ? body : jsonClone(body, contentType === 'application/json' ? this.transport.isShared : undefined);
      }
      else req.body = Buffer.from(JSON.stringify(body));
    }
    return this.transport.request(req);
  }

  /** Sends a request and decodes its JSON body (unless `discardResult`); a status >= 400 throws an ApiError. */
  async call(method: string, path: string, query: URLSearchParams, body?: unknown, contentType?: string, discardResult = false, handOver = false): Promise<any> {
    const res = await this.send(method, path, query, body, contentType, handOver);
    if (res.stream) {
      res.stream.cancel();
      throw new ApiError(500, 'InternalError', `unexpected streamed response to ${method} ${path}`);
    }
    if (discardResult && res.status < 400) return undefined;
    if (res.object !== undefined && res.status < 400 && this.transport.decodedResponses) return res.object;
    const decoded = decodeBody(res);
    if (res.status >= 400) throw apiErrorFrom(res.status, decoded);
    return decoded;
  }
}

function decodeBody(res: ApiResponse): unknown {
  if (res.body === undefined) return undefined;
  const text = typeof res.body === 'string' ? res.body : res.body.toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function setIf(q: URLSearchParams, key: string, v: string | number | boolean | undefined): void {
  if (v !== undefined && v !== '') q.set(key, String(v));
}

/** An empty query that throws on any change: the one every request without parameters shares. */
class EmptyQuery extends URLSearchParams {
  override append(): never {
    throw new TypeError('the shared empty query cannot be changed');
  }
  override set(): never {
    throw new TypeError('the shared empty query cannot be changed');
  }
  override delete(): never {
    throw new TypeError('the shared empty query cannot be changed');
  }
  override sort(): never {
    throw new TypeError('the shared empty query cannot be changed');
  }
}

const NO_QUERY: URLSearchParams = new EmptyQuery();

function writeQuery(opts: WriteOptions | undefined): URLSearchParams {
  // NOTE: most writes have no parameters; a query object per request showed in idle-cluster profiles.
  if (!opts || (!opts.dryRun && !opts.fieldManager && !opts.fieldValidation)) return NO_QUERY;
  const q = new URLSearchParams();
  if (opts?.dryRun) q.set('dryRun', 'All');
  setIf(q, 'fieldManager', opts?.fieldManager);
  setIf(q, 'fieldValidation', opts?.fieldValidation);
  return q;
}

/**
 * Get/list/create/update/patch/delete/watch on one resource type, in one namespace (after
 * `namespace(ns)`) or across all namespaces / cluster-scoped. Writes of a namespaced resource
 * without a bound namespace use the object's `metadata.namespace`.
 */
export class ResourceClient<T = any> {
  constructor(
    private readonly client: Client,
    readonly ref: Required<ResourceRef>,
    readonly ns: string | undefined,
  ) {}

  /** The same resource bound to namespace `ns` (ignored for cluster-scoped resources). */
  namespace(ns: string): ResourceClient<T> {
    return new ResourceClient<T>(this.client, this.ref, this.ref.namespaced ? ns : undefined);
  }

  /** The URL path of the collection (or of `name`, and its `subresource`). */
  path(name?: string, subresource?: string, ns: string | undefined = this.ns): string {
    // NOTE: the last path is remembered: a client that writes one object over and over (a node's
    // Lease) builds it once, and the server finds the same string (its hash kept) every time.
    const last = this.lastPath;
    if (last !== undefined && last.name === name && last.subresource === subresource && last.ns === ns) return last.path;
    const path = this.buildPath(name, subresource, ns);
    this.lastPath = { name, subresource, ns, path };
    return path;
  }

  private lastPath: { name: string | undefined; subresource: string | undefined; ns: string | undefined; path: string } | undefined;

  private buildPath(name: string | undefined, subresource: string | undefined, ns: string | undefined): string {
    const { group, version, resource, namespaced } = this.ref;
    let p = group ? `/apis/${group}/${version}` : `/api/${version}`;
    if (namespaced && ns) p += `/namespaces/${encodeURIComponent(ns)}`;
    p += `/${resource}`;
    if (name !== undefined) {
      if (name === '') throw new Error(`${resource}: resource name may not be empty`);
      p += `/${encodeURIComponent(name)}`;
      if (subresource) p += `/${subresource}`;
    }
    return p;
  }

  private objectNamespace(obj: any): string | undefined {
    if (!this.ref.namespaced) return undefined;
    const ns = this.ns ?? obj?.metadata?.namespace;
    if (!ns) throw new Error(`${this.ref.resource} is namespaced: bind a namespace or set metadata.namespace`);
    return ns;
  }

  private requireNamespace(): void {
    if (this.ref.namespaced && !this.ns) throw new Error(`${this.ref.resource} is namespaced: call namespace(ns) first`);
  }

  /** GETs one object (or its subresource). */
  get(name: string, opts: { resourceVersion?: string; subresource?: string } = {}): Promise<T> {
    try {
      this.requireNamespace();
      const q = new URLSearchParams();
      setIf(q, 'resourceVersion', opts.resourceVersion);
      return this.client.call('GET', this.path(name, opts.subresource), q);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** LISTs the collection: `{apiVersion, kind, metadata: {resourceVersion, continue}, items}`. */
  async list(opts: ListOptions = {}): Promise<{ metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number }; items: T[]; [k: string]: any }> {
    const q = new URLSearchParams();
    setIf(q, 'labelSelector', opts.labelSelector);
    setIf(q, 'fieldSelector', opts.fieldSelector);
    setIf(q, 'resourceVersion', opts.resourceVersion);
    setIf(q, 'resourceVersionMatch', opts.resourceVersionMatch);
    setIf(q, 'limit', opts.limit);
    setIf(q, 'continue', opts.continue);
    setIf(q, 'timeoutSeconds', opts.timeoutSeconds);
    const list = await this.client.call('GET', this.path(), q);
    list.items ??= [];
    list.metadata ??= {};
    return list;
  }

  /** POSTs a new object. */
  create(obj: T, opts: WriteOptions = {}): Promise<T> {
    try {
      const ns = this.objectNamespace(obj);
      const path = opts.subresource ? this.path((obj as any)?.metadata?.name, opts.subresource, ns) : this.path(undefined, undefined, ns);
      return this.client.call('POST', path, writeQuery(opts), obj, undefined, opts.discardResult, opts.handOver);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** PUTs an object (its `metadata.resourceVersion`, when set, is the optimistic-concurrency precondition). */
  update(obj: T, opts: WriteOptions = {}): Promise<T> {
    try {
      const ns = this.objectNamespace(obj);
      return this.client.call('PUT', this.path((obj as any)?.metadata?.name, opts.subresource, ns), writeQuery(opts), obj, undefined, opts.discardResult, opts.handOver);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** PUTs the status subresource. */
  updateStatus(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...opts, subresource: 'status' });
  }

  /** PATCHes an object with a JSON merge patch, a JSON patch (array of operations) or a strategic merge patch. */
  patch(name: string, patch: unknown, type: PatchType = 'merge', opts: WriteOptions = {}): Promise<T> {
    try {
      this.requireNamespace();
      const ct = PATCH_CONTENT_TYPE[type];
      if (!ct) throw new Error(`unknown patch type ${String(type)}`);
      return this.client.call('PATCH', this.path(name, opts.subresource), writeQuery(opts), patch, ct, opts.discardResult, opts.handOver);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** DELETEs one object; resolves to what the server returns (the object or a Status). */
  async delete(name: string, opts: DeleteOptions = {}): Promise<any> {
    this.requireNamespace();
    const q = new URLSearchParams();
    if (opts.dryRun) q.set('dryRun', 'All');
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    return this.client.call('DELETE', this.path(name), q, body);
  }

  /**
   * Opens a watch. Resolves once the server accepted it; a refused watch (e.g. HTTP 410) throws
   * an ApiError. Errors inside the stream arrive as `ERROR` events.
   */
  async watch(opts: WatchOptions = {}): Promise<WatchStream<T>> {
    const q = new URLSearchParams({ watch: 'true' });
    let fieldSelector = opts.fieldSelector;
    if (opts.name) fieldSelector = [`metadata.name=${opts.name}`, fieldSelector].filter(Boolean).join(',');
    setIf(q, 'labelSelector', opts.labelSelector);
    setIf(q, 'fieldSelector', fieldSelector);
    setIf(q, 'resourceVersion', opts.resourceVersion);
    setIf(q, 'resourceVersionMatch', opts.resourceVersionMatch);
    if (opts.allowWatchBookmarks) q.set('allowWatchBookmarks', 'true');
    if (opts.sendInitialEvents !== undefined) q.set('sendInitialEvents', String(opts.sendInitialEvents));
    setIf(q, 'timeoutSeconds', opts.timeoutSeconds);
    const res = await this.client.send('GET', this.path(), q);
    if (!res.stream) {
      const decoded = decodeBody(res);
      throw res.status >= 400 ? apiErrorFrom(res.status, decoded) : new ApiError(500, 'InternalError', 'watch response has no stream');
    }
    if (res.status >= 400) {
      res.stream.cancel();
      throw apiErrorFrom(res.status, undefined);
    }
    return new WatchStream<T>(res);
  }
}
