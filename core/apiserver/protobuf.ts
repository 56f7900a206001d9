import { Buffer } from 'node:buffer';
import protobuf from 'protobufjs';
import {
  formatGoDuration,
  formatMicroTime,
  formatTime,
  goFieldShapes,
  GO_ZERO_TIME_SECONDS,
  parseGoDuration,
  parseRfc3339,
  SLICE_WRAPPERS,
  type GoFieldShape,
} from './protobuf-json.ts';
import { typeModel } from './typemodel.ts';

/**
 * Kubernetes' Protobuf wire form (`application/vnd.kubernetes.protobuf`) ↔ the JSON form of
 * objects (plain objects exactly as Kubernetes' JSON looks).
 *
 * An object on the wire is the 4 bytes `6b 38 73 00`, then a `runtime.Unknown` whose `typeMeta`
 * names apiVersion and kind and whose `raw` is the object's own message. The conversion mirrors
 * what a Go client and the Go API server do on each side: decoding gives exactly the JSON that
 * Go's `encoding/json` writes for the Go struct decoded from the bytes (zero values dropped for
 * `omitempty` value fields, kept for pointers, `{}` for absent value structs, `null` for a zero
 * `Time`), and encoding gives exactly the bytes gogo-protobuf writes for the Go struct decoded
 * from the JSON (value fields always written, pointers only when set, fields in number order,
 * map keys sorted). Conversion plans are built once per message and cached.
 */

/** The media type of the Protobuf representation. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The media type of a Protobuf watch stream (see {@link encodeWatchEventFrame}). */
export const PROTOBUF_WATCH_MEDIA_TYPE = `${PROTOBUF_MEDIA_TYPE};stream=watch`;

/** The 4 bytes every Protobuf-encoded object starts with (`k8s\0`). */
const PROTOBUF_PREFIX = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** Thrown when an object's apiVersion/kind has no protobuf message (e.g. `Table`, custom resources). */
export class NotProtobufKind extends Error {
  readonly code = 'NOT_PROTOBUF_KIND';
  readonly apiVersion: string;
  readonly kind: string;
  constructor(apiVersion: unknown, kind: unknown) {
    super(`kind ${String(kind)} in ${String(apiVersion)} has no protobuf representation`);
    this.name = 'NotProtobufKind';
    this.apiVersion = String(apiVersion);
    this.kind = String(kind);
  }
}

/** Thrown for bytes that are not a valid Protobuf encoding (wrong prefix, truncated, malformed, unknown kind). */
export class ProtobufDecodeError extends Error {
  readonly code = 'PROTOBUF_DECODE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtobufDecodeError';
  }
}

/** Thrown when a JSON value does not fit the protobuf field it maps to (e.g. a string where Go has an int32). */
export class ProtobufEncodeError extends Error {
  readonly code = 'PROTOBUF_ENCODE';
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufEncodeError';
  }
}

// Value kinds of a field (of one element for repeated and map fields).
const STRING = 0;
const BOOL = 1;
const INT32 = 2;
const INT64 = 3;
const BYTES = 4;
const MESSAGE = 5;
const WRAPPER = 6;
const TIME = 7;
const MICROTIME = 8;
const DURATION = 9;
const QUANTITY = 10;
const INTORSTRING = 11;
const RAWEXTENSION = 12;
const FIELDSV1 = 13;

const SCALAR_KINDS: Record<string, number> = { string: STRING, bool: BOOL, int32: INT32, int64: INT64, bytes: BYTES };

const SPECIAL_KINDS: Record<string, number> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': TIME,
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': MICROTIME,
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': DURATION,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': QUANTITY,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': INTORSTRING,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': RAWEXTENSION,
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': FIELDSV1,
};

const WATCH_EVENT = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent';

interface FieldPlan {
  readonly id: number;
  readonly key: string;
  readonly index: number;
  readonly vk: number;
  readonly messageName: string | undefined;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly pointer: boolean;
  readonly always: boolean;
  readonly inline: boolean;
  readonly skipJson: boolean;
  readonly owner: string;
  sub: MessagePlan | undefined;
}

interface MessagePlan {
  readonly name: string;
  /** Fields in Go struct order: the order of JSON keys. */
  readonly fields: readonly FieldPlan[];
  /** Fields in field-number order: the order Go writes them. */
  readonly encodeOrder: readonly FieldPlan[];
  readonly byId: readonly (FieldPlan | undefined)[];
}

