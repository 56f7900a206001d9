import { typeModel } from './typemodel.ts';
import { deepEqual } from '../machinery/deepequal.ts';
import { isStringListMessage, jsonFields, patchMetaFor, type PatchMeta } from './patchmeta.ts';

/**
 * Kubernetes' strategic merge patch (`application/strategic-merge-patch+json`), as the API server
 * applies it to the JSON form of a built-in object, and JSON merge patch (RFC 7386,
 * `application/merge-patch+json`).
 *
 * Strategic merge patch merges maps recursively (`null` deletes a key); lists whose field is
 * tagged `patchStrategy:"merge"` merge by `patchMergeKey` (objects) or as a union (primitives);
 * all other lists, and fields tagged `replace`, are replaced. Directives: `$patch: replace|delete`
 * in maps, `$patch: replace|delete` items in merging lists, `$deleteFromPrimitiveList/<field>`,
 * `$setElementOrder/<field>` and `$retainKeys`. Result order follows Kubernetes: `$setElementOrder`,
 * then the order in the patch, then the order in the live object.
 */

/** A malformed patch. `status` is the HTTP code Kubernetes answers with for the same error. */
export class PatchError extends Error {
  readonly code = 'PATCH_INVALID';
  /** 400 for malformed directives, 422 for unsupported shapes, 500 where Kubernetes answers with a plain (InternalError) error. */
  readonly status: 400 | 422 | 500;

  constructor(message: string, status: 400 | 422 | 500) {
    super(message);
    this.name = 'PatchError';
    this.status = status;
  }
}

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_PRIMITIVES = '$deleteFromPrimitiveList';
const SET_ORDER = '$setElementOrder';

const ERR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const ERR_RETAIN_KEYS = 'invalid patch format of retainKeys';
const ERR_SET_ORDER = 'invalid patch format of setElementOrder list';
const ERR_LIST_OF_LISTS = 'lists of lists are not supported';

type Json = null | boolean | number | string | Json[] | JsonMap;
type JsonMap = { [k: string]: Json };

/** Where in the schema a value sits. */
type Node = { kind: 'message'; name: string } | { kind: 'map'; elem: Node } | { kind: 'opaque' };

const OPAQUE: Node = { kind: 'opaque' };

interface FieldLookup {
  /** The node of the value (for a list: of each element). */
  node: Node;
  meta?: PatchMeta;
}

const lookupCache = new Map<string, FieldLookup>();

function lookupField(node: Node, key: string): FieldLookup {
  if (node.kind === 'map') return { node: node.elem };
  if (node.kind === 'opaque') return { node: OPAQUE };
  const cacheKey = `${node.name}\u0000${key}`;
  const hit = lookupCache.get(cacheKey);
  if (hit) return hit;
  let out: FieldLookup = { node: OPAQUE };
  const jf = jsonFields(node.name).get(key);
  if (jf) {
    const t = jf.field.type;
    const elem: Node = t.kind === 'message' && !isStringListMessage(t.message) ? { kind: 'message', name: t.message } : OPAQUE;
    out = { node: jf.field.mapKey ? { kind: 'map', elem } : elem, meta: patchMetaFor(node.name, key) };
  }
  lookupCache.set(cacheKey, out);
  return out;
}

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function goKind(v: unknown): string {
  if (v === null || v === undefined) return 'invalid';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

/** Go's `%v` rendering of a decoded JSON value (maps with sorted keys), used in error messages. */
function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (typeof v === 'object') {
    const m = v as Record<string, unknown>;
    return `map[${Object.keys(m).sort().map((k) => `${k}:${goFormat(m[k])}`).join(' ')}]`;
  }
  return String(v);
}

