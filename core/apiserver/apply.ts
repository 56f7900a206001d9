import { badRequest, StatusError, type StatusCause } from '../machinery/status.ts';
import { FIELD_PATH_SEP, fieldLeaves, fieldsV1Of, fieldsV1Paths, type ManagedFieldsEntry } from './managedfields.ts';
import { jsonFields, patchMetaFor } from './patchmeta.ts';

/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`), after Kubernetes'
 * structured-merge-diff: the applied configuration is merged into the live object by the
 * schema's merge markers (maps and structs granular unless atomic; lists atomic, `set` or `map`
 * by their keys), the applier becomes owner of exactly the fields of its configuration, fields
 * it owned before and no longer applies are removed unless another manager owns them, and
 * changing a field another manager owns to a different value is a conflict unless forced.
 *
 * Ownership is tracked on the leaves of {@link fieldLeaves} (the same field paths Update
 * operations record), so Apply and Update managers share one vocabulary.
 */

type Json = null | boolean | number | string | Json[] | JsonMap;
type JsonMap = { [k: string]: Json };

/** One conflicting field: the manager that owns it and its path as Kubernetes prints it (`.spec.replicas`). */
export interface ApplyConflictField {
  manager: string;
  field: string;
  /** The operation of the owning managedFields entry. */
  operation: 'Apply' | 'Update';
  /** The owning entry's apiVersion (printed for Update managers). */
  apiVersion: string;
  subresource?: string;
}

/**
 * An apply that would change fields other managers own. `message` is Kubernetes' wording
 * (`Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .spec.replicas`);
 * the API answers it as 409 Conflict, see {@link applyConflictStatus}.
 */
export class ApplyConflict extends Error {
  readonly code = 'APPLY_CONFLICT';
  readonly conflicts: ApplyConflictField[];

  constructor(conflicts: ApplyConflictField[]) {
    super(conflictMessage(conflicts));
    this.name = 'ApplyConflict';
    this.conflicts = conflicts;
  }
}

/** How Kubernetes names a manager in conflict messages: `"name"`, plus subresource and, for Update managers, `using apiVersion`. */
export function describeManager(c: Pick<ApplyConflictField, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(c.manager);
  if (c.subresource) s += ` with subresource ${JSON.stringify(c.subresource)}`;
  if (c.operation === 'Update') s += ` using ${c.apiVersion}`;
  return s;
}

function conflictMessage(conflicts: ApplyConflictField[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${describeManager(conflicts[0])}: ${conflicts[0].field}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const who = describeManager(c);
    const list = byManager.get(who) ?? [];
    list.push(c.field);
    byManager.set(who, list);
  }
  const lines: string[] = [];
  for (const [who, fields] of byManager) {
    lines.push(`conflicts with ${who}:`);
    for (const f of fields) lines.push(`- ${f}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** The Status causes of a conflict: one `{reason: 'FieldManagerConflict', message: 'conflict with "m" …', field: '.spec.x'}` per field. */
export function conflictCauses(err: ApplyConflict): StatusCause[] {
  return err.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(c)}`, field: c.field }));
}

/** The 409 Conflict Status Kubernetes returns for an apply conflict (details carry only the causes). */
export function applyConflictStatus(err: ApplyConflict): StatusError {
  return new StatusError(409, 'Conflict', err.message, { causes: conflictCauses(err) });
}

/**
 * Checks an applied configuration before it is merged; throws 400 BadRequest as Kubernetes
 * does when it is not an object, names another apiVersion than the endpoint's, or carries
 * metadata.managedFields.
 */
export function validateAppliedConfig(applied: unknown, apiVersion: string): asserts applied is Record<string, any> {
  if (!isMap(applied as Json)) throw badRequest('error decoding YAML: the applied configuration must be an object');
  const obj = applied as Record<string, any>;
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${obj.apiVersion}, expected: ${apiVersion}`);
  }
  const mf = obj.metadata?.managedFields;
  if (mf !== undefined && mf !== null) throw badRequest('metadata.managedFields must be nil');
}

// ---- schema-directed merge ----------------------------------------------------------------------

function isMap(v: Json | undefined): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