const plans = new Map<string, MessagePlan>();

function messagePlan(name: string): MessagePlan {
  const hit = plans.get(name);
  if (hit) return hit;
  const type = typeModel().protoType(name);
  const shapes = goFieldShapes(name);
  const pairs: [protobuf.Field, GoFieldShape][] = [];
  const seen = new Set<string>();
  for (const s of shapes ?? []) {
    const f = type.fields[s.protoName];
    if (!f) throw new Error(`Go shape of ${name} names unknown field ${s.protoName}`);
    pairs.push([f, s]);
    seen.add(s.protoName);
  }
  for (const f of type.fieldsArray) {
    if (seen.has(f.name)) continue;
    pairs.push([f, { protoName: f.name, jsonName: f.name, pointer: true, always: false, inline: false, skipJson: false }]);
  }
  const fields = pairs.map(([f, s], index) => fieldPlan(name, f, s, index));
  const byId: (FieldPlan | undefined)[] = [];
  for (const f of fields) byId[f.id] = f;
  const plan: MessagePlan = { name, fields, encodeOrder: [...fields].sort((a, b) => a.id - b.id), byId };
  plans.set(name, plan);
  return plan;
}

function fieldPlan(owner: string, f: protobuf.Field, s: GoFieldShape, index: number): FieldPlan {
  const isMap = f instanceof protobuf.MapField;
  if (isMap && (f as protobuf.MapField).keyType !== 'string') throw new Error(`map key of ${f.fullName} is not a string`);
  let vk = SCALAR_KINDS[f.type];
  let messageName: string | undefined;
  if (vk === undefined) {
    f.resolve();
    if (!(f.resolvedType instanceof protobuf.Type)) throw new Error(`unsupported type ${f.type} of ${f.fullName}`);
    messageName = f.resolvedType.fullName.replace(/^\./, '');
    vk = SPECIAL_KINDS[messageName] ?? (SLICE_WRAPPERS.has(messageName) ? WRAPPER : MESSAGE);
  }
  return {
    id: f.id,
    key: s.jsonName,
    index,
    vk,
    messageName,
    repeated: f.repeated && !isMap,
    map: isMap,
    pointer: s.pointer,
    always: s.always,
    inline: s.inline,
    skipJson: s.skipJson,
    owner,
    sub: undefined,
  };
}

function subPlan(f: FieldPlan): MessagePlan {
  return (f.sub ??= messagePlan(f.messageName as string));
}

// ---------------------------------------------------------------------------------------------
// Resolving apiVersion/kind to a message.

const GROUP_PACKAGES: Record<string, string> = { 'internal.apiserver.k8s.io': 'apiserverinternal' };
const kindMessages = new Map<string, string | null>();

/**
 * The protobuf message of an apiVersion/kind, resolved as Kubernetes does: the kind's own group
 * version (`apps/v1` → `k8s.io.api.apps.v1`), else the meta kinds every group version serves
 * (Status, DeleteOptions, APIGroup, …, in `k8s.io.apimachinery.pkg.apis.meta`). Throws
 * {@link NotProtobufKind} when there is none.
 */
export function protobufMessageName(apiVersion: string, kind: string): string {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) throw new NotProtobufKind(apiVersion, kind);
  const cacheKey = `${apiVersion}\u0000${kind}`;
  let name = kindMessages.get(cacheKey);
  if (name === undefined) {
    name = null;
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const label = group === '' ? 'core' : (GROUP_PACKAGES[group] ?? group.split('.')[0]);
    const tm = typeModel();
    for (const candidate of [
      `k8s.io.api.${label}.${version}.${kind}`,
      `k8s.io.apimachinery.pkg.apis.meta.${version}.${kind}`,
      `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`,
    ]) {
      if (/^[A-Za-z0-9.]+$/.test(candidate) && tm.has(candidate) && !(candidate in SPECIAL_KINDS)) {
        name = candidate;
        break;
      }
    }
    kindMessages.set(cacheKey, name);
  }
  if (name === null) throw new NotProtobufKind(apiVersion, kind);
  return name;
}

// ---------------------------------------------------------------------------------------------
// Wire primitives.

const TWO_32 = 4294967296;

class Writer {
  buf: Buffer;
  pos = 0;

  constructor(size = 512) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A non-negative integer below 2^53. */
  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    while (v >= 0x80) {
      buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[this.pos++] = v;
  }

  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    while (hi !== 0 || lo >= 0x80) {
      buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[this.pos++] = lo;
  }

