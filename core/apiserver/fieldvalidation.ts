import type { FieldModel } from './typemodel.ts';
import { isStringListMessage, jsonFields } from './patchmeta.ts';

/**
 * Field validation of a decoded request body against the Kubernetes 1.27 type model, the way
 * the API server's JSON decoding (Go's encoding/json as patched by sigs.k8s.io/json) sees it:
 *
 * - a wrong type for a known field is a decode error (400 at every fieldValidation level) whose
 *   message mirrors Go's (`json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string`);
 * - unknown fields and duplicate fields are "strict" errors, reported by path in Kubernetes' form
 *   (`spec.containers[0].foo`), which fieldValidation turns into nothing, warnings or a 400.
 *
 * `null` is accepted for every field, as Go's decoder leaves the field at its zero value.
 */

/** One error at one field. `path` is in Kubernetes' strict-error form, e.g. `spec.containers[0].image`. */
export interface FieldError {
  path: string;
  message: string;
}

/** The outcome of {@link checkFields}. */
export interface FieldCheck {
  /** Decode errors; Kubernetes reports only the first (see {@link typeErrorMessage}). */
  typeErrors: FieldError[];
  /** Paths of fields the schema does not have, in document order; their values are not inspected. */
  unknownFields: string[];
  /** Paths of fields given more than once in the same object (only found when the raw JSON is given). */
  duplicateFields: string[];
  /** `unknown field "…"` / `duplicate field "…"` in document order, as Kubernetes lists them. */
  strictErrors: string[];
}

/** Options of {@link checkFields}. */
export interface CheckOptions {
  /** Delete unknown fields from `obj` in place (Kubernetes drops them at every level but Strict). */
  prune?: boolean;
  /**
   * A stored object `obj` was derived from (a patch's input) and that is known to check clean:
   * members of `obj` that are the very same objects (===) as the corresponding members of
   * `unchanged` are not walked again, since they can hold neither unknown fields nor type errors.
   */
  unchanged?: unknown;
  /** Arrays known to check clean wherever they appear (the server's own shared managedFields lists): not walked. */
  shared?: (array: readonly unknown[]) => boolean;
}

const K_STRING = 0;
const K_BOOL = 1;
const K_INT32 = 2;
const K_INT64 = 3;
const K_UINT32 = 4;
const K_UINT64 = 5;
const K_FLOAT = 6;
const K_BYTES = 7;
const K_TIME = 8;
const K_MICROTIME = 9;
const K_DURATION = 10;
const K_QUANTITY = 11;
const K_INTORSTRING = 12;
const K_ANY = 13;
const K_MESSAGE = 14;
const K_STRINGLIST = 15;

interface FieldPlan {
  readonly name: string;
  readonly k: number;
  readonly list: boolean;
  readonly map: boolean;
  readonly message?: string;
  /** Go type of the whole field, e.g. `[]v1.Container`. */
  readonly goType: string;
  /** Go type of one element (lists and maps) or of the field itself. */
  readonly goElem: string;
  plan?: MessagePlan;
}