function dropNulls(v: Json): Json {
  if (Array.isArray(v)) return v.filter((e) => e !== null).map(dropNulls);
  if (isMap(v)) {
    const out: JsonMap = {};
    for (const [k, e] of Object.entries(v)) if (e !== null && e !== undefined) out[k] = dropNulls(e);
    return out;
  }
  return v;
}

/** How one field of a message merges. */
type FieldMerge =
  | { kind: 'replace' }
  | { kind: 'struct'; message: string | undefined }
  | { kind: 'map'; elem: string | undefined }
  | { kind: 'set' }
  | { kind: 'keyed'; keys: string[]; elem: string };

const fieldMergeCache = new Map<string, FieldMerge>();

/** Mirrors the field-set walk of managedfields.ts, so merged values and owned leaves agree. */
function fieldMerge(message: string | undefined, key: string, value: Json): FieldMerge {
  if (!message) return Array.isArray(value) ? { kind: 'replace' } : { kind: 'struct', message: undefined };
  const cacheKey = `${message}\u0000${key}`;
  const hit = fieldMergeCache.get(cacheKey);
  if (hit) return hit;
  let out: FieldMerge;
  const field = jsonFields(message).get(key)?.field;
  const meta = field ? patchMetaFor(message, key) : undefined;
  const elem = field?.type.kind === 'message' ? field.type.message : undefined;
  if (!field) out = Array.isArray(value) ? { kind: 'replace' } : { kind: 'struct', message: undefined };
  else if (meta?.structType === 'atomic' || meta?.mapType === 'atomic') out = { kind: 'replace' };
  else if (field.mapKey) out = { kind: 'map', elem };
  else if (field.repeated) {
    const keys = meta?.listType === 'atomic' ? undefined : meta?.listMapKeys ?? (meta?.mergeKey ? [meta.mergeKey] : undefined);
    if (keys && elem) out = { kind: 'keyed', keys, elem };
    else if ((meta?.strategy?.includes('merge') || meta?.listType === 'set') && !elem) out = { kind: 'set' };
    else out = { kind: 'replace' };
  } else if (elem) out = { kind: 'struct', message: elem };
  else out = { kind: 'replace' };
  fieldMergeCache.set(cacheKey, out);
  return out;
}

/** Defaults Kubernetes' schema declares for list-map keys, so `{containerPort: 80}` names the live `{containerPort: 80, protocol: TCP}`. */
const KEY_DEFAULTS: Record<string, Json> = { protocol: 'TCP' };

function itemKey(item: JsonMap, keys: string[]): string {
  const id: JsonMap = {};
  for (const k of keys) if (item[k] !== undefined) id[k] = item[k];
  return JSON.stringify(id);
}

function canonical(v: Json): string {
  if (!isMap(v)) return Array.isArray(v) ? `[${v.map(canonical).join(',')}]` : JSON.stringify(v);
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
}

function withKeyDefaults(config: Json, message: string | undefined): Json {
  if (!isMap(config)) return config;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(config)) {
    const how = fieldMerge(message, k, v);
    if (how.kind === 'keyed' && Array.isArray(v)) {
      out[k] = v.map((item) => {
        if (!isMap(item)) return item;
        const filled = withKeyDefaults(item, how.elem) as JsonMap;
        for (const key of how.keys) if (filled[key] === undefined && key in KEY_DEFAULTS) filled[key] = KEY_DEFAULTS[key];
        return filled;
      });
    } else if (how.kind === 'struct') out[k] = withKeyDefaults(v, how.message);
    else if (how.kind === 'map' && isMap(v)) {
      const m: JsonMap = {};
      for (const [mk, mv] of Object.entries(v)) m[mk] = withKeyDefaults(mv, how.elem);
      out[k] = m;
    } else out[k] = v;
  }
  return out;
}

function mergeStruct(live: Json | undefined, config: JsonMap, message: string | undefined): JsonMap {
  const out: JsonMap = isMap(live) ? { ...live } : {};
  for (const [k, cv] of Object.entries(config)) out[k] = mergeField(out[k], cv, fieldMerge(message, k, cv));
  return out;
}

