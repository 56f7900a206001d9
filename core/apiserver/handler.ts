import YAML from 'yaml';
import jsonpatch from 'fast-json-patch';
import type { Clock } from '../machinery/clock.ts';
import type { Rng } from '../machinery/rng.ts';
import { StatusError, badRequest, conflict, toStatusError, type Status } from '../machinery/status.ts';
import { selectorFromLabelSelector } from '../machinery/labels.ts';
import type { Storage } from '../storage/interface.ts';
import { Registry, type DeleteOptions, type ListQuery, type WriteOptions } from './registry.ts';
import { buildStrategies, type ServiceAllocation } from './strategies.ts';
import { lookupResource, parseRequestInfo, type RequestInfo } from './request.ts';
import { negotiate, bodyFormat, parseMediaRanges, type Representation } from './negotiation.ts';
import { groupVersion, type ResourceInfo } from './resources.ts';
import { managerFor } from './managedfields.ts';
import { messageNameForKind } from './typemodel.ts';
import { WatchResponseStream, type WatchEncoder } from './watch.ts';
import type { ApiRequest, ApiResponse } from './types.ts';
import { checkFields, strictDecodingMessage, warningFor, typeErrorMessage } from './fieldvalidation.ts';
import { strategicMergePatch, jsonMergePatch, PatchError } from './strategicpatch.ts';
import { encodeObject, decodeObject, encodeWatchEventFrame, NotProtobufKind, PROTOBUF_MEDIA_TYPE } from './protobuf.ts';
import { toTable } from './tables.ts';
import * as discovery from './discovery.ts';
import { serveOpenAPI } from './openapi.ts';
import { ApiMetrics } from './metrics.ts';
import { applyConflictStatus, applyPatch, ApplyConflict, validateAppliedConfig } from './apply.ts';

/** Options of an {@link ApiServer}. */
export interface ApiServerOptions {
  storage: Storage;
  clock: Clock;
  rng: Rng;
  /** `--service-cluster-ip-range` and `--service-node-port-range`. */
  services?: Partial<ServiceAllocation>;
  /** Request bodies above this many bytes get 413 (default 3 MiB, as Kubernetes). */
  maxRequestBodyBytes?: number;
  /** `--min-request-timeout`: watches without timeoutSeconds last between this and twice it (default 1800 s). */
  minRequestTimeoutSeconds?: number;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Readiness checks beyond storage (e.g. shutdown in progress). */
  ready?: () => boolean;
  /**
   * At most this many decoded objects per resource stay shared between watchers, lists and the
   * next write (default 20,000); a function gives each resource its own bound.
   */
  sharedDecodeLimit?: number | ((r: ResourceInfo) => number);
}

type Next = (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;
type Stage = (req: ApiRequest, next: Next) => ApiResponse | Promise<ApiResponse>;

const JSON_TYPE = 'application/json';

function statusResponse(err: StatusError): ApiResponse {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, ...err.headers };
  return { status: err.code, headers, body: JSON.stringify(err.toStatus()) };
}

function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (v === '' || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`${name}: Invalid value: "${v}": must be a boolean`);
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`${name}: Invalid value: "${v}": must be an integer`);
  return Number(v);
}

function listQuery(q: URLSearchParams): ListQuery {
  const limit = intParam(q, 'limit');
  if (limit !== undefined && limit < 0) throw badRequest(`limit: Invalid value: ${limit}: must be greater than or equal to 0`);
  return {
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    limit,
    continue: q.get('continue') || undefined,
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
  };
}

/** A JSON watch frame; the object's JSON comes from its stored text when the registry knows it. */
function jsonWatchFrame(type: string, object: object, registry: Registry): string {
  const text = registry.servedJson(object);
  return text === undefined ? `${JSON.stringify({ type, object })}\n` : `{"type":${JSON.stringify(type)},"object":${text}}\n`;
}

function partialObject(obj: any, version: string): any {
  return { apiVersion: `meta.k8s.io/${version}`, kind: 'PartialObjectMetadata', metadata: obj.metadata };
}

/**
 * A JSON response the server can also hand over decoded (`object`, see ApiResponse): its body text
 * is built on first read, so in-process clients that take the object never pay for the text.
 * Reading `body` gives exactly what an eagerly built response would hold.
 */
class DecodedJsonResponse implements ApiResponse {
  private text: string | undefined;

  constructor(
    public status: number,
    public headers: Record<string, string | string[]>,
    public object: unknown,
    private readonly render: () => string,
  ) {}

  get body(): string {
    return (this.text ??= this.render());
  }

  set body(text: string) {
    this.text = text;
  }
}

/**
 * Where a request carries its parsed RequestInfo once routed (a property, not a WeakMap entry: it
 * costs nothing to collect). The info is a pure function of method, path and query.
 */
const REQUEST_INFO = Symbol('requestInfo');
type InfoCarrier = ApiRequest & { [REQUEST_INFO]?: RequestInfo };

