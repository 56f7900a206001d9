import { deepEqual } from '../machinery/deepequal.ts';
import { jsonFields, patchMetaFor } from './patchmeta.ts';
import { typeModel, type MessageModel } from './typemodel.ts';

/**
 * managedFields for Update operations: the manager of a create owns every field it set; an update
 * gives its manager the fields it changed or added and takes them from every other manager. Field
 * sets are FieldsV1 trees (`f:` fields, `k:` list items by merge key, `v:` set members, `.` self).
 */

/** One metadata.managedFields entry. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const SYSTEM_META = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'generateName']);

type Leaves = Map<string, string>;

/** Separates path segments in flattened field paths (never occurs in field names). */
const SEP = '\u0000';

function join(path: string, seg: string): string {
  return path === '' ? seg : path + SEP + seg;
}

function messageOf(name: string | undefined): MessageModel | undefined {
  if (!name) return undefined;
  try {
    return typeModel().message(name);
  } catch {
    return undefined;
  }
}

/** JSON with object keys sorted, so equal values from different sources compare equal. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj).filter((k) => obj[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(',')}}`;
}

function walk(value: unknown, msg: MessageModel | undefined, path: string, out: Leaves, scope: 'main' | 'status' | 'all', values = true): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    out.set(path, !values ? '' : typeof value === 'string' ? `s${value}` : canonical(value));
    return;
  }
  const obj = value as Record<string, unknown>;
  const top = path === '';
  // An empty struct (e.g. `emptyDir: {}`) is itself a field its manager set.
  if (!top && Object.keys(obj).length === 0) out.set(path, '{}');
  for (const [k, v] of Object.entries(obj)) {
    if (top && (k === 'apiVersion' || k === 'kind')) continue;
    if (top && scope === 'main' && k === 'status') continue;
    if (top && scope === 'status' && k !== 'status') continue;
    if (path === 'f:metadata' && SYSTEM_META.has(k)) continue;
    if (v === undefined) continue;
    const field = msg ? jsonFields(msg.fullName).get(k)?.field : undefined;
    if (field && msg && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const meta = patchMetaFor(msg.fullName, k);
      if (meta?.structType === 'atomic' || meta?.mapType === 'atomic') {
        out.set(join(path, `f:${k}`), values ? canonical(v) : '');
        continue;
      }
    }
    const child = field && field.type.kind === 'message' && !field.mapKey ? field.type.message : undefined;
    if (field?.mapKey) {
      const m = v as Record<string, unknown>;
      if (m && typeof m === 'object' && !Array.isArray(m)) {
        const here = join(path, `f:${k}`);
        out.set(join(here, '.'), '');
        const elem = field.type.kind === 'message' ? field.type.message : undefined;
        for (const [mk, mv] of Object.entries(m)) walk(mv, messageOf(elem), join(here, `f:${mk}`), out, 'all', values);
        continue;
      }
    }
    if (Array.isArray(v) && field && msg) {
      const meta = patchMetaFor(msg.fullName, k);
      const keys = meta?.listType === 'atomic' ? undefined : meta?.listMapKeys ?? (meta?.mergeKey ? [meta.mergeKey] : undefined);
      if (keys && field.type.kind === 'message') {
        const elem = messageOf(field.type.message);
        for (const item of v) {
          if (!item || typeof item !== 'object') continue;
          const id: Record<string, unknown> = {};
          for (const key of keys) if ((item as Record<string, unknown>)[key] !== undefined) id[key] = (item as Record<string, unknown>)[key];
          const item_ = join(join(path, `f:${k}`), `k:${JSON.stringify(id)}`);
          out.set(join(item_, '.'), '');
          walk(item, elem, item_, out, 'all', values);
        }
        continue;
      }
      if ((meta?.strategy?.includes('merge') || meta?.listType === 'set') && field.type.kind !== 'message') {
        for (const item of v) out.set(join(join(path, `f:${k}`), `v:${JSON.stringify(item)}`), '');
        continue;
      }
    }
    walk(v, messageOf(child), join(path, `f:${k}`), out, 'all', values);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The leaves that differ between `old` and `obj` (both objects of message `msg` at `path`):
 * `changed` gets the leaves of `obj` whose value is new or different, `removed` the leaves of
 * `old` that `obj` lacks — exactly what comparing {@link walk}'s full leaf maps gives, but equal
 * members are skipped with one structural comparison and only differing ones are walked, so an
 * update that changes one field costs little more than the comparison.
 */