function mergeField(live: Json | undefined, config: Json, how: FieldMerge): Json {
  switch (how.kind) {
    case 'struct':
      return isMap(config) ? mergeStruct(live, config, how.message) : clone(config);
    case 'map': {
      if (!isMap(config)) return clone(config);
      const out: JsonMap = isMap(live) ? { ...live } : {};
      for (const [k, cv] of Object.entries(config)) out[k] = isMap(cv) ? mergeStruct(out[k], cv, how.elem) : clone(cv);
      return out;
    }
    case 'set': {
      if (!Array.isArray(config)) return clone(config);
      const out = Array.isArray(live) ? [...live] : [];
      const seen = new Set(out.map(canonical));
      for (const item of config) {
        const c = canonical(item);
        if (seen.has(c)) continue;
        seen.add(c);
        out.push(clone(item));
      }
      return out;
    }
    case 'keyed': {
      if (!Array.isArray(config)) return clone(config);
      const out = Array.isArray(live) ? [...live] : [];
      for (const item of config) {
        if (!isMap(item)) {
          out.push(clone(item));
          continue;
        }
        const id = itemKey(item, how.keys);
        const at = out.findIndex((e) => isMap(e) && itemKey(e, how.keys) === id);
        if (at >= 0) out[at] = mergeStruct(out[at], item, how.elem);
        else out.push(clone(item));
      }
      return out;
    }
    default:
      return clone(config);
  }
}

// ---- removal of fields the applier gave up -----------------------------------------------------

type PathTree = { [seg: string]: PathTree };

function treeOf(paths: Iterable<string>): PathTree {
  return fieldsV1Of(paths) as PathTree;
}

function isLeaf(t: PathTree): boolean {
  return Object.keys(t).length === 0;
}

function parseJson(s: string): Json | undefined {
  try {
    return JSON.parse(s) as Json;
  } catch {
    return undefined;
  }
}

function matchesKey(item: Json, id: JsonMap): boolean {
  if (!isMap(item)) return false;
  for (const [k, v] of Object.entries(id)) if (canonical(item[k] ?? null) !== canonical(v)) return false;
  return true;
}

/** Removes the leaves of `tree` from `node`; returns undefined when `node` itself must go (emptied). */
function removeFromStruct(node: JsonMap, tree: PathTree): JsonMap | undefined {
  const wasEmpty = Object.keys(node).length === 0;
  for (const [seg, sub] of Object.entries(tree)) {
    if (!seg.startsWith('f:')) continue;
    const name = seg.slice(2);
    if (!(name in node)) continue;
    if (isLeaf(sub)) {
      delete node[name];
      continue;
    }
    const child = node[name];
    let kept: Json | undefined = child;
    if (isMap(child)) kept = removeFromStruct(child, sub);
    else if (Array.isArray(child)) kept = removeFromList(child, sub);
    if (kept === undefined) delete node[name];
    else node[name] = kept;
  }
  return !wasEmpty && Object.keys(node).length === 0 ? undefined : node;
}

function removeFromList(list: Json[], tree: PathTree): Json[] | undefined {
  const drop = new Set<number>();
  for (const [seg, sub] of Object.entries(tree)) {
    if (seg.startsWith('v:')) {
      const value = parseJson(seg.slice(2));
      list.forEach((e, i) => {
        if (value !== undefined && canonical(e) === canonical(value)) drop.add(i);
      });
    } else if (seg.startsWith('k:')) {
      const id = parseJson(seg.slice(2));
      if (!isMap(id)) continue;
      const at = list.findIndex((e, i) => !drop.has(i) && matchesKey(e, id));
      if (at < 0) continue;
      const item = list[at] as JsonMap;
      const itself = '.' in sub || isLeaf(sub);
      const rest = removeFromStruct(item, sub) ?? {};
      const remaining = Object.keys(rest).filter((k) => !(k in id));
      if (itself && remaining.length === 0) drop.add(at);
      else list[at] = { ...id, ...rest };
    }
  }
  const out = list.filter((_, i) => !drop.has(i));
  return out.length === 0 && list.length > 0 ? undefined : out;
}

// ---- field sets -------------------------------------------------------------------------------

const SEP = FIELD_PATH_SEP;