interface MessagePlan {
  readonly name: string;
  /** The Go struct name, e.g. `Container`. */
  readonly goStruct: string;
  readonly goType: string;
  readonly fields: ReadonlyMap<string, FieldPlan>;
  /** The Go struct embeds TypeMeta, so `apiVersion` and `kind` are fields. */
  readonly typeMeta: boolean;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const TYPE_META_MESSAGES = new Set(['DeleteOptions', 'Status', 'ListOptions', 'GetOptions', 'CreateOptions', 'PatchOptions', 'UpdateOptions', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList', 'Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'].map((n) => META + n));

/**
 * Go types of string fields declared with a named type (`type PullPolicy string`), so messages
 * name them as Kubernetes does. Fields not listed are reported as plain `string`.
 */
const NAMED_STRINGS: Record<string, string> = {
  'core.v1.Container.imagePullPolicy': 'v1.PullPolicy',
  'core.v1.Container.terminationMessagePolicy': 'v1.TerminationMessagePolicy',
  'core.v1.EphemeralContainerCommon.imagePullPolicy': 'v1.PullPolicy',
  'core.v1.EphemeralContainerCommon.terminationMessagePolicy': 'v1.TerminationMessagePolicy',
  'core.v1.ContainerPort.protocol': 'v1.Protocol',
  'core.v1.ServicePort.protocol': 'v1.Protocol',
  'core.v1.EndpointPort.protocol': 'v1.Protocol',
  'core.v1.PodSpec.restartPolicy': 'v1.RestartPolicy',
  'core.v1.PodSpec.dnsPolicy': 'v1.DNSPolicy',
  'core.v1.PodStatus.phase': 'v1.PodPhase',
  'core.v1.PodStatus.qosClass': 'v1.PodQOSClass',
  'core.v1.PodCondition.type': 'v1.PodConditionType',
  'core.v1.PodCondition.status': 'v1.ConditionStatus',
  'core.v1.NodeCondition.type': 'v1.NodeConditionType',
  'core.v1.NodeCondition.status': 'v1.ConditionStatus',
  'core.v1.NodeAddress.type': 'v1.NodeAddressType',
  'core.v1.NodeStatus.phase': 'v1.NodePhase',
  'core.v1.NamespaceStatus.phase': 'v1.NamespacePhase',
  'core.v1.Taint.effect': 'v1.TaintEffect',
  'core.v1.Toleration.operator': 'v1.TolerationOperator',
  'core.v1.Toleration.effect': 'v1.TaintEffect',
  'core.v1.ServiceSpec.type': 'v1.ServiceType',
  'core.v1.ServiceSpec.sessionAffinity': 'v1.ServiceAffinity',
  'core.v1.NodeSelectorRequirement.operator': 'v1.NodeSelectorOperator',
  'core.v1.EmptyDirVolumeSource.medium': 'v1.StorageMedium',
  'core.v1.VolumeMount.mountPropagation': 'v1.MountPropagationMode',
  'core.v1.HTTPGetAction.scheme': 'v1.URIScheme',
  'core.v1.NamespaceSpec.finalizers': 'v1.FinalizerName',
  'core.v1.Capabilities.add': 'v1.Capability',
  'core.v1.Capabilities.drop': 'v1.Capability',
  'core.v1.PersistentVolumeClaimSpec.accessModes': 'v1.PersistentVolumeAccessMode',
  'apps.v1.DeploymentStrategy.type': 'v1.DeploymentStrategyType',
  'apps.v1.DeploymentCondition.type': 'v1.DeploymentConditionType',
  'apps.v1.DeploymentCondition.status': 'v1.ConditionStatus',
  'meta.v1.ObjectMeta.uid': 'types.UID',
  'meta.v1.OwnerReference.uid': 'types.UID',
  'meta.v1.ManagedFieldsEntry.operation': 'v1.ManagedFieldsOperationType',
  'meta.v1.LabelSelectorRequirement.operator': 'v1.LabelSelectorOperator',
};

function shortMessage(full: string): string {
  return full.replace(/^k8s\.io\.api\./, '').replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '');
}

function goPackageType(message: string): string {
  const parts = message.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

function goScalar(f: FieldModel, owner: string): string {
  const t = f.type;
  if (t.kind === 'special') {
    switch (t.special) {
      case 'time': return 'v1.Time';
      case 'microtime': return 'v1.MicroTime';
      case 'duration': return 'v1.Duration';
      case 'quantity': return 'resource.Quantity';
      case 'intorstring': return 'intstr.IntOrString';
      case 'rawextension': return 'runtime.RawExtension';
      case 'fieldsv1': return 'v1.FieldsV1';
    }
  }
  if (t.kind === 'message') return goPackageType(t.message);
  switch (t.scalar) {
    case 'string': return NAMED_STRINGS[`${shortMessage(owner)}.${f.name}`] ?? 'string';
    case 'double': return 'float64';
    case 'float': return 'float32';
    case 'bytes': return '[]uint8';
    default: return t.scalar;
  }
}

function kindCode(f: FieldModel): number {
  const t = f.type;
  if (t.kind === 'message') return isStringListMessage(t.message) ? K_STRINGLIST : K_MESSAGE;
  if (t.kind === 'special') {
    switch (t.special) {
      case 'time': return K_TIME;
      case 'microtime': return K_MICROTIME;
      case 'duration': return K_DURATION;
      case 'quantity': return K_QUANTITY;
      case 'intorstring': return K_INTORSTRING;
      default: return K_ANY;
    }
  }
  switch (t.scalar) {
    case 'string': return K_STRING;
    case 'bool': return K_BOOL;
    case 'int32': return K_INT32;
    case 'int64': return K_INT64;
    case 'uint32': return K_UINT32;
    case 'uint64': return K_UINT64;
    case 'bytes': return K_BYTES;
    default: return K_FLOAT;
  }
}

const plans = new Map<string, MessagePlan>();
const rootPlans = new Map<string, MessagePlan>();

function planFor(message: string, root = false): MessagePlan {
  if (root) {
    const inner = planFor(message);
    if (inner.typeMeta) return inner;
    const hit = rootPlans.get(message);
    if (hit) return hit;
    const plan = { ...inner, typeMeta: true };
    rootPlans.set(message, plan);
    return plan;
  }
  const hit = plans.get(message);
  if (hit) return hit;
  const fields = new Map<string, FieldPlan>();
  for (const [name, { field, owner }] of jsonFields(message)) {
    const elem = goScalar(field, owner);
    const list = field.repeated && !field.mapKey;
    const map = field.mapKey !== undefined;
    let goType = elem;
    if (list) goType = `[]${elem}`;
    else if (map) goType = field.type.kind === 'special' && field.type.special === 'quantity' ? 'v1.ResourceList' : `map[string]${elem}`;
    fields.set(name, {
      name,
      k: kindCode(field),
      list,
      map,
      message: field.type.kind === 'message' ? field.type.message : undefined,
      goType,
      goElem: elem,
    });
  }
  const typeMeta = TYPE_META_MESSAGES.has(message) || (fields.has('metadata') && !/(TemplateSpec|\.PersistentVolumeClaimTemplate)$/.test(message));
  const plan: MessagePlan = { name: message, goStruct: message.slice(message.lastIndexOf('.') + 1), goType: goPackageType(message), fields, typeMeta };
  plans.set(message, plan);
  return plan;
}

function childPlan(f: FieldPlan): MessagePlan {
  return (f.plan ??= planFor(f.message!));
}

/** The JSON kind word Go uses in `cannot unmarshal X into …`. */
function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SUFFIX = "unable to parse quantity's suffix";
const DECIMAL_SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Checks the syntax of a Kubernetes quantity (`resource.ParseQuantity`): an optionally signed
 * decimal number, then a suffix (binary `Ki`…`Ei`, decimal `n`…`E`, or an exponent `e3`/`E-2`).
 * Returns Kubernetes' error message, or undefined when valid.
 */
export function quantityError(s: string): string | undefined {
  const n = s.length;
  if (n === 0) return QUANTITY_FORMAT;
  let i = 0;
  if (s[0] === '+' || s[0] === '-') i++;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (i < n && s[i] === '.') {
    i++;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  }
  const suffixStart = i;
  while (i < n && 'eEinumkKMGTP'.includes(s[i])) i++;
  if (i < n && (s[i] === '+' || s[i] === '-')) i++;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (i < n) return QUANTITY_FORMAT;
  const suffix = s.slice(suffixStart);
  if (DECIMAL_SUFFIXES.has(suffix)) return undefined;
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) return undefined;
  return QUANTITY_SUFFIX;
}

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of two ASCII digits at `i`, or -1. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

// NOTE: a fast path for the UTC forms servers and clients write (`2006-01-02T15:04:05Z`, and with
// exactly six fractional digits for MicroTime), read without a regular expression or any
// allocation; anything else takes the full parser.
function canonicalTimeValid(value: string, micro: boolean): boolean {
  if (value.length !== (micro ? 27 : 20) || value.charCodeAt(value.length - 1) !== 90 /* Z */) return false;
  if (value[4] !== '-' || value[7] !== '-' || value[10] !== 'T' || value[13] !== ':' || value[16] !== ':') return false;
  if (micro) {
    if (value[19] !== '.') return false;
    for (let i = 20; i < 26; i++) {
      const c = value.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
  }
  const hi = twoDigits(value, 0);
  const lo = twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  const hour = twoDigits(value, 11);
  const minute = twoDigits(value, 14);
  const second = twoDigits(value, 17);
  if (hi < 0 || lo < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return false;
  const year = hi * 100 + lo;
  if (month < 1 || month > 12 || hour >= 24 || minute >= 60 || second >= 60) return false;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day >= 1 && day <= DAYS_IN_MONTH[month - 1] + (leap ? 1 : 0);
}

/**
 * Checks a timestamp the way Go's `time.Parse` does with Kubernetes' layouts (RFC 3339 for
 * `Time`, RFC 3339 with exactly six fractional digits for `MicroTime`). Returns Go's error
 * message, or undefined when valid.
 */
export function timeError(value: string, micro = false): string | undefined {
  if (canonicalTimeValid(value, micro)) return undefined;
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const q = JSON.stringify;
  let rest = value;
  const cannot = (elem: string) => `parsing time ${q(value)} as ${q(layout)}: cannot parse ${q(rest)} as ${q(elem)}`;
  const range = (what: string) => `parsing time ${q(value)}: ${what} out of range`;
  const num = (fixed: boolean): number | undefined => {
    if (rest.length === 0 || !isDigit(rest.charCodeAt(0))) return undefined;
    if (rest.length < 2 || !isDigit(rest.charCodeAt(1))) {
      if (fixed) return undefined;
      const v = rest.charCodeAt(0) - 48;
      rest = rest.slice(1);
      return v;
    }
    const v = (rest.charCodeAt(0) - 48) * 10 + rest.charCodeAt(1) - 48;
    rest = rest.slice(2);
    return v;
  };
  const lit = (s: string): boolean => {
    if (!rest.startsWith(s)) return false;
    rest = rest.slice(s.length);
    return true;
  };
  if (rest.length < 4 || !/^[0-9]{4}/.test(rest)) return cannot('2006');
  const year = Number(rest.slice(0, 4));
  rest = rest.slice(4);
  if (!lit('-')) return cannot('-');
  const month = num(true);
  if (month === undefined) return cannot('01');
  if (month < 1 || month > 12) return range('month');
  if (!lit('-')) return cannot('-');
  const day = num(true);
  if (day === undefined) return cannot('02');
  if (!lit('T')) return cannot('T');
  const hour = num(false);
  if (hour === undefined) return cannot('15');
  if (hour >= 24) return range('hour');
  if (!lit(':')) return cannot(':');
  const minute = num(true);
  if (minute === undefined) return cannot('04');
  if (minute >= 60) return range('minute');
  if (!lit(':')) return cannot(':');
  const second = num(true);
  if (second === undefined) return cannot('05');
  if (second >= 60) return range('second');
  if (micro) {
    if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || !/^[0-9]{6}/.test(rest.slice(1))) return cannot('.000000');
    rest = rest.slice(7);
  } else if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest.charCodeAt(1))) {
    let j = 1;
    while (j < rest.length && isDigit(rest.charCodeAt(j))) j++;
    rest = rest.slice(j);
  }
  if (rest[0] === 'Z') rest = rest.slice(1);
  else if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-') || !/^[0-9]{2}:[0-9]{2}/.test(rest.slice(1))) return cannot('Z07:00');
  else rest = rest.slice(6);
  if (rest.length > 0) return `parsing time ${q(value)}: extra text: ${q(rest)}`;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day < 1 || day > DAYS_IN_MONTH[month - 1] + (leap ? 1 : 0)) return range('day');
  return undefined;
}