function diffLeaves(old: Record<string, unknown>, obj: Record<string, unknown>, msg: MessageModel | undefined, path: string, scope: 'main' | 'status' | 'all', changed: Set<string>, removed: Set<string>): void {
  const top = path === '';
  const visit = (k: string): void => {
    if (top && (k === 'apiVersion' || k === 'kind')) return;
    if (top && scope === 'main' && k === 'status') return;
    if (top && scope === 'status' && k !== 'status') return;
    if (path === 'f:metadata' && SYSTEM_META.has(k)) return;
    const ov = old[k];
    const nv = obj[k];
    // NOTE: metadata is entered without comparing it whole: its server-set members (managedFields
    // above all) are not fields, and comparing them would cost more than the rest.
    if (!(top && k === 'metadata' && isPlainObject(ov) && isPlainObject(nv)) && deepEqual(ov, nv)) return;
    const field = msg ? jsonFields(msg.fullName).get(k)?.field : undefined;
    if (field && msg && field.type.kind === 'message' && !field.mapKey && isPlainObject(ov) && isPlainObject(nv)) {
      const meta = patchMetaFor(msg.fullName, k);
      if (meta?.structType !== 'atomic' && meta?.mapType !== 'atomic' && Object.keys(ov).length > 0 && Object.keys(nv).length > 0) {
        diffLeaves(ov, nv, messageOf(field.type.message), join(path, `f:${k}`), 'all', changed, removed);
        return;
      }
    }
    const before: Leaves = new Map();
    const after: Leaves = new Map();
    if (ov !== undefined) walk({ [k]: ov }, msg, path, before, top ? scope : 'all');
    if (nv !== undefined) walk({ [k]: nv }, msg, path, after, top ? scope : 'all');
    for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
    for (const p of before.keys()) if (!after.has(p)) removed.add(p);
  };
  for (const k in obj) visit(k);
  for (const k in old) if (!(k in obj)) visit(k);
}

/**
 * The leaves (see {@link fieldLeaves}) an update from `old` to `obj` changes: `changed` are the
 * leaves of `obj` that are new or hold another value, `removed` the leaves of `old` that `obj`
 * lacks. Equal to diffing the two full leaf maps, at the cost of the members that differ.
 */
export function leafChanges(old: Record<string, unknown>, obj: Record<string, unknown>, messageName: string | undefined, scope: 'main' | 'status'): { changed: Set<string>; removed: Set<string> } {
  const changed = new Set<string>();
  const removed = new Set<string>();
  diffLeaves(old, obj, messageOf(messageName), '', scope, changed, removed);
  return { changed, removed };
}

/** Separator of the segments of the flattened field paths used by {@link fieldLeaves} and {@link fieldsV1Paths}. */
export const FIELD_PATH_SEP = SEP;

/**
 * The leaves of an object's field set, as flattened FieldsV1 paths (segments `f:name`,
 * `k:{"name":"x"}`, `v:"a"`, `.`, joined by {@link FIELD_PATH_SEP}) mapped to a canonical
 * rendering of their values: two leaves hold the same value exactly when the strings are equal.
 * Atomic lists, atomic structs and atomic maps are single leaves; keyed list items and maps
 * carry a `.` leaf (value `''`). `scope` 'main' leaves out `status`, 'status' keeps only it;
 * apiVersion, kind and server-set metadata are never fields.
 */
export function fieldLeaves(obj: unknown, messageName: string | undefined, scope: 'main' | 'status'): Map<string, string> {
  return leavesOf(obj, messageName, scope);
}

/** The flattened paths (see {@link fieldLeaves}) of a FieldsV1 tree's leaves. */
export function fieldsV1Paths(tree: Record<string, unknown>): Set<string> {
  return flatten(tree);
}

/** The FieldsV1 tree of a set of flattened paths; inverse of {@link fieldsV1Paths}. */
export function fieldsV1Of(paths: Iterable<string>): Record<string, unknown> {
  return unflatten(paths);
}

function leavesOf(obj: unknown, messageName: string | undefined, scope: 'main' | 'status', values = true): Leaves {
  const out: Leaves = new Map();
  walk(obj, messageOf(messageName), '', out, scope, values);
  return out;
}

function flatten(tree: Record<string, unknown>, path = '', out = new Set<string>()): Set<string> {
  for (const k in tree) {
    const v = tree[k];
    const p = join(path, k);
    if (v && typeof v === 'object' && Object.keys(v).length > 0) flatten(v as Record<string, unknown>, p, out);
    else out.add(p);
  }
  return out;
}