/**
 * The API server: `handle(request) → response`. A pipeline of stages (recovery into Status,
 * metrics, body limits, routing) in front of one generic registry; every error is a Kubernetes
 * Status with the code and reason Kubernetes uses, and nothing a client sends produces a 500.
 */
export class ApiServer {
  readonly registry: Registry;
  readonly metrics: ApiMetrics;
  /**
   * Whether `array` is part of an object this server shares with in-process clients (a stored
   * object's managedFields or ownerReferences list; see `Transport.isShared`): it never changes, and a decoded request
   * body may hold it uncopied. The server only reads such arrays and skips checking their fields.
   */
  readonly isShared = (array: readonly unknown[]): boolean => this.registry.isSharedPart(array);
  private readonly stages: Stage[];
  private readonly opts: Required<Omit<ApiServerOptions, 'services' | 'ready'>> & Pick<ApiServerOptions, 'ready'>;

  constructor(options: ApiServerOptions) {
    this.opts = {
      storage: options.storage,
      clock: options.clock,
      rng: options.rng,
      maxRequestBodyBytes: options.maxRequestBodyBytes ?? 3 * 1024 * 1024,
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      sharedDecodeLimit: options.sharedDecodeLimit ?? 20_000,
      ready: options.ready,
    };
    const alloc: ServiceAllocation = {
      clusterIPRange: options.services?.clusterIPRange ?? '10.0.0.0/24',
      nodePortRange: options.services?.nodePortRange ?? [30000, 32767],
    };
    this.registry = new Registry(options.storage, options.clock, options.rng, buildStrategies(alloc), this.opts.sharedDecodeLimit);
    this.metrics = new ApiMetrics(this.registry);
    this.stages = [this.measure, this.recover, this.limitBody];
    // NOTE: each stage's `next` is made once here, not per request.
    this.nexts = this.stages.map((_, i) => (r: ApiRequest) => this.stage(r, i + 1));
  }

  private readonly nexts: Next[];

  /** Serves one request. Never rejects: failures become Status responses. */
  async handle(req: ApiRequest): Promise<ApiResponse> {
    return this.stage(req, 0);
  }

  // NOTE: no named closures on the per-request path: tsx (esbuild keepNames) makes each one cost a defineProperty.
  private stage(req: ApiRequest, i: number): ApiResponse | Promise<ApiResponse> {
    const stage = this.stages[i];
    return stage ? stage(req, this.nexts[i]) : this.route(req);
  }

  // NOTE: stages stay synchronous for synchronous routes (most of them), so a request costs no
  // promise per stage; an asynchronous route's promise is chained instead.
  private recover: Stage = (req, next) => {
    let res: ApiResponse | Promise<ApiResponse>;
    try {
      res = next(req);
    } catch (e) {
      return statusResponse(toStatusError(e));
    }
    return res instanceof Promise ? res.catch((e: unknown) => statusResponse(toStatusError(e))) : res;
  };

  /**
   * Parsed request infos by method (and, for GET, the watch parameter), then by path: parsing is
   * pure and infos are read-only. Keyed by the path itself, no key is built per request.
   */
  private readonly parsedInfos = new Map<string, Map<string, RequestInfo>>();

  private requestInfo(req: ApiRequest): RequestInfo {
    let info = (req as InfoCarrier)[REQUEST_INFO];
    if (!info) {
      const bucket = req.method === 'GET' ? `GET ${req.query.get('watch') ?? ''}` : req.method;
      let byPath = this.parsedInfos.get(bucket);
      if (!byPath) {
        if (this.parsedInfos.size >= 64) this.parsedInfos.clear();
        this.parsedInfos.set(bucket, (byPath = new Map()));
      }
      info = byPath.get(req.path);
      if (!info) {
        info = parseRequestInfo(req.method, req.path, req.query);
        if (byPath.size >= 65_536) byPath.clear();
        byPath.set(req.path, info);
      }
      (req as InfoCarrier)[REQUEST_INFO] = info;
    }
    return info;
  }

  /** Observes every answered request, errors included (the stage after it turns them into Status responses). */
  private measure: Stage = (req, next) => {
    const start = this.opts.clock.now();
    const res = next(req);
    return res instanceof Promise ? res.then((r) => this.observe(req, start, r)) : this.observe(req, start, res);
  };

  private observe(req: ApiRequest, start: number, res: ApiResponse): ApiResponse {
    this.metrics.observe(req, (req as InfoCarrier)[REQUEST_INFO], res.status, (this.opts.clock.now() - start) / 1000);
    return res;
  }

  private limitBody: Stage = (req, next) => {
    if (req.body && req.body.length > this.opts.maxRequestBodyBytes) {
      throw new StatusError(413, 'RequestEntityTooLarge', `the request body is too large: limit is ${this.opts.maxRequestBodyBytes} bytes`);
    }
    return next(req);
  };