const DURATION = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$/;

function durationError(s: string): string | undefined {
  if (s === '0' || s === '+0' || s === '-0' || DURATION.test(s)) return undefined;
  return `time: invalid duration ${JSON.stringify(s)}`;
}

function base64Char(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isDigit(c) || c === 43 || c === 47;
}

/**
 * Checks standard padded base64 as Go's `base64.StdEncoding` decodes it (CR and LF ignored).
 * Returns `illegal base64 data at input byte N`, or undefined when valid.
 */
export function base64Error(s: string): string | undefined {
  const bad = (at: number) => `illegal base64 data at input byte ${at}`;
  const n = s.length;
  let j = 0;
  let quantumStart = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    if (j === 0) quantumStart = i;
    if (base64Char(c)) {
      j = (j + 1) & 3;
      continue;
    }
    if (c !== 61 || j < 2) return bad(i);
    let k = i + 1;
    if (j === 2) {
      while (k < n && (s.charCodeAt(k) === 10 || s.charCodeAt(k) === 13)) k++;
      if (k === n) return bad(n);
      if (s.charCodeAt(k) !== 61) return bad(k - 1);
      k++;
    }
    while (k < n && (s.charCodeAt(k) === 10 || s.charCodeAt(k) === 13)) k++;
    return k < n ? bad(k) : undefined;
  }
  return j === 0 ? undefined : bad(quantumStart);
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_LIMIT = 9223372036854775808;
const UINT32_MAX = 4294967295;
const UINT64_LIMIT = 18446744073709551616;

