import { createHash } from 'node:crypto';
import type { ApiRequest, ApiResponse } from './types.ts';
import { RESOURCES, servedGroupVersions, type ResourceInfo, type SubresourceInfo } from './resources.ts';
import { messageNameForKind, metaMessageName, typeModel, type FieldModel, type SpecialType, type ValueType } from './typemodel.ts';
import { isStringListMessage, jsonFields, patchMetaFor, structTypeOf } from './patchmeta.ts';
import { encodeOpenAPIv2Protobuf } from './openapi-proto.ts';

/**
 * The server's OpenAPI documents, generated from the resource table (`resources.ts`) and the
 * Kubernetes 1.27 type model (`typemodel.ts`): the swagger 2.0 document of `/openapi/v2` (JSON and
 * gnostic protobuf) and the OpenAPI 3.0 documents of `/openapi/v3` (an index plus one document per
 * served group version). Names, shapes and extensions follow what a Kubernetes API server publishes,
 * so kubectl's `explain`, client-side `apply` (strategic merge patch metadata) and its
 * field-validation detection work unchanged.
 */

/** A JSON value of an OpenAPI document. */
export type JsonObject = Record<string, any>;

/** The version string published in `info.version`. */
export const OPENAPI_INFO_VERSION = 'v1.27.0';

/**
 * The `Content-Type` of the gnostic protobuf encoding of `/openapi/v2`. Clients ask for it as
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (kubectl) or with this spelling;
 * the reply always uses this one, because client-go's `mime.ParseMediaType` rejects the `@`.
 */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** The media subtypes (after `application/`) that select the protobuf encoding of `/openapi/v2`. */
export const OPENAPI_V2_PROTOBUF_SUBTYPES = ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'] as const;

/** The gnostic-style OpenAPI definition name of a protobuf message: `k8s.io.api.core.v1.Pod` → `io.k8s.api.core.v1.Pod`. */
export function definitionName(messageFullName: string): string {
  return messageFullName.startsWith('k8s.io.') ? `io.k8s.${messageFullName.slice('k8s.io.'.length)}` : messageFullName;
}

interface Gvk {
  group: string;
  kind: string;
  version: string;
}

const SPECIAL_DEFINITIONS: Record<SpecialType, { message: string; schema: JsonObject } | undefined> = {
  time: {
    message: 'k8s.io.apimachinery.pkg.apis.meta.v1.Time',
    schema: { description: 'Time is a timestamp serialized as an RFC 3339 string in UTC with second precision, e.g. 2024-01-02T15:04:05Z.', type: 'string', format: 'date-time' },
  },
  microtime: {
    message: 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime',
    schema: { description: 'MicroTime is a timestamp with microsecond precision, serialized as RFC 3339, e.g. 2024-01-02T15:04:05.000000Z.', type: 'string', format: 'date-time' },
  },
  quantity: {
    message: 'k8s.io.apimachinery.pkg.api.resource.Quantity',
    schema: { description: 'Quantity is a fixed-point amount written as a string: a number with an optional suffix (binary Ki Mi Gi Ti Pi Ei, decimal m k M G T P E, or an exponent), e.g. 100m, 2, 1.5Gi.', type: 'string' },
  },
  intorstring: {
    message: 'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
    schema: { description: 'IntOrString holds either an integer or a string, e.g. a port number or a port name, a count or a percentage such as 25%.', type: 'string', format: 'int-or-string' },
  },
  rawextension: {
    message: 'k8s.io.apimachinery.pkg.runtime.RawExtension',
    schema: { description: 'RawExtension is an embedded object, any JSON object (usually a complete object with apiVersion and kind).', type: 'object' },
  },
  fieldsv1: {
    message: 'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1',
    schema: { description: 'FieldsV1 is the set of fields a manager owns, as a JSON object in the fields-v1 trie format.', type: 'object' },
  },
  duration: undefined,
};

const SPECIAL_MESSAGES = new Map(Object.values(SPECIAL_DEFINITIONS).flatMap((s) => (s ? [[s.message, s.schema] as const] : [])));

/** Messages whose JSON form is a plain list of strings (Kubernetes' protobuf wrappers for `[]string`). */
const isStringListWrapper = isStringListMessage;

/**
 * Fields Kubernetes marks required (no `omitempty`, or `+required`), by message. The protobuf
 * descriptors do not carry this, so it is kept here; entries name messages and fields of the
 * 1.27 type model (the tests check that each one exists).
 */