/** Whether a flattened path is a leaf of a FieldsV1 tree, i.e. one of {@link flatten}'s paths. */
function ownsLeaf(tree: Record<string, unknown>, path: string): boolean {
  let node: unknown = tree;
  for (const seg of path.split(SEP)) {
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, seg)) return false;
    node = (node as Record<string, unknown>)[seg];
  }
  return !(node && typeof node === 'object' && Object.keys(node).length > 0);
}

function ownsAny(tree: Record<string, unknown>, paths: Set<string>): boolean {
  for (const p of paths) if (ownsLeaf(tree, p)) return true;
  return false;
}

function ownsAll(tree: Record<string, unknown>, paths: Set<string>): boolean {
  for (const p of paths) if (!ownsLeaf(tree, p)) return false;
  return true;
}

/** Whether flattening the tree gives no paths. */
function isEmptyTree(tree: Record<string, unknown>): boolean {
  for (const _ in tree) return false;
  return true;
}

function unflatten(paths: Iterable<string>): Record<string, unknown> {
  const root: Record<string, any> = {};
  // NOTE: paths mostly arrive in walk order, sharing a prefix with the previous one: resume there.
  let prevSegs: string[] = [];
  const chain: Record<string, any>[] = [root];
  for (const p of paths) {
    const segs = p.split(SEP);
    let i = 0;
    while (i < segs.length && i < prevSegs.length && segs[i] === prevSegs[i]) i++;
    let node = chain[i];
    for (; i < segs.length; i++) {
      node = node[segs[i]] ??= {};
      chain[i + 1] = node;
    }
    prevSegs = segs;
  }
  return root;
}

/**
 * The managedFields of an object after a create or update by `manager`. `old` is undefined on
 * create. Returns the new list; entries left without fields are dropped.
 */
export function updateManagedFields(opts: {
  old: Record<string, any> | undefined;
  obj: Record<string, any>;
  manager: string;
  apiVersion: string;
  time: string;
  messageName: string | undefined;
  subresource?: string;
}): ManagedFieldsEntry[] {
  const scope = opts.subresource === 'status' ? 'status' : 'main';
  const previous: ManagedFieldsEntry[] = Array.isArray(opts.old?.metadata?.managedFields) ? opts.old!.metadata.managedFields : [];
  const changed = new Set<string>();
  const removed = new Set<string>();
  if (opts.old) {
    const d = leafChanges(opts.old, opts.obj, opts.messageName, scope);
    for (const k of d.changed) changed.add(k);
    for (const k of d.removed) removed.add(k);
  } else for (const k of leavesOf(opts.obj, opts.messageName, scope, false).keys()) changed.add(k);

  const entries: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const e of previous) {
    if (e.manager === opts.manager && e.operation === 'Update' && (e.subresource ?? '') === (opts.subresource ?? '')) {
      mine = e;
      continue;
    }
    const tree = e.fieldsV1 ?? {};
    // NOTE: an untouched entry keeps its fieldsV1 (unflatten(flatten(x)) would rebuild the same tree),
    // and finding out whether it is touched needs no flattening.
    if (!ownsAny(tree, changed) && !ownsAny(tree, removed)) {
      if (!isEmptyTree(tree)) entries.push({ ...e });
      continue;
    }
    const set = flatten(tree);
    for (const k of changed) set.delete(k);
    for (const k of removed) set.delete(k);
    if (set.size > 0) entries.push({ ...e, fieldsV1: unflatten(set) });
  }
  let fieldsV1: Record<string, unknown>;
  let size: number;
  if (mine && !ownsAny(mine.fieldsV1 ?? {}, removed) && ownsAll(mine.fieldsV1 ?? {}, changed)) {
    fieldsV1 = mine.fieldsV1 ?? {};
    size = isEmptyTree(fieldsV1) ? 0 : 1;
  } else {
    const own = mine ? flatten(mine.fieldsV1 ?? {}) : new Set<string>();
    for (const k of removed) own.delete(k);
    for (const k of changed) own.add(k);
    fieldsV1 = unflatten(own);
    size = own.size;
  }
  if (size > 0 || !opts.old) {
    const entry: ManagedFieldsEntry = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, time: opts.time, fieldsType: 'FieldsV1', fieldsV1 };
    if (opts.subresource) entry.subresource = opts.subresource;
    entries.push(entry);
  }
  return entries;
}

/** The field manager for a request: `fieldManager`, else the User-Agent up to its first `/`. */
export function managerFor(fieldManager: string | null, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const ua = (userAgent ?? 'unknown').split('/')[0];
  return ua.slice(0, 128) || 'unknown';
}