  private route(req: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const info = this.requestInfo(req);
    if (!info.isResource) return this.nonResource(req);
    switch (info.verb) {
      case 'get':
        return this.get(req, info);
      case 'list':
        return this.list(req, info);
      case 'watch':
        return this.watch(req, info);
      case 'create':
        return this.create(req, info);
      case 'update':
        return this.update(req, info);
      case 'patch':
        return this.patch(req, info);
      case 'delete':
        return this.delete(req, info);
      case 'deletecollection':
        return this.deleteCollection(req, info);
    }
    throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }

  // ---- encoding -----------------------------------------------------------------------------

  private representation(req: ApiRequest, allowAs: boolean): Representation {
    return negotiate(req.headers['accept'], { allowAs, protobufOk: true });
  }

  private respond(req: ApiRequest, status: number, obj: any, rep: Representation, warnings: string[] = []): ApiResponse {
    const headers: Record<string, string | string[]> = {};
    if (warnings.length) headers['warning'] = warnings;
    if (rep.kind === 'protobuf') {
      try {
        headers['content-type'] = PROTOBUF_MEDIA_TYPE;
        return { status, headers, body: encodeObject(obj) };
      } catch (e) {
        if (!(e instanceof NotProtobufKind)) throw e;
        const fallback = parseMediaRanges(req.headers['accept']).some((m) => m.type === JSON_TYPE || m.type === '*/*');
        if (!fallback) throw new StatusError(406, 'NotAcceptable', `${obj.kind} cannot be represented as ${PROTOBUF_MEDIA_TYPE}`);
      }
    }
    if (rep.kind === 'yaml') {
      headers['content-type'] = 'application/yaml';
      return { status, headers, body: YAML.stringify(obj) };
    }
    headers['content-type'] = JSON_TYPE;
    const pretty = req.query.get('pretty');
    if (pretty === 'true' || pretty === '1') return { status, headers, body: JSON.stringify(obj, null, 2) + '\n' };
    if (this.registry.hasServedJson(obj)) return new DecodedJsonResponse(status, headers, obj, () => this.jsonBody(obj));
    return { status, headers, body: this.jsonBody(obj) };
  }

  /** The JSON of an object, cached per object (shared decoded objects are serialized once per version). */
  private jsonBody(obj: object): string {
    let body = this.jsonBodies.get(obj);
    if (body === undefined) this.jsonBodies.set(obj, (body = this.registry.servedJson(obj) ?? JSON.stringify(obj)));
    return body;
  }

  private shapeOne(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>, obj: any, rep: Representation): any {
    if (rep.kind === 'table') return toTable(info.resource, [obj], { now: this.opts.clock.now(), includeObject: this.includeObject(req) });
    if (rep.kind === 'partial') return partialObject(obj, rep.version);
    return obj;
  }

  /** The `includeObject` table option (None, Metadata — the default — or Object); anything else is 400. */
  private includeObject(req: ApiRequest): 'None' | 'Metadata' | 'Object' {
    const v = req.query.get('includeObject');
    if (v === null || v === '') return 'Metadata';
    if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
    throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
  }

  /** Serialized JSON of objects (shared decoded objects are serialized once per version). */
  private readonly jsonBodies = new WeakMap<object, string>();
  private readonly jsonFrames = new WeakMap<object, Map<string, Buffer | string>>();
  private readonly protobufFrames = new WeakMap<object, Map<string, Buffer | string>>();

  /** One encoding per (shared object, event type), however many watchers send it. */
  private cachedFrame(cache: WeakMap<object, Map<string, Buffer | string>>, type: string, object: object, encode: () => Buffer | string): Buffer | string {
    let byType = cache.get(object);
    if (!byType) cache.set(object, (byType = new Map()));
    let frame = byType.get(type);
    if (frame === undefined) byType.set(type, (frame = encode()));
    return frame;
  }

  // ---- request bodies -------------------------------------------------------------------------