function intInRange(k: number, v: number): boolean {
  if (!Number.isInteger(v)) return false;
  switch (k) {
    case K_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    // NOTE: 2^63 - 1 and 2^64 - 1 parse to the doubles 2^63 and 2^64; exact limits are checked on the raw literal.
    case K_INT64: return v >= -INT64_LIMIT && v <= INT64_LIMIT;
    case K_UINT32: return v >= 0 && v <= UINT32_MAX;
    default: return v >= 0 && v <= UINT64_LIMIT;
  }
}

const PATH_KEY = 0;
const PATH_INDEX = 1;
const PATH_MAPKEY = 2;

/** One traversal; paths are kept as segments and only joined into strings for errors. */
class Walk {
  readonly typeErrors: FieldError[] = [];
  readonly unknownFields: string[] = [];
  private readonly segs: (string | number)[] = [];
  private readonly segKinds: number[] = [];
  /** The Go struct whose field is being decoded (for `Go struct field S.path`). */
  private struct = '';
  literals?: ReadonlyMap<string, string>;

  constructor(
    private readonly prune: boolean,
    private readonly shared?: (array: readonly unknown[]) => boolean,
  ) {}

  strictPath(extraKey?: string): string {
    let s = '';
    for (let i = 0; i < this.segs.length; i++) {
      const seg = this.segs[i];
      if (this.segKinds[i] === PATH_INDEX) s += `[${seg}]`;
      else s += s === '' ? seg : `.${seg}`;
    }
    if (extraKey !== undefined) s += s === '' ? extraKey : `.${extraKey}`;
    return s;
  }

  private goField(): string {
    let s = '';
    for (let i = 0; i < this.segs.length; i++) {
      if (this.segKinds[i] !== PATH_KEY) continue;
      s += s === '' ? this.segs[i] : `.${this.segs[i]}`;
    }
    return s;
  }