const REQUIRED: Record<string, readonly string[]> = {
  'k8s.io.api.core.v1.Container': ['name'],
  'k8s.io.api.core.v1.EphemeralContainer': ['name'],
  'k8s.io.api.core.v1.PodSpec': ['containers'],
  'k8s.io.api.core.v1.ContainerPort': ['containerPort'],
  'k8s.io.api.core.v1.EnvVar': ['name'],
  'k8s.io.api.core.v1.VolumeMount': ['name', 'mountPath'],
  'k8s.io.api.core.v1.VolumeDevice': ['name', 'devicePath'],
  'k8s.io.api.core.v1.Volume': ['name'],
  'k8s.io.api.core.v1.KeyToPath': ['key', 'path'],
  'k8s.io.api.core.v1.ConfigMapKeySelector': ['key'],
  'k8s.io.api.core.v1.SecretKeySelector': ['key'],
  'k8s.io.api.core.v1.ObjectFieldSelector': ['fieldPath'],
  'k8s.io.api.core.v1.ResourceFieldSelector': ['resource'],
  'k8s.io.api.core.v1.DownwardAPIVolumeFile': ['path'],
  'k8s.io.api.core.v1.HTTPGetAction': ['port'],
  'k8s.io.api.core.v1.HTTPHeader': ['name', 'value'],
  'k8s.io.api.core.v1.TCPSocketAction': ['port'],
  'k8s.io.api.core.v1.GRPCAction': ['port'],
  'k8s.io.api.core.v1.HostPathVolumeSource': ['path'],
  'k8s.io.api.core.v1.NFSVolumeSource': ['server', 'path'],
  'k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource': ['claimName'],
  'k8s.io.api.core.v1.NodeSelector': ['nodeSelectorTerms'],
  'k8s.io.api.core.v1.NodeSelectorRequirement': ['key', 'operator'],
  'k8s.io.api.core.v1.PreferredSchedulingTerm': ['weight', 'preference'],
  'k8s.io.api.core.v1.WeightedPodAffinityTerm': ['weight', 'podAffinityTerm'],
  'k8s.io.api.core.v1.PodAffinityTerm': ['topologyKey'],
  'k8s.io.api.core.v1.TopologySpreadConstraint': ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  'k8s.io.api.core.v1.Sysctl': ['name', 'value'],
  'k8s.io.api.core.v1.SeccompProfile': ['type'],
  'k8s.io.api.core.v1.PodCondition': ['type', 'status'],
  'k8s.io.api.core.v1.NodeCondition': ['type', 'status'],
  'k8s.io.api.core.v1.NamespaceCondition': ['type', 'status'],
  'k8s.io.api.core.v1.NodeAddress': ['type', 'address'],
  'k8s.io.api.core.v1.Taint': ['key', 'effect'],
  'k8s.io.api.core.v1.DaemonEndpoint': ['Port'],
  'k8s.io.api.core.v1.AttachedVolume': ['name', 'devicePath'],
  'k8s.io.api.core.v1.NodeSystemInfo': [
    'machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture',
  ],
  'k8s.io.api.core.v1.ContainerStatus': ['name', 'ready', 'restartCount', 'image', 'imageID'],
  'k8s.io.api.core.v1.ContainerStateTerminated': ['exitCode'],
  'k8s.io.api.core.v1.ServicePort': ['port'],
  'k8s.io.api.core.v1.PortStatus': ['port', 'protocol'],
  'k8s.io.api.core.v1.EndpointAddress': ['ip'],
  'k8s.io.api.core.v1.EndpointPort': ['port'],
  'k8s.io.api.core.v1.Binding': ['target'],
  'k8s.io.api.core.v1.Event': ['metadata', 'involvedObject'],
  'k8s.io.api.events.v1.Event': ['eventTime'],
  'k8s.io.api.apps.v1.DeploymentSpec': ['selector', 'template'],
  'k8s.io.api.apps.v1.ReplicaSetSpec': ['selector'],
  'k8s.io.api.apps.v1.StatefulSetSpec': ['selector', 'template', 'serviceName'],
  'k8s.io.api.apps.v1.DaemonSetSpec': ['selector', 'template'],
  'k8s.io.api.apps.v1.DeploymentCondition': ['type', 'status'],
  'k8s.io.api.apps.v1.ReplicaSetCondition': ['type', 'status'],
  'k8s.io.api.apps.v1.StatefulSetCondition': ['type', 'status'],
  'k8s.io.api.apps.v1.DaemonSetCondition': ['type', 'status'],
  'k8s.io.api.apps.v1.ReplicaSetStatus': ['replicas'],
  'k8s.io.api.apps.v1.StatefulSetStatus': ['replicas'],
  'k8s.io.api.apps.v1.DaemonSetStatus': ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'],
  'k8s.io.api.batch.v1.JobSpec': ['template'],
  'k8s.io.api.batch.v1.JobCondition': ['type', 'status'],
  'k8s.io.api.batch.v1.CronJobSpec': ['schedule', 'jobTemplate'],
  'k8s.io.api.batch.v1.PodFailurePolicy': ['rules'],
  'k8s.io.api.batch.v1.PodFailurePolicyRule': ['action'],
  'k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement': ['operator', 'values'],
  'k8s.io.api.batch.v1.PodFailurePolicyOnPodConditionsPattern': ['type', 'status'],
  'k8s.io.api.discovery.v1.EndpointSlice': ['addressType', 'endpoints'],
  'k8s.io.api.discovery.v1.Endpoint': ['addresses'],
  'k8s.io.api.discovery.v1.ForZone': ['name'],
  'k8s.io.api.scheduling.v1.PriorityClass': ['value'],
  'k8s.io.api.policy.v1.PodDisruptionBudgetStatus': ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'],
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerSpec': ['scaleTargetRef', 'maxReplicas'],
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus': ['desiredReplicas'],
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerCondition': ['type', 'status'],
  'k8s.io.api.autoscaling.v2.CrossVersionObjectReference': ['kind', 'name'],
  'k8s.io.api.autoscaling.v2.MetricSpec': ['type'],
  'k8s.io.api.autoscaling.v2.MetricStatus': ['type'],
  'k8s.io.api.autoscaling.v2.MetricTarget': ['type'],
  'k8s.io.api.autoscaling.v2.MetricIdentifier': ['name'],
  'k8s.io.api.autoscaling.v2.ResourceMetricSource': ['name', 'target'],
  'k8s.io.api.autoscaling.v2.ResourceMetricStatus': ['name', 'current'],
  'k8s.io.api.autoscaling.v2.ContainerResourceMetricSource': ['name', 'target', 'container'],
  'k8s.io.api.autoscaling.v2.ContainerResourceMetricStatus': ['name', 'current', 'container'],
  'k8s.io.api.autoscaling.v2.PodsMetricSource': ['metric', 'target'],
  'k8s.io.api.autoscaling.v2.PodsMetricStatus': ['metric', 'current'],
  'k8s.io.api.autoscaling.v2.ObjectMetricSource': ['describedObject', 'target', 'metric'],
  'k8s.io.api.autoscaling.v2.ObjectMetricStatus': ['metric', 'current', 'describedObject'],
  'k8s.io.api.autoscaling.v2.ExternalMetricSource': ['metric', 'target'],
  'k8s.io.api.autoscaling.v2.ExternalMetricStatus': ['metric', 'current'],
  'k8s.io.api.autoscaling.v2.HPAScalingPolicy': ['type', 'value', 'periodSeconds'],
  'k8s.io.api.autoscaling.v1.CrossVersionObjectReference': ['kind', 'name'],
  'k8s.io.api.rbac.v1.PolicyRule': ['verbs'],
  'k8s.io.api.rbac.v1.RoleRef': ['apiGroup', 'kind', 'name'],
  'k8s.io.api.rbac.v1.Subject': ['kind', 'name'],
  'k8s.io.api.rbac.v1.RoleBinding': ['roleRef'],
  'k8s.io.api.rbac.v1.ClusterRoleBinding': ['roleRef'],
  'k8s.io.api.authorization.v1.SubjectAccessReview': ['spec'],
  'k8s.io.api.authorization.v1.SelfSubjectAccessReview': ['spec'],
  'k8s.io.api.authorization.v1.SubjectAccessReviewStatus': ['allowed'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference': ['apiVersion', 'kind', 'name', 'uid'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement': ['key', 'operator'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.Condition': ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent': ['type', 'object'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup': ['name', 'versions'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList': ['groups'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIResource': ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList': ['groupVersion', 'resources'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions': ['versions', 'serverAddressByClientCIDRs'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery': ['groupVersion', 'version'],
  'k8s.io.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR': ['clientCIDR', 'serverAddress'],
};

/** The required fields the documents publish for a message (empty when none). */
export function requiredFields(messageFullName: string): readonly string[] {
  if (REQUIRED[messageFullName]) return REQUIRED[messageFullName];
  if (messageFullName.endsWith('List') && typeModel().has(messageFullName)) {
    const m = typeModel().message(messageFullName);
    if (m.byName.has('items') && m.byName.has('metadata')) return ['items'];
  }
  return [];
}

/** The meta.v1 messages published besides the served kinds, with the kinds they are served as. */
const META_KINDS = ['Status', 'DeleteOptions', 'WatchEvent', 'Patch', 'ObjectMeta', 'ListMeta', 'APIGroup', 'APIGroupList', 'APIResourceList', 'APIVersions'];

const WELL_KNOWN_FIELDS: Record<string, string> = {
  apiVersion: 'The versioned schema of this object, written group/version (just the version for the core group), e.g. apps/v1. Servers convert recognized versions and reject unknown ones.',
  kind: 'The kind of this object, in CamelCase, e.g. Pod. Clients may send it; servers infer it from the endpoint.',
};

function shortName(message: string): string {
  return message.slice(message.lastIndexOf('.') + 1);
}

function packageOf(message: string): string {
  return definitionName(message.slice(0, message.lastIndexOf('.')));
}

/** Facts about the served kinds: which messages are kinds, with their GVKs and resources. */
interface KindIndex {
  gvks: Map<string, Gvk[]>;
  resources: Map<string, ResourceInfo>;
  lists: Map<string, string>;
}

let kindIndexMemo: KindIndex | undefined;

function kindIndex(): KindIndex {
  if (kindIndexMemo) return kindIndexMemo;
  const tm = typeModel();
  const gvks = new Map<string, Gvk[]>();
  const resources = new Map<string, ResourceInfo>();
  const lists = new Map<string, string>();
  const add = (message: string, gvk: Gvk) => {
    const list = gvks.get(message) ?? [];
    if (!list.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) list.push(gvk);
    gvks.set(message, list);
  };
  for (const r of RESOURCES) {
    const m = messageNameForKind(r.group, r.version, r.kind);
    add(m, { group: r.group, kind: r.kind, version: r.version });
    resources.set(m, r);
    const lm = messageNameForKind(r.group, r.version, r.listKind);
    if (tm.has(lm)) {
      add(lm, { group: r.group, kind: r.listKind, version: r.version });
      lists.set(lm, r.kind);
    }
    for (const s of r.subresources) {
      const g = s.group ?? r.group;
      const v = s.version ?? r.version;
      add(messageNameForKind(g, v, s.kind), { group: g, kind: s.kind, version: v });
    }
  }
  for (const kind of ['Status', 'APIGroup', 'APIGroupList', 'APIResourceList', 'APIVersions']) {
    add(metaMessageName(kind), { group: '', kind, version: 'v1' });
  }
  for (const { group, version } of servedGroupVersions()) {
    add(metaMessageName('DeleteOptions'), { group, kind: 'DeleteOptions', version });
    add(metaMessageName('WatchEvent'), { group, kind: 'WatchEvent', version });
  }
  kindIndexMemo = { gvks, resources, lists };
  return kindIndexMemo;
}

/** Every message a definition is published for: the served kinds, their lists, subresource kinds, meta kinds, and everything they reach. */
function definitionMessages(): string[] {
  const roots = [...kindIndex().gvks.keys(), ...META_KINDS.map(metaMessageName)];
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name) || isStringListWrapper(name)) continue;
    seen.add(name);
    if (SPECIAL_MESSAGES.has(name)) continue;
    for (const { field } of jsonFields(name).values()) {
      const ref = referencedMessage(field.type);
      if (ref) stack.push(ref);
    }
  }
  return [...seen].sort();
}

type SchemaFlavor = 'v2' | 'v3';

function refTo(def: string, flavor: SchemaFlavor): string {
  return flavor === 'v2' ? `#/definitions/${def}` : `#/components/schemas/${def}`;
}

function scalarSchema(scalar: string): JsonObject {
  switch (scalar) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
    case 'uint32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
    case 'uint64':
      return { type: 'integer', format: 'int64' };
    case 'double':
      return { type: 'number', format: 'double' };
    case 'float':
      return { type: 'number', format: 'float' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    default:
      throw new Error(`no schema for scalar ${scalar}`);
  }
}

/** The message a value type is published as a definition of, if any. */
function referencedMessage(t: ValueType): string | undefined {
  if (t.kind === 'message') return isStringListWrapper(t.message) ? undefined : t.message;
  if (t.kind === 'special') return SPECIAL_DEFINITIONS[t.special]?.message;
  return undefined;
}

/** The schema of one element of a field (without description): a `$ref` or an inline type. */
function elementSchema(t: ValueType, flavor: SchemaFlavor): JsonObject {
  const ref = referencedMessage(t);
  if (ref) return { $ref: refTo(definitionName(ref), flavor) };
  if (t.kind === 'scalar') return scalarSchema(t.scalar);
  if (t.kind === 'message') return { type: 'array', items: { type: 'string' } };
  return { type: 'string' };
}

function describeElement(t: ValueType, plural: boolean): string {
  if (t.kind === 'scalar') {
    const s: Record<string, [string, string]> = {
      string: ['a string', 'strings'],
      bool: ['a boolean', 'booleans'],
      int32: ['a 32-bit integer', '32-bit integers'],
      uint32: ['a 32-bit integer', '32-bit integers'],
      int64: ['a 64-bit integer', '64-bit integers'],
      uint64: ['a 64-bit integer', '64-bit integers'],
      double: ['a floating-point number', 'floating-point numbers'],
      float: ['a floating-point number', 'floating-point numbers'],
      bytes: ['base64-encoded bytes', 'base64-encoded byte strings'],
    };
    return s[t.scalar][plural ? 1 : 0];
  }
  if (t.kind === 'special') {
    const s: Record<SpecialType, [string, string]> = {
      time: ['a timestamp (RFC 3339, e.g. 2024-01-02T15:04:05Z)', 'timestamps'],
      microtime: ['a timestamp with microseconds (RFC 3339)', 'timestamps'],
      duration: ['a duration such as 30s or 1h5m', 'durations'],
      quantity: ['a quantity such as 100m, 2 or 1Gi', 'quantities'],
      intorstring: ['an integer or a string (e.g. 8080, http or 25%)', 'integers or strings'],
      rawextension: ['an embedded object', 'embedded objects'],
      fieldsv1: ['a FieldsV1 object', 'FieldsV1 objects'],
    };
    return s[t.special][plural ? 1 : 0];
  }
  if (isStringListWrapper(t.message)) return plural ? 'lists of strings' : 'a list of strings';
  const name = shortName(t.message);
  return plural ? `${name} objects` : `an object of type ${name}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function fieldDescription(owner: string, f: FieldModel, required: boolean, meta: ReturnType<typeof patchMetaFor>): string {
  const parts: string[] = [];
  const known = WELL_KNOWN_FIELDS[f.name];
  const ownerName = shortName(owner);
  if (known) parts.push(known);
  else if (f.name === 'metadata' && f.type.kind === 'message' && f.type.message.endsWith('.ObjectMeta')) {
    parts.push(`Standard object metadata of this ${ownerName}: name, namespace, labels, annotations and the server-set fields.`);
  } else if (f.name === 'metadata' && f.type.kind === 'message' && f.type.message.endsWith('.ListMeta')) {
    parts.push('Standard list metadata: the resourceVersion of the list and the continue token of a chunked list.');
  } else if (f.name === 'spec' && f.type.kind === 'message') {
    parts.push(`The desired state of this ${ownerName}, set by its users (${shortName(f.type.message)}).`);
  } else if (f.name === 'status' && f.type.kind === 'message') {
    parts.push(`The most recently observed state of this ${ownerName}, maintained by the system (${shortName(f.type.message)}); read-only for most clients.`);
  }
  let what: string;
  if (f.mapKey) what = `a map from string keys to ${describeElement(f.type, true)}`;
  else if (f.repeated) what = `a list of ${describeElement(f.type, true)}`;
  else what = describeElement(f.type, false);
  parts.push(`${ownerName}.${f.name}: ${what}.`);
  if (required) parts.push('Required.');
  if (meta?.strategy) {
    parts.push(meta.mergeKey ? `Strategic merge patch merges its items by the key ${meta.mergeKey} (strategy ${meta.strategy}).` : `Strategic merge patch strategy: ${meta.strategy}.`);
  }
  if (meta?.listType === 'map' && meta.listMapKeys?.length) parts.push(`Server-side apply treats it as a map keyed by ${meta.listMapKeys.join(', ')}.`);
  else if (meta?.listType === 'set') parts.push('Server-side apply treats it as a set of unique values.');
  else if (meta?.listType === 'atomic' || meta?.mapType === 'atomic' || meta?.structType === 'atomic') parts.push('Server-side apply replaces it as a whole.');
  return parts.join(' ');
}

function definitionDescription(message: string): string {
  const idx = kindIndex();
  const name = shortName(message);
  const r = idx.resources.get(message);
  if (r) {
    const gv = r.group ? `${r.group}/${r.version}` : r.version;
    const scope = r.namespaced ? 'namespaced' : 'cluster-scoped';
    const short = r.shortNames.length ? `, short names ${r.shortNames.join(', ')}` : '';
    return `${name} is a ${scope} object of API version ${gv}, served as the resource ${r.resource}${short}.`;
  }
  const itemKind = idx.lists.get(message);
  if (itemKind) return `${name} is a list of ${itemKind} objects.`;
  const gvks = idx.gvks.get(message);
  if (gvks) return `${name} is the ${packageOf(message)} kind ${name}.`;
  return `${name} is an object type of package ${packageOf(message)}, used inside other objects.`;
}

/** The published schema of one message (a definition), in either flavor. */
function messageSchema(message: string, flavor: SchemaFlavor): JsonObject {
  const required = requiredFields(message);
  const properties: JsonObject = {};
  const fields = [...jsonFields(message).values()].map((j) => j.field);
  for (const f of fields.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const meta = patchMetaFor(message, f.name);
    const description = fieldDescription(message, f, required.includes(f.name), meta);
    const el = elementSchema(f.type, flavor);
    let prop: JsonObject;
    if (f.mapKey) {
      prop = { description, type: 'object', additionalProperties: flavor === 'v3' && el.$ref ? { allOf: [el], default: {} } : el };
    } else if (f.repeated) {
      prop = { description, type: 'array', items: flavor === 'v3' && el.$ref ? { allOf: [el], default: {} } : el };
    } else if (el.$ref) {
      prop = flavor === 'v2' ? { $ref: el.$ref, description } : { allOf: [el], description };
    } else {
      prop = { description, ...el };
    }
    if (meta?.listType) prop['x-kubernetes-list-type'] = meta.listType;
    if (meta?.listMapKeys?.length) prop['x-kubernetes-list-map-keys'] = [...meta.listMapKeys];
    if (meta?.mapType) prop['x-kubernetes-map-type'] = meta.mapType;
    if (meta?.mergeKey) prop['x-kubernetes-patch-merge-key'] = meta.mergeKey;
    if (meta?.strategy) prop['x-kubernetes-patch-strategy'] = meta.strategy;
    properties[f.name] = prop;
  }
  const gvks = kindIndex().gvks.get(message);
  const isList = fields.some((f) => f.name === 'items' && f.repeated) && fields.some((f) => f.name === 'metadata' && f.type.kind === 'message' && f.type.message.endsWith('.ListMeta'));
  if (gvks || isList) {
    // TypeMeta is not part of the protobuf messages, but every kind and list carries it in JSON.
    properties.apiVersion = { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' };
    properties.kind = { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' };
  }
  const sorted = Object.fromEntries(Object.entries(properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const schema: JsonObject = { description: definitionDescription(message), type: 'object', properties: sorted };
  if (required.length) schema.required = [...required];
  if (gvks) schema['x-kubernetes-group-version-kind'] = gvks.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
  const structType = structTypeOf(message);
  if (structType) schema['x-kubernetes-map-type'] = structType;
  return schema;
}

function allDefinitions(flavor: SchemaFlavor): JsonObject {
  const defs: JsonObject = {};
  for (const message of definitionMessages()) {
    const special = SPECIAL_MESSAGES.get(message);
    defs[definitionName(message)] = special ? structuredClone(special) : messageSchema(message, flavor);
  }
  return Object.fromEntries(Object.entries(defs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---------------------------------------------------------------------------------------------
// Paths: one neutral model of the operations, rendered as swagger 2.0 or OpenAPI 3.0.

type ParamType = 'string' | 'integer' | 'boolean';

interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  type: ParamType;
  description: string;
}

const QUERY_PARAMS: Record<string, ParamSpec> = Object.fromEntries(
  (
    [
      ['pretty', 'string', "If 'true', the response is indented for reading."],
      ['dryRun', 'string', 'When set, the request is validated and processed (admission, defaulting, merging) but not persisted. The only valid value is All.'],
      ['fieldManager', 'string', 'The name of the actor making this change, recorded in managedFields. At most 128 printable characters. Required for apply patches.'],
      ['fieldValidation', 'string', 'How the server treats unknown and duplicate fields in the request body: Ignore drops them silently, Warn (the default) drops them and adds a warning header, Strict fails the request.'],
      ['labelSelector', 'string', 'Only objects whose labels match this selector (e.g. app=web,tier!=db). Everything when empty.'],
      ['fieldSelector', 'string', 'Only objects whose fields match this selector (e.g. metadata.name=x). Everything when empty.'],
      ['limit', 'integer', 'The most items to return in one response; when more remain, the list metadata carries a continue token for the next chunk.'],
      ['continue', 'string', 'The continue token of a previous chunked list, to fetch its next chunk. Expires with the compaction of its resourceVersion (410 Gone).'],
      ['resourceVersion', 'string', 'Which state to read: unset for the most recent, 0 for any cached state, or a resourceVersion (see resourceVersionMatch). For watches, the version to start after.'],
      ['resourceVersionMatch', 'string', 'How resourceVersion applies to a list: Exact or NotOlderThan. Requires resourceVersion.'],
      ['watch', 'boolean', 'Stream add, update and delete events of the selected objects instead of returning a list.'],
      ['allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events carrying the current resourceVersion on a watch. Servers may ignore it.'],
      ['sendInitialEvents', 'boolean', 'On a watch, first send the current objects as ADDED events, then a bookmark marking their end. Requires resourceVersionMatch=NotOlderThan.'],
      ['timeoutSeconds', 'integer', 'How long the list or watch call may last, in seconds, whether or not there is activity.'],
      ['gracePeriodSeconds', 'integer', 'Seconds to wait before the object is deleted; zero means at once. Unset uses the default of the kind.'],
      ['propagationPolicy', 'string', 'Whether and how dependents are garbage-collected: Orphan, Background or Foreground.'],
      ['orphanDependents', 'boolean', 'Deprecated in favour of propagationPolicy: whether dependents are orphaned.'],
      ['force', 'boolean', 'Take over fields owned by other managers on an apply patch. Must be unset for other patch types.'],
    ] as const
  ).map(([name, type, description]) => [name, { name, in: 'query', type, description }]),
);

const LIST_PARAMS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'];
const PATCH_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force'];
const DELETE_PARAMS = ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'];
const DELETE_COLLECTION_PARAMS = [
  'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'labelSelector', 'limit', 'orphanDependents', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds',
];

const PATCH_MEDIA_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const STREAM_MEDIA_TYPES = [...OBJECT_MEDIA_TYPES, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

/** The `x-kubernetes-action` values of Kubernetes' published operations. */
export type OperationAction = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

interface OperationSpec {
  method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  operationId: string;
  description: string;
  /** Absent on discovery operations, as in Kubernetes. */
  action?: OperationAction;
  gvk?: Gvk;
  tag: string;
  query: string[];
  body?: { def: string; required: boolean; patch?: boolean };
  responses: { code: string; description: string; def?: string }[];
  produces: string[];
}

interface PathSpec {
  path: string;
  /** The group-version document the path belongs to (`api/v1`, `apis/apps/v1`), or undefined for root discovery paths. */
  gvPath?: string;
  params: ParamSpec[];
  operations: OperationSpec[];
}

function gvTitle(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return g.split('.').map(capitalize).join('') + capitalize(version);
}

function gvTag(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  const parts = g.split('.');
  return parts[0] + parts.slice(1).map(capitalize).join('') + '_' + version;
}

/** `api/v1` or `apis/GROUP/VERSION`: the key of a group version in the `/openapi/v3` index. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function pathParam(name: 'name' | 'namespace', of: string): ParamSpec {
  return {
    name,
    in: 'path',
    type: 'string',
    description: name === 'name' ? `The name of the ${of}.` : 'The namespace of the objects; the object name is unique within it.',
  };
}

const OK_UNAUTHORIZED = { code: '401', description: 'Unauthorized' };

function resourcePaths(r: ResourceInfo): PathSpec[] {
  const gvPath = groupVersionPath(r.group, r.version);
  const prefix = `/${gvPath}`;
  const title = gvTitle(r.group, r.version);
  const tag = gvTag(r.group, r.version);
  const gvk: Gvk = { group: r.group, kind: r.kind, version: r.version };
  const def = definitionName(messageNameForKind(r.group, r.version, r.kind));
  const listDef = typeModel().has(messageNameForKind(r.group, r.version, r.listKind)) ? definitionName(messageNameForKind(r.group, r.version, r.listKind)) : undefined;
  const statusDef = definitionName(metaMessageName('Status'));
  const deleteOptionsDef = definitionName(metaMessageName('DeleteOptions'));
  const watchEventDef = definitionName(metaMessageName('WatchEvent'));
  const patchDef = definitionName(metaMessageName('Patch'));
  const has = (verb: string) => r.verbs.includes(verb);
  const ns = r.namespaced ? 'Namespaced' : '';
  const nsSegment = r.namespaced ? '/namespaces/{namespace}' : '';
  const pretty = QUERY_PARAMS.pretty;
  const scopeParams = r.namespaced ? [pretty, pathParam('namespace', r.kind)] : [pretty];
  const plural = `${r.kind} objects`;
  const out: PathSpec[] = [];

  const collection: OperationSpec[] = [];
  if (has('list') && listDef) {
    collection.push({
      method: 'get', operationId: `list${title}${ns}${r.kind}`, action: 'list', gvk, tag, query: LIST_PARAMS, produces: STREAM_MEDIA_TYPES,
      description: r.namespaced ? `List the ${plural} of a namespace, or watch them with watch=true.` : `List ${plural}, or watch them with watch=true.`,
      responses: [{ code: '200', description: 'OK', def: listDef }, OK_UNAUTHORIZED],
    });
  }
  if (has('create')) {
    collection.push({
      method: 'post', operationId: `create${title}${ns}${r.kind}`, action: 'post', gvk, tag, query: WRITE_PARAMS, produces: OBJECT_MEDIA_TYPES,
      description: `Create a ${r.kind}.`, body: { def, required: true },
      responses: [{ code: '200', description: 'OK', def }, { code: '201', description: 'Created', def }, { code: '202', description: 'Accepted', def }, OK_UNAUTHORIZED],
    });
  }
  if (has('deletecollection')) {
    collection.push({
      method: 'delete', operationId: `delete${title}Collection${ns}${r.kind}`, action: 'deletecollection', gvk, tag, query: DELETE_COLLECTION_PARAMS, produces: OBJECT_MEDIA_TYPES,
      description: `Delete the selected ${plural}.`, body: { def: deleteOptionsDef, required: false },
      responses: [{ code: '200', description: 'OK', def: statusDef }, OK_UNAUTHORIZED],
    });
  }
  if (collection.length) out.push({ path: `${prefix}${nsSegment}/${r.resource}`, gvPath, params: scopeParams, operations: collection });

  const itemParams = [pathParam('name', r.kind), ...scopeParams.slice(1), pretty];
  const item: OperationSpec[] = [];
  if (has('get')) {
    item.push({
      method: 'get', operationId: `read${title}${ns}${r.kind}`, action: 'get', gvk, tag, query: [], produces: OBJECT_MEDIA_TYPES,
      description: `Read the named ${r.kind}.`, responses: [{ code: '200', description: 'OK', def }, OK_UNAUTHORIZED],
    });
  }
  if (has('update')) {
    item.push({
      method: 'put', operationId: `replace${title}${ns}${r.kind}`, action: 'put', gvk, tag, query: WRITE_PARAMS, produces: OBJECT_MEDIA_TYPES,
      description: `Replace the named ${r.kind}.`, body: { def, required: true },
      responses: [{ code: '200', description: 'OK', def }, { code: '201', description: 'Created', def }, OK_UNAUTHORIZED],
    });
  }
  if (has('patch')) {
    item.push({
      method: 'patch', operationId: `patch${title}${ns}${r.kind}`, action: 'patch', gvk, tag, query: PATCH_PARAMS, produces: OBJECT_MEDIA_TYPES,
      description: `Partially update the named ${r.kind} (JSON patch, merge patch, strategic merge patch or apply).`, body: { def: patchDef, required: true, patch: true },
      responses: [{ code: '200', description: 'OK', def }, { code: '201', description: 'Created', def }, OK_UNAUTHORIZED],
    });
  }
  if (has('delete')) {
    item.push({
      method: 'delete', operationId: `delete${title}${ns}${r.kind}`, action: 'delete', gvk, tag, query: DELETE_PARAMS, produces: OBJECT_MEDIA_TYPES,
      description: `Delete the named ${r.kind}.`, body: { def: deleteOptionsDef, required: false },
      responses: [{ code: '200', description: 'OK', def: statusDef }, { code: '202', description: 'Accepted', def: statusDef }, OK_UNAUTHORIZED],
    });
  }
  if (item.length) out.push({ path: `${prefix}${nsSegment}/${r.resource}/{name}`, gvPath, params: itemParams, operations: item });

  for (const s of r.subresources) out.push(subresourcePath(r, s, { prefix, nsSegment, title, tag, gvPath, itemParams, patchDef }));

  if (has('list') && listDef && r.namespaced) {
    out.push({
      path: `${prefix}/${r.resource}`, gvPath, params: [pretty],
      operations: [{
        method: 'get', operationId: `list${title}${r.kind}ForAllNamespaces`, action: 'list', gvk, tag, query: LIST_PARAMS, produces: STREAM_MEDIA_TYPES,
        description: `List the ${plural} of all namespaces, or watch them with watch=true.`, responses: [{ code: '200', description: 'OK', def: listDef }, OK_UNAUTHORIZED],
      }],
    });
  }
  if (has('watch')) {
    const watchParams = (extra: ParamSpec[]) => [...LIST_PARAMS.map((p) => QUERY_PARAMS[p]), ...extra, pretty].sort((a, b) => (a.name < b.name ? -1 : 1));
    const watchOp = (operationId: string, action: OperationAction, description: string): OperationSpec => ({
      method: 'get', operationId, action, gvk, tag, query: [], produces: STREAM_MEDIA_TYPES, description,
      responses: [{ code: '200', description: 'OK', def: watchEventDef }, OK_UNAUTHORIZED],
    });
    const scopeExtra = r.namespaced ? [pathParam('namespace', r.kind)] : [];
    out.push({
      path: `${prefix}/watch${nsSegment}/${r.resource}`, gvPath, params: watchParams(scopeExtra),
      operations: [watchOp(`watch${title}${ns}${r.kind}List`, 'watchlist', `Watch changes to ${plural} (deprecated: use list with watch=true).`)],
    });
    out.push({
      path: `${prefix}/watch${nsSegment}/${r.resource}/{name}`, gvPath, params: watchParams([pathParam('name', r.kind), ...scopeExtra]),
      operations: [watchOp(`watch${title}${ns}${r.kind}`, 'watch', `Watch changes to one ${r.kind} (deprecated: use list with watch=true and a metadata.name field selector).`)],
    });
    if (r.namespaced) {
      out.push({
        path: `${prefix}/watch/${r.resource}`, gvPath, params: watchParams([]),
        operations: [watchOp(`watch${title}${r.kind}ListForAllNamespaces`, 'watchlist', `Watch changes to ${plural} of all namespaces (deprecated: use list with watch=true).`)],
      });
    }
  }
  return out;
}

function subresourcePath(
  r: ResourceInfo,
  s: SubresourceInfo,
  c: { prefix: string; nsSegment: string; title: string; tag: string; gvPath: string; itemParams: ParamSpec[]; patchDef: string },
): PathSpec {
  const group = s.group ?? r.group;
  const version = s.version ?? r.version;
  const gvk: Gvk = { group, kind: s.kind, version };
  const def = definitionName(messageNameForKind(group, version, s.kind));
  const ns = r.namespaced ? 'Namespaced' : '';
  const suffix = capitalize(s.name);
  const what = `the ${s.name} of the named ${r.kind}`;
  const ops: OperationSpec[] = [];
  for (const verb of s.verbs) {
    const base = { gvk, tag: c.tag, produces: OBJECT_MEDIA_TYPES };
    if (verb === 'get') {
      ops.push({ ...base, method: 'get', operationId: `read${c.title}${ns}${r.kind}${suffix}`, action: 'get', query: [], description: `Read ${what}.`, responses: [{ code: '200', description: 'OK', def }, OK_UNAUTHORIZED] });
    } else if (verb === 'update') {
      ops.push({
        ...base, method: 'put', operationId: `replace${c.title}${ns}${r.kind}${suffix}`, action: 'put', query: WRITE_PARAMS, description: `Replace ${what}.`, body: { def, required: true },
        responses: [{ code: '200', description: 'OK', def }, { code: '201', description: 'Created', def }, OK_UNAUTHORIZED],
      });
    } else if (verb === 'patch') {
      ops.push({
        ...base, method: 'patch', operationId: `patch${c.title}${ns}${r.kind}${suffix}`, action: 'patch', query: PATCH_PARAMS, description: `Partially update ${what}.`,
        body: { def: c.patchDef, required: true, patch: true }, responses: [{ code: '200', description: 'OK', def }, { code: '201', description: 'Created', def }, OK_UNAUTHORIZED],
      });
    } else if (verb === 'create') {
      ops.push({
        ...base, method: 'post', operationId: `create${c.title}${ns}${r.kind}${suffix}`, action: 'post', query: WRITE_PARAMS, description: `Create ${what}.`, body: { def, required: true },
        responses: [{ code: '200', description: 'OK', def }, { code: '201', description: 'Created', def }, { code: '202', description: 'Accepted', def }, OK_UNAUTHORIZED],
      });
    }
  }
  return { path: `${c.prefix}${c.nsSegment}/${r.resource}/{name}/${s.name}`, gvPath: c.gvPath, params: c.itemParams, operations: ops };
}

function discoveryPaths(): PathSpec[] {
  const out: PathSpec[] = [];
  const get = (operationId: string, tag: string, description: string, def: string): OperationSpec => ({
    method: 'get', operationId, tag, query: [], produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
    description, responses: [{ code: '200', description: 'OK', def: definitionName(metaMessageName(def)) }, OK_UNAUTHORIZED],
  });
  out.push({ path: '/api/', params: [], operations: [get('getCoreAPIVersions', 'core', 'The versions of the core API group.', 'APIVersions')] });
  out.push({ path: '/apis/', params: [], operations: [get('getAPIVersions', 'apis', 'The served API groups and their versions.', 'APIGroupList')] });
  const groups = new Set<string>();
  for (const { group, version } of servedGroupVersions()) {
    const title = gvTitle(group, version);
    const gvPath = groupVersionPath(group, version);
    out.push({ path: `/${gvPath}/`, gvPath, params: [], operations: [get(`get${title}APIResources`, gvTag(group, version), `The resources served in ${group || 'core'}/${version}.`, 'APIResourceList')] });
    if (group && !groups.has(group)) {
      groups.add(group);
      const g = gvTag(group, version).replace(/_.*$/, '');
      out.push({ path: `/apis/${group}/`, params: [], operations: [get(`get${capitalize(g)}APIGroup`, g, `The versions of the ${group} API group.`, 'APIGroup')] });
    }
  }
  return out;
}

let pathSpecsMemo: PathSpec[] | undefined;

function pathSpecs(): PathSpec[] {
  if (!pathSpecsMemo) {
    const all = [...discoveryPaths(), ...RESOURCES.flatMap(resourcePaths)];
    pathSpecsMemo = all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return pathSpecsMemo;
}

function operationExtensions(op: OperationSpec): JsonObject {
  const ext: JsonObject = {};
  if (op.action) ext['x-kubernetes-action'] = op.action;
  if (op.gvk) ext['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return ext;
}

function v2Parameter(p: ParamSpec): JsonObject {
  const out: JsonObject = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.in === 'path') out.required = true;
  return out;
}

function v2Operation(op: OperationSpec): JsonObject {
  const parameters: JsonObject[] = [];
  if (op.body) {
    const body: JsonObject = { name: 'body', in: 'body', schema: { $ref: refTo(op.body.def, 'v2') } };
    if (op.body.required) body.required = true;
    parameters.push(body);
  }
  for (const q of op.query) parameters.push(v2Parameter(QUERY_PARAMS[q]));
  const responses: JsonObject = {};
  for (const r of op.responses) responses[r.code] = r.def ? { description: r.description, schema: { $ref: refTo(r.def, 'v2') } } : { description: r.description };
  const out: JsonObject = {
    description: op.description,
    consumes: op.body?.patch ? [...PATCH_MEDIA_TYPES] : ['*/*'],
    produces: [...op.produces],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
  };
  if (parameters.length) out.parameters = parameters;
  out.responses = responses;
  return { ...out, ...operationExtensions(op) };
}

function v3Parameter(p: ParamSpec): JsonObject {
  const out: JsonObject = { name: p.name, in: p.in, description: p.description };
  if (p.in === 'path') out.required = true;
  out.schema = { type: p.type, uniqueItems: true };
  return out;
}

function v3Operation(op: OperationSpec): JsonObject {
  const out: JsonObject = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.query.length) out.parameters = op.query.map((q) => v3Parameter(QUERY_PARAMS[q]));
  if (op.body) {
    const schema = { $ref: refTo(op.body.def, 'v3') };
    const types = op.body.patch ? PATCH_MEDIA_TYPES : ['*/*'];
    out.requestBody = { content: Object.fromEntries(types.map((t) => [t, { schema }])) };
    if (op.body.required) out.requestBody.required = true;
  }
  const responses: JsonObject = {};
  for (const r of op.responses) {
    responses[r.code] = r.def
      ? { description: r.description, content: Object.fromEntries(op.produces.map((t) => [t, { schema: { $ref: refTo(r.def!, 'v3') } }])) }
      : { description: r.description };
  }
  out.responses = responses;
  return { ...out, ...operationExtensions(op) };
}

function renderPaths(specs: PathSpec[], flavor: SchemaFlavor): JsonObject {
  const paths: JsonObject = {};
  for (const p of specs) {
    const item: JsonObject = {};
    for (const op of p.operations) item[op.method] = flavor === 'v2' ? v2Operation(op) : v3Operation(op);
    if (p.params.length) item.parameters = p.params.map(flavor === 'v2' ? v2Parameter : v3Parameter);
    paths[p.path] = item;
  }
  return paths;
}

/** Every `$ref` target (definition name) inside a JSON value. */
function collectRefs(value: unknown, prefix: string, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, prefix, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(prefix)) out.add(v.slice(prefix.length));
      else collectRefs(v, prefix, out);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The documents, built once per process.

let v2Memo: JsonObject | undefined;
let v2JsonMemo: Buffer | undefined;
let v2ProtoMemo: Buffer | undefined;
let v3Memo: Map<string, { doc: JsonObject; json: Buffer; hash: string }> | undefined;
let v3IndexMemo: { paths: Record<string, { serverRelativeURL: string }> } | undefined;

/**
 * The swagger 2.0 document of `/openapi/v2`: a definition (named like `io.k8s.api.core.v1.Pod`) for
 * every message reachable from the served kinds, their lists, subresource kinds and the meta kinds,
 * with `x-kubernetes-group-version-kind` on each kind and strategic-merge / list-type extensions on
 * fields; paths for every served resource, verb and subresource with `x-kubernetes-action`,
 * `x-kubernetes-group-version-kind` and the standard query parameters. Built once; callers must not
 * mutate the returned object.
 */
export function buildOpenAPIv2(): JsonObject {
  if (!v2Memo) {
    v2Memo = {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: OPENAPI_INFO_VERSION },
      paths: renderPaths(pathSpecs(), 'v2'),
      definitions: allDefinitions('v2'),
      securityDefinitions: { BearerToken: { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' } },
      security: [{ BearerToken: [] }],
    };
  }
  return v2Memo;
}

function buildAllV3(): Map<string, { doc: JsonObject; json: Buffer; hash: string }> {
  if (v3Memo) return v3Memo;
  const schemas = allDefinitions('v3');
  const prefix = '#/components/schemas/';
  const out = new Map<string, { doc: JsonObject; json: Buffer; hash: string }>();
  for (const { group, version } of servedGroupVersions()) {
    const gvPath = groupVersionPath(group, version);
    const paths = renderPaths(pathSpecs().filter((p) => p.gvPath === gvPath), 'v3');
    const wanted = new Set<string>();
    collectRefs(paths, prefix, wanted);
    const stack = [...wanted];
    while (stack.length) {
      const name = stack.pop()!;
      const before = new Set<string>();
      collectRefs(schemas[name], prefix, before);
      for (const n of before) {
        if (!wanted.has(n)) {
          wanted.add(n);
          stack.push(n);
        }
      }
    }
    const componentSchemas: JsonObject = {};
    for (const name of [...wanted].sort()) componentSchemas[name] = schemas[name];
    const doc: JsonObject = {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: OPENAPI_INFO_VERSION },
      paths,
      components: {
        schemas: componentSchemas,
        securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' } },
      },
      security: [{ BearerToken: [] }],
    };
    const json = Buffer.from(JSON.stringify(doc));
    out.set(gvPath, { doc, json, hash: etagOf(json) });
  }
  v3Memo = out;
  return out;
}

/**
 * The `/openapi/v3` index: one entry per served group version (`api/v1`, `apis/apps/v1`, …) whose
 * `serverRelativeURL` is `/openapi/v3/<path>?hash=<HEX>`, HEX being the upper-case SHA-512 of that
 * document's JSON, so it changes exactly when the document does.
 */
export function buildOpenAPIv3Index(): { paths: Record<string, { serverRelativeURL: string }> } {
  if (!v3IndexMemo) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const gvPath of [...buildAllV3().keys()].sort()) paths[gvPath] = { serverRelativeURL: `/openapi/v3/${gvPath}?hash=${buildAllV3().get(gvPath)!.hash}` };
    v3IndexMemo = { paths };
  }
  return v3IndexMemo;
}

/**
 * The OpenAPI 3.0 document of one group version (`api/v1`, `apis/apps/v1`; a leading `/` or
 * `openapi/v3/` prefix is accepted): its paths and the `components.schemas` they reach. Undefined
 * for group versions that are not served. Built once; callers must not mutate it.
 */
export function buildOpenAPIv3(groupVersionPathOrUrl: string): JsonObject | undefined {
  return buildAllV3().get(normalizeGvPath(groupVersionPathOrUrl))?.doc;
}

function normalizeGvPath(p: string): string {
  return p.replace(/^\/+/, '').replace(/^openapi\/v3\//, '').replace(/\/+$/, '');
}

/** The hash published for a group version's v3 document (for ETag / cache headers), or undefined. */
export function openAPIv3Hash(groupVersionPathOrUrl: string): string | undefined {
  return buildAllV3().get(normalizeGvPath(groupVersionPathOrUrl))?.hash;
}

/** The `/openapi/v2` document as JSON bytes (serialized once). */
export function openAPIv2Json(): Buffer {
  if (!v2JsonMemo) v2JsonMemo = Buffer.from(JSON.stringify(buildOpenAPIv2()));
  return v2JsonMemo;
}

/** The `/openapi/v2` document as the gnostic `openapi.v2.Document` protobuf (encoded once). */
export function openAPIv2Protobuf(): Buffer {
  if (!v2ProtoMemo) v2ProtoMemo = encodeOpenAPIv2Protobuf(buildOpenAPIv2());
  return v2ProtoMemo;
}

let v3IndexJsonMemo: Buffer | undefined;

/** The `/openapi/v3` index as JSON bytes (serialized once). */
export function openAPIv3IndexJson(): Buffer {
  v3IndexJsonMemo ??= Buffer.from(JSON.stringify(buildOpenAPIv3Index()));
  return v3IndexJsonMemo;
}

/** A group version's v3 document as JSON bytes (serialized once), or undefined when not served. */
export function openAPIv3Json(groupVersionPathOrUrl: string): Buffer | undefined {
  return buildAllV3().get(normalizeGvPath(groupVersionPathOrUrl))?.json;
}

// ---------------------------------------------------------------------------------------------
// Serving.

function etagOf(bytes: Buffer): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}

let v2EtagMemo: string | undefined;

/** Media ranges of an Accept header as `type/subtype` (parameters dropped, `q=0` ranges skipped), in order. */
function acceptedTypes(accept: string | undefined): string[] {
  if (!accept || !accept.trim()) return ['*/*'];
  return accept
    .split(',')
    .map((part) => part.split(';').map((s) => s.trim()))
    .filter(([type, ...params]) => type && !params.some((p) => /^q=0(\.0*)?$/.test(p.replace(/\s/g, ''))))
    .map(([type]) => type.toLowerCase());
}

function matches(range: string, type: string): boolean {
  if (range === '*/*' || range === type) return true;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1));
}

/**
 * Answers the OpenAPI endpoints as a Kubernetes API server does, or returns undefined for other
 * paths: `GET /openapi/v2` (JSON, or the gnostic protobuf when Accept asks for
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` or `….v2.v1.0+protobuf`; 406 when
 * neither fits), `GET /swagger-2.0.0.pb-v1` (always protobuf, kubectl's fallback), `GET /openapi/v3`
 * (the index) and `GET /openapi/v3/<group version>` (JSON; a stale `?hash=` is redirected with 301
 * to the current one, a matching one gets `Cache-Control: public, immutable`). Every answer carries
 * an ETag (upper-case SHA-512 of the JSON document) and honours `If-None-Match` with 304.
 */
export function serveOpenAPI(req: ApiRequest): ApiResponse | undefined {
  const path = req.path.replace(/\/+$/, '') || '/';
  const isV2 = path === '/openapi/v2' || path === '/swagger-2.0.0.pb-v1';
  if (!isV2 && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return { status: 405, headers: { 'content-type': 'text/plain', allow: 'GET, HEAD' }, body: 'method not allowed\n' };
  }
  const reply = (contentType: string, body: Buffer, etag: string, extra: Record<string, string> = {}): ApiResponse => {
    const quoted = `"${etag}"`;
    const headers: Record<string, string> = { 'content-type': contentType, etag: quoted, vary: 'Accept', ...extra };
    if (req.headers['if-none-match']?.split(',').some((t) => t.trim() === quoted || t.trim() === '*')) return { status: 304, headers };
    return { status: 200, headers, body: req.method === 'HEAD' ? undefined : body };
  };
  if (isV2) {
    v2EtagMemo ??= etagOf(openAPIv2Json());
    if (path === '/swagger-2.0.0.pb-v1') return reply(OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openAPIv2Protobuf(), v2EtagMemo);
    for (const range of acceptedTypes(req.headers.accept)) {
      if (matches(range, 'application/json')) return reply('application/json', openAPIv2Json(), v2EtagMemo);
      if (OPENAPI_V2_PROTOBUF_SUBTYPES.some((sub) => range === `application/${sub}`)) return reply(OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openAPIv2Protobuf(), v2EtagMemo);
    }
    return { status: 406, headers: { 'content-type': 'text/plain' }, body: 'not acceptable: /openapi/v2 is served as application/json or application/com.github.proto-openapi.spec.v2.v1.0+protobuf\n' };
  }
  if (path === '/openapi/v3') {
    const body = openAPIv3IndexJson();
    return reply('application/json', body, etagOf(body));
  }
  const gvPath = path.slice('/openapi/v3/'.length);
  const entry = buildAllV3().get(gvPath);
  if (!entry) return { status: 404, headers: { 'content-type': 'text/plain' }, body: `no OpenAPI v3 document for ${gvPath}\n` };
  if (!acceptedTypes(req.headers.accept).some((range) => matches(range, 'application/json'))) {
    return { status: 406, headers: { 'content-type': 'text/plain' }, body: 'not acceptable: /openapi/v3 documents are served as application/json\n' };
  }
  const hash = req.query.get('hash');
  if (hash && hash !== entry.hash) {
    return { status: 301, headers: { location: `/openapi/v3/${gvPath}?hash=${entry.hash}`, 'content-type': 'text/plain' }, body: '' };
  }
  return reply('application/json', entry.json, entry.hash, hash ? { 'cache-control': 'public, immutable' } : {});
}