  private decodeBody(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>, kind: string, group: string, version: string): { obj: any; warnings: string[] } {
    const format = bodyFormat(req.headers['content-type'], info.verb);
    let obj: any;
    let raw: string | undefined;
    try {
      const decoded = req.object;
      if (decoded !== undefined) obj = decoded;
      else if (!req.body || req.body.length === 0) throw badRequest('the body of the request was empty');
      else if (format === 'protobuf') obj = decodeObject(req.body);
      else if (format === 'yaml') {
        raw = undefined;
        obj = YAML.parse(req.body.toString('utf8'));
      } else {
        raw = req.body.toString('utf8');
        obj = JSON.parse(raw);
      }
    } catch (e) {
      if (e instanceof StatusError) throw e;
      throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw badRequest(`couldn't get version/kind; json parse error: the body must be an object`);
    const expectedGV = groupVersion(group, version);
    if (obj.apiVersion !== undefined && obj.apiVersion !== expectedGV) {
      throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${expectedGV})`);
    }
    if (obj.kind !== undefined && obj.kind !== kind) {
      throw badRequest(`${obj.kind} in version "${obj.apiVersion ?? version}" cannot be handled as a ${kind}: no kind "${obj.kind}" is registered for version "${expectedGV}"`);
    }
    const warnings = format === 'protobuf' ? [] : this.validateFields(req, obj, raw, kind, group, version);
    return { obj, warnings };
  }

  private fieldValidation(req: ApiRequest): 'Ignore' | 'Warn' | 'Strict' {
    const v = req.query.get('fieldValidation');
    if (v === null || v === '') return 'Warn';
    if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
    throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
  }

  private validateFields(req: ApiRequest, obj: any, raw: string | undefined, kind: string, group: string, version: string): string[] {
    const level = this.fieldValidation(req);
    const message = messageNameForKind(group, version, kind);
    const res = checkFields(message, obj, level === 'Ignore' ? undefined : raw, { prune: true, shared: req.object !== undefined ? this.isShared : undefined });
    if (res.typeErrors.length > 0) throw badRequest(typeErrorMessage(kind, version, res.typeErrors[0]));
    const warnings: string[] = [];
    if (level === 'Strict' && (res.unknownFields.length || res.duplicateFields.length)) {
      throw badRequest(strictDecodingMessage(res.unknownFields, res.duplicateFields));
    }
    if (level === 'Warn') {
      for (const f of res.unknownFields) warnings.push(warningFor(f));
      for (const f of res.duplicateFields) warnings.push(warningFor(f, 'duplicate'));
    }
    return warnings;
  }

  private writeOptions(req: ApiRequest, subresource?: string): WriteOptions {
    const dry = req.query.getAll('dryRun');
    for (const d of dry) if (d !== 'All' && d !== '') throw badRequest(`dryRun: Unsupported value: "${d}": supported values: "All"`);
    const fm = req.query.get('fieldManager');
    if (fm !== null && fm.length > 128) throw badRequest(`fieldManager: Too long: may not be longer than 128`);
    return { manager: managerFor(fm, req.headers['user-agent']), dryRun: dry.length > 0, subresource };
  }

  // ---- verbs ------------------------------------------------------------------------------------

  private get(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, true);
    const obj = this.registry.get(info.resource, info.namespace, info.name, req.query.get('resourceVersion') ?? undefined, { shared: true });
    if (info.subresource?.name === 'scale') return this.respond(req, 200, this.toScale(info.resource, obj), rep.kind === 'table' ? { kind: 'json' } : rep);
    return this.respond(req, 200, this.shapeOne(req, info, obj, rep), rep);
  }

  private list(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, true);
    const r = info.resource;
    const out = this.registry.list(r, info.namespace, listQuery(req.query), { shared: true });
    const listMeta: any = { resourceVersion: out.resourceVersion };
    if (out.continue) listMeta.continue = out.continue;
    if (out.remainingItemCount !== undefined) listMeta.remainingItemCount = out.remainingItemCount;
    if (rep.kind === 'table') {
      return this.respond(req, 200, toTable(r, out.items, { now: this.opts.clock.now(), includeObject: this.includeObject(req), listMeta }), rep);
    }
    if (rep.kind === 'partial') {
      return this.respond(req, 200, { apiVersion: `meta.k8s.io/${rep.version}`, kind: 'PartialObjectMetadataList', metadata: listMeta, items: out.items.map((o) => partialObject(o, rep.version)) }, rep);
    }
    const list = { kind: r.listKind, apiVersion: groupVersion(r.group, r.version), metadata: listMeta, items: out.items };
    const pretty = req.query.get('pretty');
    if (rep.kind === 'json' && pretty !== 'true' && pretty !== '1') {
      // NOTE: items are shared decoded objects whose JSON is cached, so a list is mostly string joins.
      const render = (): string => {
        const head = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: listMeta });
        return `${head.slice(0, -1)},"items":[${out.items.map((o) => this.jsonBody(o)).join(',')}]}`;
      };
      const headers = { 'content-type': JSON_TYPE };
      if (out.items.every((o) => this.registry.hasServedJson(o))) return new DecodedJsonResponse(200, headers, list, render);
      return { status: 200, headers, body: render() };
    }
    return this.respond(req, 200, list, rep);
  }

  private watch(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, true);
    const q = req.query;
    let timeoutSeconds = intParam(q, 'timeoutSeconds');
    if (timeoutSeconds === undefined || timeoutSeconds <= 0) {
      const min = this.opts.minRequestTimeoutSeconds;
      timeoutSeconds = min + this.opts.rng.int(min + 1);
    }
    const encoder = this.watchEncoder(req, info, rep);
    const stream = new WatchResponseStream(
      this.registry,
      {
        resource: info.resource,
        namespace: info.namespace,
        name: info.name || undefined,
        query: listQuery(q),
        allowWatchBookmarks: boolParam(q, 'allowWatchBookmarks') ?? false,
        sendInitialEvents: boolParam(q, 'sendInitialEvents'),
        timeoutSeconds,
        bookmarkIntervalMs: this.opts.bookmarkIntervalMs,
      },
      encoder.encoder,
      this.opts.clock,
      (kind, group, version) => this.metrics.watchEvent(kind, group, version),
    );
    return { status: 200, headers: { 'content-type': encoder.contentType, 'transfer-encoding': 'chunked' }, stream };
  }

  private watchEncoder(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>, rep: Representation): { encoder: WatchEncoder; contentType: string } {
    if (rep.kind === 'protobuf') {
      return { contentType: `${PROTOBUF_MEDIA_TYPE};stream=watch`, encoder: { frame: (type, object) => this.cachedFrame(this.protobufFrames, type, object, () => encodeWatchEventFrame(type, object)) } };
    }
    if (rep.kind === 'json') {
      return { contentType: JSON_TYPE, encoder: { json: true, frame: (type, object) => this.cachedFrame(this.jsonFrames, type, object, () => jsonWatchFrame(type, object, this.registry)) } };
    }
    let first = true;
    const clock = this.opts.clock;
    const includeObject = rep.kind === 'table' ? this.includeObject(req) : 'Metadata';
    const shape = (type: string, object: any) => {
      if (type === 'ERROR' || type === 'BOOKMARK') return object;
      if (rep.kind === 'table') {
        const t = toTable(info.resource, [object], { now: clock.now(), includeObject, noHeaders: !first });
        first = false;
        return t;
      }
      if (rep.kind === 'partial') return partialObject(object, rep.version);
      return object;
    };
    return { contentType: JSON_TYPE, encoder: { frame: (type, object) => JSON.stringify({ type, object: shape(type, object) }) + '\n' } };
  }

  private create(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, false);
    const r = info.resource;
    const sub = info.subresource;
    if (sub?.name === 'binding') return this.bind(req, info);
    if (sub?.name === 'eviction') return this.evict(req, info);
    if (r.group === 'authorization.k8s.io') return this.accessReview(req, info);
    const { obj, warnings } = this.decodeBody(req, info, r.kind, r.group, r.version);
    const created = this.registry.create(r, info.namespace, obj, this.writeOptions(req));
    return this.respond(req, 201, created, rep, warnings);
  }

  private update(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, false);
    const r = info.resource;
    const sub = info.subresource;
    if (sub?.name === 'scale') {
      const { obj } = this.decodeBody(req, info, 'Scale', 'autoscaling', 'v1');
      return this.respond(req, 200, this.writeScale(req, info, () => obj), rep);
    }
    const { obj, warnings } = this.decodeBody(req, info, r.kind, r.group, r.version);
    const out = this.registry.update(r, info.namespace, info.name, obj, this.writeOptions(req, sub?.name));
    return this.respond(req, out.created ? 201 : 200, out.obj, rep, warnings);
  }

  private patchFunction(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>, messageName: string): (current: any) => any {
    const format = bodyFormat(req.headers['content-type'], 'patch');
    let patch: any = req.object;
    if (patch === undefined) {
      if (!req.body || req.body.length === 0) throw badRequest('the body of the request was empty');
      try {
        patch = JSON.parse(req.body.toString('utf8'));
      } catch (e) {
        throw badRequest(`error decoding patch: ${(e as Error).message}`);
      }
    }
    return (current: any) => {
      try {
        if (format === 'json-patch') {
          if (!Array.isArray(patch)) throw new Error('json patch must be an array of operations');
          return jsonpatch.applyPatch(current, patch, true, false).newDocument;
        }
        if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw new Error('patch must be a JSON object');
        if (format === 'merge-patch') return jsonMergePatch(current, patch);
        // NOTE: a status patch keeps only the result's status, which nothing later mutates in place:
        // what the patch leaves alone may stay shared with `current`.
        return strategicMergePatch(current, patch, messageName, { shareUnchanged: info.subresource?.name === 'status' });
      } catch (e) {
        if (e instanceof StatusError) throw e;
        const msg = (e as Error).message;
        if (e instanceof PatchError && e.status === 400) throw badRequest(msg);
        if (format === 'json-patch' && /test operation failed|TEST_OPERATION_FAILED/i.test(msg)) throw new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${msg}`);
        throw new StatusError(422, 'Invalid', `the server rejected our request due to an error in our request: ${msg}`.slice(0, 2000));
      }
    };
  }

  private patch(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    if (bodyFormat(req.headers['content-type'], 'patch') === 'apply-patch') return this.apply(req, info);
    if (req.query.has('force')) throw badRequest('force: Forbidden: may not be specified for non-apply patch');
    const rep = this.representation(req, false);
    const r = info.resource;
    const sub = info.subresource;
    if (sub?.name === 'scale') {
      const fn = this.patchFunction(req, info, 'k8s.io.api.autoscaling.v1.Scale');
      return this.respond(req, 200, this.writeScale(req, info, fn), rep);
    }
    const message = messageNameForKind(r.group, r.version, r.kind);
    const apply = this.patchFunction(req, info, message);
    const level = this.fieldValidation(req);
    let warnings: string[] = [];
    const out = this.registry.patch(
      r,
      info.namespace,
      info.name,
      (current) => {
        const patched = apply(current);
        if (patched && typeof patched === 'object') {
          const res = checkFields(message, patched, undefined, { prune: true, unchanged: current });
          if (res.typeErrors.length > 0) throw badRequest(typeErrorMessage(r.kind, r.version, res.typeErrors[0]));
          if (level === 'Strict' && res.unknownFields.length) throw badRequest(strictDecodingMessage(res.unknownFields, []));
          warnings = level === 'Warn' ? res.unknownFields.map((f) => warningFor(f)) : [];
        }
        return patched;
      },
      this.writeOptions(req, sub?.name),
      { applyCopies: true },
    );
    return this.respond(req, 200, out, rep, warnings);
  }

  /**
   * Server-side apply (PATCH with application/apply-patch+yaml): fieldManager required, the
   * applied configuration merged into the live object (or creating it) with field ownership,
   * conflicts as 409 unless `force=true`.
   */
  private apply(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, false);
    const r = info.resource;
    const sub = info.subresource?.name;
    if (sub === 'scale') throw new StatusError(415, 'UnsupportedMediaType', 'apply patches are not supported on the scale subresource');
    const manager = req.query.get('fieldManager');
    if (!manager) {
      throw new StatusError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
        kind: 'PatchOptions',
        group: 'meta.k8s.io',
        causes: [{ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' }],
      });
    }
    const force = boolParam(req.query, 'force') ?? false;
    if (!req.body || req.body.length === 0) throw badRequest('the body of the request was empty');
    let applied: unknown;
    try {
      applied = YAML.parse(req.body.toString('utf8'), { uniqueKeys: true });
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
    const gv = groupVersion(r.group, r.version);
    validateAppliedConfig(applied, gv);
    if (applied.kind !== undefined && applied.kind !== r.kind) throw badRequest(`${applied.kind} in version "${gv}" cannot be handled as a ${r.kind}: no kind "${applied.kind}" is registered for version "${gv}"`);
    if (applied.metadata?.name !== undefined && applied.metadata.name !== info.name) {
      throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${info.name})`);
    }
    const warnings = this.validateFields(req, applied, undefined, r.kind, r.group, r.version);
    const messageName = messageNameForKind(r.group, r.version, r.kind);
    const opts = { ...this.writeOptions(req, sub), manager, applied: true };
    const run = (live: any) => {
      try {
        return applyPatch({ live, applied: applied as Record<string, any>, manager, force, messageName, apiVersion: gv, time: this.registry.ctx.nowTime(), subresource: sub });
      } catch (e) {
        if (e instanceof ApplyConflict) throw applyConflictStatus(e);
        throw e;
      }
    };
    if (!this.registry.storage.get(this.registry.key(r, info.namespace, info.name))) {
      if (sub) throw new StatusError(404, 'NotFound', `${r.group ? `${r.resource}.${r.group}` : r.resource} "${info.name}" not found`, { name: info.name, group: r.group || undefined, kind: r.resource });
      const obj: any = run(undefined);
      obj.metadata = { ...(obj.metadata ?? {}), name: info.name };
      if (r.namespaced) obj.metadata.namespace = info.namespace;
      return this.respond(req, 201, this.registry.create(r, info.namespace, obj, opts), rep, warnings);
    }
    return this.respond(req, 200, this.registry.patch(r, info.namespace, info.name, run, opts), rep, warnings);
  }

  private deleteOptions(req: ApiRequest): DeleteOptions {
    let body: any = req.object !== undefined ? req.object : {};
    if (req.object === undefined && req.body && req.body.length > 0) {
      const ct = (req.headers['content-type'] ?? JSON_TYPE).split(';')[0].trim();
      try {
        body = ct === PROTOBUF_MEDIA_TYPE ? decodeObject(req.body) : ct === 'application/yaml' ? YAML.parse(req.body.toString('utf8')) : JSON.parse(req.body.toString('utf8'));
      } catch (e) {
        throw badRequest(`error decoding DeleteOptions: ${(e as Error).message}`);
      }
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('error decoding DeleteOptions: the body must be an object');
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') throw badRequest(`expected DeleteOptions, got ${body.kind}`);
    const q = req.query;
    const grace = intParam(q, 'gracePeriodSeconds') ?? (typeof body.gracePeriodSeconds === 'number' ? body.gracePeriodSeconds : undefined);
    const dry = [...q.getAll('dryRun'), ...(Array.isArray(body.dryRun) ? body.dryRun : [])];
    for (const d of dry) if (d !== 'All' && d !== '') throw badRequest(`dryRun: Unsupported value: "${d}": supported values: "All"`);
    return {
      gracePeriodSeconds: grace,
      propagationPolicy: q.get('propagationPolicy') ?? body.propagationPolicy ?? undefined,
      orphanDependents: boolParam(q, 'orphanDependents') ?? body.orphanDependents,
      preconditions: body.preconditions,
      dryRun: dry.length > 0,
    };
  }

  private delete(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, false);
    const r = info.resource;
    const out = this.registry.delete(r, info.namespace, info.name, this.deleteOptions(req));
    if (out.deleted) {
      const status: Status = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: info.name, group: r.group || undefined, kind: r.resource, uid: out.obj.metadata?.uid },
        code: 200,
      };
      return this.respond(req, 200, this.registry.strategy(r).returnDeletedObject ? out.obj : status, rep);
    }
    return this.respond(req, 200, out.obj, rep);
  }

  private deleteCollection(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const rep = this.representation(req, false);
    const r = info.resource;
    const out = this.registry.deleteCollection(r, info.namespace, listQuery(req.query), this.deleteOptions(req));
    return this.respond(req, 200, { kind: r.listKind, apiVersion: groupVersion(r.group, r.version), metadata: { resourceVersion: out.resourceVersion }, items: out.items }, rep);
  }

  // ---- subresources and virtual kinds -----------------------------------------------------------------

  private toScale(r: ResourceInfo, obj: any): any {
    let selector = '';
    try {
      if (obj.spec?.selector) selector = selectorFromLabelSelector(obj.spec.selector).toString();
    } catch {
      selector = '';
    }
    const m = obj.metadata;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
      spec: { replicas: obj.spec?.replicas ?? 0 },
      status: { replicas: obj.status?.replicas ?? 0, selector },
    };
  }

  private writeScale(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>, fn: (scale: any) => any): any {
    const r = info.resource;
    const result = this.registry.patch(
      r,
      info.namespace,
      info.name,
      (current) => {
        const scale = fn(this.toScale(r, current));
        const replicas = scale?.spec?.replicas;
        if (!Number.isInteger(replicas) || replicas < 0) {
          throw new StatusError(422, 'Invalid', `Scale.autoscaling "${info.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, {
            name: info.name,
            group: 'autoscaling',
            kind: 'Scale',
            causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` }],
          });
        }
        const rv = scale.metadata?.resourceVersion;
        if (rv && rv !== current.metadata.resourceVersion) throw conflict({ group: r.group, resource: r.resource }, info.name, 'the object has been modified; please apply your changes to the latest version and try again');
        current.spec.replicas = replicas;
        return current;
      },
      this.writeOptions(req),
    );
    return this.toScale(r, result);
  }

  private bind(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const { obj: binding } = this.decodeBody(req, info, 'Binding', '', 'v1');
    const target = binding.target;
    if (!target?.name) throw new StatusError(422, 'Invalid', `Binding "${info.name}" is invalid: target.name: Required value`, { name: info.name, kind: 'Binding', causes: [{ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' }] });
    if (target.kind && target.kind !== 'Node') throw new StatusError(422, 'Invalid', `Binding "${info.name}" is invalid: target.kind: Unsupported value: "${target.kind}"`, { name: info.name, kind: 'Binding' });
    const pods = info.resource;
    const uid = binding.metadata?.uid;
    this.registry.patch(
      pods,
      info.namespace,
      info.name,
      (pod) => {
        if (uid && pod.metadata.uid !== uid) throw conflict({ group: '', resource: 'pods' }, info.name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid}`);
        if (pod.metadata.deletionTimestamp) throw conflict({ group: '', resource: 'pods' }, info.name, 'pod is being deleted, cannot be assigned to a host');
        if (pod.spec.nodeName) throw conflict({ group: '', resource: 'pods' }, info.name, `pod ${info.name} is already assigned to node "${pod.spec.nodeName}"`);
        // NOTE: copies what it changes (the pod it gets is shared, see applyCopies).
        const conds = (pod.status?.conditions ?? []).filter((c: any) => c.type !== 'PodScheduled');
        conds.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: this.registry.ctx.nowTime() });
        return { ...pod, metadata: { ...pod.metadata }, spec: { ...pod.spec, nodeName: target.name }, status: { ...pod.status, conditions: conds } };
      },
      { ...this.writeOptions(req), subresource: 'binding' },
      { applyCopies: true },
    );
    return this.respond(req, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, this.representation(req, false));
  }

  private evict(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const { obj: eviction } = this.decodeBody(req, info, 'Eviction', 'policy', 'v1');
    const pods = info.resource;
    const pod = this.registry.get(pods, info.namespace, info.name);
    const pdbs = this.registry.list(lookupResource('policy', 'v1', 'poddisruptionbudgets')!, info.namespace, {}).items;
    for (const pdb of pdbs) {
      let covers = false;
      try {
        covers = !!pdb.spec?.selector && selectorFromLabelSelector(pdb.spec.selector).matches(pod.metadata.labels);
      } catch {
        covers = false;
      }
      if (covers && (pdb.status?.disruptionsAllowed ?? 0) <= 0 && pod.status?.phase === 'Running') {
        throw new StatusError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', { causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb.metadata.name} needs ${pdb.status?.desiredHealthy ?? 0} healthy pods and has ${pdb.status?.currentHealthy ?? 0} currently` }] }, { 'Retry-After': '10' });
      }
    }
    this.registry.delete(pods, info.namespace, info.name, { ...(eviction.deleteOptions ?? {}), dryRun: this.writeOptions(req).dryRun });
    return this.respond(req, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, this.representation(req, false));
  }

  private accessReview(req: ApiRequest, info: Extract<RequestInfo, { isResource: true }>): ApiResponse {
    const r = info.resource;
    const { obj } = this.decodeBody(req, info, r.kind, r.group, r.version);
    obj.apiVersion = groupVersion(r.group, r.version);
    obj.kind = r.kind;
    obj.metadata = { ...(obj.metadata ?? {}), creationTimestamp: null };
    // NOTE: no authorizer yet: every request is allowed (the authorization issue replaces this).
    obj.status = { allowed: true, reason: 'orrery has no authorizer configured; all requests are allowed' };
    return this.respond(req, 201, obj, this.representation(req, false));
  }

  // ---- non-resource paths ---------------------------------------------------------------------------------

  private json(req: ApiRequest, obj: unknown, contentType = JSON_TYPE, status = 200): ApiResponse {
    return { status, headers: { 'content-type': contentType }, body: typeof obj === 'string' ? obj : JSON.stringify(obj) };
  }

  private nonResource(req: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const path = req.path.replace(/\/+$/, '') || '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    const parts = path.split('/').filter(Boolean);
    if (path === '/version') return this.json(req, discovery.versionInfo());
    if (path === '/api' || path === '/apis') {
      const agg = discovery.negotiateDiscovery(req.headers['accept']);
      if (agg) {
        const res = this.json(req, discovery.aggregatedDiscovery(path === '/api' ? 'api' : 'apis', agg.version), discovery.aggregatedDiscoveryContentType(agg.version));
        res.headers['vary'] = 'Accept';
        return res;
      }
      return this.json(req, path === '/api' ? discovery.apiVersions() : discovery.apiGroupList());
    }
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = discovery.apiResourceList('', parts[1]);
      if (doc) return this.json(req, doc);
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = discovery.apiGroup(parts[1]);
      if (doc) return this.json(req, doc);
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const doc = discovery.apiResourceList(parts[1], parts[2]);
      if (doc) return this.json(req, doc);
    }
    if (path === '/healthz' || path === '/livez' || path === '/readyz' || /^\/(healthz|livez|readyz)\/[a-z-]+$/.test(path)) return this.health(req, path);
    if (path === '/metrics') return this.metrics.render().then((body) => ({ status: 200, headers: { 'content-type': this.metrics.contentType }, body }));
    const openapi = serveOpenAPI(req);
    if (openapi) return openapi;
    if (path === '/') {
      return this.json(req, { paths: ['/api', '/api/v1', '/apis', ...discovery.apiGroupList().groups.flatMap((g) => [`/apis/${g.name}`, ...g.versions.map((v) => `/apis/${v.groupVersion}`)]), '/healthz', '/livez', '/metrics', '/openapi/v2', '/openapi/v3', '/readyz', '/version'] });
    }
    throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
  }

  private health(req: ApiRequest, path: string): ApiResponse {
    const endpoint = path.split('/')[1];
    const checks: [string, boolean][] = [
      ['ping', true],
      ['log', true],
      ['etcd', this.storageHealthy()],
      ['poststarthook/start-apiextensions-informers', true],
    ];
    if (endpoint === 'readyz') checks.push(['shutdown', this.opts.ready ? this.opts.ready() : true]);
    const sub = path.split('/')[2];
    if (sub) {
      const c = checks.find(([n]) => n === sub);
      if (!c) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
      return { status: c[1] ? 200 : 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: c[1] ? 'ok' : `[-]${sub} failed: reason withheld\n` };
    }
    const ok = checks.every(([, v]) => v);
    const verbose = req.query.has('verbose');
    let body = ok ? 'ok' : '';
    if (verbose || !ok) {
      body = checks.map(([n, v]) => (v ? `[+]${n} ok` : `[-]${n} failed: reason withheld`)).join('\n') + `\n${endpoint} check ${ok ? 'passed' : 'failed'}\n`;
    }
    return { status: ok ? 200 : 500, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }, body };
  }

  private storageHealthy(): boolean {
    try {
      this.opts.storage.currentRevision();
      return true;
    } catch {
      return false;
    }
  }
}