const badArgType = (expected: string, actual: unknown) => new PatchError(`expected a ${expected}, but received a ${goKind(actual)}`, 500);
const noMergeKey = (m: unknown, key: string) => new PatchError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`, 500);
const badPatchType = (t: unknown, m: unknown) => new PatchError(`unknown patch type: ${goFormat(t)} in map: ${goFormat(m)}`, 500);

function cloneJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = cloneJson((v as Record<string, unknown>)[k]);
  return out as T;
}

/** Splits a field's patch strategy into the list/map strategy and whether it retains keys. */
function strategyOf(meta: PatchMeta | undefined): string {
  const parts = (meta?.strategy ?? '').split(',').filter((s) => s !== '');
  const rest = parts.filter((s) => s !== 'retainKeys');
  if (rest.length > 1 || (parts.length === 2 && rest.length !== 1)) {
    throw new PatchError(`unexpected patch strategy: ${meta?.strategy}`, 500);
  }
  return rest[0] ?? '';
}

function mergeKeyOf(meta: PatchMeta | undefined): string {
  return meta?.mergeKey ?? '';
}

/** Removes `null` values (recursively through maps and lists of maps), as Kubernetes does for values it copies in. */
function discardNulls(v: Json): Json {
  if (Array.isArray(v)) {
    for (const e of v) discardNulls(e);
  } else if (isMap(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k]);
    }
  }
  return v;
}

/** Removes directive keys and `$patch` maps from a value copied into the result; false when the value itself is a directive map. */
function stripDirectives(v: Json): { value: Json; keep: boolean } {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const e of v) {
      const r = stripDirectives(e);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  if (isMap(v)) {
    if (DIRECTIVE in v) return { value: v, keep: false };
    for (const k of Object.keys(v)) {
      if (k === RETAIN_KEYS || k.startsWith(`${SET_ORDER}/`) || k.startsWith(`${DELETE_PRIMITIVES}/`)) {
        delete v[k];
        continue;
      }
      const r = stripDirectives(v[k]);
      if (r.keep) v[k] = r.value;
      else delete v[k];
    }
  }
  return { value: v, keep: true };
}

function copyIn(v: Json): Json {
  return stripDirectives(discardNulls(v)).value;
}

function prefixedKey(key: string, prefix: string, formatError: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw new PatchError(formatError, 400);
  return key.slice(slash + 1);
}

function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!(RETAIN_KEYS in patch)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new PatchError(ERR_RETAIN_KEYS, 400);
  const keep = new Set(list.map((k) => (typeof k === 'string' ? k : goFormat(k))));
  for (const k in patch) {
    if (patch[k] === null || k.startsWith(DELETE_PRIMITIVES) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw new PatchError(ERR_RETAIN_KEYS, 400);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergeMap(original: JsonMap, patch: JsonMap, node: Node): JsonMap {
  if (DIRECTIVE in patch) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      delete patch[DIRECTIVE];
      return copyIn(patch) as JsonMap;
    }
    if (d === 'delete') return {};
    throw badPatchType(d, patch);
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, node);

  const deletions: [string, Json][] = [];
  for (const rawKey of Object.keys(patch)) {
    const patchV = patch[rawKey];
    if (rawKey.startsWith(DELETE_PRIMITIVES)) {
      deletions.push([prefixedKey(rawKey, DELETE_PRIMITIVES, ERR_PRIMITIVE_LIST), patchV]);
      continue;
    }
    mergeField(original, rawKey, patchV, node, false);
  }
  for (const [key, patchV] of deletions) mergeField(original, key, patchV, node, true);
  return original;
}

function mergeField(original: JsonMap, k: string, patchV: Json, node: Node, isDeleteList: boolean): void {
  if (patchV === null) {
    delete original[k];
    return;
  }
  if (!(k in original) || original[k] === null) {
    if (!isDeleteList) original[k] = copyIn(patchV);
    return;
  }
  const origV = original[k];
  if (goKind(origV) !== goKind(patchV)) {
    if (!isDeleteList) original[k] = copyIn(patchV);
    return;
  }
  if (isMap(origV)) {
    const { node: child, meta } = lookupField(node, k);
    // NOTE: merged into a copy: the original's maps may be shared (see strategicMergePatch).
    original[k] = strategyOf(meta) === 'replace' ? copyIn(patchV) : mergeMap({ ...origV }, patchV as JsonMap, child);
  } else if (Array.isArray(origV)) {
    const { node: child, meta } = lookupField(node, k);
    const strategy = strategyOf(meta);
    if (strategy === 'merge' || isDeleteList) original[k] = mergeList(origV, patchV as Json[], child, mergeKeyOf(meta), isDeleteList);
    else original[k] = copyIn(patchV);
  } else {
    original[k] = patchV;
  }
}

function applySetElementOrder(original: JsonMap, patch: JsonMap, node: Node): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('slice', order);
    const field = prefixedKey(key, SET_ORDER, ERR_SET_ORDER);
    const foundOriginal = field in original && original[field] !== null;
    const foundPatch = field in patch && patch[field] !== null;
    const origList = foundOriginal ? original[field] : [];
    const patchList = foundPatch ? patch[field] : [];
    if (!Array.isArray(origList)) throw badArgType('slice', origList);
    if (!Array.isArray(patchList)) throw badArgType('slice', patchList);
    const { node: child, meta } = lookupField(node, field);
    const mergeKey = mergeKeyOf(meta);
    validateAgainstOrder(patchList, order, mergeKey);
    let merged: Json[];
    if (foundOriginal && !foundPatch) merged = origList;
    else if (!foundOriginal && foundPatch) merged = stripDirectives(patchList).value as Json[];
    else if (foundOriginal && foundPatch) {
      merged = strategyOf(meta) === 'merge' ? mergeList(origList, patchList, child, mergeKey, false) : (copyIn(patchList) as Json[]);
    } else continue;
    if (origList.length === 0 && patchList.length === 0) {
      original[field] = merged;
      delete patch[field];
      continue;
    }
    const kindIsMap = elementKind(origList, patchList) === 'map';
    const [inOrder, serverOnly] = partition(merged, order, kindIsMap ? mergeKey : '');
    original[field] = orderItems(inOrder, serverOnly, order, origList, kindIsMap ? mergeKey : '');
    delete patch[field];
  }
}

function validateAgainstOrder(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isMap(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isMap(item) && DIRECTIVE in item) {
      p++;
      continue;
    }
    if (sameKey(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length) {
    throw new PatchError(`the order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ORDER} list:\n${goFormat(order)}`, 500);
  }
}

function sameKey(a: Json, b: Json, mergeKey: string): boolean {
  if (!mergeKey) return a === b;
  if (!isMap(a)) throw badArgType('map', a);
  if (!isMap(b)) throw badArgType('map', b);
  if (!(mergeKey in a)) throw noMergeKey(a, mergeKey);
  if (!(mergeKey in b)) throw noMergeKey(b, mergeKey);
  return a[mergeKey] === b[mergeKey];
}

function elementKind(...lists: Json[][]): string {
  let kind = '';
  for (const list of lists) {
    for (const v of list) {
      const k = goKind(v);
      if (kind === '') {
        if (k === 'slice') throw new PatchError(ERR_LIST_OF_LISTS, 422);
        kind = k;
      } else if (k !== kind) {
        throw new PatchError(`list element types are not identical: ${goFormat(lists)}`, 500);
      }
    }
  }
  if (kind === '') throw new PatchError('no elements in any of the given slices', 500);
  return kind;
}

function indexIn(list: readonly Json[], v: Json, mergeKey: string): number {
  if (!mergeKey) return list.indexOf(v);
  const key = (v as JsonMap)[mergeKey];
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    if (isMap(e) && e[mergeKey] === key) return i;
  }
  return -1;
}

/** Splits `items` into those present in `by` (by merge key for maps) and the rest, keeping order. */
function partition(items: Json[], by: Json[], mergeKey: string): [Json[], Json[]] {
  const present: Json[] = [];
  const rest: Json[] = [];
  for (const v of items) {
    if (mergeKey) {
      if (!isMap(v)) throw badArgType('map', v);
      if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
    }
    (indexIn(by, v, mergeKey) >= 0 ? present : rest).push(v);
  }
  return [present, rest];
}

/**
 * Orders the result: `fromPatch` by `patchOrder`, `serverOnly` by `serverOrder`, then interleaves
 * the two, placing a server-only item before a patch item only when both are in the live list
 * and the server-only item comes first there.
 */
function orderItems(fromPatch: Json[], serverOnly: Json[], patchOrder: Json[], serverOrder: Json[], mergeKey: string): Json[] {
  const byOrder = (list: Json[], order: Json[]) => {
    if (mergeKey) {
      for (const v of [...list, ...order]) {
        if (!isMap(v)) throw badArgType('map', v);
        if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
      }
    }
    const keep: Json[] = [];
    const deleted: Json[] = [];
    for (const v of list) (mergeKey && isMap(v) && v[DIRECTIVE] === 'delete' ? deleted : keep).push(v);
    const idx = new Map<Json, number>(keep.map((v) => [v, indexIn(order, v, mergeKey)]));
    return [...stableSort(keep, idx), ...deleted];
  };
  const right = byOrder(fromPatch, patchOrder);
  const left = byOrder(serverOnly, serverOrder);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function stableSort(list: Json[], idx: Map<Json, number>): Json[] {
  return list
    .map((v, pos) => ({ v, pos, at: idx.get(v) ?? -1 }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at || a.pos - b.pos : a.pos - b.pos))
    .map((e) => e.v);
}

function mergeList(original: Json[], patch: Json[], node: Node, mergeKey: string, isDeleteList: boolean): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  let merged: Json[];
  if (kind !== 'map') {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = [];
    const seen = new Set<Json>();
    for (const v of [...original, ...patch]) {
      if (seen.has(v)) continue;
      seen.add(v);
      merged.push(v);
    }
  } else {
    if (!mergeKey) throw new PatchError(`cannot merge lists without merge key for ${node.kind === 'message' ? node.name.slice(node.name.lastIndexOf('.') + 1) : ''}`, 500);
    const special = applyListDirectives(original, patch, mergeKey);
    original = special.replaced ? special.patch.map(copyIn) : special.original;
    patch = special.replaced ? [] : special.patch;
    merged = [...original];
    for (const item of patch) {
      const m = item as JsonMap;
      if (!(mergeKey in m)) throw noMergeKey(m, mergeKey);
      const at = merged.findIndex((e) => isMap(e) && mergeKey in e && e[mergeKey] === m[mergeKey]);
      if (at >= 0) merged[at] = mergeMap({ ...(merged[at] as JsonMap) }, m, node);
      else merged.push(copyIn(m));
    }
  }
  const mk = kind === 'map' ? mergeKey : '';
  const [fromPatch, serverOnly] = partition(merged, patch, mk);
  return orderItems(fromPatch, serverOnly, patch, original, mk);
}

/** Applies `$patch: delete` and `$patch: replace` items of a merging list of maps. */
function applyListDirectives(original: Json[], patch: Json[], mergeKey: string): { original: Json[]; patch: Json[]; replaced: boolean } {
  const plain: Json[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonMap;
    if (!(DIRECTIVE in m)) {
      plain.push(v);
      continue;
    }
    const d = m[DIRECTIVE];
    if (d === 'delete') {
      if (!(mergeKey in m)) throw noMergeKey(m, mergeKey);
      original = original.filter((e) => !(isMap(e) && e[mergeKey] === m[mergeKey]));
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch', 500);
    } else {
      throw badPatchType(d, m);
    }
  }
  return { original, patch: plain, replaced: replace };
}

/**
 * Applies a strategic merge patch to `original` (the JSON form of an object of the protobuf
 * message `messageName`, e.g. `k8s.io.api.core.v1.Pod`) and returns the result. Neither
 * argument is modified. With `shareUnchanged`, maps and lists the patch does not touch are the
 * original's own (the same objects), so the result must not be mutated below what the patch
 * changed; otherwise the result is entirely new. Fields unknown to the schema merge as maps and
 * replace as lists. Throws {@link PatchError} for a malformed patch.
 */
export function strategicMergePatch(original: any, patch: any, messageName: string, opts: { shareUnchanged?: boolean } = {}): any {
  if (!isMap(patch)) throw new PatchError(`json: cannot unmarshal ${jsonWord(patch)} into Go value of type map[string]interface {}`, 400);
  if (!typeModel().has(messageName)) throw new Error(`unknown message ${messageName}`);
  // NOTE: every map the merge changes is copied first, so `original` is never written; a deep copy
  // up front is only needed when the caller will mutate the result below what the patch touched.
  const base = !isMap(original) ? {} : opts.shareUnchanged ? { ...original } : cloneJson(original);
  return mergeMap(base, cloneJson(patch), { kind: 'message', name: messageName });
}

function jsonWord(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null';
  return 'array';
}

/**
 * Applies a JSON merge patch (RFC 7386) and returns the result without modifying the arguments:
 * objects merge recursively, `null` removes a member, anything else (arrays included) replaces.
 * A patch that is not a JSON object is rejected as Kubernetes does (`Invalid JSON Patch`, 400).
 */
export function jsonMergePatch(original: any, patch: any): any {
  if (!isMap(patch)) throw new PatchError('Invalid JSON Patch', 400);
  return mergeJsonInto(cloneJson(original), patch);
}

function mergeJsonInto(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return cloneJson(patch);
  const out: Record<string, unknown> = isMap(target) ? target : {};
  for (const k in patch) {
    const v = patch[k];
    if (v === null) delete out[k];
    else out[k] = mergeJsonInto(out[k], v);
  }
  return out;
}

/**
 * The two-way strategic merge patch from `original` to `modified` (JSON forms of objects of
 * `messageName`), as Kubernetes' `CreateTwoWayMergePatch` builds it and the kubelet sends it for a
 * pod's status: changed members only, `null` for removed ones; lists that merge by a key carry only
 * their new and changed items (changed ones as their merge key plus what changed), a
 * `$patch: delete` item for each removed one and a `$setElementOrder/<field>` with the new order;
 * merging lists of scalars carry the added values, `$deleteFromPrimitiveList/<field>` for the
 * removed ones and the new order; every other list (and a `replace` field) goes whole. Guarantee:
 * applying the result to `original` with {@link strategicMergePatch} gives `modified` (for values
 * without `null`s and list items with their merge keys). Neither argument is modified; the result
 * may share values with `modified`.
 */
export function createTwoWayMergePatch(original: any, modified: any, messageName: string): Record<string, unknown> {
  if (!typeModel().has(messageName)) throw new Error(`unknown message ${messageName}`);
  return diffMaps(isMap(original) ? original : {}, isMap(modified) ? modified : {}, { kind: 'message', name: messageName });
}

function diffMaps(original: JsonMap, modified: JsonMap, node: Node): JsonMap {
  const patch: JsonMap = {};
  for (const k of Object.keys(modified)) {
    const m = modified[k];
    if (!(k in original)) {
      patch[k] = m;
      continue;
    }
    const o = original[k];
    if (o === m || deepEqual(o, m)) continue;
    const { node: child, meta } = lookupField(node, k);
    const strategy = strategyOf(meta);
    if (isMap(o) && isMap(m) && strategy !== 'replace') {
      const sub = diffMaps(o, m, child);
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (Array.isArray(o) && Array.isArray(m) && strategy === 'merge') {
      diffMergingList(patch, k, o, m, child, mergeKeyOf(meta));
    } else {
      patch[k] = m;
    }
  }
  for (const k of Object.keys(original)) if (!(k in modified)) patch[k] = null;
  return patch;
}

function diffMergingList(patch: JsonMap, k: string, original: Json[], modified: Json[], node: Node, mergeKey: string): void {
  const maps = [...original, ...modified].every(isMap);
  if (!maps || !mergeKey) {
    // A merging list of scalars: the added values, the removed ones, and the order.
    const had = new Set(original);
    const keep = new Set(modified);
    const added = modified.filter((v) => !had.has(v));
    const removed = original.filter((v) => !keep.has(v));
    if (added.length > 0) patch[k] = added;
    if (removed.length > 0) patch[`${DELETE_PRIMITIVES}/${k}`] = removed;
    patch[`${SET_ORDER}/${k}`] = modified;
    return;
  }
  const items: Json[] = [];
  const keyed = (list: Json[]) => new Map(list.map((v) => [(v as JsonMap)[mergeKey], v as JsonMap]));
  const before = keyed(original);
  const after = keyed(modified);
  for (const m of modified as JsonMap[]) {
    const o = before.get(m[mergeKey]);
    if (o === undefined) items.push(m);
    else if (o !== m && !deepEqual(o, m)) items.push({ [mergeKey]: m[mergeKey], ...diffMaps(o, m, node) });
  }
  for (const o of original as JsonMap[]) if (!after.has(o[mergeKey])) items.push({ [mergeKey]: o[mergeKey], [DIRECTIVE]: 'delete' });
  if (items.length > 0) patch[k] = items;
  patch[`${SET_ORDER}/${k}`] = (modified as JsonMap[]).map((m) => ({ [mergeKey]: m[mergeKey] }));
}