  /** A Go `UnmarshalTypeError`: `value` is `string`, `number`, `number 1.5`, `bool`, `array` or `object`. */
  typeError(value: string, goType: string): void {
    const field = this.goField();
    const message = field === ''
      ? `json: cannot unmarshal ${value} into Go value of type ${goType}`
      : `json: cannot unmarshal ${value} into Go struct field ${this.struct}.${field} of type ${goType}`;
    this.typeErrors.push({ path: this.strictPath(), message });
  }

  private otherError(message: string): void {
    this.typeErrors.push({ path: this.strictPath(), message });
  }

  private numberText(v: number): string {
    return this.literals?.get(this.strictPath()) ?? String(v);
  }

  message(plan: MessagePlan, obj: Record<string, unknown>, old?: Record<string, unknown>): void {
    const outer = this.struct;
    for (const key in obj) {
      const v = obj[key];
      // NOTE: an object member identical to the stored one was checked when it was stored.
      if (old !== undefined && typeof v === 'object' && v !== null && old[key] === v) continue;
      const f = plan.fields.get(key);
      if (f === undefined) {
        if (plan.typeMeta && (key === 'apiVersion' || key === 'kind')) {
          if (v !== null && typeof v !== 'string') {
            this.struct = plan.goStruct;
            this.push(key, PATH_KEY);
            this.typeError(jsonKind(v), 'string');
            this.pop();
          }
          continue;
        }
        this.unknownFields.push(this.strictPath(key));
        if (this.prune) delete obj[key];
        continue;
      }
      if (v === null) continue;
      this.struct = plan.goStruct;
      this.push(key, PATH_KEY);
      this.field(f, v, old?.[key]);
      this.pop();
    }
    this.struct = outer;
  }

  private push(seg: string | number, kind: number): void {
    this.segs.push(seg);
    this.segKinds.push(kind);
  }

  private pop(): void {
    this.segs.pop();
    this.segKinds.pop();
  }

  private field(f: FieldPlan, v: unknown, old: unknown): void {
    if (f.list) {
      if (!Array.isArray(v)) return this.typeError(jsonKind(v), f.goType);
      if (this.shared !== undefined && this.shared(v)) return;
      const olds = Array.isArray(old) ? old : undefined;
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (e === null || (olds !== undefined && typeof e === 'object' && olds[i] === e)) continue;
        this.push(i, PATH_INDEX);
        this.value(f, e, f.goElem, olds?.[i]);
        this.pop();
      }
      return;
    }
    if (f.map) {
      if (typeof v !== 'object' || Array.isArray(v)) return this.typeError(jsonKind(v), f.goType);
      const m = v as Record<string, unknown>;
      const oldm = isRecord(old) ? old : undefined;
      for (const key in m) {
        const e = m[key];
        if (e === null || (oldm !== undefined && typeof e === 'object' && oldm[key] === e)) continue;
        this.push(key, PATH_MAPKEY);
        this.value(f, e, f.goElem, oldm?.[key]);
        this.pop();
      }
      return;
    }
    this.value(f, v, f.goType, old);
  }

  private value(f: FieldPlan, v: unknown, goType: string, old?: unknown): void {
    switch (f.k) {
      case K_STRING:
        if (typeof v !== 'string') this.typeError(jsonKind(v), goType);
        return;
      case K_BOOL:
        if (typeof v !== 'boolean') this.typeError(jsonKind(v), goType);
        return;
      case K_INT32:
      case K_INT64:
      case K_UINT32:
      case K_UINT64:
        if (typeof v !== 'number') this.typeError(jsonKind(v), goType);
        else if (!intInRange(f.k, v)) this.typeError(`number ${this.numberText(v)}`, goType);
        return;
      case K_FLOAT:
        if (typeof v !== 'number') this.typeError(jsonKind(v), goType);
        return;
      case K_BYTES:
        if (typeof v === 'string') {
          const err = base64Error(v);
          if (err) this.otherError(err);
        } else if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            const b = v[i];
            if (b === null) continue;
            this.push(i, PATH_INDEX);
            if (typeof b !== 'number') this.typeError(jsonKind(b), 'uint8');
            else if (!Number.isInteger(b) || b < 0 || b > 255) this.typeError(`number ${this.numberText(b)}`, 'uint8');
            this.pop();
          }
        } else this.typeError(jsonKind(v), goType);
        return;
      case K_TIME:
      case K_MICROTIME:
      case K_DURATION: {
        if (typeof v !== 'string') return this.typeError(jsonKind(v), 'string');
        const err = f.k === K_DURATION ? durationError(v) : timeError(v, f.k === K_MICROTIME);
        if (err) this.otherError(err);
        return;
      }
      case K_QUANTITY:
        if (typeof v === 'string') {
          const err = quantityError(v.trim());
          if (err) this.otherError(err);
        } else if (typeof v !== 'number') this.otherError(QUANTITY_FORMAT);
        return;
      case K_INTORSTRING:
        if (typeof v === 'number') {
          if (!intInRange(K_INT32, v)) this.typeError(`number ${this.numberText(v)}`, 'int32');
        } else if (typeof v !== 'string') this.typeError(jsonKind(v), 'int32');
        return;
      case K_ANY:
        return;
      case K_STRINGLIST:
        if (!Array.isArray(v)) return this.typeError(jsonKind(v), goType);
        for (let i = 0; i < v.length; i++) {
          const e = v[i];
          if (e === null || typeof e === 'string') continue;
          this.push(i, PATH_INDEX);
          this.typeError(jsonKind(e), 'string');
          this.pop();
        }
        return;
      default:
        if (typeof v !== 'object' || Array.isArray(v)) return this.typeError(jsonKind(v), goType);
        this.message(childPlan(f), v as Record<string, unknown>, isRecord(old) ? old : undefined);
    }
  }
}