/** The applier's field set: the config's leaves, without the `.` of maps that have members. */
function appliedFieldSet(leaves: Map<string, string>): Set<string> {
  const dot = `${SEP}.`;
  const withMembers = new Set<string>();
  for (const p of leaves.keys()) {
    if (p.endsWith(dot)) continue;
    for (let i = p.indexOf(SEP); i >= 0; i = p.indexOf(SEP, i + 1)) withMembers.add(p.slice(0, i));
  }
  const out = new Set<string>();
  for (const p of leaves.keys()) {
    if (p.endsWith(dot)) {
      const parent = p.slice(0, -dot.length);
      const last = parent.slice(parent.lastIndexOf(SEP) + 1);
      if (last.startsWith('f:') && withMembers.has(parent)) continue;
    }
    out.add(p);
  }
  return out;
}

/** True when `path` or one of its ancestors (as a node or through its `.`) is in `set`. */
function coveredBy(path: string, set: Set<string>): boolean {
  const segs = path.split(SEP);
  let prefix = '';
  for (const seg of segs) {
    prefix = prefix === '' ? seg : prefix + SEP + seg;
    if (set.has(prefix) || set.has(prefix + SEP + '.')) return true;
  }
  return false;
}

/** Kubernetes' rendering of a field path: `.spec.containers[name="web"].image`, `.metadata.finalizers[="x"]`. */
export function fieldPathString(path: string): string {
  let s = '';
  for (const seg of path.split(SEP)) {
    if (seg === '.') continue;
    if (seg.startsWith('f:')) s += `.${seg.slice(2)}`;
    else if (seg.startsWith('k:')) {
      const id = parseJson(seg.slice(2));
      const parts = isMap(id) ? Object.keys(id).sort().map((k) => `${k}=${valueString(id[k])}`) : [seg.slice(2)];
      s += `[${parts.join(',')}]`;
    } else if (seg.startsWith('v:')) {
      const v = parseJson(seg.slice(2));
      s += `[=${v === undefined ? seg.slice(2) : valueString(v)}]`;
    } else s += seg;
  }
  return s;
}

function valueString(v: Json): string {
  if (typeof v === 'string' || isMap(v) || Array.isArray(v)) return JSON.stringify(v);
  return String(v);
}

function sameEntry(a: ManagedFieldsEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return a.manager === manager && a.operation === operation && (a.subresource ?? '') === (subresource ?? '');
}

function sortEntries(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const seconds = (t: string) => Math.floor(Date.parse(t) / 1000) || 0;
  return entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const dt = seconds(p.time) - seconds(q.time);
    if (dt !== 0) return dt;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0;
  });
}

function equalJson(a: Json | undefined, b: Json | undefined): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

/** The inputs of {@link applyPatch}. */
export interface ApplyOptions {
  /** The stored object, or undefined when the apply creates it. */
  live: object | undefined;
  /** The applied configuration (already checked with {@link validateAppliedConfig}). */
  applied: object;
  /** The fieldManager (required for apply; the handler rejects its absence). */
  manager: string;
  /** `force=true`: take conflicting fields from their owners instead of failing. */
  force: boolean;
  /** Protobuf full name of the kind, e.g. `k8s.io.api.apps.v1.Deployment`. */
  messageName: string;
  /** The endpoint's `group/version`, recorded in the Apply entry. */
  apiVersion: string;
  /** Timestamp (RFC 3339) recorded in the Apply entry when the object changes. */
  time: string;
  /** `status` to apply to the status subresource (only `status` is then merged and owned). */
  subresource?: string;
}

/**
 * Applies `applied` over `live` for `manager` and returns the new object (inputs are not
 * modified). The result's metadata.managedFields holds an `Apply` entry for the manager owning
 * exactly the configuration's fields (entries sorted as Kubernetes sorts them: Apply before
 * Update, then by time, manager); other managers keep the fields whose values did not change
 * (shared ownership), lose fields that were removed, and — with `force` — lose fields the
 * apply changed. Fields the manager applied before and omits now are removed unless another
 * manager owns them (list items and map entries included). When neither the object nor the
 * field sets change, the live object is returned unchanged (a no-op). Throws
 * {@link ApplyConflict} when, without `force`, the apply changes a field another manager owns.
 */