  int32(v: number): void {
    if (v >= 0) this.varint(v);
    else this.varint64(v >>> 0, 0xffffffff);
  }

  int64(v: number): void {
    if (v >= 0) this.varint(v);
    else {
      const hi = Math.floor(v / TWO_32);
      this.varint64((v - hi * TWO_32) >>> 0, hi >>> 0);
    }
  }

  int64Big(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    this.varint64(Number(u & 0xffffffffn), Number(u >> 32n));
  }

  tag(id: number, wireType: number): void {
    this.varint(id * 8 + wireType);
  }

  string(s: string): void {
    const n = s.length;
    this.ensure(n * 3 + 10);
    const buf = this.buf;
    if (n < 43) {
      const start = this.pos + 1;
      let p = start;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          p = start + buf.write(s, start, 'utf8');
          break;
        }
        buf[p++] = c;
      }
      buf[this.pos] = p - start;
      this.pos = p;
      return;
    }
    this.varint(Buffer.byteLength(s, 'utf8'));
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited value; returns the position to pass to {@link join}. */
  fork(): number {
    this.ensure(1);
    return this.pos++;
  }

  join(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let n = 1;
    for (let v = len; v >= 0x80; v = Math.floor(v / 0x80)) n++;
    this.ensure(n - 1);
    this.buf.copyWithin(at + n, at + 1, this.pos);
    this.pos += n - 1;
    const end = this.pos;
    this.pos = at;
    this.varint(len);
    this.pos = end;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

function truncated(): never {
  throw new ProtobufDecodeError('unexpected end of protobuf data');
}

class Reader {
  pos = 0;
  hi = 0;
  readonly buf: Buffer;
  readonly limit: number;

  constructor(buf: Buffer, limit = buf.length) {
    this.buf = buf;
    this.limit = limit;
  }

  /** Reads a varint; returns its low 32 bits (unsigned) and leaves the high 32 bits in `hi`. */
  varint(): number {
    const buf = this.buf;
    if (this.pos >= this.limit) truncated();
    let b = buf[this.pos++];
    if (b < 0x80) {
      this.hi = 0;
      return b;
    }
    let lo = b & 0x7f;
    for (let shift = 7; shift < 28; shift += 7) {
      if (this.pos >= this.limit) truncated();
      b = buf[this.pos++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.hi = 0;
        return lo >>> 0;
      }
    }
    if (this.pos >= this.limit) truncated();
    b = buf[this.pos++];
    lo |= (b & 0x0f) << 28;
    let hi = (b & 0x7f) >> 4;
    if (b >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (shift > 31) throw new ProtobufDecodeError('varint longer than 10 bytes');
        if (this.pos >= this.limit) truncated();
        b = buf[this.pos++];
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
    }
    this.hi = hi >>> 0;
    return lo >>> 0;
  }

  /** A length prefix; returns the end position of the value it announces, checked against `end`. */
  length(end: number): number {
    const len = this.varint();
    if (this.hi !== 0 || len > end - this.pos) truncated();
    return this.pos + len;
  }

  int64(): number {
    const lo = this.varint();
    return (this.hi | 0) * TWO_32 + lo;
  }

  int64Big(): bigint {
    const lo = this.varint();
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(lo));
  }

  string(end: number): string {
    const e = this.length(end);
    const s = utf8(this.buf, this.pos, e);
    this.pos = e;
    return s;
  }

  skip(wireType: number, end: number, fieldNo: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        if (end - this.pos < 8) truncated();
        this.pos += 8;
        return;
      case 2:
        this.pos = this.length(end);
        return;
      case 5:
        if (end - this.pos < 4) truncated();
        this.pos += 4;
        return;
      case 3:
        for (;;) {
          if (this.pos >= end) truncated();
          const tag = this.varint();
          if ((tag & 7) === 4) {
            if (tag >>> 3 !== fieldNo) throw new ProtobufDecodeError('mismatched end of group');
            return;
          }
          this.skip(tag & 7, end, tag >>> 3);
        }
      default:
        throw new ProtobufDecodeError(`invalid wire type ${wireType}`);
    }
  }
}