/** What a path in a body leads to, per the schema. */
type Resolved =
  | { at: 'message'; plan: MessagePlan }
  | { at: 'map'; field: FieldPlan }
  | { at: 'value'; field: FieldPlan }
  | { at: 'typemeta' }
  | { at: 'opaque' };

function resolvePath(root: MessagePlan, segs: readonly (string | number)[]): Resolved {
  let cur: Resolved = { at: 'message', plan: root };
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    if (cur.at === 'message') {
      if (typeof seg !== 'string') return { at: 'opaque' };
      const f = cur.plan.fields.get(seg);
      if (!f) return cur.plan.typeMeta && (seg === 'apiVersion' || seg === 'kind') ? { at: 'typemeta' } : { at: 'opaque' };
      if (f.list) {
        const next = segs[i + 1];
        if (next === undefined) return { at: 'value', field: f };
        if (typeof next !== 'number') return { at: 'opaque' };
        i++;
      } else if (f.map) {
        const next = segs[i + 1];
        if (next === undefined) return { at: 'map', field: f };
        if (typeof next !== 'string') return { at: 'opaque' };
        i++;
      }
      cur = f.k === K_MESSAGE ? { at: 'message', plan: childPlan(f) } : { at: 'value', field: f };
    } else if (cur.at === 'value' && cur.field.k === K_STRINGLIST && typeof seg === 'number') {
      const list: FieldPlan = cur.field;
      cur = { at: 'value', field: { ...list, k: K_STRING } };
    } else {
      return { at: 'opaque' };
    }
  }
  return cur;
}

interface RawScan {
  /** Duplicate keys: the path of the object and the key. */
  duplicates: { parent: (string | number)[]; key: string }[];
  /** Number literals that JSON.parse may have changed (fractions, exponents, long digits), by strict path. */
  literals: Map<string, string>;
  literalPaths: Map<string, (string | number)[]>;
}

function joinStrict(segs: readonly (string | number)[]): string {
  let s = '';
  for (const seg of segs) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else s += s === '' ? seg : `.${seg}`;
  }
  return s;
}

/**
 * Scans raw JSON text (already known to be valid, since JSON.parse accepted it) for duplicate
 * object keys and unusual number literals. Calls `onKey` for every key occurrence when given.
 */
function scanRaw(text: string, onKey?: (parent: (string | number)[], key: string, repeated: boolean) => void): RawScan {
  const out: RawScan = { duplicates: [], literals: new Map(), literalPaths: new Map() };
  const segs: (string | number)[] = [];
  const isObj: boolean[] = [];
  const seen: (Set<string> | undefined)[] = [];
  let expectKey = false;
  const n = text.length;
  let i = 0;
  const readString = (): string => {
    const start = i + 1;
    let j = start;
    let escaped = false;
    for (;;) {
      j = text.indexOf('"', j);
      if (j < 0) throw new Error('unterminated string');
      let b = j - 1;
      while (b >= start && text.charCodeAt(b) === 92) b--;
      if ((j - 1 - b) % 2 === 0) break;
      escaped = true;
      j++;
    }
    i = j + 1;
    const raw = text.slice(start, j);
    return escaped || raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9 || c === 58) {
      i++;
      continue;
    }
    const d = isObj.length - 1;
    if (c === 123 || c === 91) {
      isObj.push(c === 123);
      seen.push(undefined);
      if (c === 91) segs.push(0);
      else segs.push('');
      expectKey = c === 123;
      i++;
      continue;
    }
    if (c === 125 || c === 93) {
      isObj.pop();
      seen.pop();
      segs.pop();
      expectKey = false;
      i++;
      continue;
    }
    if (c === 44) {
      if (isObj[d]) expectKey = true;
      else (segs[d] as number)++;
      i++;
      continue;
    }
    if (c === 34) {
      const s = readString();
      if (expectKey && isObj[d]) {
        expectKey = false;
        let set = seen[d];
        if (!set) set = seen[d] = new Set();
        const repeated = set.has(s);
        if (repeated) out.duplicates.push({ parent: segs.slice(0, d), key: s });
        else set.add(s);
        segs[d] = s;
        onKey?.(segs.slice(0, d), s, repeated);
      }
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const e = text.charCodeAt(j);
      if (e === 44 || e === 125 || e === 93 || e === 32 || e === 10 || e === 13 || e === 9) break;
      j++;
    }
    if (c === 45 || isDigit(c)) {
      const lit = text.slice(i, j);
      if (lit.length > 15 || /[.eE]/.test(lit)) {
        const path = segs.slice();
        const key = joinStrict(path);
        out.literals.set(key, lit);
        out.literalPaths.set(key, path);
      }
    }
    i = j;
  }
  return out;
}