export function applyPatch(opts: ApplyOptions): Record<string, any> {
  const scope = opts.subresource === 'status' ? 'status' : 'main';
  const live = opts.live ? (clone(opts.live) as JsonMap) : undefined;
  const liveMeta = live && isMap(live.metadata) ? live.metadata : undefined;
  const previous: ManagedFieldsEntry[] = Array.isArray(liveMeta?.managedFields) ? (liveMeta!.managedFields as unknown as ManagedFieldsEntry[]) : [];
  const base: JsonMap | undefined = live ? { ...live, metadata: { ...(liveMeta ?? {}) } } : undefined;
  if (base) delete (base.metadata as JsonMap).managedFields;

  let config = withKeyDefaults(dropNulls(clone(opts.applied) as Json), opts.messageName) as JsonMap;
  if (isMap(config.metadata)) {
    const { managedFields: _ignored, ...rest } = config.metadata;
    config = { ...config, metadata: rest };
  }
  const configLeaves = fieldLeaves(config, opts.messageName, scope);
  const configSet = appliedFieldSet(configLeaves);

  let merged = mergeStruct(base ?? {}, config, opts.messageName);

  const mine = previous.find((e) => sameEntry(e, opts.manager, 'Apply', opts.subresource));
  const others = previous.filter((e) => e !== mine);
  if (mine) {
    const lastSet = fieldsV1Paths(mine.fieldsV1 ?? {});
    const owned = new Set(configSet);
    for (const e of others) for (const p of fieldsV1Paths(e.fieldsV1 ?? {})) owned.add(p);
    const drop: string[] = [];
    for (const leaf of fieldLeaves(merged, opts.messageName, scope).keys()) {
      if (!owned.has(leaf) && coveredBy(leaf, lastSet)) drop.push(leaf);
    }
    if (drop.length > 0) merged = removeFromStruct(structuredClone(merged), treeOf(drop)) ?? {};
  }

  const liveLeaves = base ? fieldLeaves(base, opts.messageName, scope) : new Map<string, string>();
  const newLeaves = fieldLeaves(merged, opts.messageName, scope);
  const changed = new Set<string>();
  for (const [p, v] of newLeaves) if (liveLeaves.get(p) !== v) changed.add(p);
  const removed = new Set<string>();
  for (const p of liveLeaves.keys()) if (!newLeaves.has(p)) removed.add(p);

  const conflicts: ApplyConflictField[] = [];
  const kept: ManagedFieldsEntry[] = [];
  for (const e of others) {
    const set = fieldsV1Paths(e.fieldsV1 ?? {});
    const taken = [...set].filter((p) => changed.has(p));
    for (const p of taken) {
      const c: ApplyConflictField = { manager: e.manager, field: fieldPathString(p), operation: e.operation, apiVersion: e.apiVersion };
      if (e.subresource) c.subresource = e.subresource;
      conflicts.push(c);
    }
    for (const p of taken) set.delete(p);
    for (const p of removed) set.delete(p);
    if (set.size > 0) kept.push(set.size === fieldsV1Paths(e.fieldsV1 ?? {}).size ? e : { ...e, fieldsV1: fieldsV1Of(set) });
  }
  if (conflicts.length > 0 && !opts.force) {
    const order = (c: ApplyConflictField) => `${c.manager}\u0000${c.operation}\u0000${c.apiVersion}\u0000${c.subresource ?? ''}`;
    conflicts.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
    throw new ApplyConflict(conflicts);
  }

  const objectUnchanged = base !== undefined && equalJson(merged, base);
  const sameSet = mine !== undefined && canonical(fieldsV1Of(configSet) as Json) === canonical(fieldsV1Of(fieldsV1Paths(mine.fieldsV1 ?? {})) as Json);
  const entries = [...kept];
  if (configSet.size > 0) {
    if (mine && sameSet && objectUnchanged) entries.push(mine);
    else {
      const entry: ManagedFieldsEntry = {
        manager: opts.manager,
        operation: 'Apply',
        apiVersion: opts.apiVersion,
        time: objectUnchanged && mine ? mine.time : opts.time,
        fieldsType: 'FieldsV1',
        fieldsV1: fieldsV1Of(configSet),
      };
      if (opts.subresource) entry.subresource = opts.subresource;
      entries.push(entry);
    }
  }
  if (objectUnchanged && entries.length === previous.length && entries.every((e) => previous.includes(e))) return live as Record<string, any>;

  const meta = isMap(merged.metadata) ? merged.metadata : {};
  merged.metadata = { ...meta, managedFields: sortEntries(entries) as unknown as Json };
  return merged as Record<string, any>;
}
