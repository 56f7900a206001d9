import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

/**
 * The Kubernetes 1.27 type model, read from the release's protobuf descriptors
 * (`k8s-api/kubernetes-v1.27.proto.json`, copied from shared/k8s-api). One source for the
 * protobuf codec, field validation and the OpenAPI documents, so they cannot disagree.
 */

/** Types whose JSON form differs from their protobuf message. */
export type SpecialType = 'time' | 'microtime' | 'duration' | 'quantity' | 'intorstring' | 'rawextension' | 'fieldsv1';

/** The type of one field's value (of one element, for repeated and map fields). */
export type ValueType =
  | { kind: 'scalar'; scalar: 'string' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'double' | 'float' | 'bytes' }
  | { kind: 'special'; special: SpecialType }
  | { kind: 'message'; message: string };

/** One field of a message. */
export interface FieldModel {
  /** The JSON name (Kubernetes' protobuf field names are the JSON names). */
  readonly name: string;
  readonly id: number;
  readonly repeated: boolean;
  /** For map fields, the key type (always string in Kubernetes). */
  readonly mapKey?: string;
  readonly type: ValueType;
}

/** One message (kind or nested struct). */
export interface MessageModel {
  /** Fully qualified name without a leading dot, e.g. `k8s.io.api.core.v1.Pod`. */
  readonly fullName: string;
  readonly fields: readonly FieldModel[];
  readonly byName: ReadonlyMap<string, FieldModel>;
}

const SPECIAL: Record<string, SpecialType> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'microtime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'duration',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawextension',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'fieldsv1',
};

const SCALARS = new Set(['string', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float', 'bytes', 'sint32', 'sint64', 'fixed32', 'fixed64']);

/** Where the descriptor files live. */
export const K8S_API_DIR = new URL('./k8s-api/', import.meta.url);

/** The loaded model: the protobufjs Root plus a JSON-oriented view of each message. */
export class TypeModel {
  readonly root: protobuf.Root;
  private readonly cache = new Map<string, MessageModel>();

  constructor(root: protobuf.Root) {
    this.root = root;
  }

  /** The message with this fully qualified name; throws if the release has none. */
  message(fullName: string): MessageModel {
    const hit = this.cache.get(fullName);
    if (hit) return hit;
    const type = this.root.lookupType(fullName);
    const fields: FieldModel[] = type.fieldsArray.map((f) => {
      const mapKey = f instanceof protobuf.MapField ? f.keyType : undefined;
      return { name: f.name, id: f.id, repeated: f.repeated, mapKey, type: this.valueType(f) };
    });
    const m: MessageModel = { fullName, fields, byName: new Map(fields.map((f) => [f.name, f])) };
    this.cache.set(fullName, m);
    return m;
  }

  /** The protobufjs Type for a message. */
  protoType(fullName: string): protobuf.Type {
    return this.root.lookupType(fullName);
  }

  /** True if the release defines this message. */
  has(fullName: string): boolean {
    try {
      this.root.lookupType(fullName);
      return true;
    } catch {
      return false;
    }
  }

  private valueType(f: protobuf.Field): ValueType {
    if (SCALARS.has(f.type)) {
      const s = f.type.replace(/^s(int)/, '$1').replace(/^fixed/, 'uint') as 'int32';
      return { kind: 'scalar', scalar: s };
    }
    f.resolve();
    const rt = f.resolvedType;
    if (!rt) throw new Error(`unresolved type ${f.type} of ${f.fullName}`);
    const full = rt.fullName.replace(/^\./, '');
    const special = SPECIAL[full];
    if (special) return { kind: 'special', special };
    return { kind: 'message', message: full };
  }
}

/**
 * The protobuf message name of a kind: `v1` → `k8s.io.api.core.v1.KIND`; `GROUP/VERSION` →
 * `k8s.io.api.FIRSTLABEL.VERSION.KIND`. Meta kinds (Status, DeleteOptions, …) are in meta.v1.
 */
export function messageNameForKind(group: string, version: string, kind: string): string {
  const label = group === '' ? 'core' : group.split('.')[0];
  return `k8s.io.api.${label}.${version}.${kind}`;
}

/** The meta.v1 message of a kind, e.g. `Status` → `k8s.io.apimachinery.pkg.apis.meta.v1.Status`. */
export function metaMessageName(kind: string): string {
  return `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`;
}

let shared: TypeModel | undefined;

/** The process-wide model (loaded once, read-only afterwards). */
export function typeModel(): TypeModel {
  if (!shared) {
    const json = JSON.parse(readFileSync(new URL('kubernetes-v1.27.proto.json', K8S_API_DIR), 'utf8'));
    const root = protobuf.Root.fromJSON(json);
    root.resolveAll();
    shared = new TypeModel(root);
  }
  return shared;
}