function isPlainInteger(lit: string): boolean {
  return /^-?[0-9]+$/.test(lit);
}

function literalInRange(k: number, lit: string): boolean {
  const v = BigInt(lit);
  switch (k) {
    case K_INT32: return v >= -2147483648n && v <= 2147483647n;
    case K_INT64: return v >= -9223372036854775808n && v <= 9223372036854775807n;
    case K_UINT32: return v >= 0n && v <= 4294967295n;
    default: return v >= 0n && v <= 18446744073709551615n;
  }
}

const INTEGER_KINDS = new Set([K_INT32, K_INT64, K_UINT32, K_UINT64, K_INTORSTRING]);

/** A number token in value position with a fraction, an exponent or more than 15 digits. */
const UNUSUAL_NUMBER = /[:,[]\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*[,}\]]/g;
const KEY_END = /"\s*:/g;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyCount(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) n += keyCount(x);
    return n;
  }
  for (const k in v) n += 1 + keyCount((v as Record<string, unknown>)[k]);
  return n;
}

/**
 * True when `text` (which `obj` was parsed from) certainly has neither a repeated key nor an
 * unusual number literal, so the raw scan can be skipped: every key ends in `"` + `:`, so the
 * number of such sequences equals the number of keys of `obj` only when no key repeats (and no
 * string happens to contain one); number tokens are checked by a pattern that matches a
 * superset of them. A false answer only means "scan to be sure".
 */
function plainJson(text: string, obj: unknown): boolean {
  UNUSUAL_NUMBER.lastIndex = 0;
  for (let m = UNUSUAL_NUMBER.exec(text); m; m = UNUSUAL_NUMBER.exec(text)) {
    const lit = m[0];
    if (/[.eE]/.test(lit) || (lit.match(/\d/g)?.length ?? 0) > 15) return false;
    // NOTE: the delimiter that ended this token may start the next one.
    UNUSUAL_NUMBER.lastIndex = m.index + lit.length - 1;
  }
  let keys = 0;
  KEY_END.lastIndex = 0;
  for (let m = KEY_END.exec(text); m; m = KEY_END.exec(text)) {
    // An escaped quote (odd run of backslashes before it) is inside a string, not the end of a key.
    let b = m.index - 1;
    while (b >= 0 && text.charCodeAt(b) === 92) b--;
    if ((m.index - 1 - b) % 2 === 0) keys++;
  }
  return keys === keyCount(obj);
}

/**
 * Validates `obj` (a decoded body of the message `messageName`, e.g. `k8s.io.api.core.v1.Pod`)
 * against the type model. Guarantees: every field absent from the schema is listed in
 * `unknownFields` (its value is not inspected); every known field whose JSON type Kubernetes'
 * decoder would reject yields a `typeErrors` entry with Go's message; with `rawJson` (the exact
 * text `obj` was parsed from), keys repeated within one object are listed in `duplicateFields`
 * (except unknown ones, which Kubernetes reports only as unknown) and integer fields written as
 * `1.0` or beyond their range are type errors as in Go. Plans are compiled once per message.
 */
