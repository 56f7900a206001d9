import { typeModel, type FieldModel } from './typemodel.ts';

/**
 * Kubernetes' merge metadata for the fields of the served kinds, as the Go types of release 1.27
 * declare it: the struct tags `patchStrategy` / `patchMergeKey` (strategic merge patch, and the
 * `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` OpenAPI extensions) and the
 * `+listType` / `+listMapKey` / `+mapType` / `+structType` markers (server-side apply, and the
 * `x-kubernetes-list-type` / `x-kubernetes-list-map-keys` / `x-kubernetes-map-type` extensions).
 *
 * Also here: the few places where the JSON shape of a Kubernetes type differs from its protobuf
 * message (inlined embedded structs, string lists wrapped in a message), which every consumer
 * walking JSON objects by the type model needs.
 */

/** The merge metadata of one field. Absent properties mean Kubernetes' defaults. */
export interface PatchMeta {
  /** `patchStrategy`: `merge`, `retainKeys`, `merge,retainKeys` or `replace`. */
  strategy?: string;
  /** `patchMergeKey`: the key of list items for strategy `merge` on a list of objects. */
  mergeKey?: string;
  /** `+listType`. */
  listType?: 'atomic' | 'set' | 'map';
  /** `+listMapKey` (in order) for `listType: 'map'`. */
  listMapKeys?: string[];
  /** `+mapType` of a map field. */
  mapType?: 'atomic' | 'granular';
  /** `+structType` of the struct the field holds. */
  structType?: 'atomic' | 'granular';
}

const CORE = 'k8s.io.api.core.v1.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const APPS = 'k8s.io.api.apps.v1.';
const BATCH = 'k8s.io.api.batch.v1.';
const DISCOVERY = 'k8s.io.api.discovery.v1.';
const POLICY = 'k8s.io.api.policy.v1.';
const HPA = 'k8s.io.api.autoscaling.v2.';

const byKey = (mergeKey: string, extra: Partial<PatchMeta> = {}): PatchMeta => ({ strategy: 'merge', mergeKey, ...extra });
const mapList = (...keys: string[]): Pick<PatchMeta, 'listType' | 'listMapKeys'> => ({ listType: 'map', listMapKeys: keys });
const CONDITIONS = byKey('type');
const ATOMIC_LIST: PatchMeta = { listType: 'atomic' };
const SET_LIST: PatchMeta = { listType: 'set' };

const CONTAINER_FIELDS: Record<string, PatchMeta> = {
  ports: byKey('containerPort', mapList('containerPort', 'protocol')),
  env: byKey('name'),
  volumeMounts: byKey('mountPath'),
  volumeDevices: byKey('devicePath'),
  resizePolicy: ATOMIC_LIST,
};

