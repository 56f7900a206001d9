/**
 * The JSON side of the Protobuf codec: how Kubernetes' Go types turn into JSON.
 *
 * Kubernetes' protobuf descriptors say only field names, numbers and types. Its JSON form
 * follows the Go structs instead: a field's JSON key (usually, not always, its protobuf name),
 * whether it is a pointer (written and shown only when set, even to a zero value) or a value
 * (always on the wire; in JSON dropped when zero if tagged `omitempty`), and whether an embedded
 * struct's fields are promoted into its parent (`json:",inline"`). {@link GO_JSON_SHAPES} records
 * those facts for every message of the 1.27 release.
 *
 * Where the table comes from: the struct tags (`json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`)
 * and field kinds (pointer or not, embedded or not) of the k8s.io/api and apimachinery types, read
 * from the reflection data of the kubectl 1.27 binary, cross-checked against the `(gogoproto.nullable)`
 * options of the gogo descriptors embedded in the same binary, and matched to the protobuf fields by
 * field number. The round-trip fixtures in `k8s-api/testdata-v1.27` test the result.
 *
 * Notation: per message, its protobuf fields in Go struct order (the order Go writes JSON keys),
 * space separated, each `protoName` followed by
 * - `=jsonKey` when the JSON key differs from the protobuf name,
 * - `*` when the Go field is a pointer,
 * - `!` when the JSON tag has no `omitempty` (the key is written even when empty: `null`, `0`, `""`),
 * - `^` when the field is an embedded struct whose fields are promoted into the parent's JSON,
 * - `-` when the field is never in JSON (`json:"-"`).
 * A message absent from the table is treated as all pointers with protobuf names as JSON keys.
 */

/** The Go shape of one protobuf field. */
export interface GoFieldShape {
  /** The protobuf field name (key into the descriptor). */
  readonly protoName: string;
  /** The JSON key. */
  readonly jsonName: string;
  /** Go pointer: on the wire and in JSON only when set, including set to a zero value. */
  readonly pointer: boolean;
  /** No `omitempty`: written to JSON even when empty or nil. */
  readonly always: boolean;
  /** Embedded struct whose fields are promoted into the parent's JSON object. */
  readonly inline: boolean;
  /** Never part of the JSON form. */
  readonly skipJson: boolean;
}

/**
 * The Go shape of a message's fields in Go struct order, or undefined when the table has no
 * entry for it (special types such as Time, and messages that are not Go structs).
 */
export function goFieldShapes(messageName: string): readonly GoFieldShape[] | undefined {
  const dot = messageName.lastIndexOf('.');
  const spec = GO_JSON_SHAPES[messageName.slice(0, dot)]?.[messageName.slice(dot + 1)];
  if (spec === undefined) return undefined;
  if (spec === '') return [];
  return spec.split(' ').map((token) => {
    const m = /^([A-Za-z0-9_]+)(?:=([A-Za-z0-9_]+))?([*!^-]*)$/.exec(token);
    if (!m) throw new Error(`bad Go shape token ${token} in ${messageName}`);
    const flags = m[3];
    return {
      protoName: m[1],
      jsonName: m[2] ?? m[1],
      pointer: flags.includes('*'),
      always: flags.includes('!'),
      inline: flags.includes('^'),
      skipJson: flags.includes('-'),
    };
  });
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9})\d*)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** A point in time as protobuf `Timestamp` parts (seconds since the epoch, nanoseconds 0…999999999). */
export interface TimestampParts {
  seconds: number;
  nanos: number;
}

/** The seconds Go's zero `time.Time` (0001-01-01T00:00:00Z) has since the epoch. */
export const GO_ZERO_TIME_SECONDS = -62135596800;

/**
 * Parses an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, s)` does (fractional seconds
 * and offsets accepted); returns undefined when the string is not one.
 */
export function parseRfc3339(s: string): Readonly<TimestampParts> | undefined {
  const hit = parsedTimes.get(s);
  if (hit) return hit;
  const t = parseRfc3339Uncached(s);
  if (t) {
    if (parsedTimes.size >= TIME_CACHE_SIZE) parsedTimes.clear();
    parsedTimes.set(s, t);
  }
  return t;
}

// NOTE: objects carry the same few timestamps over and over; small caches skip Date work.
const TIME_CACHE_SIZE = 4096;
const parsedTimes = new Map<string, Readonly<TimestampParts>>();
const formattedSeconds = new Map<number, string>();

function parseRfc3339Uncached(s: string): TimestampParts | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  d.setUTCHours(hour, minute, second, 0);
  let seconds = d.getTime() / 1000;
  if (m[9]) seconds -= (m[9] === '-' ? -1 : 1) * (+m[10] * 3600 + +m[11] * 60);
  const nanos = m[7] ? +m[7].padEnd(9, '0') : 0;
  return { seconds, nanos };
}

function isoSeconds(seconds: number): string {
  let iso = formattedSeconds.get(seconds);
  if (iso === undefined) {
    const full = new Date(seconds * 1000).toISOString();
    iso = full.slice(0, full.length - 5);
    if (formattedSeconds.size >= TIME_CACHE_SIZE) formattedSeconds.clear();
    formattedSeconds.set(seconds, iso);
  }
  return iso;
}

/**
 * The JSON form of a `metav1.Time`: RFC 3339 in UTC with whole seconds (Go drops the
 * fraction), or null for Go's zero time.
 */
export function formatTime(seconds: number, nanos: number): string | null {
  if (seconds === GO_ZERO_TIME_SECONDS && nanos === 0) return null;
  return `${isoSeconds(seconds)}Z`;
}