export function checkFields(messageName: string, obj: unknown, rawJson?: string, opts: CheckOptions = {}): FieldCheck {
  const root = planFor(messageName, true);
  const walk = new Walk(opts.prune ?? false, opts.shared);
  let scan: RawScan | undefined;
  if (rawJson !== undefined && !plainJson(rawJson, obj)) {
    try {
      scan = scanRaw(rawJson);
    } catch {
      scan = undefined;
    }
    if (scan && scan.literals.size > 0) walk.literals = scan.literals;
  }
  if (obj !== null && obj !== undefined) {
    if (typeof obj !== 'object' || Array.isArray(obj)) walk.typeError(jsonKind(obj), root.goType);
    else walk.message(root, obj as Record<string, unknown>, isRecord(opts.unchanged) ? opts.unchanged : undefined);
  }
  const duplicateFields: string[] = [];
  if (scan) {
    for (const [path, lit] of scan.literals) {
      const r = resolvePath(root, scan.literalPaths.get(path)!);
      if (r.at !== 'value' || !INTEGER_KINDS.has(r.field.k)) continue;
      if (walk.typeErrors.some((e) => e.path === path)) continue;
      const k = r.field.k === K_INTORSTRING ? K_INT32 : r.field.k;
      if (isPlainInteger(lit) && literalInRange(k, lit)) continue;
      const goType = r.field.k === K_INTORSTRING ? 'int32' : r.field.goElem;
      const field = path.replace(/\[\d+\]/g, '');
      const struct = structAt(root, scan.literalPaths.get(path)!);
      walk.typeErrors.push({ path, message: `json: cannot unmarshal number ${lit} into Go struct field ${struct}.${field} of type ${goType}` });
    }
    for (const { parent, key } of scan.duplicates) {
      const r = resolvePath(root, parent);
      if (r.at === 'message') {
        if (!r.plan.fields.has(key) && !(r.plan.typeMeta && (key === 'apiVersion' || key === 'kind'))) continue;
      } else if (r.at !== 'map') continue;
      duplicateFields.push(joinStrict([...parent, key]));
    }
  }
  const strictErrors = orderStrictErrors(walk.unknownFields, duplicateFields, rawJson);
  return { typeErrors: walk.typeErrors, unknownFields: walk.unknownFields, duplicateFields, strictErrors };
}

function structAt(root: MessagePlan, segs: readonly (string | number)[]): string {
  let parent = segs.length - 1;
  while (parent > 0 && typeof segs[parent] !== 'string') parent--;
  const r = resolvePath(root, segs.slice(0, parent));
  if (r.at === 'message') return r.plan.goStruct;
  const m = resolvePath(root, segs.slice(0, parent - 1));
  return m.at === 'message' ? m.plan.goStruct : root.goStruct;
}

function orderStrictErrors(unknown: string[], duplicates: string[], rawJson: string | undefined): string[] {
  if (unknown.length === 0 && duplicates.length === 0) return [];
  const u = [...new Set(unknown)];
  if (duplicates.length === 0 || u.length === 0 || rawJson === undefined) {
    return [...u.map((p) => `unknown field ${JSON.stringify(p)}`), ...duplicates.map((p) => `duplicate field ${JSON.stringify(p)}`)];
  }
  const unknownSet = new Set(u);
  const pendingDup = new Map<string, number>();
  for (const d of duplicates) pendingDup.set(d, (pendingDup.get(d) ?? 0) + 1);
  const out: string[] = [];
  scanRaw(rawJson, (parent, key, repeated) => {
    const path = joinStrict([...parent, key]);
    if (!repeated && unknownSet.has(path)) {
      unknownSet.delete(path);
      out.push(`unknown field ${JSON.stringify(path)}`);
    } else if (repeated && (pendingDup.get(path) ?? 0) > 0) {
      pendingDup.set(path, pendingDup.get(path)! - 1);
      out.push(`duplicate field ${JSON.stringify(path)}`);
    }
  });
  for (const p of unknownSet) out.push(`unknown field ${JSON.stringify(p)}`);
  return out;
}

/**
 * The message of Kubernetes' strict decoding error (the 400 of fieldValidation=Strict), e.g.
 * `strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"`. Given a
 * {@link FieldCheck}, lists its errors in document order as Kubernetes does; given two path
 * lists, lists the unknown fields first.
 */
export function strictDecodingMessage(unknown: readonly string[] | FieldCheck, duplicates: readonly string[] = []): string {
  const items = Array.isArray(unknown)
    ? [...unknown.map((p) => `unknown field ${JSON.stringify(p)}`), ...duplicates.map((p) => `duplicate field ${JSON.stringify(p)}`)]
    : (unknown as FieldCheck).strictErrors;
  return `strict decoding error: ${items.join(', ')}`;
}

/**
 * The value of one `Warning` response header for an unknown (or duplicate) field at
 * fieldValidation=Warn: `299 - "unknown field \"spec.foo\""`. The text is quoted as Go's `%q`
 * does, with non-ASCII characters escaped so the header stays valid.
 */
export function warningFor(field: string, reason: 'unknown' | 'duplicate' = 'unknown'): string {
  return `299 - ${quoteGo(`${reason} field ${JSON.stringify(field)}`)}`;
}

function quoteGo(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c === 10) out += '\\n';
    else if (c === 9) out += '\\t';
    else if (c === 13) out += '\\r';
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\U${c.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/**
 * Kubernetes 1.27's message for a body it cannot decode (the 400 BadRequest), e.g.
 * `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string`.
 */
export function typeErrorMessage(kind: string, version: string, err: FieldError | string): string {
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${typeof err === 'string' ? err : err.message}`;
}