// NOTE: short ASCII strings (most keys and names) are decoded by hand: cheaper than a call into the runtime.
function utf8(buf: Buffer, start: number, end: number): string {
  if (end - start <= 24) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = buf[i];
      if (c >= 0x80) return (buf as any).utf8Slice(start, end);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return (buf as any).utf8Slice(start, end);
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

// ---------------------------------------------------------------------------------------------
// JSON → wire.

function describe(f: FieldPlan): string {
  return `${f.owner}.${f.key}`;
}

function mismatch(f: FieldPlan, want: string, v: unknown): never {
  throw new ProtobufEncodeError(`${describe(f)}: expected ${want}, got ${JSON.stringify(v)?.slice(0, 60) ?? typeof v}`);
}

function encodeFields(w: Writer, plan: MessagePlan, obj: any): void {
  if (obj != null && (typeof obj !== 'object' || Array.isArray(obj))) {
    throw new ProtobufEncodeError(`${plan.name}: expected an object, got ${JSON.stringify(obj)?.slice(0, 60)}`);
  }
  for (const f of plan.encodeOrder) {
    if (f.inline) {
      w.tag(f.id, 2);
      const at = w.fork();
      encodeFields(w, subPlan(f), obj);
      w.join(at);
      continue;
    }
    const v = obj == null || f.skipJson ? undefined : obj[f.key];
    if (f.map) {
      if (v != null) encodeMap(w, f, v);
    } else if (f.repeated) {
      if (v == null) continue;
      if (!Array.isArray(v)) mismatch(f, 'an array', v);
      for (let i = 0; i < v.length; i++) encodeValue(w, f.id, f, v[i], true);
    } else if (v != null || !f.pointer) {
      encodeValue(w, f.id, f, v, false);
    }
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function encodeMap(w: Writer, f: FieldPlan, v: any): void {
  if (typeof v !== 'object' || Array.isArray(v)) mismatch(f, 'an object', v);
  const keys = Object.keys(v);
  if (keys.length > 1) keys.sort(compareKeys);
  for (const k of keys) {
    w.tag(f.id, 2);
    const at = w.fork();
    w.tag(1, 2);
    w.string(k);
    const value = v[k];
    if (f.vk !== BYTES || value != null) encodeValue(w, 2, f, value, true);
    w.join(at);
  }
}

/** Writes one value of field `f` under field number `id`; `element` for repeated elements and map values. */
function encodeValue(w: Writer, id: number, f: FieldPlan, v: any, element: boolean): void {
  switch (f.vk) {
    case STRING:
      if (v == null) v = '';
      else if (typeof v !== 'string') mismatch(f, 'a string', v);
      w.tag(id, 2);
      w.string(v);
      return;
    case BOOL:
      if (v == null) v = false;
      else if (typeof v !== 'boolean') mismatch(f, 'a boolean', v);
      w.tag(id, 0);
      w.varint(v ? 1 : 0);
      return;
    case INT32:
      if (v == null) v = 0;
      else if (!Number.isInteger(v) || v > 0x7fffffff || v < -0x80000000) mismatch(f, 'a 32-bit integer', v);
      w.tag(id, 0);
      w.int32(v);
      return;
    case INT64:
      if (v == null) v = 0;
      else if (!Number.isInteger(v)) mismatch(f, 'an integer', v);
      w.tag(id, 0);
      w.int64(v);
      return;
    case BYTES:
      if (v == null && !element) return;
      if (v != null && typeof v !== 'string') mismatch(f, 'a base64 string', v);
      w.tag(id, 2);
      w.bytes(v == null ? EMPTY : Buffer.from(v, 'base64'));
      return;
    case WRAPPER:
      if (v == null && !element) return;
      if (v != null && !Array.isArray(v)) mismatch(f, 'an array', v);
      break;
    default:
      break;
  }
  w.tag(id, 2);
  const at = w.fork();
  encodeBody(w, f.vk, f, v);
  w.join(at);
}

const EMPTY = Buffer.alloc(0);

/** Writes the body of a message-typed value (without tag and length). */
function encodeBody(w: Writer, vk: number, f: FieldPlan, v: any): void {
  switch (vk) {
    case MESSAGE:
      encodeFields(w, subPlan(f), v);
      return;
    case WRAPPER:
      for (const item of v ?? []) {
        if (typeof item !== 'string') throw new ProtobufEncodeError(`${describe(f)}: expected strings, got ${JSON.stringify(item)}`);
        w.tag(1, 2);
        w.string(item);
      }
      return;
    case TIME:
    case MICROTIME: {
      if (v == null) return;
      if (typeof v !== 'string') throw new ProtobufEncodeError(`${describe(f)}: expected an RFC 3339 string, got ${JSON.stringify(v)}`);
      const t = parseRfc3339(v);
      if (!t) throw new ProtobufEncodeError(`${describe(f)}: ${JSON.stringify(v)} is not an RFC 3339 time`);
      if (t.seconds === GO_ZERO_TIME_SECONDS && t.nanos === 0) return;
      w.tag(1, 0);
      w.int64(t.seconds);
      w.tag(2, 0);
      w.int32(t.nanos);
      return;
    }
    case DURATION: {
      let ns = 0n;
      if (v != null) {
        const parsed = typeof v === 'string' ? parseGoDuration(v) : undefined;
        if (parsed === undefined) throw new ProtobufEncodeError(`${describe(f)}: ${JSON.stringify(v)} is not a duration`);
        ns = parsed;
      }
      w.tag(1, 0);
      w.int64Big(ns);
      return;
    }
    case QUANTITY: {
      let s = '0';
      if (typeof v === 'string') s = v;
      else if (typeof v === 'number') s = String(v);
      else if (v != null) throw new ProtobufEncodeError(`${describe(f)}: expected a quantity, got ${JSON.stringify(v)}`);
      w.tag(1, 2);
      w.string(s);
      return;
    }
    case INTORSTRING: {
      const isString = typeof v === 'string';
      if (v != null && !isString && !Number.isInteger(v)) {
        throw new ProtobufEncodeError(`${describe(f)}: expected an integer or a string, got ${JSON.stringify(v)}`);
      }
      w.tag(1, 0);
      w.varint(isString ? 1 : 0);
      w.tag(2, 0);
      w.int32(isString || v == null ? 0 : v);
      w.tag(3, 2);
      w.string(isString ? v : '');
      return;
    }
    case RAWEXTENSION:
    case FIELDSV1:
      if (v == null) return;
      w.tag(1, 2);
      w.bytes(Buffer.from(JSON.stringify(v), 'utf8'));
      return;
    default:
      throw new ProtobufEncodeError(`no message body for value kind ${vk}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Wire → JSON.

const WIRE_TYPES = [2, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2];

function decodeFields(r: Reader, end: number, plan: MessagePlan, out: Record<string, unknown>): Record<string, unknown> {
  const slots: unknown[] = [];
  const byId = plan.byId;
  while (r.pos < end) {
    const tag = r.varint();
    const fieldNo = tag >>> 3;
    const wt = tag & 7;
    const f = byId[fieldNo];
    if (f === undefined || fieldNo === 0) {
      if (fieldNo === 0) throw new ProtobufDecodeError(`${plan.name}: field number 0`);
      r.skip(wt, end, fieldNo);
      continue;
    }
    if (f.map) {
      if (wt !== 2) wrongWireType(f, wt);
      let m = slots[f.index] as Map<string, unknown> | undefined;
      if (m === undefined) slots[f.index] = m = new Map();
      decodeMapEntry(r, r.length(end), f, m);
    } else if (f.repeated) {
      let list = slots[f.index] as unknown[] | undefined;
      if (list === undefined) slots[f.index] = list = [];
      if (wt === 2 && WIRE_TYPES[f.vk] === 0) {
        const e = r.length(end);
        while (r.pos < e) list.push(decodeVarintValue(r, f.vk));
        if (r.pos !== e) truncated();
      } else {
        list.push(decodeValue(r, end, f, wt));
      }
    } else {
      slots[f.index] = decodeValue(r, end, f, wt);
    }
  }
  if (r.pos !== end) truncated();
  return buildJson(plan, slots, out);
}

function wrongWireType(f: FieldPlan, wt: number): never {
  throw new ProtobufDecodeError(`${describe(f)}: wrong wire type ${wt}`);
}

function decodeVarintValue(r: Reader, vk: number): unknown {
  switch (vk) {
    case BOOL: {
      const lo = r.varint();
      return (lo | r.hi) !== 0;
    }
    case INT32:
      return r.varint() | 0;
    default:
      return r.int64();
  }
}

function decodeValue(r: Reader, end: number, f: FieldPlan, wt: number): unknown {
  if (wt !== WIRE_TYPES[f.vk]) wrongWireType(f, wt);
  if (wt === 0) return decodeVarintValue(r, f.vk);
  const e = r.length(end);
  let v: unknown;
  if (f.vk === STRING) {
    v = utf8(r.buf, r.pos, e);
    r.pos = e;
  } else if (f.vk === BYTES) {
    v = r.buf.toString('base64', r.pos, e);
    r.pos = e;
  } else if (f.vk === MESSAGE) {
    v = decodeFields(r, e, subPlan(f), {});
  } else {
    v = decodeBody(r, e, f.vk);
  }
  if (r.pos !== e) truncated();
  return v;
}

function decodeMapEntry(r: Reader, end: number, f: FieldPlan, m: Map<string, unknown>): void {
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x0a) key = r.string(end);
    else if (tag >>> 3 === 2) value = decodeValue(r, end, f, tag & 7);
    else r.skip(tag & 7, end, tag >>> 3);
  }
  if (r.pos !== end) truncated();
  m.set(key, value === undefined ? zeroMapValue(f) : value);
}

function zeroMapValue(f: FieldPlan): unknown {
  switch (f.vk) {
    case STRING:
      return '';
    case BOOL:
      return false;
    case INT32:
    case INT64:
      return 0;
    case BYTES:
    case WRAPPER:
      return null;
    default:
      return zeroValue(f);
  }
}

/** Reads the body of a special message-typed value between `r.pos` and `end`. */
function decodeBody(r: Reader, end: number, vk: number): unknown {
  const start = r.pos;
  switch (vk) {
    case WRAPPER: {
      const items: string[] = [];
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x0a) items.push(r.string(end));
        else r.skip(tag & 7, end, tag >>> 3);
      }
      return items;
    }
    case TIME:
    case MICROTIME: {
      let seconds = 0;
      let nanos = 0;
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x08) seconds = r.int64();
        else if (tag === 0x10) nanos = r.varint() | 0;
        else r.skip(tag & 7, end, tag >>> 3);
      }
      if (r.pos === start) return null;
      if (nanos < 0 || nanos >= 1e9) {
        seconds += Math.floor(nanos / 1e9);
        nanos = ((nanos % 1e9) + 1e9) % 1e9;
      }
      return vk === TIME ? formatTime(seconds, nanos) : formatMicroTime(seconds, nanos);
    }
    case DURATION: {
      let ns = 0n;
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x08) ns = r.int64Big();
        else r.skip(tag & 7, end, tag >>> 3);
      }
      return formatGoDuration(ns);
    }
    case QUANTITY: {
      let s = '0';
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x0a) s = r.string(end);
        else r.skip(tag & 7, end, tag >>> 3);
      }
      return s;
    }
    case INTORSTRING: {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x08) type = r.int64();
        else if (tag === 0x10) intVal = r.varint() | 0;
        else if (tag === 0x1a) strVal = r.string(end);
        else r.skip(tag & 7, end, tag >>> 3);
      }
      return type === 1 ? strVal : intVal;
    }
    case RAWEXTENSION:
    case FIELDSV1: {
      let rawStart = -1;
      let rawEnd = -1;
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x0a) {
          rawEnd = r.length(end);
          rawStart = r.pos;
          r.pos = rawEnd;
        } else r.skip(tag & 7, end, tag >>> 3);
      }
      if (rawStart < 0 || rawStart === rawEnd) return null;
      return rawToJson(r.buf.subarray(rawStart, rawEnd));
    }
    default:
      throw new ProtobufDecodeError(`no message body for value kind ${vk}`);
  }
}

function hasPrefix(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x6b && b[1] === 0x38 && b[2] === 0x73 && b[3] === 0x00;
}

/** The JSON form of embedded raw bytes: a Protobuf-encoded object (watch events) or JSON text. */
function rawToJson(raw: Buffer): unknown {
  if (hasPrefix(raw)) return decodeEnvelope(raw);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ProtobufDecodeError('embedded raw object is neither JSON nor Kubernetes protobuf');
  }
}

function zeroValue(f: FieldPlan): unknown {
  switch (f.vk) {
    case STRING:
      return f.always ? '' : undefined;
    case BOOL:
      return f.always ? false : undefined;
    case INT32:
    case INT64:
      return f.always ? 0 : undefined;
    case BYTES:
    case WRAPPER:
      return f.always ? null : undefined;
    case MESSAGE:
      return buildJson(subPlan(f), [], {});
    case DURATION:
      return '0s';
    case QUANTITY:
      return '0';
    case INTORSTRING:
      return 0;
    default:
      return null;
  }
}

function isEmpty(vk: number, v: unknown): boolean {
  switch (vk) {
    case STRING:
    case BYTES:
      return v === '';
    case BOOL:
      return v === false;
    case INT32:
    case INT64:
      return v === 0;
    case WRAPPER:
      return (v as unknown[]).length === 0;
    default:
      return false;
  }
}

/** The JSON object Go writes for a struct whose decoded fields are in `slots`. */
function buildJson(plan: MessagePlan, slots: unknown[], out: Record<string, unknown>): Record<string, unknown> {
  for (const f of plan.fields) {
    if (f.skipJson) continue;
    const s = slots[f.index];
    if (f.inline) {
      const inner = (s ?? buildJson(subPlan(f), [], {})) as Record<string, unknown>;
      for (const k of Object.keys(inner)) out[k] = inner[k];
    } else if (f.map) {
      const m = s as Map<string, unknown> | undefined;
      if (m !== undefined && m.size > 0) out[f.key] = mapToObject(m);
      else if (f.always) out[f.key] = null;
    } else if (f.repeated) {
      if (s !== undefined && (s as unknown[]).length > 0) out[f.key] = s;
      else if (f.always) out[f.key] = null;
    } else if (s === undefined) {
      if (f.pointer) {
        if (f.always) out[f.key] = null;
      } else {
        const z = zeroValue(f);
        if (z !== undefined) out[f.key] = z;
      }
    } else if (f.pointer || f.always || !isEmpty(f.vk, s)) {
      out[f.key] = s;
    }
  }
  return out;
}

function mapToObject(m: Map<string, unknown>): Record<string, unknown> {
  const keys = [...m.keys()];
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
  if (!sorted) keys.sort(compareKeys);
  return Object.fromEntries(keys.map((k) => [k, m.get(k)]));
}

// ---------------------------------------------------------------------------------------------
// Envelope and public API.

function writeEnvelope(w: Writer, obj: Record<string, any>): void {
  const { apiVersion, kind } = obj;
  const plan = messagePlan(protobufMessageName(apiVersion, kind));
  w.raw(PROTOBUF_PREFIX);
  w.tag(1, 2);
  const tm = w.fork();
  w.tag(1, 2);
  w.string(apiVersion);
  w.tag(2, 2);
  w.string(kind);
  w.join(tm);
  w.tag(2, 2);
  const raw = w.fork();
  encodeFields(w, plan, obj);
  w.join(raw);
  w.tag(3, 2);
  w.varint(0);
  w.tag(4, 2);
  w.varint(0);
}

function checkObject(obj: unknown): asserts obj is Record<string, any> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new ProtobufEncodeError('expected an object with apiVersion and kind');
}

/**
 * The Protobuf wire form of an object (prefix + `Unknown` envelope + the kind's message), byte
 * for byte what the Go API server writes for the same object. Throws {@link NotProtobufKind}
 * when the object's apiVersion/kind has no message, {@link ProtobufEncodeError} when a field's
 * JSON value does not fit its Go type.
 */
export function encodeObject(obj: Record<string, any>): Buffer {
  checkObject(obj);
  const w = new Writer();
  writeEnvelope(w, obj);
  return w.finish();
}

function decodeEnvelope(b: Buffer): Record<string, unknown> {
  if (!hasPrefix(b)) {
    throw new ProtobufDecodeError(`not ${PROTOBUF_MEDIA_TYPE} data: it does not start with the bytes 6b 38 73 00`);
  }
  const r = new Reader(b);
  r.pos = 4;
  const end = b.length;
  let apiVersion = '';
  let kind = '';
  let rawStart = 0;
  let rawEnd = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x0a) {
      const e = r.length(end);
      while (r.pos < e) {
        const t = r.varint();
        if (t === 0x0a) apiVersion = r.string(e);
        else if (t === 0x12) kind = r.string(e);
        else r.skip(t & 7, e, t >>> 3);
      }
      if (r.pos !== e) truncated();
    } else if (tag === 0x12) {
      rawEnd = r.length(end);
      rawStart = r.pos;
      r.pos = rawEnd;
    } else {
      r.skip(tag & 7, end, tag >>> 3);
    }
  }
  if (r.pos !== end) truncated();
  let name: string;
  try {
    name = protobufMessageName(apiVersion, kind);
  } catch {
    throw new ProtobufDecodeError(`no protobuf message for kind ${JSON.stringify(kind)} in apiVersion ${JSON.stringify(apiVersion)}`);
  }
  const body = new Reader(b, rawEnd);
  body.pos = rawStart;
  return decodeFields(body, rawEnd, messagePlan(name), { kind, apiVersion });
}

function wrapDecode<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError(`malformed ${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}

/**
 * The JSON form (with apiVersion and kind from the envelope) of a Protobuf-encoded object,
 * exactly as Kubernetes writes that object in JSON. Throws only {@link ProtobufDecodeError}:
 * for a missing prefix, truncated or malformed bytes, or a kind with no protobuf message.
 */
export function decodeObject(buf: Buffer): Record<string, any> {
  if (!(buf instanceof Uint8Array)) throw new ProtobufDecodeError('protobuf body must be bytes');
  return wrapDecode('protobuf object', () => decodeEnvelope(asBuffer(buf)));
}

function bareField(messageName: string): FieldPlan {
  const vk = SPECIAL_KINDS[messageName] ?? (SLICE_WRAPPERS.has(messageName) ? WRAPPER : MESSAGE);
  return {
    id: 1,
    key: messageName,
    index: 0,
    vk,
    messageName,
    repeated: false,
    map: false,
    pointer: false,
    always: true,
    inline: false,
    skipJson: false,
    owner: messageName,
    sub: undefined,
  };
}

/**
 * The bytes of one message (no prefix, no envelope) for its JSON form, e.g.
 * `encodeMessage('k8s.io.api.core.v1.PodSpec', spec)`. Special types take their JSON value
 * (`encodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Time', '2024-01-01T00:00:00Z')`).
 */
export function encodeMessage(messageName: string, json: any): Uint8Array {
  if (!typeModel().has(messageName)) throw new ProtobufEncodeError(`unknown protobuf message ${messageName}`);
  const f = bareField(messageName);
  const w = new Writer();
  encodeBody(w, f.vk, f, json);
  return w.finish();
}

/** The JSON form of one message's bytes (no prefix, no envelope); throws only {@link ProtobufDecodeError}. */
export function decodeMessage(messageName: string, bytes: Uint8Array): any {
  if (!(bytes instanceof Uint8Array)) throw new ProtobufDecodeError('protobuf message must be bytes');
  if (!typeModel().has(messageName)) throw new ProtobufDecodeError(`unknown protobuf message ${messageName}`);
  return wrapDecode(messageName, () => {
    const b = asBuffer(bytes);
    const r = new Reader(b);
    const f = bareField(messageName);
    if (f.vk === MESSAGE) return decodeFields(r, b.length, subPlan(f), {});
    const v = decodeBody(r, b.length, f.vk);
    if (r.pos !== b.length) truncated();
    return v;
  });
}

/**
 * One frame of a Protobuf watch stream, as the Go API server writes it: a 4-byte big-endian
 * length, then a `meta.v1.WatchEvent` message (no prefix, no envelope: the stream serializer is
 * the raw one) whose `object.raw` is the object in the full wire form of {@link encodeObject}.
 * `type` is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (with a Status object).
 */
export function encodeWatchEventFrame(type: string, obj: Record<string, any>): Buffer {
  checkObject(obj);
  const w = new Writer();
  w.pos = 4;
  w.tag(1, 2);
  w.string(type);
  w.tag(2, 2);
  const object = w.fork();
  w.tag(1, 2);
  const raw = w.fork();
  writeEnvelope(w, obj);
  w.join(raw);
  w.join(object);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w.finish();
}

/** The events of a Protobuf watch stream (whole frames only); throws only {@link ProtobufDecodeError}. */
export function decodeWatchEventFrames(buf: Buffer): { type: string; object: any }[] {
  if (!(buf instanceof Uint8Array)) throw new ProtobufDecodeError('watch stream must be bytes');
  const b = asBuffer(buf);
  const events: { type: string; object: any }[] = [];
  let p = 0;
  while (p < b.length) {
    if (b.length - p < 4) throw new ProtobufDecodeError('truncated watch frame header');
    const len = b.readUInt32BE(p);
    p += 4;
    if (len > b.length - p) throw new ProtobufDecodeError(`truncated watch frame: ${len} bytes announced, ${b.length - p} present`);
    const ev = decodeMessage(WATCH_EVENT, b.subarray(p, p + len)) as { type: string; object: any };
    events.push({ type: ev.type, object: ev.object });
    p += len;
  }
  return events;
}