/** The JSON form of a `metav1.MicroTime`: RFC 3339 in UTC with exactly six fraction digits, or null for the zero time. */
export function formatMicroTime(seconds: number, nanos: number): string | null {
  if (seconds === GO_ZERO_TIME_SECONDS && nanos === 0) return null;
  return `${isoSeconds(seconds)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  'µs': 1000n,
  'μs': 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/**
 * Parses a Go duration string (`1h2m3.5s`, `-1.5ms`, `0`) into nanoseconds as Go's
 * `time.ParseDuration` does; returns undefined when it is not one.
 */
export function parseGoDuration(s: string): bigint | undefined {
  let rest = s;
  let neg = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const m = part.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = NS_PER_UNIT[m[3]];
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) {
      const scale = 10n ** BigInt(m[2].length);
      total += (BigInt(m[2]) * unit) / scale;
    }
    rest = rest.slice(m[0].length);
  }
  return neg ? -total : total;
}

function fraction(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let printed = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    printed ||= digit !== 0n;
    if (printed) digits = String(digit) + digits;
    v /= 10n;
  }
  return [printed ? `.${digits}` : '', v];
}

/** Go's `time.Duration.String()` of a nanosecond count: `1h2m3.5s`, `1.5ms`, `0s`. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    let prec: number;
    let unit: string;
    if (u < 1000n) [prec, unit] = [0, 'ns'];
    else if (u < 1_000_000n) [prec, unit] = [3, 'µs'];
    else [prec, unit] = [6, 'ms'];
    const [frac, whole] = fraction(u, prec);
    out = `${whole}${frac}${unit}`;
  } else {
    const [frac, secs] = fraction(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/**
 * The Go shape of every message of Kubernetes 1.27, by protobuf package then message name
 * (see the notation at the top of this file). Data, derived as described there.
 */
export const GO_JSON_SHAPES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'k8s.io.api.admission.v1': {
    AdmissionRequest: 'uid! kind! resource! subResource requestKind* requestResource* requestSubResource name namespace operation! userInfo! object oldObject dryRun* options',
    AdmissionResponse: 'uid! allowed! status* patch patchType* auditAnnotations warnings',
    AdmissionReview: 'request* response*',
  },
  'k8s.io.api.admission.v1beta1': {
    AdmissionRequest: 'uid! kind! resource! subResource requestKind* requestResource* requestSubResource name namespace operation! userInfo! object oldObject dryRun* options',
    AdmissionResponse: 'uid! allowed! status* patch patchType* auditAnnotations warnings',
    AdmissionReview: 'request* response*',
  },
  'k8s.io.api.admissionregistration.v1': {
    MatchCondition: 'name! expression!',
    MutatingWebhook: 'name! clientConfig! rules failurePolicy* matchPolicy* namespaceSelector* objectSelector* sideEffects*! timeoutSeconds* admissionReviewVersions! reinvocationPolicy* matchConditions',
    MutatingWebhookConfiguration: 'metadata Webhooks=webhooks',
    MutatingWebhookConfigurationList: 'metadata items!',
    Rule: 'apiGroups apiVersions resources scope*',
    RuleWithOperations: 'operations rule^',
    ServiceReference: 'namespace! name! path* port*',
    ValidatingWebhook: 'name! clientConfig! rules failurePolicy* matchPolicy* namespaceSelector* objectSelector* sideEffects*! timeoutSeconds* admissionReviewVersions! matchConditions',
    ValidatingWebhookConfiguration: 'metadata Webhooks=webhooks',
    ValidatingWebhookConfigurationList: 'metadata items!',
    WebhookClientConfig: 'url* service* caBundle',
  },
  'k8s.io.api.admissionregistration.v1alpha1': {
    AuditAnnotation: 'key! valueExpression!',
    ExpressionWarning: 'fieldRef! warning!',
    MatchCondition: 'name! expression!',
    MatchResources: 'namespaceSelector* objectSelector* resourceRules excludeResourceRules matchPolicy*',
    NamedRuleWithOperations: 'resourceNames ruleWithOperations^',
    ParamKind: 'apiVersion kind',
    ParamRef: 'name namespace',
    TypeChecking: 'expressionWarnings',
    ValidatingAdmissionPolicy: 'metadata spec status',
    ValidatingAdmissionPolicyBinding: 'metadata spec',
    ValidatingAdmissionPolicyBindingList: 'metadata items',
    ValidatingAdmissionPolicyBindingSpec: 'policyName paramRef* matchResources* validationActions',
    ValidatingAdmissionPolicyList: 'metadata items',
    ValidatingAdmissionPolicySpec: 'paramKind* matchConstraints* validations failurePolicy* auditAnnotations matchConditions',
    ValidatingAdmissionPolicyStatus: 'observedGeneration typeChecking* conditions',
    Validation: 'Expression=expression! message reason* messageExpression',
  },
  'k8s.io.api.admissionregistration.v1beta1': {
    MatchCondition: 'name! expression!',
    MutatingWebhook: 'name! clientConfig! rules failurePolicy* matchPolicy* namespaceSelector* objectSelector* sideEffects* timeoutSeconds* admissionReviewVersions reinvocationPolicy* matchConditions',
    MutatingWebhookConfiguration: 'metadata Webhooks=webhooks',
    MutatingWebhookConfigurationList: 'metadata items!',
    ServiceReference: 'namespace! name! path* port*',
    ValidatingWebhook: 'name! clientConfig! rules failurePolicy* matchPolicy* namespaceSelector* objectSelector* sideEffects* timeoutSeconds* admissionReviewVersions matchConditions',
    ValidatingWebhookConfiguration: 'metadata Webhooks=webhooks',
    ValidatingWebhookConfigurationList: 'metadata items!',
    WebhookClientConfig: 'url* service* caBundle',
  },
  'k8s.io.api.apidiscovery.v2beta1': {
    APIGroupDiscovery: 'metadata versions',
    APIGroupDiscoveryList: 'metadata items!',
    APIResourceDiscovery: 'resource! responseKind* scope! singularResource! verbs! shortNames categories subresources',
    APISubresourceDiscovery: 'subresource! responseKind* acceptedTypes verbs!',
    APIVersionDiscovery: 'version! resources freshness',
  },
  'k8s.io.api.apiserverinternal.v1alpha1': {
    ServerStorageVersion: 'apiServerID encodingVersion decodableVersions',
    StorageVersion: 'metadata spec! status!',
    StorageVersionCondition: 'type! status! observedGeneration lastTransitionTime reason! message',
    StorageVersionList: 'metadata items!',
    StorageVersionSpec: '',
    StorageVersionStatus: 'storageVersions commonEncodingVersion* conditions',
  },
  'k8s.io.api.apps.v1': {
    ControllerRevision: 'metadata data revision!',
    ControllerRevisionList: 'metadata items!',
    DaemonSet: 'metadata spec status',
    DaemonSetCondition: 'type! status! lastTransitionTime reason message',
    DaemonSetList: 'metadata items!',
    DaemonSetSpec: 'selector*! template! updateStrategy minReadySeconds revisionHistoryLimit*',
    DaemonSetStatus: 'currentNumberScheduled! numberMisscheduled! desiredNumberScheduled! numberReady! observedGeneration updatedNumberScheduled numberAvailable numberUnavailable collisionCount* conditions',
    DaemonSetUpdateStrategy: 'type rollingUpdate*',
    Deployment: 'metadata spec status',
    DeploymentCondition: 'type! status! lastUpdateTime lastTransitionTime reason message',
    DeploymentList: 'metadata items!',
    DeploymentSpec: 'replicas* selector*! template! strategy minReadySeconds revisionHistoryLimit* paused progressDeadlineSeconds*',
    DeploymentStatus: 'observedGeneration replicas updatedReplicas readyReplicas availableReplicas unavailableReplicas conditions collisionCount*',
    DeploymentStrategy: 'type rollingUpdate*',
    ReplicaSet: 'metadata spec status',
    ReplicaSetCondition: 'type! status! lastTransitionTime reason message',
    ReplicaSetList: 'metadata items!',
    ReplicaSetSpec: 'replicas* minReadySeconds selector*! template',
    ReplicaSetStatus: 'replicas! fullyLabeledReplicas readyReplicas availableReplicas observedGeneration conditions',
    RollingUpdateDaemonSet: 'maxUnavailable* maxSurge*',
    RollingUpdateDeployment: 'maxUnavailable* maxSurge*',
    RollingUpdateStatefulSetStrategy: 'partition* maxUnavailable*',
    StatefulSet: 'metadata spec status',
    StatefulSetCondition: 'type! status! lastTransitionTime reason message',
    StatefulSetList: 'metadata items!',
    StatefulSetOrdinals: 'start!',
    StatefulSetPersistentVolumeClaimRetentionPolicy: 'whenDeleted whenScaled',
    StatefulSetSpec: 'replicas* selector*! template! volumeClaimTemplates serviceName! podManagementPolicy updateStrategy revisionHistoryLimit* minReadySeconds persistentVolumeClaimRetentionPolicy* ordinals*',
    StatefulSetStatus: 'observedGeneration replicas! readyReplicas currentReplicas updatedReplicas currentRevision updateRevision collisionCount* conditions availableReplicas!',
    StatefulSetUpdateStrategy: 'type rollingUpdate*',
  },
  'k8s.io.api.apps.v1beta1': {
    ControllerRevision: 'metadata data revision!',
    ControllerRevisionList: 'metadata items!',
    Deployment: 'metadata spec status',
    DeploymentCondition: 'type! status! lastUpdateTime lastTransitionTime reason message',
    DeploymentList: 'metadata items!',
    DeploymentRollback: 'name! updatedAnnotations rollbackTo!',
    DeploymentSpec: 'replicas* selector* template! strategy minReadySeconds revisionHistoryLimit* paused rollbackTo* progressDeadlineSeconds*',
    DeploymentStatus: 'observedGeneration replicas updatedReplicas readyReplicas availableReplicas unavailableReplicas conditions collisionCount*',
    DeploymentStrategy: 'type rollingUpdate*',
    RollbackConfig: 'revision',
    RollingUpdateDeployment: 'maxUnavailable* maxSurge*',
    RollingUpdateStatefulSetStrategy: 'partition* maxUnavailable*',
    Scale: 'metadata spec status',
    ScaleSpec: 'replicas',
    ScaleStatus: 'replicas! selector targetSelector',
    StatefulSet: 'metadata spec status',
    StatefulSetCondition: 'type! status! lastTransitionTime reason message',
    StatefulSetList: 'metadata items!',
    StatefulSetOrdinals: 'start!',
    StatefulSetPersistentVolumeClaimRetentionPolicy: 'whenDeleted whenScaled',
    StatefulSetSpec: 'replicas* selector* template! volumeClaimTemplates serviceName! podManagementPolicy updateStrategy revisionHistoryLimit* minReadySeconds persistentVolumeClaimRetentionPolicy* ordinals*',
    StatefulSetStatus: 'observedGeneration* replicas! readyReplicas currentReplicas updatedReplicas currentRevision updateRevision collisionCount* conditions availableReplicas!',
    StatefulSetUpdateStrategy: 'type rollingUpdate*',
  },
  'k8s.io.api.apps.v1beta2': {
    ControllerRevision: 'metadata data revision!',
    ControllerRevisionList: 'metadata items!',
    DaemonSet: 'metadata spec status',
    DaemonSetCondition: 'type! status! lastTransitionTime reason message',
    DaemonSetList: 'metadata items!',
    DaemonSetSpec: 'selector*! template! updateStrategy minReadySeconds revisionHistoryLimit*',
    DaemonSetStatus: 'currentNumberScheduled! numberMisscheduled! desiredNumberScheduled! numberReady! observedGeneration updatedNumberScheduled numberAvailable numberUnavailable collisionCount* conditions',
    DaemonSetUpdateStrategy: 'type rollingUpdate*',
    Deployment: 'metadata spec status',
    DeploymentCondition: 'type! status! lastUpdateTime lastTransitionTime reason message',
    DeploymentList: 'metadata items!',
    DeploymentSpec: 'replicas* selector*! template! strategy minReadySeconds revisionHistoryLimit* paused progressDeadlineSeconds*',
    DeploymentStatus: 'observedGeneration replicas updatedReplicas readyReplicas availableReplicas unavailableReplicas conditions collisionCount*',
    DeploymentStrategy: 'type rollingUpdate*',
    ReplicaSet: 'metadata spec status',
    ReplicaSetCondition: 'type! status! lastTransitionTime reason message',
    ReplicaSetList: 'metadata items!',
    ReplicaSetSpec: 'replicas* minReadySeconds selector*! template',
    ReplicaSetStatus: 'replicas! fullyLabeledReplicas readyReplicas availableReplicas observedGeneration conditions',
    RollingUpdateDaemonSet: 'maxUnavailable* maxSurge*',
    RollingUpdateDeployment: 'maxUnavailable* maxSurge*',
    RollingUpdateStatefulSetStrategy: 'partition* maxUnavailable*',
    Scale: 'metadata spec status',
    ScaleSpec: 'replicas',
    ScaleStatus: 'replicas! selector targetSelector',
    StatefulSet: 'metadata spec status',
    StatefulSetCondition: 'type! status! lastTransitionTime reason message',
    StatefulSetList: 'metadata items!',
    StatefulSetOrdinals: 'start!',
    StatefulSetPersistentVolumeClaimRetentionPolicy: 'whenDeleted whenScaled',
    StatefulSetSpec: 'replicas* selector*! template! volumeClaimTemplates serviceName! podManagementPolicy updateStrategy revisionHistoryLimit* minReadySeconds persistentVolumeClaimRetentionPolicy* ordinals*',
    StatefulSetStatus: 'observedGeneration replicas! readyReplicas currentReplicas updatedReplicas currentRevision updateRevision collisionCount* conditions availableReplicas!',
    StatefulSetUpdateStrategy: 'type rollingUpdate*',
  },
  'k8s.io.api.authentication.v1': {
    BoundObjectReference: 'kind apiVersion name uID=uid',
    TokenRequest: 'metadata spec! status',
    TokenRequestSpec: 'audiences! expirationSeconds*! boundObjectRef*!',
    TokenRequestStatus: 'token! expirationTimestamp!',
    TokenReview: 'metadata spec! status',
    TokenReviewSpec: 'token audiences',
    TokenReviewStatus: 'authenticated user audiences error',
    UserInfo: 'username uid groups extra',
  },
  'k8s.io.api.authentication.v1alpha1': {
    SelfSubjectReview: 'metadata status',
    SelfSubjectReviewStatus: 'userInfo',
  },
  'k8s.io.api.authentication.v1beta1': {
    SelfSubjectReview: 'metadata status',
    SelfSubjectReviewStatus: 'userInfo',
    TokenReview: 'metadata spec! status',
    TokenReviewSpec: 'token audiences',
    TokenReviewStatus: 'authenticated user audiences error',
    UserInfo: 'username uid groups extra',
  },
  'k8s.io.api.authorization.v1': {
    LocalSubjectAccessReview: 'metadata spec! status',
    NonResourceAttributes: 'path verb',
    NonResourceRule: 'verbs! nonResourceURLs',
    ResourceAttributes: 'namespace verb group version resource subresource name',
    ResourceRule: 'verbs! apiGroups resources resourceNames',
    SelfSubjectAccessReview: 'metadata spec! status',
    SelfSubjectAccessReviewSpec: 'resourceAttributes* nonResourceAttributes*',
    SelfSubjectRulesReview: 'metadata spec! status',
    SelfSubjectRulesReviewSpec: 'namespace',
    SubjectAccessReview: 'metadata spec! status',
    SubjectAccessReviewSpec: 'resourceAttributes* nonResourceAttributes* user groups extra uid',
    SubjectAccessReviewStatus: 'allowed! denied reason evaluationError',
    SubjectRulesReviewStatus: 'resourceRules! nonResourceRules! incomplete! evaluationError',
  },
  'k8s.io.api.authorization.v1beta1': {
    LocalSubjectAccessReview: 'metadata spec! status',
    NonResourceAttributes: 'path verb',
    NonResourceRule: 'verbs! nonResourceURLs',
    ResourceAttributes: 'namespace verb group version resource subresource name',
    ResourceRule: 'verbs! apiGroups resources resourceNames',
    SelfSubjectAccessReview: 'metadata spec! status',
    SelfSubjectAccessReviewSpec: 'resourceAttributes* nonResourceAttributes*',
    SelfSubjectRulesReview: 'metadata spec! status',
    SelfSubjectRulesReviewSpec: 'namespace',
    SubjectAccessReview: 'metadata spec! status',
    SubjectAccessReviewSpec: 'resourceAttributes* nonResourceAttributes* user group extra uid',
    SubjectAccessReviewStatus: 'allowed! denied reason evaluationError',
    SubjectRulesReviewStatus: 'resourceRules! nonResourceRules! incomplete! evaluationError',
  },
  'k8s.io.api.autoscaling.v1': {
    ContainerResourceMetricSource: 'name! targetAverageUtilization* targetAverageValue* container!',
    ContainerResourceMetricStatus: 'name! currentAverageUtilization* currentAverageValue! container!',
    CrossVersionObjectReference: 'kind! name! apiVersion',
    ExternalMetricSource: 'metricName! metricSelector* targetValue* targetAverageValue*',
    ExternalMetricStatus: 'metricName! metricSelector* currentValue! currentAverageValue*',
    HorizontalPodAutoscaler: 'metadata spec status',
    HorizontalPodAutoscalerCondition: 'type! status! lastTransitionTime reason message',
    HorizontalPodAutoscalerList: 'metadata items!',
    HorizontalPodAutoscalerSpec: 'scaleTargetRef! minReplicas* maxReplicas! targetCPUUtilizationPercentage*',
    HorizontalPodAutoscalerStatus: 'observedGeneration* lastScaleTime* currentReplicas! desiredReplicas! currentCPUUtilizationPercentage*',
    MetricSpec: 'type! object* pods* resource* containerResource* external*',
    MetricStatus: 'type! object* pods* resource* containerResource* external*',
    ObjectMetricSource: 'target! metricName! targetValue! selector* averageValue*',
    ObjectMetricStatus: 'target! metricName! currentValue! selector* averageValue*',
    PodsMetricSource: 'metricName! targetAverageValue! selector*',
    PodsMetricStatus: 'metricName! currentAverageValue! selector*',
    ResourceMetricSource: 'name! targetAverageUtilization* targetAverageValue*',
    ResourceMetricStatus: 'name! currentAverageUtilization* currentAverageValue!',
    Scale: 'metadata spec status',
    ScaleSpec: 'replicas',
    ScaleStatus: 'replicas! selector',
  },
  'k8s.io.api.autoscaling.v2': {
    ContainerResourceMetricSource: 'name! target! container!',
    ContainerResourceMetricStatus: 'name! current! container!',
    CrossVersionObjectReference: 'kind! name! apiVersion',
    ExternalMetricSource: 'metric! target!',
    ExternalMetricStatus: 'metric! current!',
    HPAScalingPolicy: 'type! value! periodSeconds!',
    HPAScalingRules: 'stabilizationWindowSeconds* selectPolicy* policies',
    HorizontalPodAutoscaler: 'metadata spec status',
    HorizontalPodAutoscalerBehavior: 'scaleUp* scaleDown*',
    HorizontalPodAutoscalerCondition: 'type! status! lastTransitionTime reason message',
    HorizontalPodAutoscalerList: 'metadata items!',
    HorizontalPodAutoscalerSpec: 'scaleTargetRef! minReplicas* maxReplicas! metrics behavior*',
    HorizontalPodAutoscalerStatus: 'observedGeneration* lastScaleTime* currentReplicas desiredReplicas! currentMetrics! conditions',
    MetricIdentifier: 'name! selector*',
    MetricSpec: 'type! object* pods* resource* containerResource* external*',
    MetricStatus: 'type! object* pods* resource* containerResource* external*',
    MetricTarget: 'type! value* averageValue* averageUtilization*',
    MetricValueStatus: 'value* averageValue* averageUtilization*',
    ObjectMetricSource: 'describedObject! target! metric!',
    ObjectMetricStatus: 'metric! current! describedObject!',
    PodsMetricSource: 'metric! target!',
    PodsMetricStatus: 'metric! current!',
    ResourceMetricSource: 'name! target!',
    ResourceMetricStatus: 'name! current!',
  },
  'k8s.io.api.autoscaling.v2beta1': {
    ContainerResourceMetricSource: 'name! targetAverageUtilization* targetAverageValue* container!',
    ContainerResourceMetricStatus: 'name! currentAverageUtilization* currentAverageValue! container!',
    CrossVersionObjectReference: 'kind! name! apiVersion',
    ExternalMetricSource: 'metricName! metricSelector* targetValue* targetAverageValue*',
    ExternalMetricStatus: 'metricName! metricSelector* currentValue! currentAverageValue*',
    HorizontalPodAutoscaler: 'metadata spec status',
    HorizontalPodAutoscalerCondition: 'type! status! lastTransitionTime reason message',
    HorizontalPodAutoscalerList: 'metadata items!',
    HorizontalPodAutoscalerSpec: 'scaleTargetRef! minReplicas* maxReplicas! metrics',
    HorizontalPodAutoscalerStatus: 'observedGeneration* lastScaleTime* currentReplicas! desiredReplicas! currentMetrics! conditions!',
    MetricSpec: 'type! object* pods* resource* containerResource* external*',
    MetricStatus: 'type! object* pods* resource* containerResource* external*',
    ObjectMetricSource: 'target! metricName! targetValue! selector* averageValue*',
    ObjectMetricStatus: 'target! metricName! currentValue! selector* averageValue*',
    PodsMetricSource: 'metricName! targetAverageValue! selector*',
    PodsMetricStatus: 'metricName! currentAverageValue! selector*',
    ResourceMetricSource: 'name! targetAverageUtilization* targetAverageValue*',
    ResourceMetricStatus: 'name! currentAverageUtilization* currentAverageValue!',
  },
  'k8s.io.api.autoscaling.v2beta2': {
    ContainerResourceMetricSource: 'name! target! container!',
    ContainerResourceMetricStatus: 'name! current! container!',
    CrossVersionObjectReference: 'kind! name! apiVersion',
    ExternalMetricSource: 'metric! target!',
    ExternalMetricStatus: 'metric! current!',
    HPAScalingPolicy: 'type! value! periodSeconds!',
    HPAScalingRules: 'stabilizationWindowSeconds* selectPolicy* policies',
    HorizontalPodAutoscaler: 'metadata spec status',
    HorizontalPodAutoscalerBehavior: 'scaleUp* scaleDown*',
    HorizontalPodAutoscalerCondition: 'type! status! lastTransitionTime reason message',
    HorizontalPodAutoscalerList: 'metadata items!',
    HorizontalPodAutoscalerSpec: 'scaleTargetRef! minReplicas* maxReplicas! metrics behavior*',
    HorizontalPodAutoscalerStatus: 'observedGeneration* lastScaleTime* currentReplicas! desiredReplicas! currentMetrics! conditions!',
    MetricIdentifier: 'name! selector*',
    MetricSpec: 'type! object* pods* resource* containerResource* external*',
    MetricStatus: 'type! object* pods* resource* containerResource* external*',
    MetricTarget: 'type! value* averageValue* averageUtilization*',
    MetricValueStatus: 'value* averageValue* averageUtilization*',
    ObjectMetricSource: 'describedObject! target! metric!',
    ObjectMetricStatus: 'metric! current! describedObject!',
    PodsMetricSource: 'metric! target!',
    PodsMetricStatus: 'metric! current!',
    ResourceMetricSource: 'name! target!',
    ResourceMetricStatus: 'name! current!',
  },
  'k8s.io.api.batch.v1': {
    CronJob: 'metadata spec status',
    CronJobList: 'metadata items!',
    CronJobSpec: 'schedule! timeZone* startingDeadlineSeconds* concurrencyPolicy suspend* jobTemplate! successfulJobsHistoryLimit* failedJobsHistoryLimit*',
    CronJobStatus: 'active lastScheduleTime* lastSuccessfulTime*',
    Job: 'metadata spec status',
    JobCondition: 'type! status! lastProbeTime lastTransitionTime reason message',
    JobList: 'metadata items!',
    JobSpec: 'parallelism* completions* activeDeadlineSeconds* podFailurePolicy* backoffLimit* selector* manualSelector* template! ttlSecondsAfterFinished* completionMode* suspend*',
    JobStatus: 'conditions startTime* completionTime* active succeeded failed completedIndexes uncountedTerminatedPods* ready*',
    JobTemplateSpec: 'metadata spec',
    PodFailurePolicy: 'rules!',
    PodFailurePolicyOnExitCodesRequirement: 'containerName*! operator! values!',
    PodFailurePolicyOnPodConditionsPattern: 'type! status!',
    PodFailurePolicyRule: 'action! onExitCodes*! onPodConditions!',
    UncountedTerminatedPods: 'succeeded failed',
  },
  'k8s.io.api.batch.v1beta1': {
    CronJob: 'metadata spec status',
    CronJobList: 'metadata items!',
    CronJobSpec: 'schedule! timeZone* startingDeadlineSeconds* concurrencyPolicy suspend* jobTemplate! successfulJobsHistoryLimit* failedJobsHistoryLimit*',
    CronJobStatus: 'active lastScheduleTime* lastSuccessfulTime*',
    JobTemplateSpec: 'metadata spec',
  },
  'k8s.io.api.certificates.v1': {
    CertificateSigningRequest: 'metadata spec! status',
    CertificateSigningRequestCondition: 'type! status! reason message lastUpdateTime lastTransitionTime',
    CertificateSigningRequestList: 'metadata items!',
    CertificateSigningRequestSpec: 'request! signerName! expirationSeconds* usages username uid groups extra',
    CertificateSigningRequestStatus: 'conditions certificate',
  },
  'k8s.io.api.certificates.v1alpha1': {
    ClusterTrustBundle: 'metadata spec!',
    ClusterTrustBundleList: 'metadata items!',
    ClusterTrustBundleSpec: 'signerName trustBundle!',
  },
  'k8s.io.api.certificates.v1beta1': {
    CertificateSigningRequest: 'metadata spec! status',
    CertificateSigningRequestCondition: 'type! status! reason message lastUpdateTime lastTransitionTime',
    CertificateSigningRequestList: 'metadata items!',
    CertificateSigningRequestSpec: 'request! signerName* expirationSeconds* usages username uid groups extra',
    CertificateSigningRequestStatus: 'conditions certificate',
  },
  'k8s.io.api.coordination.v1': {
    Lease: 'metadata spec',
    LeaseList: 'metadata items!',
    LeaseSpec: 'holderIdentity* leaseDurationSeconds* acquireTime* renewTime* leaseTransitions*',
  },
  'k8s.io.api.coordination.v1beta1': {
    Lease: 'metadata spec',
    LeaseList: 'metadata items!',
    LeaseSpec: 'holderIdentity* leaseDurationSeconds* acquireTime* renewTime* leaseTransitions*',
  },
  'k8s.io.api.core.v1': {
    AWSElasticBlockStoreVolumeSource: 'volumeID! fsType partition readOnly',
    Affinity: 'nodeAffinity* podAffinity* podAntiAffinity*',
    AttachedVolume: 'name! devicePath!',
    AvoidPods: 'preferAvoidPods',
    AzureDiskVolumeSource: 'diskName! diskURI! cachingMode* fsType* readOnly* kind*',
    AzureFilePersistentVolumeSource: 'secretName! shareName! readOnly secretNamespace*!',
    AzureFileVolumeSource: 'secretName! shareName! readOnly',
    Binding: 'metadata target!',
    CSIPersistentVolumeSource: 'driver! volumeHandle! readOnly fsType volumeAttributes controllerPublishSecretRef* nodeStageSecretRef* nodePublishSecretRef* controllerExpandSecretRef* nodeExpandSecretRef*',
    CSIVolumeSource: 'driver! readOnly* fsType* volumeAttributes nodePublishSecretRef*',
    Capabilities: 'add drop',
    CephFSPersistentVolumeSource: 'monitors! path user secretFile secretRef* readOnly',
    CephFSVolumeSource: 'monitors! path user secretFile secretRef* readOnly',
    CinderPersistentVolumeSource: 'volumeID! fsType readOnly secretRef*',
    CinderVolumeSource: 'volumeID! fsType readOnly secretRef*',
    ClaimSource: 'resourceClaimName* resourceClaimTemplateName*',
    ClientIPConfig: 'timeoutSeconds*',
    ComponentCondition: 'type! status! message error',
    ComponentStatus: 'metadata conditions',
    ComponentStatusList: 'metadata items!',
    ConfigMap: 'metadata immutable* data binaryData',
    ConfigMapEnvSource: 'localObjectReference^ optional*',
    ConfigMapKeySelector: 'localObjectReference^ key! optional*',
    ConfigMapList: 'metadata items!',
    ConfigMapNodeConfigSource: 'namespace! name! uid resourceVersion kubeletConfigKey!',
    ConfigMapProjection: 'localObjectReference^ items optional*',
    ConfigMapVolumeSource: 'localObjectReference^ items defaultMode* optional*',
    Container: 'name! image command args workingDir ports envFrom env resources resizePolicy volumeMounts volumeDevices livenessProbe* readinessProbe* startupProbe* lifecycle* terminationMessagePath terminationMessagePolicy imagePullPolicy securityContext* stdin stdinOnce tty',
    ContainerImage: 'names! sizeBytes',
    ContainerPort: 'name hostPort containerPort! protocol hostIP',
    ContainerResizePolicy: 'resourceName! restartPolicy!',
    ContainerState: 'waiting* running* terminated*',
    ContainerStateRunning: 'startedAt',
    ContainerStateTerminated: 'exitCode! signal reason message startedAt finishedAt containerID',
    ContainerStateWaiting: 'reason message',
    ContainerStatus: 'name! state lastState ready! restartCount! image! imageID! containerID started* allocatedResources resources*',
    DaemonEndpoint: 'Port!',
    DownwardAPIProjection: 'items',
    DownwardAPIVolumeFile: 'path! fieldRef* resourceFieldRef* mode*',
    DownwardAPIVolumeSource: 'items defaultMode*',
    EmptyDirVolumeSource: 'medium sizeLimit*',
    EndpointAddress: 'ip! hostname nodeName* targetRef*',
    EndpointPort: 'name port! protocol appProtocol*',
    EndpointSubset: 'addresses notReadyAddresses ports',
    Endpoints: 'metadata subsets',
    EndpointsList: 'metadata items!',
    EnvFromSource: 'prefix configMapRef* secretRef*',
    EnvVar: 'name! value valueFrom*',
    EnvVarSource: 'fieldRef* resourceFieldRef* configMapKeyRef* secretKeyRef*',
    EphemeralContainer: 'ephemeralContainerCommon^ targetContainerName',
    EphemeralContainerCommon: 'name! image command args workingDir ports envFrom env resources resizePolicy volumeMounts volumeDevices livenessProbe* readinessProbe* startupProbe* lifecycle* terminationMessagePath terminationMessagePolicy imagePullPolicy securityContext* stdin stdinOnce tty',
    EphemeralVolumeSource: 'volumeClaimTemplate*',
    Event: 'metadata! involvedObject! reason message source firstTimestamp lastTimestamp count type eventTime series* action related* reportingComponent! reportingInstance!',
    EventList: 'metadata items!',
    EventSeries: 'count lastObservedTime',
    EventSource: 'component host',
    ExecAction: 'command',
    FCVolumeSource: 'targetWWNs lun* fsType readOnly wwids',
    FlexPersistentVolumeSource: 'driver! fsType secretRef* readOnly options',
    FlexVolumeSource: 'driver! fsType secretRef* readOnly options',
    FlockerVolumeSource: 'datasetName datasetUUID',
    GCEPersistentDiskVolumeSource: 'pdName! fsType partition readOnly',
    GRPCAction: 'port! service*!',
    GitRepoVolumeSource: 'repository! revision directory',
    GlusterfsPersistentVolumeSource: 'endpoints! path! readOnly endpointsNamespace*',
    GlusterfsVolumeSource: 'endpoints! path! readOnly',
    HTTPGetAction: 'path port! host scheme httpHeaders',
    HTTPHeader: 'name! value!',
    HostAlias: 'ip hostnames',
    HostPathVolumeSource: 'path! type*',
    ISCSIPersistentVolumeSource: 'targetPortal! iqn! lun! iscsiInterface fsType readOnly portals chapAuthDiscovery chapAuthSession secretRef* initiatorName*',
    ISCSIVolumeSource: 'targetPortal! iqn! lun! iscsiInterface fsType readOnly portals chapAuthDiscovery chapAuthSession secretRef* initiatorName*',
    KeyToPath: 'key! path! mode*',
    Lifecycle: 'postStart* preStop*',
    LifecycleHandler: 'exec* httpGet* tcpSocket*',
    LimitRange: 'metadata spec',
    LimitRangeItem: 'type! max min default defaultRequest maxLimitRequestRatio',
    LimitRangeList: 'metadata items!',
    LimitRangeSpec: 'limits!',
    List: 'metadata items!',
    LoadBalancerIngress: 'ip hostname ports',
    LoadBalancerStatus: 'ingress',
    LocalObjectReference: 'name',
    LocalVolumeSource: 'path! fsType*',
    NFSVolumeSource: 'server! path! readOnly',
    Namespace: 'metadata spec status',
    NamespaceCondition: 'type! status! lastTransitionTime reason message',
    NamespaceList: 'metadata items!',
    NamespaceSpec: 'finalizers',
    NamespaceStatus: 'phase conditions',
    Node: 'metadata spec status',
    NodeAddress: 'type! address!',
    NodeAffinity: 'requiredDuringSchedulingIgnoredDuringExecution* preferredDuringSchedulingIgnoredDuringExecution',
    NodeCondition: 'type! status! lastHeartbeatTime lastTransitionTime reason message',
    NodeConfigSource: 'configMap*',
    NodeConfigStatus: 'assigned* active* lastKnownGood* error',
    NodeDaemonEndpoints: 'kubeletEndpoint',
    NodeList: 'metadata items!',
    NodeProxyOptions: 'path',
    NodeResources: 'capacity=Capacity!',
    NodeSelector: 'nodeSelectorTerms!',
    NodeSelectorRequirement: 'key! operator! values',
    NodeSelectorTerm: 'matchExpressions matchFields',
    NodeSpec: 'podCIDR podCIDRs providerID unschedulable taints configSource* externalID',
    NodeStatus: 'capacity allocatable phase conditions addresses daemonEndpoints nodeInfo images volumesInUse volumesAttached config*',
    NodeSystemInfo: 'machineID! systemUUID! bootID! kernelVersion! osImage! containerRuntimeVersion! kubeletVersion! kubeProxyVersion! operatingSystem! architecture!',
    ObjectFieldSelector: 'apiVersion fieldPath!',
    ObjectReference: 'kind namespace name uid apiVersion resourceVersion fieldPath',
    PersistentVolume: 'metadata spec status',
    PersistentVolumeClaim: 'metadata spec status',
    PersistentVolumeClaimCondition: 'type! status! lastProbeTime lastTransitionTime reason message',
    PersistentVolumeClaimList: 'metadata items!',
    PersistentVolumeClaimSpec: 'accessModes selector* resources volumeName storageClassName* volumeMode* dataSource* dataSourceRef*',
    PersistentVolumeClaimStatus: 'phase accessModes capacity conditions allocatedResources resizeStatus*',
    PersistentVolumeClaimTemplate: 'metadata spec!',
    PersistentVolumeClaimVolumeSource: 'claimName! readOnly',
    PersistentVolumeList: 'metadata items!',
    PersistentVolumeSource: 'gcePersistentDisk* awsElasticBlockStore* hostPath* glusterfs* nfs* rbd* iscsi* cinder* cephfs* fc* flocker* flexVolume* azureFile* vsphereVolume* quobyte* azureDisk* photonPersistentDisk* portworxVolume* scaleIO* local* storageos* csi*',
    PersistentVolumeSpec: 'capacity persistentVolumeSource^ accessModes claimRef* persistentVolumeReclaimPolicy storageClassName mountOptions volumeMode* nodeAffinity*',
    PersistentVolumeStatus: 'phase message reason',
    PhotonPersistentDiskVolumeSource: 'pdID! fsType',
    Pod: 'metadata spec status',
    PodAffinity: 'requiredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution',
    PodAffinityTerm: 'labelSelector* namespaces topologyKey! namespaceSelector*',
    PodAntiAffinity: 'requiredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution',
    PodAttachOptions: 'stdin stdout stderr tty container',
    PodCondition: 'type! status! lastProbeTime lastTransitionTime reason message',
    PodDNSConfig: 'nameservers searches options',
    PodDNSConfigOption: 'name value*',
    PodExecOptions: 'stdin stdout stderr tty container command!',
    PodIP: 'ip',
    PodList: 'metadata items!',
    PodLogOptions: 'container follow previous sinceSeconds* sinceTime* timestamps tailLines* limitBytes* insecureSkipTLSVerifyBackend',
    PodOS: 'name!',
    PodPortForwardOptions: 'ports',
    PodProxyOptions: 'path',
    PodReadinessGate: 'conditionType!',
    PodResourceClaim: 'name! source',
    PodSchedulingGate: 'name!',
    PodSecurityContext: 'seLinuxOptions* windowsOptions* runAsUser* runAsGroup* runAsNonRoot* supplementalGroups fsGroup* sysctls fsGroupChangePolicy* seccompProfile*',
    PodSignature: 'podController*',
    PodSpec: 'volumes initContainers containers! ephemeralContainers restartPolicy terminationGracePeriodSeconds* activeDeadlineSeconds* dnsPolicy nodeSelector serviceAccountName serviceAccount automountServiceAccountToken* nodeName hostNetwork hostPID hostIPC shareProcessNamespace* securityContext* imagePullSecrets hostname subdomain affinity* schedulerName tolerations hostAliases priorityClassName priority* dnsConfig* readinessGates runtimeClassName* enableServiceLinks* preemptionPolicy* overhead topologySpreadConstraints setHostnameAsFQDN* os* hostUsers* schedulingGates resourceClaims',
    PodStatus: 'phase conditions message reason nominatedNodeName hostIP podIP podIPs startTime* initContainerStatuses containerStatuses qosClass ephemeralContainerStatuses resize',
    PodStatusResult: 'metadata status',
    PodTemplate: 'metadata template',
    PodTemplateList: 'metadata items!',
    PodTemplateSpec: 'metadata spec',
    PortStatus: 'port! protocol! error*',
    PortworxVolumeSource: 'volumeID! fsType readOnly',
    Preconditions: 'uid*',
    PreferAvoidPodsEntry: 'podSignature! evictionTime reason message',
    PreferredSchedulingTerm: 'weight! preference!',
    Probe: 'handler^ initialDelaySeconds timeoutSeconds periodSeconds successThreshold failureThreshold terminationGracePeriodSeconds*',
    ProbeHandler: 'exec* httpGet* tcpSocket* grpc*',
    ProjectedVolumeSource: 'sources! defaultMode*',
    QuobyteVolumeSource: 'registry! volume! readOnly user group tenant',
    RBDPersistentVolumeSource: 'monitors! image! fsType pool user keyring secretRef* readOnly',
    RBDVolumeSource: 'monitors! image! fsType pool user keyring secretRef* readOnly',
    RangeAllocation: 'metadata range! data!',
    ReplicationController: 'metadata spec status',
    ReplicationControllerCondition: 'type! status! lastTransitionTime reason message',
    ReplicationControllerList: 'metadata items!',
    ReplicationControllerSpec: 'replicas* minReadySeconds selector template*',
    ReplicationControllerStatus: 'replicas! fullyLabeledReplicas readyReplicas availableReplicas observedGeneration conditions',
    ResourceClaim: 'name!',
    ResourceFieldSelector: 'containerName resource! divisor',
    ResourceQuota: 'metadata spec status',
    ResourceQuotaList: 'metadata items!',
    ResourceQuotaSpec: 'hard scopes scopeSelector*',
    ResourceQuotaStatus: 'hard used',
    ResourceRequirements: 'limits requests claims',
    SELinuxOptions: 'user role type level',
    ScaleIOPersistentVolumeSource: 'gateway! system! secretRef*! sslEnabled protectionDomain storagePool storageMode volumeName fsType readOnly',
    ScaleIOVolumeSource: 'gateway! system! secretRef*! sslEnabled protectionDomain storagePool storageMode volumeName fsType readOnly',
    ScopeSelector: 'matchExpressions',
    ScopedResourceSelectorRequirement: 'scopeName! operator! values',
    SeccompProfile: 'type! localhostProfile*',
    Secret: 'metadata immutable* data stringData type',
    SecretEnvSource: 'localObjectReference^ optional*',
    SecretKeySelector: 'localObjectReference^ key! optional*',
    SecretList: 'metadata items!',
    SecretProjection: 'localObjectReference^ items optional*',
    SecretReference: 'name namespace',
    SecretVolumeSource: 'secretName items defaultMode* optional*',
    SecurityContext: 'capabilities* privileged* seLinuxOptions* windowsOptions* runAsUser* runAsGroup* runAsNonRoot* readOnlyRootFilesystem* allowPrivilegeEscalation* procMount* seccompProfile*',
    SerializedReference: 'reference',
    Service: 'metadata spec status',
    ServiceAccount: 'metadata secrets imagePullSecrets automountServiceAccountToken*',
    ServiceAccountList: 'metadata items!',
    ServiceAccountTokenProjection: 'audience expirationSeconds* path!',
    ServiceList: 'metadata items!',
    ServicePort: 'name protocol appProtocol* port! targetPort nodePort',
    ServiceProxyOptions: 'path',
    ServiceSpec: 'ports selector clusterIP clusterIPs type externalIPs sessionAffinity loadBalancerIP loadBalancerSourceRanges externalName externalTrafficPolicy healthCheckNodePort publishNotReadyAddresses sessionAffinityConfig* ipFamilies ipFamilyPolicy* allocateLoadBalancerNodePorts* loadBalancerClass* internalTrafficPolicy*',
    ServiceStatus: 'loadBalancer conditions',
    SessionAffinityConfig: 'clientIP*',
    StorageOSPersistentVolumeSource: 'volumeName volumeNamespace fsType readOnly secretRef*',
    StorageOSVolumeSource: 'volumeName volumeNamespace fsType readOnly secretRef*',
    Sysctl: 'name! value!',
    TCPSocketAction: 'port! host',
    Taint: 'key! value effect! timeAdded*',
    Toleration: 'key operator value effect tolerationSeconds*',
    TopologySelectorLabelRequirement: 'key! values!',
    TopologySelectorTerm: 'matchLabelExpressions',
    TopologySpreadConstraint: 'maxSkew! topologyKey! whenUnsatisfiable! labelSelector* minDomains* nodeAffinityPolicy* nodeTaintsPolicy* matchLabelKeys',
    TypedLocalObjectReference: 'apiGroup*! kind! name!',
    TypedObjectReference: 'apiGroup*! kind! name! namespace*',
    Volume: 'name! volumeSource^',
    VolumeDevice: 'name! devicePath!',
    VolumeMount: 'name! readOnly mountPath! subPath mountPropagation* subPathExpr',
    VolumeNodeAffinity: 'required*',
    VolumeProjection: 'secret* downwardAPI* configMap* serviceAccountToken*',
    VolumeSource: 'hostPath* emptyDir* gcePersistentDisk* awsElasticBlockStore* gitRepo* secret* nfs* iscsi* glusterfs* persistentVolumeClaim* rbd* flexVolume* cinder* cephfs* flocker* downwardAPI* fc* azureFile* configMap* vsphereVolume* quobyte* azureDisk* photonPersistentDisk* projected* portworxVolume* scaleIO* storageos* csi* ephemeral*',
    VsphereVirtualDiskVolumeSource: 'volumePath! fsType storagePolicyName storagePolicyID',
    WeightedPodAffinityTerm: 'weight! podAffinityTerm!',
    WindowsSecurityContextOptions: 'gmsaCredentialSpecName* gmsaCredentialSpec* runAsUserName* hostProcess*',
  },
  'k8s.io.api.discovery.v1': {
    Endpoint: 'addresses! conditions hostname* targetRef* deprecatedTopology nodeName* zone* hints*',
    EndpointConditions: 'ready* serving* terminating*',
    EndpointHints: 'forZones',
    EndpointPort: 'name* protocol* port* appProtocol*',
    EndpointSlice: 'metadata addressType! endpoints! ports!',
    EndpointSliceList: 'metadata items!',
    ForZone: 'name!',
  },
  'k8s.io.api.discovery.v1beta1': {
    Endpoint: 'addresses! conditions hostname* targetRef* topology nodeName* hints*',
    EndpointConditions: 'ready* serving* terminating*',
    EndpointHints: 'forZones',
    EndpointPort: 'name* protocol* port* appProtocol*',
    EndpointSlice: 'metadata addressType! endpoints! ports!',
    EndpointSliceList: 'metadata items!',
    ForZone: 'name!',
  },
  'k8s.io.api.events.v1': {
    Event: 'metadata! eventTime! series* reportingController reportingInstance action reason regarding related* note type deprecatedSource deprecatedFirstTimestamp deprecatedLastTimestamp deprecatedCount',
    EventList: 'metadata items!',
    EventSeries: 'count! lastObservedTime!',
  },
  'k8s.io.api.events.v1beta1': {
    Event: 'metadata! eventTime! series* reportingController reportingInstance action reason regarding related* note type deprecatedSource deprecatedFirstTimestamp deprecatedLastTimestamp deprecatedCount',
    EventList: 'metadata items!',
    EventSeries: 'count! lastObservedTime!',
  },
  'k8s.io.api.extensions.v1beta1': {
    DaemonSet: 'metadata spec status',
    DaemonSetCondition: 'type! status! lastTransitionTime reason message',
    DaemonSetList: 'metadata items!',
    DaemonSetSpec: 'selector* template! updateStrategy minReadySeconds templateGeneration revisionHistoryLimit*',
    DaemonSetStatus: 'currentNumberScheduled! numberMisscheduled! desiredNumberScheduled! numberReady! observedGeneration updatedNumberScheduled numberAvailable numberUnavailable collisionCount* conditions',
    DaemonSetUpdateStrategy: 'type rollingUpdate*',
    Deployment: 'metadata spec status',
    DeploymentCondition: 'type! status! lastUpdateTime lastTransitionTime reason message',
    DeploymentList: 'metadata items!',
    DeploymentRollback: 'name! updatedAnnotations rollbackTo!',
    DeploymentSpec: 'replicas* selector* template! strategy minReadySeconds revisionHistoryLimit* paused rollbackTo* progressDeadlineSeconds*',
    DeploymentStatus: 'observedGeneration replicas updatedReplicas readyReplicas availableReplicas unavailableReplicas conditions collisionCount*',
    DeploymentStrategy: 'type rollingUpdate*',
    HTTPIngressPath: 'path pathType* backend!',
    HTTPIngressRuleValue: 'paths!',
    IPBlock: 'cidr! except',
    Ingress: 'metadata spec status',
    IngressBackend: 'serviceName servicePort resource*',
    IngressList: 'metadata items!',
    IngressLoadBalancerIngress: 'ip hostname ports',
    IngressLoadBalancerStatus: 'ingress',
    IngressPortStatus: 'port! protocol! error*',
    IngressRule: 'host ingressRuleValue^',
    IngressRuleValue: 'http*',
    IngressSpec: 'ingressClassName* backend* tls rules',
    IngressStatus: 'loadBalancer',
    IngressTLS: 'hosts secretName',
    NetworkPolicy: 'metadata spec status',
    NetworkPolicyEgressRule: 'ports to',
    NetworkPolicyIngressRule: 'ports from',
    NetworkPolicyList: 'metadata items!',
    NetworkPolicyPeer: 'podSelector* namespaceSelector* ipBlock*',
    NetworkPolicyPort: 'protocol* port* endPort*',
    NetworkPolicySpec: 'podSelector! ingress egress policyTypes',
    NetworkPolicyStatus: 'conditions',
    ReplicaSet: 'metadata spec status',
    ReplicaSetCondition: 'type! status! lastTransitionTime reason message',
    ReplicaSetList: 'metadata items!',
    ReplicaSetSpec: 'replicas* minReadySeconds selector* template',
    ReplicaSetStatus: 'replicas! fullyLabeledReplicas readyReplicas availableReplicas observedGeneration conditions',
    RollbackConfig: 'revision',
    RollingUpdateDaemonSet: 'maxUnavailable* maxSurge*',
    RollingUpdateDeployment: 'maxUnavailable* maxSurge*',
    Scale: 'metadata spec status',
    ScaleSpec: 'replicas',
    ScaleStatus: 'replicas! selector targetSelector',
  },
  'k8s.io.api.flowcontrol.v1alpha1': {
    FlowDistinguisherMethod: 'type!',
    FlowSchema: 'metadata spec status',
    FlowSchemaCondition: 'type status lastTransitionTime reason message',
    FlowSchemaList: 'metadata items!',
    FlowSchemaSpec: 'priorityLevelConfiguration! matchingPrecedence! distinguisherMethod* rules',
    FlowSchemaStatus: 'conditions',
    GroupSubject: 'name!',
    LimitResponse: 'type! queuing*',
    LimitedPriorityLevelConfiguration: 'assuredConcurrencyShares! limitResponse lendablePercent* borrowingLimitPercent*',
    NonResourcePolicyRule: 'verbs! nonResourceURLs!',
    PolicyRulesWithSubjects: 'subjects! resourceRules nonResourceRules',
    PriorityLevelConfiguration: 'metadata spec status',
    PriorityLevelConfigurationCondition: 'type status lastTransitionTime reason message',
    PriorityLevelConfigurationList: 'metadata items!',
    PriorityLevelConfigurationReference: 'name!',
    PriorityLevelConfigurationSpec: 'type! limited*',
    PriorityLevelConfigurationStatus: 'conditions',
    QueuingConfiguration: 'queues! handSize! queueLengthLimit!',
    ResourcePolicyRule: 'verbs! apiGroups! resources! clusterScope namespaces!',
    ServiceAccountSubject: 'namespace! name!',
    Subject: 'kind! user* group* serviceAccount*',
    UserSubject: 'name!',
  },
  'k8s.io.api.flowcontrol.v1beta1': {
    FlowDistinguisherMethod: 'type!',
    FlowSchema: 'metadata spec status',
    FlowSchemaCondition: 'type status lastTransitionTime reason message',
    FlowSchemaList: 'metadata items!',
    FlowSchemaSpec: 'priorityLevelConfiguration! matchingPrecedence! distinguisherMethod* rules',
    FlowSchemaStatus: 'conditions',
    GroupSubject: 'name!',
    LimitResponse: 'type! queuing*',
    LimitedPriorityLevelConfiguration: 'assuredConcurrencyShares! limitResponse lendablePercent* borrowingLimitPercent*',
    NonResourcePolicyRule: 'verbs! nonResourceURLs!',
    PolicyRulesWithSubjects: 'subjects! resourceRules nonResourceRules',
    PriorityLevelConfiguration: 'metadata spec status',
    PriorityLevelConfigurationCondition: 'type status lastTransitionTime reason message',
    PriorityLevelConfigurationList: 'metadata items!',
    PriorityLevelConfigurationReference: 'name!',
    PriorityLevelConfigurationSpec: 'type! limited*',
    PriorityLevelConfigurationStatus: 'conditions',
    QueuingConfiguration: 'queues! handSize! queueLengthLimit!',
    ResourcePolicyRule: 'verbs! apiGroups! resources! clusterScope namespaces!',
    ServiceAccountSubject: 'namespace! name!',
    Subject: 'kind! user* group* serviceAccount*',
    UserSubject: 'name!',
  },
  'k8s.io.api.flowcontrol.v1beta2': {
    FlowDistinguisherMethod: 'type!',
    FlowSchema: 'metadata spec status',
    FlowSchemaCondition: 'type status lastTransitionTime reason message',
    FlowSchemaList: 'metadata items!',
    FlowSchemaSpec: 'priorityLevelConfiguration! matchingPrecedence! distinguisherMethod* rules',
    FlowSchemaStatus: 'conditions',
    GroupSubject: 'name!',
    LimitResponse: 'type! queuing*',
    LimitedPriorityLevelConfiguration: 'assuredConcurrencyShares! limitResponse lendablePercent* borrowingLimitPercent*',
    NonResourcePolicyRule: 'verbs! nonResourceURLs!',
    PolicyRulesWithSubjects: 'subjects! resourceRules nonResourceRules',
    PriorityLevelConfiguration: 'metadata spec status',
    PriorityLevelConfigurationCondition: 'type status lastTransitionTime reason message',
    PriorityLevelConfigurationList: 'metadata items!',
    PriorityLevelConfigurationReference: 'name!',
    PriorityLevelConfigurationSpec: 'type! limited*',
    PriorityLevelConfigurationStatus: 'conditions',
    QueuingConfiguration: 'queues! handSize! queueLengthLimit!',
    ResourcePolicyRule: 'verbs! apiGroups! resources! clusterScope namespaces!',
    ServiceAccountSubject: 'namespace! name!',
    Subject: 'kind! user* group* serviceAccount*',
    UserSubject: 'name!',
  },
  'k8s.io.api.flowcontrol.v1beta3': {
    FlowDistinguisherMethod: 'type!',
    FlowSchema: 'metadata spec status',
    FlowSchemaCondition: 'type status lastTransitionTime reason message',
    FlowSchemaList: 'metadata items!',
    FlowSchemaSpec: 'priorityLevelConfiguration! matchingPrecedence! distinguisherMethod* rules',
    FlowSchemaStatus: 'conditions',
    GroupSubject: 'name!',
    LimitResponse: 'type! queuing*',
    LimitedPriorityLevelConfiguration: 'nominalConcurrencyShares! limitResponse lendablePercent* borrowingLimitPercent*',
    NonResourcePolicyRule: 'verbs! nonResourceURLs!',
    PolicyRulesWithSubjects: 'subjects! resourceRules nonResourceRules',
    PriorityLevelConfiguration: 'metadata spec status',
    PriorityLevelConfigurationCondition: 'type status lastTransitionTime reason message',
    PriorityLevelConfigurationList: 'metadata items!',
    PriorityLevelConfigurationReference: 'name!',
    PriorityLevelConfigurationSpec: 'type! limited*',
    PriorityLevelConfigurationStatus: 'conditions',
    QueuingConfiguration: 'queues! handSize! queueLengthLimit!',
    ResourcePolicyRule: 'verbs! apiGroups! resources! clusterScope namespaces!',
    ServiceAccountSubject: 'namespace! name!',
    Subject: 'kind! user* group* serviceAccount*',
    UserSubject: 'name!',
  },
  'k8s.io.api.imagepolicy.v1alpha1': {
    ImageReview: 'metadata spec! status',
    ImageReviewContainerSpec: 'image',
    ImageReviewSpec: 'containers annotations namespace',
    ImageReviewStatus: 'allowed! reason auditAnnotations',
  },
  'k8s.io.api.networking.v1': {
    HTTPIngressPath: 'path pathType*! backend!',
    HTTPIngressRuleValue: 'paths!',
    IPBlock: 'cidr! except',
    Ingress: 'metadata spec status',
    IngressBackend: 'service* resource*',
    IngressClass: 'metadata spec',
    IngressClassList: 'metadata items!',
    IngressClassParametersReference: 'aPIGroup=apiGroup* kind! name! scope*! namespace*',
    IngressClassSpec: 'controller parameters*',
    IngressList: 'metadata items!',
    IngressLoadBalancerIngress: 'ip hostname ports',
    IngressLoadBalancerStatus: 'ingress',
    IngressPortStatus: 'port! protocol! error*',
    IngressRule: 'host ingressRuleValue^',
    IngressRuleValue: 'http*',
    IngressServiceBackend: 'name! port',
    IngressSpec: 'ingressClassName* defaultBackend* tls rules',
    IngressStatus: 'loadBalancer',
    IngressTLS: 'hosts secretName',
    NetworkPolicy: 'metadata spec status',
    NetworkPolicyEgressRule: 'ports to',
    NetworkPolicyIngressRule: 'ports from',
    NetworkPolicyList: 'metadata items!',
    NetworkPolicyPeer: 'podSelector* namespaceSelector* ipBlock*',
    NetworkPolicyPort: 'protocol* port* endPort*',
    NetworkPolicySpec: 'podSelector! ingress egress policyTypes',
    NetworkPolicyStatus: 'conditions',
    ServiceBackendPort: 'name number',
  },
  'k8s.io.api.networking.v1alpha1': {
    ClusterCIDR: 'metadata spec',
    ClusterCIDRList: 'metadata items!',
    ClusterCIDRSpec: 'nodeSelector* perNodeHostBits! ipv4! ipv6!',
    IPAddress: 'metadata spec',
    IPAddressList: 'metadata items!',
    IPAddressSpec: 'parentRef*',
    ParentReference: 'group resource namespace name uid',
  },
  'k8s.io.api.networking.v1beta1': {
    HTTPIngressPath: 'path pathType* backend!',
    HTTPIngressRuleValue: 'paths!',
    Ingress: 'metadata spec status',
    IngressBackend: 'serviceName servicePort resource*',
    IngressClass: 'metadata spec',
    IngressClassList: 'metadata items!',
    IngressClassParametersReference: 'aPIGroup=apiGroup* kind! name! scope*! namespace*',
    IngressClassSpec: 'controller parameters*',
    IngressList: 'metadata items!',
    IngressLoadBalancerIngress: 'ip hostname ports',
    IngressLoadBalancerStatus: 'ingress',
    IngressPortStatus: 'port! protocol! error*',
    IngressRule: 'host ingressRuleValue^',
    IngressRuleValue: 'http*',
    IngressSpec: 'ingressClassName* backend* tls rules',
    IngressStatus: 'loadBalancer',
    IngressTLS: 'hosts secretName',
  },
  'k8s.io.api.node.v1': {
    Overhead: 'podFixed',
    RuntimeClass: 'metadata handler! overhead* scheduling*',
    RuntimeClassList: 'metadata items!',
    Scheduling: 'nodeSelector tolerations',
  },
  'k8s.io.api.node.v1alpha1': {
    Overhead: 'podFixed',
    RuntimeClass: 'metadata spec!',
    RuntimeClassList: 'metadata items!',
    RuntimeClassSpec: 'runtimeHandler! overhead* scheduling*',
    Scheduling: 'nodeSelector tolerations',
  },
  'k8s.io.api.node.v1beta1': {
    Overhead: 'podFixed',
    RuntimeClass: 'metadata handler! overhead* scheduling*',
    RuntimeClassList: 'metadata items!',
    Scheduling: 'nodeSelector tolerations',
  },
  'k8s.io.api.policy.v1': {
    Eviction: 'metadata deleteOptions*',
    PodDisruptionBudget: 'metadata spec status',
    PodDisruptionBudgetList: 'metadata items!',
    PodDisruptionBudgetSpec: 'minAvailable* selector* maxUnavailable* unhealthyPodEvictionPolicy*',
    PodDisruptionBudgetStatus: 'observedGeneration disruptedPods disruptionsAllowed! currentHealthy! desiredHealthy! expectedPods! conditions',
  },
  'k8s.io.api.policy.v1beta1': {
    AllowedCSIDriver: 'name!',
    AllowedFlexVolume: 'driver!',
    AllowedHostPath: 'pathPrefix readOnly',
    Eviction: 'metadata deleteOptions*',
    FSGroupStrategyOptions: 'rule ranges',
    HostPortRange: 'min! max!',
    IDRange: 'min! max!',
    PodDisruptionBudget: 'metadata spec status',
    PodDisruptionBudgetList: 'metadata items!',
    PodDisruptionBudgetSpec: 'minAvailable* selector* maxUnavailable* unhealthyPodEvictionPolicy*',
    PodDisruptionBudgetStatus: 'observedGeneration disruptedPods disruptionsAllowed! currentHealthy! desiredHealthy! expectedPods! conditions',
    PodSecurityPolicy: 'metadata spec',
    PodSecurityPolicyList: 'metadata items!',
    PodSecurityPolicySpec: 'privileged defaultAddCapabilities requiredDropCapabilities allowedCapabilities volumes hostNetwork hostPorts hostPID hostIPC seLinux! runAsUser! runAsGroup* supplementalGroups! fsGroup! readOnlyRootFilesystem defaultAllowPrivilegeEscalation* allowPrivilegeEscalation* allowedHostPaths allowedFlexVolumes allowedCSIDrivers allowedUnsafeSysctls forbiddenSysctls allowedProcMountTypes runtimeClass*',
    RunAsGroupStrategyOptions: 'rule! ranges',
    RunAsUserStrategyOptions: 'rule! ranges',
    RuntimeClassStrategyOptions: 'allowedRuntimeClassNames! defaultRuntimeClassName*',
    SELinuxStrategyOptions: 'rule! seLinuxOptions*',
    SupplementalGroupsStrategyOptions: 'rule ranges',
  },
  'k8s.io.api.rbac.v1': {
    AggregationRule: 'clusterRoleSelectors',
    ClusterRole: 'metadata rules! aggregationRule*',
    ClusterRoleBinding: 'metadata subjects roleRef!',
    ClusterRoleBindingList: 'metadata items!',
    ClusterRoleList: 'metadata items!',
    PolicyRule: 'verbs! apiGroups resources resourceNames nonResourceURLs',
    Role: 'metadata rules!',
    RoleBinding: 'metadata subjects roleRef!',
    RoleBindingList: 'metadata items!',
    RoleList: 'metadata items!',
    RoleRef: 'apiGroup! kind! name!',
    Subject: 'kind! apiGroup name! namespace',
  },
  'k8s.io.api.rbac.v1alpha1': {
    AggregationRule: 'clusterRoleSelectors',
    ClusterRole: 'metadata rules! aggregationRule*',
    ClusterRoleBinding: 'metadata subjects roleRef!',
    ClusterRoleBindingList: 'metadata items!',
    ClusterRoleList: 'metadata items!',
    PolicyRule: 'verbs! apiGroups resources resourceNames nonResourceURLs',
    Role: 'metadata rules!',
    RoleBinding: 'metadata subjects roleRef!',
    RoleBindingList: 'metadata items!',
    RoleList: 'metadata items!',
    RoleRef: 'apiGroup! kind! name!',
    Subject: 'kind! apiVersion name! namespace',
  },
  'k8s.io.api.rbac.v1beta1': {
    AggregationRule: 'clusterRoleSelectors',
    ClusterRole: 'metadata rules! aggregationRule*',
    ClusterRoleBinding: 'metadata subjects roleRef!',
    ClusterRoleBindingList: 'metadata items!',
    ClusterRoleList: 'metadata items!',
    PolicyRule: 'verbs! apiGroups resources resourceNames nonResourceURLs',
    Role: 'metadata rules!',
    RoleBinding: 'metadata subjects roleRef!',
    RoleBindingList: 'metadata items!',
    RoleList: 'metadata items!',
    RoleRef: 'apiGroup! kind! name!',
    Subject: 'kind! apiGroup name! namespace',
  },
  'k8s.io.api.resource.v1alpha2': {
    AllocationResult: 'resourceHandles availableOnNodes* shareable',
    PodSchedulingContext: 'metadata spec! status',
    PodSchedulingContextList: 'metadata items!',
    PodSchedulingContextSpec: 'selectedNode potentialNodes',
    PodSchedulingContextStatus: 'resourceClaims',
    ResourceClaim: 'metadata spec! status',
    ResourceClaimConsumerReference: 'apiGroup resource! name! uid!',
    ResourceClaimList: 'metadata items!',
    ResourceClaimParametersReference: 'apiGroup kind! name!',
    ResourceClaimSchedulingStatus: 'name unsuitableNodes',
    ResourceClaimSpec: 'resourceClassName! parametersRef* allocationMode',
    ResourceClaimStatus: 'driverName allocation* reservedFor deallocationRequested',
    ResourceClaimTemplate: 'metadata spec!',
    ResourceClaimTemplateList: 'metadata items!',
    ResourceClaimTemplateSpec: 'metadata spec!',
    ResourceClass: 'metadata driverName! parametersRef* suitableNodes*',
    ResourceClassList: 'metadata items!',
    ResourceClassParametersReference: 'apiGroup kind! name! namespace',
    ResourceHandle: 'driverName data',
  },
  'k8s.io.api.scheduling.v1': {
    PriorityClass: 'metadata value! globalDefault description preemptionPolicy*',
    PriorityClassList: 'metadata items!',
  },
  'k8s.io.api.scheduling.v1alpha1': {
    PriorityClass: 'metadata value! globalDefault description preemptionPolicy*',
    PriorityClassList: 'metadata items!',
  },
  'k8s.io.api.scheduling.v1beta1': {
    PriorityClass: 'metadata value! globalDefault description preemptionPolicy*',
    PriorityClassList: 'metadata items!',
  },
  'k8s.io.api.storage.v1': {
    CSIDriver: 'metadata spec!',
    CSIDriverList: 'metadata items!',
    CSIDriverSpec: 'attachRequired* podInfoOnMount* volumeLifecycleModes storageCapacity* fsGroupPolicy* tokenRequests requiresRepublish* seLinuxMount*',
    CSINode: 'metadata spec!',
    CSINodeDriver: 'name! nodeID! topologyKeys! allocatable*',
    CSINodeList: 'metadata items!',
    CSINodeSpec: 'drivers!',
    CSIStorageCapacity: 'metadata nodeTopology* storageClassName! capacity* maximumVolumeSize*',
    CSIStorageCapacityList: 'metadata items!',
    StorageClass: 'metadata provisioner! parameters reclaimPolicy* mountOptions allowVolumeExpansion* volumeBindingMode* allowedTopologies',
    StorageClassList: 'metadata items!',
    TokenRequest: 'audience! expirationSeconds*',
    VolumeAttachment: 'metadata spec! status',
    VolumeAttachmentList: 'metadata items!',
    VolumeAttachmentSource: 'persistentVolumeName* inlineVolumeSpec*',
    VolumeAttachmentSpec: 'attacher! source! nodeName!',
    VolumeAttachmentStatus: 'attached! attachmentMetadata attachError* detachError*',
    VolumeError: 'time message',
    VolumeNodeResources: 'count*',
  },
  'k8s.io.api.storage.v1alpha1': {
    CSIStorageCapacity: 'metadata nodeTopology* storageClassName! capacity* maximumVolumeSize*',
    CSIStorageCapacityList: 'metadata items!',
    VolumeAttachment: 'metadata spec! status',
    VolumeAttachmentList: 'metadata items!',
    VolumeAttachmentSource: 'persistentVolumeName* inlineVolumeSpec*',
    VolumeAttachmentSpec: 'attacher! source! nodeName!',
    VolumeAttachmentStatus: 'attached! attachmentMetadata attachError* detachError*',
    VolumeError: 'time message',
  },
  'k8s.io.api.storage.v1beta1': {
    CSIDriver: 'metadata spec!',
    CSIDriverList: 'metadata items!',
    CSIDriverSpec: 'attachRequired* podInfoOnMount* volumeLifecycleModes storageCapacity* fsGroupPolicy* tokenRequests requiresRepublish* seLinuxMount*',
    CSINode: 'metadata spec!',
    CSINodeDriver: 'name! nodeID! topologyKeys! allocatable*',
    CSINodeList: 'metadata items!',
    CSINodeSpec: 'drivers!',
    CSIStorageCapacity: 'metadata nodeTopology* storageClassName! capacity* maximumVolumeSize*',
    CSIStorageCapacityList: 'metadata items!',
    StorageClass: 'metadata provisioner! parameters reclaimPolicy* mountOptions allowVolumeExpansion* volumeBindingMode* allowedTopologies',
    StorageClassList: 'metadata items!',
    TokenRequest: 'audience! expirationSeconds*',
    VolumeAttachment: 'metadata spec! status',
    VolumeAttachmentList: 'metadata items!',
    VolumeAttachmentSource: 'persistentVolumeName* inlineVolumeSpec*',
    VolumeAttachmentSpec: 'attacher! source! nodeName!',
    VolumeAttachmentStatus: 'attached! attachmentMetadata attachError* detachError*',
    VolumeError: 'time message',
    VolumeNodeResources: 'count*',
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1': {
    APIGroup: 'name! versions! preferredVersion serverAddressByClientCIDRs',
    APIGroupList: 'groups!',
    APIResource: 'name! singularName! namespaced! group version kind! verbs! shortNames categories storageVersionHash',
    APIResourceList: 'groupVersion! resources!',
    APIVersions: 'versions! serverAddressByClientCIDRs!',
    ApplyOptions: 'dryRun force! fieldManager!',
    Condition: 'type! status! observedGeneration lastTransitionTime! reason! message!',
    CreateOptions: 'dryRun fieldManager fieldValidation',
    DeleteOptions: 'gracePeriodSeconds* preconditions* orphanDependents* propagationPolicy* dryRun',
    GetOptions: 'resourceVersion',
    GroupKind: 'group! kind!',
    GroupResource: 'group! resource!',
    GroupVersion: 'group! version!',
    GroupVersionForDiscovery: 'groupVersion! version!',
    GroupVersionKind: 'group! version! kind!',
    GroupVersionResource: 'group! version! resource!',
    LabelSelector: 'matchLabels matchExpressions',
    LabelSelectorRequirement: 'key! operator! values',
    List: 'metadata items!',
    ListMeta: 'selfLink resourceVersion continue remainingItemCount*',
    ListOptions: 'labelSelector fieldSelector watch allowWatchBookmarks resourceVersion resourceVersionMatch timeoutSeconds* limit continue sendInitialEvents*',
    ManagedFieldsEntry: 'manager operation apiVersion time* fieldsType fieldsV1* subresource',
    ObjectMeta: 'name generateName namespace selfLink uid resourceVersion generation creationTimestamp deletionTimestamp* deletionGracePeriodSeconds* labels annotations ownerReferences finalizers managedFields',
    OwnerReference: 'apiVersion! kind! name! uid! controller* blockOwnerDeletion*',
    PartialObjectMetadata: 'metadata',
    PartialObjectMetadataList: 'metadata items!',
    Patch: '',
    PatchOptions: 'dryRun force* fieldManager fieldValidation',
    Preconditions: 'uid* resourceVersion*',
    RootPaths: 'paths!',
    ServerAddressByClientCIDR: 'clientCIDR! serverAddress!',
    Status: 'metadata status message reason details* code',
    StatusCause: 'reason message field',
    StatusDetails: 'name group kind uid causes retryAfterSeconds',
    TableOptions: 'includeObject',
    Timestamp: 'seconds! nanos!',
    TypeMeta: 'kind apiVersion',
    UpdateOptions: 'dryRun fieldManager fieldValidation',
    WatchEvent: 'type! object!',
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1beta1': {
    PartialObjectMetadataList: 'metadata items!',
  },
  'k8s.io.apimachinery.pkg.runtime': {
    TypeMeta: 'apiVersion kind',
    Unknown: 'typeMeta^ raw- contentEncoding=ContentEncoding! contentType=ContentType!',
  },
};

/** Messages whose Go type is a named slice (`type ExtraValue []string`): JSON is the bare array of `items`. */
export const SLICE_WRAPPERS: ReadonlySet<string> = new Set([
  'k8s.io.api.authentication.v1.ExtraValue',
  'k8s.io.api.authentication.v1beta1.ExtraValue',
  'k8s.io.api.authorization.v1.ExtraValue',
  'k8s.io.api.authorization.v1beta1.ExtraValue',
  'k8s.io.api.certificates.v1.ExtraValue',
  'k8s.io.api.certificates.v1beta1.ExtraValue',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Verbs',
]);
