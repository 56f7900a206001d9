import { deepEqual } from '../machinery/deepequal.ts';
import { jsonFields, patchMetaFor, type PatchMeta } from './patchmeta.ts';
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

/** A FieldsV1 tree (or subtree): segment → child; a leaf is an empty object. */
type Tree = Record<string, any>;

/** Separates path segments in flattened field paths (never occurs in field names). */
const SEP = '\u0000';

function join(path: string, seg: string): string {
  return path === '' ? seg : path + SEP + seg;
}

// NOTE: messages are looked up on every level of every walk; the type model throws for unknown
// names (CRDs, kinds without a message), which is costly, so misses are cached too (as null).
const messageCache = new Map<string, MessageModel | null>();

function messageOf(name: string | undefined): MessageModel | undefined {
  if (!name) return undefined;
  const hit = messageCache.get(name);
  if (hit !== undefined) return hit ?? undefined;
  let m: MessageModel | null;
  try {
    m = typeModel().message(name);
  } catch {
    m = null;
  }
  messageCache.set(name, m);
  return m ?? undefined;
}

/** JSON with object keys sorted, so equal values from different sources compare equal. */
function canonical(value: unknown): string {
  // NOTE: fast paths for the common scalars give what JSON.stringify gives (non-finite numbers
  // are `null` in JSON); everything else takes the general route.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  let out = '{';
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonical(v)}`;
  }
  return `${out}}`;
}

/** Whether a value is written `null` by canonical() (as JSON.stringify writes it). */
function nullLike(v: unknown): boolean {
  return v === null || v === undefined || typeof v === 'function' || typeof v === 'symbol' || (typeof v === 'number' && !Number.isFinite(v));
}

/**
 * Whether `canonical(a) === canonical(b)`, decided without building either string: strings,
 * numbers and booleans by value (JSON writes distinct ones differently, 0 and -0 alike), every
 * null-like value alike, arrays item by item (a hole writes nothing, so `[]` and `[<hole>]` are
 * alike), objects by their members that are not undefined, in any order.
 */
function sameCanonical(a: unknown, b: unknown): boolean {
  // NOTE: a bigint makes canonical() throw (JSON has none); let it, as comparing the strings would.
  if (typeof a === 'bigint' || typeof b === 'bigint') return canonical(a) === canonical(b);
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  const an = nullLike(a);
  const bn = nullLike(b);
  if (an || bn) return an && bn;
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false;
    if (a.length !== b.length) return (a.length === 0 && b.length === 1 && !(0 in b)) || (b.length === 0 && a.length === 1 && !(0 in a));
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      const xHole = x === undefined && !(i in a);
      const yHole = y === undefined && !(i in b);
      if (xHole || yHole) {
        if (xHole !== yHole) return false;
      } else if (!sameCanonical(x, y)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k of Object.keys(ao)) {
    const x = ao[k];
    if (x === undefined) continue;
    n++;
    if (!Object.prototype.propertyIsEnumerable.call(bo, k)) return false;
    const y = bo[k];
    if (y === undefined || !sameCanonical(x, y)) return false;
  }
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) n--;
  return n === 0;
}

/** The value string {@link walk} records for a scalar leaf. */
function leafValue(value: unknown): string {
  return typeof value === 'string' ? `s${value}` : canonical(value);
}

/** The merge keys that identify the items of a list field, or undefined when it is not keyed. */
function listKeys(meta: PatchMeta | undefined): readonly string[] | undefined {
  if (!meta || meta.listType === 'atomic') return undefined;
  return meta.listMapKeys ?? (meta.mergeKey ? [meta.mergeKey] : undefined);
}

/** Each merge key's JSON and colon, or null for a key that looks like an array index. */
const keyPrefixes = new Map<string, string | null>();

function keyPrefix(key: string): string | null {
  let pre = keyPrefixes.get(key);
  if (pre === undefined) {
    pre = /^(?:0|[1-9][0-9]*)$/.test(key) ? null : `${JSON.stringify(key)}:`;
    keyPrefixes.set(key, pre);
  }
  return pre;
}

// NOTE: the segments of items keyed by one scalar (names, types, ports) repeat across objects and
// requests. Handing out the same string again, which V8 has internalized on its first use as a
// property name, made building the tree about a third cheaper than writing it afresh each time.
// Each value cache is cleared when it fills up, which bounds the memory.
const SEGMENT_CACHE_LIMIT = 4096;
const itemSegments = new Map<string, Map<string | number, string>>();

/**
 * The `k:` segment of a keyed list item: `k:` and the JSON of the object of its merge keys that
 * it sets, in key order (e.g. `k:{"name":"app"}`).
 */
function itemSegment(item: Record<string, unknown>, keys: readonly string[]): string {
  if (keys.length !== 1) return writeItemSegment(item, keys);
  const v = item[keys[0]];
  if (typeof v !== 'string' && typeof v !== 'number') return writeItemSegment(item, keys);
  let byValue = itemSegments.get(keys[0]);
  if (byValue === undefined) itemSegments.set(keys[0], (byValue = new Map()));
  let seg = byValue.get(v);
  if (seg === undefined) {
    seg = writeItemSegment(item, keys);
    if (byValue.size >= SEGMENT_CACHE_LIMIT) byValue.clear();
    byValue.set(v, seg);
  }
  return seg;
}

function writeItemSegment(item: Record<string, unknown>, keys: readonly string[]): string {
  // NOTE: the common case (distinct keys with scalar values) is written out directly, as
  // JSON.stringify would write the object; anything else (object values, keys an object would
  // reorder because they look like array indices, repeated keys) builds the object.
  let out = 'k:{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = item[key];
    if (v === undefined) continue;
    const pre = keyPrefix(key);
    if (pre === null || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') || keys.indexOf(key) !== i) return itemSegmentOf(item, keys);
    out += first ? pre : `,${pre}`;
    out += JSON.stringify(v);
    first = false;
  }
  return `${out}}`;
}

function itemSegmentOf(item: Record<string, unknown>, keys: readonly string[]): string {
  const id: Record<string, unknown> = {};
  for (const key of keys) if (item[key] !== undefined) id[key] = item[key];
  return `k:${JSON.stringify(id)}`;
}

/**
 * Whether member `k` (value `v`) of an object is not a field: apiVersion and kind, and the members
 * outside `scope`, at the top; server-set metadata; undefined values.
 */
function notAField(k: string, v: unknown, top: boolean, scope: 'main' | 'status' | 'all', inMeta: boolean): boolean {
  if (top) {
    if (k === 'apiVersion' || k === 'kind') return true;
    if (scope === 'main' ? k === 'status' : scope === 'status' && k !== 'status') return true;
  }
  return v === undefined || (inMeta && SYSTEM_META.has(k));
}

/**
 * Records in `out` the leaves of `value` (of message `msg`) at `path` ('' for a whole object,
 * whose members `scope` selects), each mapped to its value as a string (see {@link fieldLeaves}),
 * or to '' when `values` is false.
 */
function walk(value: unknown, msg: MessageModel | undefined, path: string, out: Leaves, scope: 'main' | 'status' | 'all', values = true): void {
  if (!isPlainObject(value)) {
    out.set(path, !values ? '' : leafValue(value));
    return;
  }
  const top = path === '';
  // An empty struct (e.g. `emptyDir: {}`) is itself a field its manager set.
  if (!top && !hasKeys(value)) out.set(path, '{}');
  const plans = msg ? membersOf(msg) : undefined;
  const inMeta = path === 'f:metadata';
  // NOTE: for-in gives JSON objects' keys in Object.entries' order (see membersInto).
  for (const k in value) {
    const v = value[k];
    if (notAField(k, v, top, scope, inMeta)) continue;
    const plan = plans?.get(k);
    const here = join(path, plan ? plan.seg : `f:${k}`);
    if (plan !== undefined && isPlainObject(v)) {
      if (plan.atomic) out.set(here, values ? canonical(v) : '');
      else if (plan.map) {
        out.set(here + SEP + '.', '');
        for (const mk in v) walk(v[mk], plan.child, `${here}${SEP}f:${mk}`, out, 'all', values);
      } else walk(v, plan.child, here, out, 'all', values);
      continue;
    }
    if (plan !== undefined && Array.isArray(v)) {
      if (plan.keys) {
        for (const item of v) {
          if (!item || typeof item !== 'object') continue;
          const item_ = here + SEP + itemSegment(item as Record<string, unknown>, plan.keys);
          out.set(item_ + SEP + '.', '');
          walk(item, plan.child, item_, out, 'all', values);
        }
        continue;
      }
      if (plan.set) {
        for (const item of v) out.set(`${here}${SEP}v:${JSON.stringify(item)}`, '');
        continue;
      }
    }
    walk(v, undefined, here, out, 'all', values);
  }
}

/**
 * The FieldsV1 tree of the field set {@link walk} would give for `obj` (a message `msg` at the top
 * level), built in one pass instead of through flattened paths: `fieldsV1Of` of `walk`'s keys,
 * with the same key order (a segment is inserted where the first path through it would be).
 */
function fieldsTreeOf(obj: unknown, msg: MessageModel | undefined, scope: 'main' | 'status'): Tree {
  // NOTE: walk records a scalar or list at the top as the leaf with the empty path.
  if (!isPlainObject(obj)) return { '': {} };
  const root: Tree = {};
  membersInto(obj, msg, root, scope, true, false);
  return root;
}

/**
 * Adds the fields of the members of `obj` (message `msg`) to `node`, as {@link walk} does for an
 * object at `node`'s path; `top` marks the object itself, `inMeta` its metadata. Returns whether
 * anything was added.
 */
function membersInto(obj: Record<string, unknown>, msg: MessageModel | undefined, node: Tree, scope: 'main' | 'status' | 'all', top: boolean, inMeta: boolean): boolean {
  let any = false;
  const plans = msg ? membersOf(msg) : undefined;
  // NOTE: for-in, like diffLeaves: the objects are JSON data (no inherited enumerable members),
  // for which it gives Object.entries' keys in the same order, without allocating them.
  for (const k in obj) {
    const v = obj[k];
    if (notAField(k, v, top, scope, inMeta)) continue;
    const plan = plans?.get(k);
    if (plan === undefined) {
      if (treeInto(v, undefined, node, `f:${k}`, top && k === 'metadata')) any = true;
      continue;
    }
    const seg = plan.seg;
    if (isPlainObject(v)) {
      if (plan.atomic) {
        node[seg] ??= {};
      } else if (plan.map) {
        const here = childOf(node, seg);
        here['.'] ??= {};
        for (const mk in v) treeInto(v[mk], plan.child, here, `f:${mk}`, false);
      } else if (!treeInto(v, plan.child, node, seg, top && k === 'metadata')) {
        continue;
      }
      any = true;
      continue;
    }
    if (Array.isArray(v)) {
      if (plan.keys) {
        // NOTE: the list's node appears with its first item, so a list without object items adds nothing.
        let list: Tree | undefined;
        for (const item of v) {
          if (!item || typeof item !== 'object') continue;
          list ??= childOf(node, seg);
          const here = childOf(list, itemSegment(item, plan.keys));
          here['.'] ??= {};
          // An empty item, or a list as item, is the leaf `here` itself.
          if (!Array.isArray(item)) membersInto(item, plan.child, here, 'all', false, false);
          any = true;
        }
        continue;
      }
      if (plan.set) {
        let list: Tree | undefined;
        for (const item of v) {
          list ??= childOf(node, seg);
          list[`v:${JSON.stringify(item)}`] ??= {};
          any = true;
        }
        continue;
      }
    }
    node[seg] ??= {};
    any = true;
  }
  return any;
}

/** How {@link walk} treats a member of a message (one field of the type model). */
interface MemberPlan {
  /** `f:` and the JSON name. */
  readonly seg: string;
  /** An object value is one leaf (`+structType=atomic` / `+mapType=atomic`). */
  readonly atomic: boolean;
  /** A map field: an object value gets `.` and a child per entry. */
  readonly map: boolean;
  /** The message of an object value, of each map value, or of each keyed list item. */
  readonly child: MessageModel | undefined;
  /** A list of messages keyed by these merge keys (each item `k:` with `.`). */
  readonly keys: readonly string[] | undefined;
  /** A list of scalars that is a set (each item `v:`). */
  readonly set: boolean;
  /** A message field that is no map: an object value is a struct whose members are fields. */
  readonly struct: boolean;
}

// NOTE: one lookup per member instead of the field, its merge metadata and its message (three to
// five map lookups each). The plans are built once per message from the same sources, and the
// type model bounds their number.
const memberPlans = new Map<string, ReadonlyMap<string, MemberPlan>>();

function membersOf(msg: MessageModel): ReadonlyMap<string, MemberPlan> {
  let plans = memberPlans.get(msg.fullName);
  if (plans) return plans;
  const out = new Map<string, MemberPlan>();
  for (const [k, { field }] of jsonFields(msg.fullName)) {
    const meta = patchMetaFor(msg.fullName, k);
    const isMessage = field.type.kind === 'message';
    const listKeys_ = listKeys(meta);
    out.set(k, {
      seg: `f:${k}`,
      atomic: meta?.structType === 'atomic' || meta?.mapType === 'atomic',
      map: !!field.mapKey,
      child: field.type.kind === 'message' ? messageOf(field.type.message) : undefined,
      keys: listKeys_ && isMessage ? listKeys_ : undefined,
      set: !isMessage && (!!meta?.strategy?.includes('merge') || meta?.listType === 'set'),
      struct: isMessage && !field.mapKey,
    });
  }
  plans = out;
  memberPlans.set(msg.fullName, plans);
  return plans;
}

/** Adds the fields of `value` (of message `msg`) under `node[seg]`, as {@link walk} does at that path. */
function treeInto(value: unknown, msg: MessageModel | undefined, node: Tree, seg: string, inMeta: boolean): boolean {
  if (!isPlainObject(value)) {
    node[seg] ??= {};
    return true;
  }
  const existing: Tree | undefined = node[seg];
  if (existing !== undefined) {
    membersInto(value, msg, existing, 'all', false, inMeta);
    return true;
  }
  // NOTE: the node is attached only once something lands in it (an object whose members are all
  // skipped, e.g. metadata with only server-set fields, adds nothing); an empty object is a leaf.
  const fresh: Tree = {};
  if (membersInto(value, msg, fresh, 'all', false, inMeta) || Object.keys(value).length === 0) {
    node[seg] = fresh;
    return true;
  }
  return false;
}

/** `node[seg]`, created empty (a leaf) when absent. */
function childOf(node: Tree, seg: string): Tree {
  return (node[seg] ??= {}) as Tree;
}

/** Whether `o` has an own enumerable key (`Object.keys(o).length > 0` without the array). */
function hasKeys(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
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
  // NOTE: the per-member work is a module-level function, not a closure: tsx (esbuild keepNames)
  // wraps every named closure creation in a __name call, which showed up in profiles.
  for (const k in obj) diffMember(k, old, obj, msg, path, scope, changed, removed);
  for (const k in old) if (!(k in obj)) diffMember(k, old, obj, msg, path, scope, changed, removed);
}

/** {@link diffLeaves} for member `k`. */
function diffMember(k: string, old: Record<string, unknown>, obj: Record<string, unknown>, msg: MessageModel | undefined, path: string, scope: 'main' | 'status' | 'all', changed: Set<string>, removed: Set<string>): void {
  const top = path === '';
  if (top && (k === 'apiVersion' || k === 'kind')) return;
  if (top && scope === 'main' && k === 'status') return;
  if (top && scope === 'status' && k !== 'status') return;
  if (path === 'f:metadata' && SYSTEM_META.has(k)) return;
  const ov = old[k];
  const nv = obj[k];
  // NOTE: metadata is entered without comparing it whole: its server-set members (managedFields
  // above all) are not fields, and comparing them would cost more than the rest.
  if (!(top && k === 'metadata' && isPlainObject(ov) && isPlainObject(nv)) && deepEqual(ov, nv)) return;
  // NOTE: a scalar on both sides (or one side absent) is the single leaf `f:k` whatever the
  // field's type; compare its value strings as the leaf maps would, without building them.
  if ((ov === null || typeof ov !== 'object') && (nv === null || typeof nv !== 'object')) {
    const p = join(path, `f:${k}`);
    if (ov === undefined) changed.add(p);
    else if (nv === undefined) removed.add(p);
    else if (leafValue(ov) !== leafValue(nv)) changed.add(p);
    return;
  }
  const plan = msg ? membersOf(msg).get(k) : undefined;
  const objects = isPlainObject(ov) && isPlainObject(nv);
  if (plan?.struct && objects) {
    if (!plan.atomic && hasKeys(ov) && hasKeys(nv)) {
      diffLeaves(ov, nv, plan.child, join(path, plan.seg), 'all', changed, removed);
      return;
    }
  }
  // NOTE: an atomic struct or map, or a list that is neither keyed nor a set, is the single leaf
  // `f:k` on both sides, valued by canonical(): compare what canonical() would give directly.
  if ((objects && plan?.atomic) || (Array.isArray(ov) && Array.isArray(nv) && !plan?.keys && !plan?.set)) {
    if (!sameCanonical(ov, nv)) changed.add(join(path, `f:${k}`));
    return;
  }
  if (plan?.keys && Array.isArray(ov) && Array.isArray(nv) && diffKeyedList(ov, nv, plan, join(path, plan.seg), changed, removed)) return;
  const before: Leaves = new Map();
  const after: Leaves = new Map();
  if (ov !== undefined) walk({ [k]: ov }, msg, path, before, top ? scope : 'all');
  if (nv !== undefined) walk({ [k]: nv }, msg, path, after, top ? scope : 'all');
  for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
  for (const p of before.keys()) if (!after.has(p)) removed.add(p);
}

/**
 * {@link diffMember} for a keyed list (`plan.keys`) at `list`, item by item: the leaves of an item
 * are those under its `k:` segment, so when no two items of either list share a segment, the
 * leaf maps of the two lists differ exactly where the leaf maps of same-keyed items do, plus the
 * items only one side has. Items that are {@link identical} are skipped unwalked. `changed` gets
 * its paths in the order of `nv`'s leaves and `removed` in that of `ov`'s, as comparing the whole
 * lists' leaf maps gives them. Returns false, having done nothing, when a segment repeats.
 */
function diffKeyedList(ov: unknown[], nv: unknown[], plan: MemberPlan, list: string, changed: Set<string>, removed: Set<string>): boolean {
  const olds = itemsBySegment(ov, plan.keys!);
  const news = olds && itemsBySegment(nv, plan.keys!);
  if (!olds || !news) return false;
  // NOTE: the leaf maps of the items that differ, kept from the pass for `changed` for the pass for `removed`.
  let walked: Map<string, [Leaves, Leaves]> | undefined;
  for (const [seg, n] of news) {
    const here = list + SEP + seg;
    const o = olds.get(seg);
    if (o !== undefined && identical(o, n)) continue;
    const after: Leaves = new Map();
    after.set(here + SEP + '.', '');
    walk(n, plan.child, here, after, 'all');
    if (o === undefined) {
      for (const p of after.keys()) changed.add(p);
      continue;
    }
    const before: Leaves = new Map();
    before.set(here + SEP + '.', '');
    walk(o, plan.child, here, before, 'all');
    for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
    (walked ??= new Map()).set(seg, [before, after]);
  }
  for (const [seg, o] of olds) {
    if (news.has(seg)) {
      const pair = walked?.get(seg);
      if (pair) for (const p of pair[0].keys()) if (!pair[1].has(p)) removed.add(p);
      continue;
    }
    const here = list + SEP + seg;
    const before: Leaves = new Map();
    before.set(here + SEP + '.', '');
    walk(o, plan.child, here, before, 'all');
    for (const p of before.keys()) removed.add(p);
  }
  return true;
}

/** The object items of a keyed list by their `k:` segments, in list order; undefined when a segment repeats. */
function itemsBySegment(items: unknown[], keys: readonly string[]): Map<string, object> | undefined {
  const out = new Map<string, object>();
  for (const item of items) {
    if (!item || typeof item !== 'object') continue;
    const seg = itemSegment(item as Record<string, unknown>, keys);
    if (out.has(seg)) return undefined;
    out.set(seg, item);
  }
  return out;
}

/**
 * Whether two values are the same JSON down to the order of object keys, undefined members and
 * array holes — everything {@link walk} reads — so that they have the same leaves with the same
 * values at any path. (deepEqual is looser: `{a: undefined}` equals `{}`, which is a leaf.)
 */
function identical(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!identical(a[i], b[i])) return false;
      if (a[i] === undefined && (i in a) !== (i in b)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i] || !identical((a as Record<string, unknown>)[ka[i]], (b as Record<string, unknown>)[kb[i]])) return false;
  }
  return true;
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
    if (v && typeof v === 'object' && hasKeys(v)) flatten(v as Record<string, unknown>, p, out);
    else out.add(p);
  }
  return out;
}

/**
 * The changed and/or removed leaf paths of an update as a trie of their segments: `bits` marks
 * the paths that end at a node (1 changed, 2 removed).
 */
interface PathTrie {
  bits: number;
  kids: Map<string, PathTrie> | undefined;
}

const CHANGED = 1;
const REMOVED = 2;

// NOTE: a trie lets an entry's tree be rebuilt without some leaves in one descent, where the
// flattened route joins every path of the tree, deletes from a set and splits them all again.
function trieOf(changed: Set<string> | undefined, removed: Set<string>): PathTrie {
  const root: PathTrie = { bits: 0, kids: undefined };
  if (changed) addPaths(root, changed, CHANGED);
  addPaths(root, removed, REMOVED);
  return root;
}

function addPaths(root: PathTrie, paths: Set<string>, bit: number): void {
  for (const p of paths) {
    let node = root;
    let start = 0;
    for (;;) {
      const end = p.indexOf(SEP, start);
      const seg = end < 0 ? (start === 0 ? p : p.slice(start)) : p.slice(start, end);
      node.kids ??= new Map();
      let next = node.kids.get(seg);
      if (next === undefined) node.kids.set(seg, (next = { bits: 0, kids: undefined }));
      node = next;
      if (end < 0) break;
      start = end + 1;
    }
    node.bits |= bit;
  }
}

/** Whether a FieldsV1 node is a leaf: anything but an object with own keys. */
function isLeaf(node: unknown): boolean {
  return !(node && typeof node === 'object' && hasKeys(node));
}

/** Whether a flattened path is a leaf of a FieldsV1 tree, i.e. one of {@link flatten}'s paths. */
function ownsLeaf(tree: Record<string, unknown>, path: string): boolean {
  // NOTE: segments are found with indexOf rather than split: no array per path and entry, and a
  // miss on the first segments (the usual case) reads no further.
  let node: unknown = tree;
  let start = 0;
  for (;;) {
    const end = path.indexOf(SEP, start);
    const seg = end < 0 ? (start === 0 ? path : path.slice(start)) : path.slice(start, end);
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, seg)) return false;
    node = (node as Record<string, unknown>)[seg];
    if (end < 0) break;
    start = end + 1;
  }
  return !(node && typeof node === 'object' && hasKeys(node));
}

function ownsAny(tree: Record<string, unknown>, paths: Set<string>): boolean {
  for (const p of paths) if (ownsLeaf(tree, p)) return true;
  return false;
}

function ownsAll(tree: Record<string, unknown>, paths: Set<string>): boolean {
  for (const p of paths) if (!ownsLeaf(tree, p)) return false;
  return true;
}

/**
 * `unflatten(flatten(tree))` without the paths in `t` marked with `mask`, built by one descent;
 * null when the tree has keys that flattening would not give back as they are (a key holding
 * {@link SEP}, or the empty key at the top, whose paths merge with others'), for which the caller
 * takes the flattened route.
 */
function treeWithout(tree: Record<string, unknown>, t: PathTrie | undefined, mask: number, top: boolean): Tree | null {
  const out: Tree = {};
  for (const k in tree) {
    if ((top && k === '') || k.includes(SEP)) return null;
    const v = tree[k];
    const sub = t?.kids?.get(k);
    if (isLeaf(v)) {
      if (!(sub && sub.bits & mask)) out[k] = {};
      continue;
    }
    const kept = treeWithout(v as Record<string, unknown>, sub, mask, false);
    if (kept === null) return null;
    if (!isEmptyTree(kept)) out[k] = kept;
  }
  return out;
}

/** `paths` less every member of `drop`. */
function without(paths: Set<string>, ...drop: Set<string>[]): Set<string> {
  for (const d of drop) for (const p of d) paths.delete(p);
  return paths;
}

/** Whether flattening the tree gives no paths. */
function isEmptyTree(tree: Record<string, unknown>): boolean {
  for (const _ in tree) return false;
  return true;
}

/** Adds the flattened paths to the tree `root` (a new one by default) and returns it. */
function unflatten(paths: Iterable<string>, root: Tree = {}): Record<string, unknown> {
  // NOTE: paths mostly arrive in walk order, sharing a prefix with the previous one: resume there.
  // Segments are scanned with indexOf and the shared ones compared in place (startsWith), so only
  // the segments that differ from the previous path are cut out as strings.
  const prev: string[] = [];
  let prevLen = 0;
  const chain: Tree[] = [root];
  for (const p of paths) {
    let node = root;
    let start = 0;
    let i = 0;
    let resuming = true;
    for (;;) {
      let end = p.indexOf(SEP, start);
      if (end < 0) end = p.length;
      if (resuming && i < prevLen && prev[i].length === end - start && p.startsWith(prev[i], start)) {
        node = chain[i + 1];
      } else {
        resuming = false;
        const seg = p.slice(start, end);
        prev[i] = seg;
        node = node[seg] ??= {};
        chain[i + 1] = node;
      }
      i++;
      if (end === p.length) break;
      start = end + 1;
    }
    prevLen = i;
  }
  return root;
}

/**
 * The managedFields of an object after a create or update by `manager`. `old` is undefined on
 * create. Returns the new list; entries left without fields are dropped. A create gives one entry
 * whose fieldsV1 is `fieldsV1Of` of the object's {@link fieldLeaves} paths, key order included;
 * an update takes the leaves {@link leafChanges} reports from every other entry (an entry that
 * loses none keeps its tree as it is), drops the removed ones from `manager`'s own entry and gives
 * it the changed ones, and puts that entry last with `time`.
 */
export function updateManagedFields(opts: {
  old: Record<string, any> | undefined;
  obj: Record<string, any>;
  manager: string;
  apiVersion: string;
  time: string;
  messageName: string | undefined;
  subresource?: string;
  /** The entries the update starts from (default: `old`'s); see {@link editedManagedFields}. */
  previous?: readonly ManagedFieldsEntry[];
}): ManagedFieldsEntry[] {
  const scope = opts.subresource === 'status' ? 'status' : 'main';
  if (!opts.old) {
    // NOTE: a create has no previous entries: its manager owns the whole field set, built as a
    // tree directly (the same tree, key order included, as fieldsV1Of of the leaf paths).
    const entry: ManagedFieldsEntry = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, time: opts.time, fieldsType: 'FieldsV1', fieldsV1: fieldsTreeOf(opts.obj, messageOf(opts.messageName), scope) };
    if (opts.subresource) entry.subresource = opts.subresource;
    return [entry];
  }
  const previous: readonly ManagedFieldsEntry[] = opts.previous ?? (Array.isArray(opts.old.metadata?.managedFields) ? opts.old.metadata.managedFields : []);
  const { changed, removed } = leafChanges(opts.old, opts.obj, opts.messageName, scope);

  const entries: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  let touched: PathTrie | undefined;
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
    touched ??= trieOf(changed, removed);
    const kept = treeWithout(tree, touched, CHANGED | REMOVED, true) ?? unflatten(without(flatten(tree), changed, removed));
    if (!isEmptyTree(kept)) entries.push({ ...e, fieldsV1: kept });
  }
  let fieldsV1: Record<string, unknown>;
  const own = mine?.fieldsV1 ?? {};
  if (mine && !ownsAny(own, removed) && ownsAll(own, changed)) {
    fieldsV1 = own;
  } else {
    // NOTE: the manager's leaves less the removed ones, in their order, then the changed ones it
    // lacked, in theirs: what unflattening that path list gives (see unflatten).
    const gone = removed.size > 0 ? trieOf(undefined, removed) : undefined;
    const kept = mine ? treeWithout(own, gone, REMOVED, true) ?? unflatten(without(flatten(own), removed)) : {};
    fieldsV1 = unflatten(changed, kept);
  }
  const size = isEmptyTree(fieldsV1) ? 0 : 1;
  if (size > 0) {
    const entry: ManagedFieldsEntry = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, time: opts.time, fieldsType: 'FieldsV1', fieldsV1 };
    if (opts.subresource) entry.subresource = opts.subresource;
    entries.push(entry);
  }
  // NOTE: the list is stored with the object and lives as long: an exact-size copy, not the grown
  // array (whose first push reserves room for 17 entries).
  return entries.slice();
}

/** Whether `mf` is the request to strip managedFields: a list of one empty entry (an empty list is not). */
function isManagedFieldsReset(mf: unknown): boolean {
  if (!Array.isArray(mf) || mf.length !== 1) return false;
  const e = mf[0];
  return e !== null && typeof e === 'object' && !Array.isArray(e) && Object.keys(e).length === 0;
}

/**
 * The entries a non-apply update starts from when they are not the live ones, as Kubernetes' field
 * manager chooses them: none after a reset (`[{}]`), or the request's own non-empty list when it
 * differs from the live one (a client may edit managedFields). Undefined when the update starts
 * from the live list: the request sends none, an empty list or the live list again, writes a
 * subresource, or resets an object that has no entries anyway.
 */
export function editedManagedFields(incoming: unknown, live: unknown, subresource: string | undefined): readonly ManagedFieldsEntry[] | undefined {
  if (subresource || !Array.isArray(incoming) || incoming.length === 0 || incoming === live) return undefined;
  const liveEntries = Array.isArray(live) ? (live as ManagedFieldsEntry[]) : [];
  if (isManagedFieldsReset(incoming)) return liveEntries.length === 0 ? undefined : [];
  return deepEqual(incoming, liveEntries) ? undefined : (incoming as ManagedFieldsEntry[]);
}

/** The field manager for a request: `fieldManager`, else the User-Agent up to its first `/`. */
export function managerFor(fieldManager: string | null, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const ua = userAgent ?? 'unknown';
  const slash = ua.indexOf('/');
  return (slash < 0 ? ua : ua.slice(0, slash)).slice(0, 128) || 'unknown';
}