/** Field-level tags and markers, keyed by message full name, then JSON field name. */
const FIELDS: Record<string, Record<string, PatchMeta>> = {
  [`${META}ObjectMeta`]: {
    ownerReferences: byKey('uid'),
    finalizers: { strategy: 'merge' },
  },

  [`${CORE}PodSpec`]: {
    volumes: { strategy: 'merge,retainKeys', mergeKey: 'name' },
    initContainers: byKey('name'),
    containers: byKey('name'),
    ephemeralContainers: byKey('name'),
    imagePullSecrets: byKey('name'),
    hostAliases: byKey('ip'),
    nodeSelector: { mapType: 'atomic' },
    topologySpreadConstraints: byKey('topologyKey', mapList('topologyKey', 'whenUnsatisfiable')),
    schedulingGates: byKey('name', mapList('name')),
    resourceClaims: { strategy: 'merge,retainKeys', mergeKey: 'name', ...mapList('name') },
  },
  [`${CORE}Container`]: CONTAINER_FIELDS,
  [`${CORE}EphemeralContainerCommon`]: CONTAINER_FIELDS,
  [`${CORE}ResourceRequirements`]: { claims: mapList('name') },
  [`${CORE}TopologySpreadConstraint`]: { matchLabelKeys: ATOMIC_LIST },
  [`${CORE}PodStatus`]: {
    conditions: CONDITIONS,
    podIPs: byKey('ip'),
  },

  [`${CORE}NodeSpec`]: { podCIDRs: { strategy: 'merge' } },
  [`${CORE}NodeStatus`]: {
    conditions: CONDITIONS,
    addresses: byKey('type'),
  },

  [`${CORE}ServiceSpec`]: {
    ports: byKey('port', mapList('port', 'protocol')),
    selector: { mapType: 'atomic' },
    clusterIPs: ATOMIC_LIST,
    ipFamilies: ATOMIC_LIST,
  },
  [`${CORE}ServiceStatus`]: { conditions: byKey('type', mapList('type')) },
  [`${CORE}LoadBalancerIngress`]: { ports: ATOMIC_LIST },

  [`${CORE}NamespaceStatus`]: { conditions: CONDITIONS },
  [`${CORE}PersistentVolumeClaimStatus`]: { conditions: CONDITIONS },
  [`${CORE}ServiceAccount`]: { secrets: byKey('name') },

  [`${APPS}DeploymentSpec`]: { strategy: { strategy: 'retainKeys' } },
  [`${APPS}DeploymentStatus`]: { conditions: CONDITIONS },
  [`${APPS}ReplicaSetStatus`]: { conditions: CONDITIONS },
  [`${APPS}StatefulSetStatus`]: { conditions: CONDITIONS },
  [`${APPS}DaemonSetStatus`]: { conditions: CONDITIONS },

  [`${BATCH}JobStatus`]: { conditions: byKey('type', ATOMIC_LIST) },
  [`${BATCH}CronJobStatus`]: { active: ATOMIC_LIST },
  [`${BATCH}UncountedTerminatedPods`]: { succeeded: SET_LIST, failed: SET_LIST },
  [`${BATCH}PodFailurePolicy`]: { rules: ATOMIC_LIST },
  [`${BATCH}PodFailurePolicyRule`]: { onPodConditions: ATOMIC_LIST },
  [`${BATCH}PodFailurePolicyOnExitCodesRequirement`]: { values: SET_LIST },

  [`${DISCOVERY}EndpointSlice`]: { endpoints: ATOMIC_LIST, ports: ATOMIC_LIST },
  [`${DISCOVERY}Endpoint`]: { addresses: SET_LIST },
  [`${DISCOVERY}EndpointHints`]: { forZones: ATOMIC_LIST },

  [`${POLICY}PodDisruptionBudgetSpec`]: { selector: { strategy: 'replace' } },
  [`${POLICY}PodDisruptionBudgetStatus`]: { conditions: byKey('type', mapList('type')) },

  [`${HPA}HorizontalPodAutoscalerSpec`]: { metrics: ATOMIC_LIST },
  [`${HPA}HorizontalPodAutoscalerStatus`]: { currentMetrics: ATOMIC_LIST, conditions: byKey('type', mapList('type')) },
  [`${HPA}HPAScalingRules`]: { policies: ATOMIC_LIST },
};

/** `+structType` markers on whole structs (OpenAPI: `x-kubernetes-map-type` on the definition). */
const STRUCT_TYPES: Record<string, 'atomic' | 'granular'> = {
  [`${META}LabelSelector`]: 'atomic',
  [`${META}OwnerReference`]: 'atomic',
  [`${CORE}NodeSelector`]: 'atomic',
  [`${CORE}NodeSelectorTerm`]: 'atomic',
  [`${CORE}ObjectReference`]: 'atomic',
  [`${CORE}LocalObjectReference`]: 'atomic',
  [`${CORE}TypedLocalObjectReference`]: 'atomic',
  [`${CORE}SecretReference`]: 'atomic',
  [`${CORE}ConfigMapKeySelector`]: 'atomic',
  [`${CORE}SecretKeySelector`]: 'atomic',
  [`${CORE}ObjectFieldSelector`]: 'atomic',
  [`${CORE}ResourceFieldSelector`]: 'atomic',
  [`${DISCOVERY}EndpointPort`]: 'atomic',
};

/**
 * Embedded Go structs that JSON inlines but protobuf wraps in a field of their own, as
 * `fieldName:MessageShortName`: the JSON object holds the embedded message's fields directly
 * (`Volume` holds `emptyDir`, `ConfigMapVolumeSource` holds `name`).
 */
const INLINED = new Set([
  'volumeSource:VolumeSource',
  'ephemeralContainerCommon:EphemeralContainerCommon',
  'handler:ProbeHandler',
  'persistentVolumeSource:PersistentVolumeSource',
  'localObjectReference:LocalObjectReference',
  'ingressRuleValue:IngressRuleValue',
  'rule:Rule',
  'ruleWithOperations:RuleWithOperations',
]);

/** Protobuf field names that differ from the JSON names (Go json tags), by `Message.protoName`. */
const JSON_NAMES: Record<string, string> = {
  'IngressClassParametersReference.aPIGroup': 'apiGroup',
  'BoundObjectReference.uID': 'uid',
  'MutatingWebhookConfiguration.Webhooks': 'webhooks',
  'ValidatingWebhookConfiguration.Webhooks': 'webhooks',
  'Validation.Expression': 'expression',
};

const shortName = (full: string) => full.slice(full.lastIndexOf('.') + 1);

function isInlined(f: FieldModel): boolean {
  return f.type.kind === 'message' && !f.repeated && INLINED.has(`${f.name}:${shortName(f.type.message)}`);
}

/**
 * Protobuf messages whose JSON form is a plain array of strings (Go `type ExtraValue []string`,
 * `type Verbs []string`): the message's one repeated field `items` is the array.
 */
export function isStringListMessage(messageName: string): boolean {
  return messageName.endsWith('.ExtraValue') || messageName === `${META}Verbs`;
}

/** The protobuf field names of `messageName` whose message's fields JSON inlines into this object (empty for most). */
export function inlinedFields(messageName: string): readonly string[] {
  return typeModel().message(messageName).fields.filter(isInlined).map((f) => f.name);
}

/** A field as it appears in JSON: its model, its JSON name, and the message that declares it (differs for inlined fields). */
export interface JsonField {
  readonly field: FieldModel;
  readonly jsonName: string;
  readonly owner: string;
}

const jsonFieldCache = new Map<string, ReadonlyMap<string, JsonField>>();

/**
 * The JSON fields of a message, by JSON name, with inlined embedded structs flattened in
 * (so `Volume` has `name`, `emptyDir`, `hostPath`, …) and the few protobuf names that differ
 * from the JSON ones corrected (`aPIGroup` → `apiGroup`). Computed once per message.
 */
export function jsonFields(messageName: string): ReadonlyMap<string, JsonField> {
  const hit = jsonFieldCache.get(messageName);
  if (hit) return hit;
  const out = new Map<string, JsonField>();
  const add = (name: string) => {
    for (const f of typeModel().message(name).fields) {
      if (isInlined(f) && f.type.kind === 'message') add(f.type.message);
      else {
        const jsonName = JSON_NAMES[`${shortName(name)}.${f.name}`] ?? f.name;
        out.set(jsonName, { field: f, jsonName, owner: name });
      }
    }
  };
  add(messageName);
  jsonFieldCache.set(messageName, out);
  return out;
}

/**
 * The table as declared: one row per tagged field, keyed by the message that declares the field
 * (for inlined structs that is the embedded message, e.g. `EphemeralContainerCommon`).
 */
export function declaredPatchMeta(): { message: string; field: string; meta: Readonly<PatchMeta> }[] {
  return Object.entries(FIELDS).flatMap(([message, fields]) => Object.entries(fields).map(([field, meta]) => ({ message, field, meta })));
}

/** The `+structType` marker of a struct (message), if Kubernetes 1.27 declares one. */
export function structTypeOf(messageName: string): 'atomic' | 'granular' | undefined {
  return STRUCT_TYPES[messageName];
}

const EMPTY: ReadonlyMap<string, PatchMeta> = new Map();
const metaCache = new Map<string, ReadonlyMap<string, PatchMeta>>();

/**
 * Every field of a message that carries merge metadata, by JSON name (inlined embedded structs
 * included; the struct marker of a singular field's message folded in as `structType` — list
 * elements keep theirs on the element's definition, see {@link structTypeOf}). Computed once.
 */
export function patchMetaFields(messageName: string): ReadonlyMap<string, PatchMeta> {
  const hit = metaCache.get(messageName);
  if (hit) return hit;
  let out: Map<string, PatchMeta> | undefined;
  const model = typeModel();
  if (model.has(messageName)) {
    for (const [name, { field, owner }] of jsonFields(messageName)) {
      const tagged = FIELDS[owner]?.[field.name];
      const st = field.type.kind === 'message' && !field.repeated && !field.mapKey ? STRUCT_TYPES[field.type.message] : undefined;
      if (!tagged && !st) continue;
      const meta: PatchMeta = { ...tagged };
      if (st) meta.structType = st;
      if (meta.listMapKeys) meta.listMapKeys = Object.freeze([...meta.listMapKeys]) as string[];
      (out ??= new Map()).set(name, Object.freeze(meta));
    }
  }
  const result = out ?? EMPTY;
  metaCache.set(messageName, result);
  return result;
}

/**
 * The merge metadata of field `field` (JSON name) of message `messageName` (protobuf full name,
 * e.g. `k8s.io.api.core.v1.PodSpec`), or undefined when the field has none — that is, maps are
 * granular, lists atomic for apply and replaced by strategic merge patch. Fields of inlined
 * structs are found through the outer message (`Volume`/`emptyDir`, `EphemeralContainer`/`env`).
 */
export function patchMetaFor(messageName: string, field: string): PatchMeta | undefined {
  return patchMetaFields(messageName).get(field);
}
