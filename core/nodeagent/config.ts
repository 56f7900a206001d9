/**
 * The node agent configuration object (Kubernetes' `KubeletConfiguration`): decoding from YAML or
 * JSON with strict field checking, v1beta1 defaults, kubelet flags overriding file values, the
 * validation rules of the seed's table, and node capacity / allocatable derived from it.
 */
import YAML from 'yaml';
import { parseQuantity, Quantity, QuantityParseError } from '../machinery/quantity.ts';
import { DurationParseError, parseDuration } from './duration.ts';

/** The (apiVersion, kind) pairs accepted: the name real kubelet files carry, and the seed's own. */
export const NODE_AGENT_CONFIG_TYPES: readonly { apiVersion: string; kind: string }[] = [
  { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' },
  { apiVersion: 'node.config.k8s.io/v1beta1', kind: 'NodeAgentConfiguration' },
];

/** One field error: the field (`maxPods`, `authentication.webhook.cacheTTL`, or a flag `--max-pods`) and the problem. */
export interface NodeAgentConfigFieldError {
  field: string;
  message: string;
}

/** A node agent configuration that cannot be used; `errors` lists every problem found, at once. */
export class NodeAgentConfigInvalid extends Error {
  readonly code = 'NODE_AGENT_CONFIG_INVALID';
  constructor(readonly errors: NodeAgentConfigFieldError[]) {
    super(`invalid node agent configuration: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
    this.name = 'NodeAgentConfigInvalid';
  }
}

/** A taint the node registers with (`key[=value]:Effect`). */
export interface RegisterTaint {
  key: string;
  value?: string;
  effect: string;
}

/** A per-NUMA-node memory reservation (`reservedMemory`). */
export interface MemoryReservation {
  numaNode: number;
  limits: Record<string, string>;
}

/** An eviction threshold value: an absolute quantity or a percentage (0..1) of capacity. */
export type ThresholdValue = { quantity: Quantity } | { percentage: number };

/** Quantities of the configuration, parsed (the configuration itself keeps Kubernetes' strings). */
export interface ParsedNodeAgentQuantities {
  containerLogMaxSize: Quantity;
  kubeReserved: Record<string, Quantity>;
  systemReserved: Record<string, Quantity>;
  evictionHard: Record<string, ThresholdValue>;
  evictionSoft: Record<string, ThresholdValue>;
  evictionMinimumReclaim: Record<string, ThresholdValue>;
}

/**
 * The effective node agent configuration: every field of `KubeletConfiguration` v1beta1 named as
 * Kubernetes names it, defaulted. Durations are milliseconds; quantities are Kubernetes' strings,
 * with their parsed values under `parsed`. Optional fields Kubernetes leaves nil are `undefined`.
 */
export interface NodeAgentConfiguration {
  apiVersion: string;
  kind: string;
  enableServer: boolean;
  staticPodPath: string;
  syncFrequency: number;
  fileCheckFrequency: number;
  httpCheckFrequency: number;
  staticPodURL: string;
  staticPodURLHeader?: Record<string, string[]>;
  address: string;
  port: number;
  readOnlyPort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tlsCipherSuites?: string[];
  tlsMinVersion: string;
  rotateCertificates: boolean;
  serverTLSBootstrap: boolean;
  authentication: {
    x509: { clientCAFile: string };
    webhook: { enabled: boolean; cacheTTL: number };
    anonymous: { enabled: boolean };
  };
  authorization: { mode: string; webhook: { cacheAuthorizedTTL: number; cacheUnauthorizedTTL: number } };
  registryPullQPS: number;
  registryBurst: number;
  eventRecordQPS: number;
  eventBurst: number;
  enableDebuggingHandlers: boolean;
  enableContentionProfiling: boolean;
  healthzPort: number;
  healthzBindAddress: string;
  oomScoreAdj: number;
  clusterDomain: string;
  clusterDNS?: string[];
  streamingConnectionIdleTimeout: number;
  nodeStatusUpdateFrequency: number;
  nodeStatusReportFrequency: number;
  nodeLeaseDurationSeconds: number;
  imageMinimumGCAge: number;
  imageGCHighThresholdPercent: number;
  imageGCLowThresholdPercent: number;
  volumeStatsAggPeriod: number;
  kubeletCgroups: string;
  systemCgroups: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  cgroupDriver: string;
  cpuManagerPolicy: string;
  cpuManagerPolicyOptions?: Record<string, string>;
  cpuManagerReconcilePeriod: number;
  memoryManagerPolicy: string;
  topologyManagerPolicy: string;
  topologyManagerScope: string;
  topologyManagerPolicyOptions?: Record<string, string>;
  qosReserved?: Record<string, string>;
  runtimeRequestTimeout: number;
  hairpinMode: string;
  maxPods: number;
  podCIDR: string;
  podPidsLimit: number;
  resolvConf: string;
  runOnce: boolean;
  cpuCFSQuota: boolean;
  cpuCFSQuotaPeriod: number;
  nodeStatusMaxImages: number;
  maxOpenFiles: number;
  contentType: string;
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  evictionHard: Record<string, string>;
  evictionSoft?: Record<string, string>;
  evictionSoftGracePeriod?: Record<string, string>;
  evictionPressureTransitionPeriod: number;
  evictionMaxPodGracePeriod: number;
  evictionMinimumReclaim?: Record<string, string>;
  podsPerCore: number;
  enableControllerAttachDetach: boolean;
  protectKernelDefaults: boolean;
  makeIPTablesUtilChains: boolean;
  iptablesMasqueradeBit: number;
  iptablesDropBit: number;
  featureGates?: Record<string, boolean>;
  failSwapOn: boolean;
  memorySwap: { swapBehavior: string };
  containerLogMaxSize: string;
  containerLogMaxFiles: number;
  configMapAndSecretChangeDetectionStrategy: string;
  systemReserved?: Record<string, string>;
  kubeReserved?: Record<string, string>;
  reservedSystemCPUs: string;
  showHiddenMetricsForVersion: string;
  systemReservedCgroup: string;
  kubeReservedCgroup: string;
  enforceNodeAllocatable: string[];
  allowedUnsafeSysctls: string[];
  volumePluginDir: string;
  providerID: string;
  kernelMemcgNotification: boolean;
  logging: { format: string; flushFrequency: number; verbosity: number; vmodule?: { filePattern: string; verbosity: number }[]; options?: Record<string, unknown> };
  enableSystemLogHandler: boolean;
  enableSystemLogQuery: boolean;
  shutdownGracePeriod: number;
  shutdownGracePeriodCriticalPods: number;
  shutdownGracePeriodByPodPriority?: { priority: number; shutdownGracePeriodSeconds: number }[];
  reservedMemory?: MemoryReservation[];
  enableProfilingHandler: boolean;
  enableDebugFlagsHandler: boolean;
  seccompDefault: boolean;
  memoryThrottlingFactor: number;
  registerWithTaints?: RegisterTaint[];
  registerNode: boolean;
  tracing?: { endpoint?: string; samplingRatePerMillion?: number };
  localStorageCapacityIsolation: boolean;
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
  /** Parsed forms of the quantity fields (not part of the Kubernetes object). */
  parsed: ParsedNodeAgentQuantities;
}

type Errors = NodeAgentConfigFieldError[];
type Decoder<T> = (v: unknown, field: string, errors: Errors) => T | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

const bool: Decoder<boolean> = (v, field, errors) => {
  if (typeof v === 'boolean') return v;
  errors.push({ field, message: `must be a boolean, got ${describe(v)}` });
  return undefined;
};
const str: Decoder<string> = (v, field, errors) => {
  if (typeof v === 'string') return v;
  errors.push({ field, message: `must be a string, got ${describe(v)}` });
  return undefined;
};
const integer =
  (min: number, max: number, kind: string): Decoder<number> =>
  (v, field, errors) => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
    errors.push({ field, message: `must be an ${kind}, got ${typeof v === 'number' ? v : describe(v)}` });
    return undefined;
  };
const int32 = integer(-(2 ** 31), 2 ** 31 - 1, 'int32');
const int64 = integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'int64');
const float: Decoder<number> = (v, field, errors) => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  errors.push({ field, message: `must be a number, got ${describe(v)}` });
  return undefined;
};
const duration: Decoder<number> = (v, field, errors) => {
  if (typeof v !== 'string') {
    errors.push({ field, message: `must be a duration string such as "1m30s", got ${describe(v)}` });
    return undefined;
  }
  try {
    return parseDuration(v);
  } catch (e) {
    if (!(e instanceof DurationParseError)) throw e;
    errors.push({ field, message: e.message });
    return undefined;
  }
};
const list =
  <T>(item: Decoder<T>): Decoder<T[]> =>
  (v, field, errors) => {
    if (!Array.isArray(v)) {
      errors.push({ field, message: `must be a list, got ${describe(v)}` });
      return undefined;
    }
    const out: T[] = [];
    v.forEach((x, i) => {
      const d = item(x, `${field}[${i}]`, errors);
      if (d !== undefined) out.push(d);
    });
    return out;
  };
const map =
  <T>(item: Decoder<T>): Decoder<Record<string, T>> =>
  (v, field, errors) => {
    if (!isObject(v)) {
      errors.push({ field, message: `must be a map, got ${describe(v)}` });
      return undefined;
    }
    const out: Record<string, T> = {};
    for (const [k, x] of Object.entries(v)) {
      const d = item(x, `${field}[${k}]`, errors);
      if (d !== undefined) out[k] = d;
    }
    return out;
  };
/** null (or absent) decodes to undefined, as a Go pointer or nil map/slice would. */
const nullable =
  <T>(inner: Decoder<T>): Decoder<T | undefined> =>
  (v, field, errors) =>
    v === null ? undefined : inner(v, field, errors);

interface FieldSpec<T> {
  decode: Decoder<T>;
  default: () => T;
}
const f = <T>(decode: Decoder<T>, def: T | (() => T)): FieldSpec<T> => ({
  decode,
  default: typeof def === 'function' ? (def as () => T) : () => structuredClone(def),
});

/** An object decoder with its own fields' defaults; unknown fields are errors naming their path. */
function object<T extends object>(fields: { [K in keyof T]-?: FieldSpec<T[K]> }): FieldSpec<T> & { decodeInto: (v: unknown, field: string, errors: Errors) => T } {
  const defaults = () => {
    const out: Record<string, unknown> = {};
    for (const [k, spec] of Object.entries(fields) as [string, FieldSpec<unknown>][]) out[k] = spec.default();
    return out as T;
  };
  const decodeInto = (v: unknown, field: string, errors: Errors): T => {
    const out = defaults() as Record<string, unknown>;
    if (v === null || v === undefined) return out as T;
    if (!isObject(v)) {
      errors.push({ field, message: `must be an object, got ${describe(v)}` });
      return out as T;
    }
    for (const [k, x] of Object.entries(v)) {
      const path = field ? `${field}.${k}` : k;
      const spec = (fields as Record<string, FieldSpec<unknown> | undefined>)[k];
      if (!spec || !Object.prototype.hasOwnProperty.call(fields, k)) {
        errors.push({ field: path, message: `unknown field "${path}"` });
        continue;
      }
      if (x === null) continue;
      const d = spec.decode(x, path, errors);
      if (d !== undefined) out[k] = d;
    }
    return out as T;
  };
  return { decode: decodeInto, default: defaults, decodeInto };
}

const taint: Decoder<RegisterTaint> = (v, field, errors) => {
  if (!isObject(v)) {
    errors.push({ field, message: `must be a taint object, got ${describe(v)}` });
    return undefined;
  }
  for (const k of Object.keys(v)) if (!['key', 'value', 'effect', 'timeAdded'].includes(k)) errors.push({ field: `${field}.${k}`, message: `unknown field "${field}.${k}"` });
  const t: RegisterTaint = { key: str(v.key ?? '', `${field}.key`, errors) ?? '', effect: str(v.effect ?? '', `${field}.effect`, errors) ?? '' };
  if (v.value !== undefined && v.value !== null) t.value = str(v.value, `${field}.value`, errors);
  return t;
};

const memoryReservation = object<MemoryReservation>({ numaNode: f(int32, 0), limits: f(map(str), {}) });
const podPriorityGrace = object<{ priority: number; shutdownGracePeriodSeconds: number }>({
  priority: f(int32, 0),
  shutdownGracePeriodSeconds: f(int64, 0),
});
const anyValue: Decoder<unknown> = (v) => v;
const timeOrDuration: Decoder<number> = (v, field, errors) => (typeof v === 'number' ? (Number.isFinite(v) ? v / 1e6 : undefined) : duration(v, field, errors));

/** v1beta1 default of evictionHard, replaced as a whole when the file sets the field. */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = Object.freeze({
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
});

/** Default of `containerRuntimeEndpoint` (v1beta1 defaulting, Kubernetes ≥ 1.27). */
export const DEFAULT_CONTAINER_RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';

type FileFields = Omit<NodeAgentConfiguration, 'apiVersion' | 'kind' | 'parsed'>;

const SPEC = object<FileFields>({
  enableServer: f(bool, true),
  staticPodPath: f(str, ''),
  syncFrequency: f(duration, 60_000),
  fileCheckFrequency: f(duration, 20_000),
  httpCheckFrequency: f(duration, 20_000),
  staticPodURL: f(str, ''),
  staticPodURLHeader: f(nullable(map(list(str))), undefined),
  address: f(str, '0.0.0.0'),
  port: f(int32, 10250),
  readOnlyPort: f(int32, 0),
  tlsCertFile: f(str, ''),
  tlsPrivateKeyFile: f(str, ''),
  tlsCipherSuites: f(nullable(list(str)), undefined),
  tlsMinVersion: f(str, ''),
  rotateCertificates: f(bool, false),
  serverTLSBootstrap: f(bool, false),
  authentication: object<NodeAgentConfiguration['authentication']>({
    x509: object<{ clientCAFile: string }>({ clientCAFile: f(str, '') }),
    webhook: object<{ enabled: boolean; cacheTTL: number }>({ enabled: f(bool, true), cacheTTL: f(duration, 120_000) }),
    anonymous: object<{ enabled: boolean }>({ enabled: f(bool, false) }),
  }),
  authorization: object<NodeAgentConfiguration['authorization']>({
    mode: f(str, 'Webhook'),
    webhook: object<{ cacheAuthorizedTTL: number; cacheUnauthorizedTTL: number }>({
      cacheAuthorizedTTL: f(duration, 300_000),
      cacheUnauthorizedTTL: f(duration, 30_000),
    }),
  }),
  registryPullQPS: f(int32, 5),
  registryBurst: f(int32, 10),
  eventRecordQPS: f(int32, 50),
  eventBurst: f(int32, 100),
  enableDebuggingHandlers: f(bool, true),
  enableContentionProfiling: f(bool, false),
  healthzPort: f(int32, 10248),
  healthzBindAddress: f(str, '127.0.0.1'),
  oomScoreAdj: f(int32, -999),
  clusterDomain: f(str, ''),
  clusterDNS: f(nullable(list(str)), undefined),
  streamingConnectionIdleTimeout: f(duration, 4 * 3_600_000),
  nodeStatusUpdateFrequency: f(duration, 10_000),
  nodeStatusReportFrequency: f(duration, 300_000),
  nodeLeaseDurationSeconds: f(int32, 40),
  imageMinimumGCAge: f(duration, 120_000),
  imageGCHighThresholdPercent: f(int32, 85),
  imageGCLowThresholdPercent: f(int32, 80),
  volumeStatsAggPeriod: f(duration, 60_000),
  kubeletCgroups: f(str, ''),
  systemCgroups: f(str, ''),
  cgroupRoot: f(str, ''),
  cgroupsPerQOS: f(bool, true),
  cgroupDriver: f(str, 'cgroupfs'),
  cpuManagerPolicy: f(str, 'none'),
  cpuManagerPolicyOptions: f(nullable(map(str)), undefined),
  cpuManagerReconcilePeriod: f(duration, 10_000),
  memoryManagerPolicy: f(str, 'None'),
  topologyManagerPolicy: f(str, 'none'),
  topologyManagerScope: f(str, 'container'),
  topologyManagerPolicyOptions: f(nullable(map(str)), undefined),
  qosReserved: f(nullable(map(str)), undefined),
  runtimeRequestTimeout: f(duration, 120_000),
  hairpinMode: f(str, 'promiscuous-bridge'),
  maxPods: f(int32, 110),
  podCIDR: f(str, ''),
  podPidsLimit: f(int64, -1),
  resolvConf: f(str, '/etc/resolv.conf'),
  runOnce: f(bool, false),
  cpuCFSQuota: f(bool, true),
  cpuCFSQuotaPeriod: f(duration, 100),
  nodeStatusMaxImages: f(int32, 50),
  maxOpenFiles: f(int64, 1_000_000),
  contentType: f(str, 'application/vnd.kubernetes.protobuf'),
  kubeAPIQPS: f(int32, 50),
  kubeAPIBurst: f(int32, 100),
  serializeImagePulls: f(bool, true),
  maxParallelImagePulls: f(nullable(int32), undefined),
  evictionHard: f(map(str), () => ({ ...DEFAULT_EVICTION_HARD })),
  evictionSoft: f(nullable(map(str)), undefined),
  evictionSoftGracePeriod: f(nullable(map(str)), undefined),
  evictionPressureTransitionPeriod: f(duration, 300_000),
  evictionMaxPodGracePeriod: f(int32, 0),
  evictionMinimumReclaim: f(nullable(map(str)), undefined),
  podsPerCore: f(int32, 0),
  enableControllerAttachDetach: f(bool, true),
  protectKernelDefaults: f(bool, false),
  makeIPTablesUtilChains: f(bool, true),
  iptablesMasqueradeBit: f(int32, 14),
  iptablesDropBit: f(int32, 15),
  featureGates: f(nullable(map(bool)), undefined),
  failSwapOn: f(bool, true),
  memorySwap: object<{ swapBehavior: string }>({ swapBehavior: f(str, '') }),
  containerLogMaxSize: f(str, '10Mi'),
  containerLogMaxFiles: f(int32, 5),
  configMapAndSecretChangeDetectionStrategy: f(str, 'Watch'),
  systemReserved: f(nullable(map(str)), undefined),
  kubeReserved: f(nullable(map(str)), undefined),
  reservedSystemCPUs: f(str, ''),
  showHiddenMetricsForVersion: f(str, ''),
  systemReservedCgroup: f(str, ''),
  kubeReservedCgroup: f(str, ''),
  enforceNodeAllocatable: f(list(str), ['pods']),
  allowedUnsafeSysctls: f(list(str), []),
  volumePluginDir: f(str, '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/'),
  providerID: f(str, ''),
  kernelMemcgNotification: f(bool, false),
  logging: object<NodeAgentConfiguration['logging']>({
    format: f(str, 'text'),
    flushFrequency: f(timeOrDuration, 5_000),
    verbosity: f(integer(0, 2 ** 32 - 1, 'uint32'), 0),
    vmodule: f(nullable(list(object<{ filePattern: string; verbosity: number }>({ filePattern: f(str, ''), verbosity: f(integer(0, 2 ** 32 - 1, 'uint32'), 0) }).decode)), undefined),
    options: f(nullable(map(anyValue)), undefined),
  }),
  enableSystemLogHandler: f(bool, true),
  enableSystemLogQuery: f(bool, false),
  shutdownGracePeriod: f(duration, 0),
  shutdownGracePeriodCriticalPods: f(duration, 0),
  shutdownGracePeriodByPodPriority: f(nullable(list(podPriorityGrace.decode)), undefined),
  reservedMemory: f(nullable(list(memoryReservation.decode)), undefined),
  enableProfilingHandler: f(bool, true),
  enableDebugFlagsHandler: f(bool, true),
  seccompDefault: f(bool, false),
  memoryThrottlingFactor: f(float, 0.9),
  registerWithTaints: f(nullable(list(taint)), undefined),
  registerNode: f(bool, true),
  tracing: f(
    nullable(object<{ endpoint?: string; samplingRatePerMillion?: number }>({ endpoint: f(nullable(str), undefined), samplingRatePerMillion: f(nullable(int32), undefined) }).decode),
    undefined,
  ),
  localStorageCapacityIsolation: f(bool, true),
  containerRuntimeEndpoint: f(str, DEFAULT_CONTAINER_RUNTIME_ENDPOINT),
  imageServiceEndpoint: f(str, ''),
});

// ---- flags ----

type FlagParser = (value: string, flag: string, errors: Errors) => unknown;

const flagBool: FlagParser = (v, flag, errors) => {
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  errors.push({ field: flag, message: `invalid boolean ${JSON.stringify(v)}` });
  return undefined;
};
const flagInt: FlagParser = (v, flag, errors) => {
  if (/^[+-]?[0-9]+$/.test(v)) return Number(v);
  errors.push({ field: flag, message: `invalid integer ${JSON.stringify(v)}` });
  return undefined;
};
const flagString: FlagParser = (v) => v;
const flagList: FlagParser = (v) => (v === '' ? [] : v.split(',').map((s) => s.trim()));
const flagDuration: FlagParser = (v) => v;
const pairs =
  (sep: string, valueParser?: (v: string) => unknown): FlagParser =>
  (v, flag, errors) => {
    const out: Record<string, unknown> = {};
    if (v.trim() === '') return out;
    for (const item of v.split(',')) {
      const i = item.indexOf(sep);
      if (i <= 0) {
        errors.push({ field: flag, message: `malformed pair ${JSON.stringify(item)}, expected key${sep}value` });
        continue;
      }
      const val = item.slice(i + sep.length).trim();
      out[item.slice(0, i).trim()] = valueParser ? valueParser(val) : val;
    }
    return out;
  };
const flagFeatureGates: FlagParser = (v, flag, errors) => {
  const raw = pairs('=')(v, flag, errors) as Record<string, string>;
  const out: Record<string, boolean> = {};
  for (const [k, b] of Object.entries(raw)) {
    if (b === 'true' || b === 'false') out[k] = b === 'true';
    else errors.push({ field: flag, message: `invalid value of ${k}=${b}, err: strconv.ParseBool` });
  }
  return out;
};
const flagTaints: FlagParser = (v, flag, errors) => {
  if (v.trim() === '') return [];
  return v.split(',').map((spec) => {
    const colon = spec.lastIndexOf(':');
    if (colon < 0) {
      errors.push({ field: flag, message: `invalid taint spec ${JSON.stringify(spec)}: expected key[=value]:effect` });
      return { key: spec, effect: '' };
    }
    const kv = spec.slice(0, colon);
    const eq = kv.indexOf('=');
    const t: RegisterTaint = { key: eq < 0 ? kv : kv.slice(0, eq), effect: spec.slice(colon + 1) };
    if (eq >= 0) t.value = kv.slice(eq + 1);
    return t;
  });
};
const flagHeaders: FlagParser = (v, flag, errors) => {
  const out: Record<string, string[]> = {};
  for (const [k, val] of Object.entries(pairs(':')(v, flag, errors) as Record<string, string>)) (out[k] ??= []).push(val);
  return out;
};
const flagEviction: FlagParser = (v, flag, errors) => pairs('<')(v, flag, errors);
const flagReservedMemory: FlagParser = (v, flag, errors) => {
  if (v.trim() === '') return [];
  return v.split(';').map((entry) => {
    const colon = entry.indexOf(':');
    const numa = entry.slice(0, colon);
    if (colon < 0 || !/^[0-9]+$/.test(numa)) {
      errors.push({ field: flag, message: `invalid reserved memory ${JSON.stringify(entry)}, expected NUMA:resource=quantity[,...]` });
      return { numaNode: 0, limits: {} };
    }
    return { numaNode: Number(numa), limits: pairs('=')(entry.slice(colon + 1), flag, errors) };
  });
};

/** Kubelet command-line flags and the configuration field each one sets (dotted path). */
export const NODE_AGENT_FLAGS: Readonly<Record<string, { field: string; parse: FlagParser }>> = Object.freeze({
  'address': { field: 'address', parse: flagString },
  'port': { field: 'port', parse: flagInt },
  'read-only-port': { field: 'readOnlyPort', parse: flagInt },
  'healthz-port': { field: 'healthzPort', parse: flagInt },
  'healthz-bind-address': { field: 'healthzBindAddress', parse: flagString },
  'pod-manifest-path': { field: 'staticPodPath', parse: flagString },
  'sync-frequency': { field: 'syncFrequency', parse: flagDuration },
  'file-check-frequency': { field: 'fileCheckFrequency', parse: flagDuration },
  'http-check-frequency': { field: 'httpCheckFrequency', parse: flagDuration },
  'manifest-url': { field: 'staticPodURL', parse: flagString },
  'manifest-url-header': { field: 'staticPodURLHeader', parse: flagHeaders },
  'tls-cert-file': { field: 'tlsCertFile', parse: flagString },
  'tls-private-key-file': { field: 'tlsPrivateKeyFile', parse: flagString },
  'tls-cipher-suites': { field: 'tlsCipherSuites', parse: flagList },
  'tls-min-version': { field: 'tlsMinVersion', parse: flagString },
  'rotate-certificates': { field: 'rotateCertificates', parse: flagBool },
  'rotate-server-certificates': { field: 'serverTLSBootstrap', parse: flagBool },
  'anonymous-auth': { field: 'authentication.anonymous.enabled', parse: flagBool },
  'authentication-token-webhook': { field: 'authentication.webhook.enabled', parse: flagBool },
  'authentication-token-webhook-cache-ttl': { field: 'authentication.webhook.cacheTTL', parse: flagDuration },
  'client-ca-file': { field: 'authentication.x509.clientCAFile', parse: flagString },
  'authorization-mode': { field: 'authorization.mode', parse: flagString },
  'authorization-webhook-cache-authorized-ttl': { field: 'authorization.webhook.cacheAuthorizedTTL', parse: flagDuration },
  'authorization-webhook-cache-unauthorized-ttl': { field: 'authorization.webhook.cacheUnauthorizedTTL', parse: flagDuration },
  'registry-qps': { field: 'registryPullQPS', parse: flagInt },
  'registry-burst': { field: 'registryBurst', parse: flagInt },
  'event-qps': { field: 'eventRecordQPS', parse: flagInt },
  'event-burst': { field: 'eventBurst', parse: flagInt },
  'enable-debugging-handlers': { field: 'enableDebuggingHandlers', parse: flagBool },
  'contention-profiling': { field: 'enableContentionProfiling', parse: flagBool },
  'oom-score-adj': { field: 'oomScoreAdj', parse: flagInt },
  'cluster-domain': { field: 'clusterDomain', parse: flagString },
  'cluster-dns': { field: 'clusterDNS', parse: flagList },
  'streaming-connection-idle-timeout': { field: 'streamingConnectionIdleTimeout', parse: flagDuration },
  'node-status-update-frequency': { field: 'nodeStatusUpdateFrequency', parse: flagDuration },
  'image-minimum-gc-age': { field: 'imageMinimumGCAge', parse: flagDuration },
  'image-gc-high-threshold': { field: 'imageGCHighThresholdPercent', parse: flagInt },
  'image-gc-low-threshold': { field: 'imageGCLowThresholdPercent', parse: flagInt },
  'volume-stats-agg-period': { field: 'volumeStatsAggPeriod', parse: flagDuration },
  'kubelet-cgroups': { field: 'kubeletCgroups', parse: flagString },
  'system-cgroups': { field: 'systemCgroups', parse: flagString },
  'cgroup-root': { field: 'cgroupRoot', parse: flagString },
  'cgroups-per-qos': { field: 'cgroupsPerQOS', parse: flagBool },
  'cgroup-driver': { field: 'cgroupDriver', parse: flagString },
  'cpu-manager-policy': { field: 'cpuManagerPolicy', parse: flagString },
  'cpu-manager-policy-options': { field: 'cpuManagerPolicyOptions', parse: pairs('=') },
  'cpu-manager-reconcile-period': { field: 'cpuManagerReconcilePeriod', parse: flagDuration },
  'memory-manager-policy': { field: 'memoryManagerPolicy', parse: flagString },
  'topology-manager-policy': { field: 'topologyManagerPolicy', parse: flagString },
  'topology-manager-scope': { field: 'topologyManagerScope', parse: flagString },
  'topology-manager-policy-options': { field: 'topologyManagerPolicyOptions', parse: pairs('=') },
  'qos-reserved': { field: 'qosReserved', parse: pairs('=') },
  'runtime-request-timeout': { field: 'runtimeRequestTimeout', parse: flagDuration },
  'hairpin-mode': { field: 'hairpinMode', parse: flagString },
  'max-pods': { field: 'maxPods', parse: flagInt },
  'pod-cidr': { field: 'podCIDR', parse: flagString },
  'pod-max-pids': { field: 'podPidsLimit', parse: flagInt },
  'resolv-conf': { field: 'resolvConf', parse: flagString },
  'runonce': { field: 'runOnce', parse: flagBool },
  'cpu-cfs-quota': { field: 'cpuCFSQuota', parse: flagBool },
  'cpu-cfs-quota-period': { field: 'cpuCFSQuotaPeriod', parse: flagDuration },
  'node-status-max-images': { field: 'nodeStatusMaxImages', parse: flagInt },
  'max-open-files': { field: 'maxOpenFiles', parse: flagInt },
  'kube-api-content-type': { field: 'contentType', parse: flagString },
  'kube-api-qps': { field: 'kubeAPIQPS', parse: flagInt },
  'kube-api-burst': { field: 'kubeAPIBurst', parse: flagInt },
  'serialize-image-pulls': { field: 'serializeImagePulls', parse: flagBool },
  'eviction-hard': { field: 'evictionHard', parse: flagEviction },
  'eviction-soft': { field: 'evictionSoft', parse: flagEviction },
  'eviction-soft-grace-period': { field: 'evictionSoftGracePeriod', parse: pairs('=') },
  'eviction-pressure-transition-period': { field: 'evictionPressureTransitionPeriod', parse: flagDuration },
  'eviction-max-pod-grace-period': { field: 'evictionMaxPodGracePeriod', parse: flagInt },
  'eviction-minimum-reclaim': { field: 'evictionMinimumReclaim', parse: pairs('=') },
  'pods-per-core': { field: 'podsPerCore', parse: flagInt },
  'enable-controller-attach-detach': { field: 'enableControllerAttachDetach', parse: flagBool },
  'protect-kernel-defaults': { field: 'protectKernelDefaults', parse: flagBool },
  'make-iptables-util-chains': { field: 'makeIPTablesUtilChains', parse: flagBool },
  'iptables-masquerade-bit': { field: 'iptablesMasqueradeBit', parse: flagInt },
  'iptables-drop-bit': { field: 'iptablesDropBit', parse: flagInt },
  'feature-gates': { field: 'featureGates', parse: flagFeatureGates },
  'fail-swap-on': { field: 'failSwapOn', parse: flagBool },
  'container-log-max-size': { field: 'containerLogMaxSize', parse: flagString },
  'container-log-max-files': { field: 'containerLogMaxFiles', parse: flagInt },
  'system-reserved': { field: 'systemReserved', parse: pairs('=') },
  'kube-reserved': { field: 'kubeReserved', parse: pairs('=') },
  'reserved-cpus': { field: 'reservedSystemCPUs', parse: flagString },
  'show-hidden-metrics-for-version': { field: 'showHiddenMetricsForVersion', parse: flagString },
  'system-reserved-cgroup': { field: 'systemReservedCgroup', parse: flagString },
  'kube-reserved-cgroup': { field: 'kubeReservedCgroup', parse: flagString },
  'enforce-node-allocatable': { field: 'enforceNodeAllocatable', parse: flagList },
  'allowed-unsafe-sysctls': { field: 'allowedUnsafeSysctls', parse: flagList },
  'volume-plugin-dir': { field: 'volumePluginDir', parse: flagString },
  'provider-id': { field: 'providerID', parse: flagString },
  'kernel-memcg-notification': { field: 'kernelMemcgNotification', parse: flagBool },
  'logging-format': { field: 'logging.format', parse: flagString },
  'log-flush-frequency': { field: 'logging.flushFrequency', parse: flagDuration },
  'v': { field: 'logging.verbosity', parse: flagInt },
  'reserved-memory': { field: 'reservedMemory', parse: flagReservedMemory },
  'seccomp-default': { field: 'seccompDefault', parse: flagBool },
  'register-with-taints': { field: 'registerWithTaints', parse: flagTaints },
  'register-node': { field: 'registerNode', parse: flagBool },
  'local-storage-capacity-isolation': { field: 'localStorageCapacityIsolation', parse: flagBool },
  'container-runtime-endpoint': { field: 'containerRuntimeEndpoint', parse: flagString },
  'image-service-endpoint': { field: 'imageServiceEndpoint', parse: flagString },
});

/** The raw-document fragment that a set of flags amounts to, keyed like the file (so the file decoder checks it). */
function flagsToDocument(flags: Record<string, string>, errors: Errors): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const [rawName, value] of Object.entries(flags)) {
    const name = rawName.replace(/^--?/, '');
    const flag = `--${name}`;
    const spec = NODE_AGENT_FLAGS[name];
    if (!spec) {
      errors.push({ field: flag, message: `unknown flag: ${flag}` });
      continue;
    }
    const parsed = spec.parse(value, flag, errors);
    if (parsed === undefined) continue;
    const path = spec.field.split('.');
    let at = doc;
    for (const p of path.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
    at[path[path.length - 1]!] = parsed;
  }
  return doc;
}

/** Deep-merges flag values over the file document; maps and lists from flags replace the file's. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>, nested: Set<string>, prefix = ''): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const path = prefix ? `${prefix}.${k}` : k;
    out[k] = nested.has(path) && isObject(v) && isObject(base[k]) ? overlay(base[k] as Record<string, unknown>, v, nested, path) : v;
  }
  return out;
}
const NESTED_OBJECTS = new Set(['authentication', 'authentication.x509', 'authentication.webhook', 'authentication.anonymous', 'authorization', 'authorization.webhook', 'logging']);

// ---- validation ----

/** Feature gate defaults of Kubernetes 1.27 for the gates the validation consults. */
export const FEATURE_GATE_DEFAULTS: Readonly<Record<string, boolean>> = Object.freeze({
  RotateKubeletServerCertificate: true,
  CustomCPUCFSQuotaPeriod: false,
  GracefulNodeShutdown: true,
  GracefulNodeShutdownBasedOnPodPriority: true,
  NodeLogQuery: false,
  MemoryQoS: false,
  NodeSwap: false,
});

const EVICTION_SIGNALS = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available', 'allocatableMemory.available'];
const RESERVABLE = ['cpu', 'memory', 'ephemeral-storage', 'pid'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const TLS_VERSIONS = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'];
const TLS_CIPHER_SUITES = new Set([
  'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_CBC_SHA', 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_RSA_WITH_RC4_128_SHA',
]);
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const SYSCTL_PATTERN = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\*|[./]\*)?$/;
const CPU_LIST = /^\s*[0-9]+(-[0-9]+)?(\s*,\s*[0-9]+(-[0-9]+)?)*\s*$/;

function oneOf(errors: Errors, field: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) errors.push({ field, message: `unsupported value ${JSON.stringify(value)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}` });
}

function quantityOf(errors: Errors, field: string, value: string): Quantity | undefined {
  try {
    return parseQuantity(value);
  } catch (e) {
    if (!(e instanceof QuantityParseError)) throw e;
    errors.push({ field, message: `invalid quantity ${JSON.stringify(value)}: ${e.message}` });
    return undefined;
  }
}

function thresholds(errors: Errors, field: string, m: Record<string, string> | undefined): Record<string, ThresholdValue> {
  const out: Record<string, ThresholdValue> = {};
  for (const [signal, raw] of Object.entries(m ?? {})) {
    const at = `${field}[${signal}]`;
    if (!EVICTION_SIGNALS.includes(signal)) {
      errors.push({ field: at, message: `unsupported eviction signal ${JSON.stringify(signal)}` });
      continue;
    }
    const value = raw.trim();
    if (value.endsWith('%')) {
      const pct = Number(value.slice(0, -1));
      if (value.length === 1 || !Number.isFinite(pct)) errors.push({ field: at, message: `invalid percentage ${JSON.stringify(value)}` });
      else if (pct < 0 || pct > 100) errors.push({ field: at, message: `eviction percentage threshold ${JSON.stringify(value)} must be between 0% and 100%` });
      else out[signal] = { percentage: pct / 100 };
      continue;
    }
    const q = quantityOf(errors, at, value);
    if (!q) continue;
    if (q.sign() < 0) errors.push({ field: at, message: `eviction threshold ${JSON.stringify(value)} cannot be negative` });
    else out[signal] = { quantity: q };
  }
  return out;
}

function reserved(errors: Errors, field: string, m: Record<string, string> | undefined): Record<string, Quantity> {
  const out: Record<string, Quantity> = {};
  for (const [name, value] of Object.entries(m ?? {})) {
    const at = `${field}[${name}]`;
    if (!RESERVABLE.includes(name)) {
      errors.push({ field: at, message: `cannot reserve ${JSON.stringify(name)} resource: supported resources: ${RESERVABLE.join(', ')}` });
      continue;
    }
    const q = quantityOf(errors, at, value);
    if (!q) continue;
    if (q.sign() < 0) errors.push({ field: at, message: `resource quantity for ${JSON.stringify(name)} cannot be negative: ${value}` });
    else out[name] = q;
  }
  return out;
}

function portRange(errors: Errors, field: string, v: number, allowZero: boolean): void {
  if ((allowZero && v === 0) || (v >= 1 && v <= 65535)) return;
  errors.push({ field, message: `${v} must be between 1 and 65535, inclusive${allowZero ? ', or 0 to disable' : ''}` });
}

/**
 * Checks every rule of the seed's node agent configuration table (and the related Kubernetes
 * kubelet validation rules) and fills `parsed`. Returns the errors; never throws.
 */
function validate(c: NodeAgentConfiguration): Errors {
  const errors: Errors = [];
  const gate = (name: string) => c.featureGates?.[name] ?? FEATURE_GATE_DEFAULTS[name] ?? false;
  const err = (field: string, message: string) => errors.push({ field, message });

  portRange(errors, 'port', c.port, false);
  portRange(errors, 'readOnlyPort', c.readOnlyPort, true);
  portRange(errors, 'healthzPort', c.healthzPort, true);
  if (c.serverTLSBootstrap && !gate('RotateKubeletServerCertificate')) err('serverTLSBootstrap', 'serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate');
  if (c.tlsMinVersion !== '') oneOf(errors, 'tlsMinVersion', c.tlsMinVersion, TLS_VERSIONS);
  c.tlsCipherSuites?.forEach((s, i) => TLS_CIPHER_SUITES.has(s) || err(`tlsCipherSuites[${i}]`, `unsupported cipher suite ${JSON.stringify(s)}`));
  oneOf(errors, 'authorization.mode', c.authorization.mode, ['AlwaysAllow', 'Webhook']);
  if (c.registryPullQPS < 0) err('registryPullQPS', `${c.registryPullQPS} must not be a negative number`);
  if (c.registryBurst < 0) err('registryBurst', `${c.registryBurst} must not be a negative number`);
  if (c.eventRecordQPS < 0) err('eventRecordQPS', `${c.eventRecordQPS} must not be a negative number`);
  if (c.eventBurst < 0) err('eventBurst', `${c.eventBurst} must not be a negative number`);
  if (c.oomScoreAdj < -1000 || c.oomScoreAdj > 1000) err('oomScoreAdj', `${c.oomScoreAdj} must be between -1000 and 1000, inclusive`);
  if (c.nodeLeaseDurationSeconds <= 0) err('nodeLeaseDurationSeconds', `${c.nodeLeaseDurationSeconds} must be greater than 0`);
  if (c.nodeStatusUpdateFrequency <= 0) err('nodeStatusUpdateFrequency', 'must be greater than 0');
  if (c.imageGCHighThresholdPercent < 0 || c.imageGCHighThresholdPercent > 100) err('imageGCHighThresholdPercent', `${c.imageGCHighThresholdPercent} must be between 0 and 100, inclusive`);
  if (c.imageGCLowThresholdPercent < 0 || c.imageGCLowThresholdPercent > 100) err('imageGCLowThresholdPercent', `${c.imageGCLowThresholdPercent} must be between 0 and 100, inclusive`);
  if (c.imageGCLowThresholdPercent >= c.imageGCHighThresholdPercent) {
    err('imageGCLowThresholdPercent', `${c.imageGCLowThresholdPercent} must be less than imageGCHighThresholdPercent ${c.imageGCHighThresholdPercent}`);
  }
  oneOf(errors, 'cgroupDriver', c.cgroupDriver, ['cgroupfs', 'systemd']);
  oneOf(errors, 'cpuManagerPolicy', c.cpuManagerPolicy, ['none', 'static']);
  oneOf(errors, 'memoryManagerPolicy', c.memoryManagerPolicy, ['None', 'Static']);
  oneOf(errors, 'topologyManagerPolicy', c.topologyManagerPolicy, ['none', 'best-effort', 'restricted', 'single-numa-node']);
  oneOf(errors, 'topologyManagerScope', c.topologyManagerScope, ['container', 'pod']);
  oneOf(errors, 'hairpinMode', c.hairpinMode, ['promiscuous-bridge', 'hairpin-veth', 'none']);
  if (c.maxPods < 0) err('maxPods', `${c.maxPods} must not be a negative number`);
  if (c.podsPerCore < 0) err('podsPerCore', `${c.podsPerCore} must not be a negative number`);
  else if (c.podsPerCore > c.maxPods) err('podsPerCore', `${c.podsPerCore} must not be above maxPods ${c.maxPods}`);
  if (c.cpuCFSQuotaPeriod !== 100 && !gate('CustomCPUCFSQuotaPeriod')) err('cpuCFSQuotaPeriod', 'cpuCFSQuotaPeriod other than 100ms requires feature gate CustomCPUCFSQuotaPeriod');
  if (gate('CustomCPUCFSQuotaPeriod') && (c.cpuCFSQuotaPeriod < 1 || c.cpuCFSQuotaPeriod > 1000)) err('cpuCFSQuotaPeriod', 'must be between 1ms and 1s, inclusive');
  if (c.nodeStatusMaxImages < -1) err('nodeStatusMaxImages', `${c.nodeStatusMaxImages} must be -1 or greater`);
  if (c.kubeAPIBurst < 0) err('kubeAPIBurst', `${c.kubeAPIBurst} must not be a negative number`);
  if (c.maxParallelImagePulls !== undefined) {
    if (c.maxParallelImagePulls < 1) err('maxParallelImagePulls', `${c.maxParallelImagePulls} must be a positive number`);
    if (c.serializeImagePulls) err('maxParallelImagePulls', `${c.maxParallelImagePulls} must not be set when serializeImagePulls is true`);
  }
  for (const [name, field] of [['iptablesMasqueradeBit', c.iptablesMasqueradeBit], ['iptablesDropBit', c.iptablesDropBit]] as const) {
    if (field < 0 || field > 31) err(name, `${field} must be between 0 and 31, inclusive`);
  }
  if (c.iptablesMasqueradeBit === c.iptablesDropBit) err('iptablesDropBit', `${c.iptablesDropBit} must be different from iptablesMasqueradeBit`);
  oneOf(errors, 'configMapAndSecretChangeDetectionStrategy', c.configMapAndSecretChangeDetectionStrategy, ['Get', 'Cache', 'Watch']);
  if (c.memorySwap.swapBehavior !== '') {
    oneOf(errors, 'memorySwap.swapBehavior', c.memorySwap.swapBehavior, ['LimitedSwap', 'UnlimitedSwap']);
    if (!gate('NodeSwap')) err('memorySwap.swapBehavior', 'memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled');
  }
  if (c.showHiddenMetricsForVersion !== '' && !/^[0-9]+\.[0-9]+$/.test(c.showHiddenMetricsForVersion)) {
    err('showHiddenMetricsForVersion', `${JSON.stringify(c.showHiddenMetricsForVersion)} must be in the format major.minor`);
  }

  const containerLogMaxSize = quantityOf(errors, 'containerLogMaxSize', c.containerLogMaxSize) ?? parseQuantity('0');
  if (c.containerLogMaxFiles < 2) err('containerLogMaxFiles', `${c.containerLogMaxFiles} must be greater than 1`);

  const enforce = c.enforceNodeAllocatable;
  enforce.forEach((v, i) => oneOf(errors, `enforceNodeAllocatable[${i}]`, v, ['none', 'pods', 'system-reserved', 'kube-reserved']));
  if (enforce.includes('none') && enforce.length > 1) err('enforceNodeAllocatable', 'may not contain additional enforcements when "none" is specified');
  const enforcing = enforce.length > 0 && !(enforce.length === 1 && enforce[0] === 'none');
  if (enforcing && !c.cgroupsPerQOS) err('enforceNodeAllocatable', 'is not supported unless cgroupsPerQOS is turned on');
  if (enforce.includes('system-reserved') && c.systemReservedCgroup === '') err('systemReservedCgroup', 'must be specified when "system-reserved" is contained in enforceNodeAllocatable');
  if (enforce.includes('kube-reserved') && c.kubeReservedCgroup === '') err('kubeReservedCgroup', 'must be specified when "kube-reserved" is contained in enforceNodeAllocatable');

  c.allowedUnsafeSysctls.forEach((s, i) => SYSCTL_PATTERN.test(s) || err(`allowedUnsafeSysctls[${i}]`, `${JSON.stringify(s)} is not a valid sysctl pattern (a sysctl name, optionally ending in *)`));

  if (c.reservedSystemCPUs !== '') {
    if (!CPU_LIST.test(c.reservedSystemCPUs)) err('reservedSystemCPUs', `unable to parse ${JSON.stringify(c.reservedSystemCPUs)} as a CPU list such as "0-3,7"`);
    if (c.systemReservedCgroup !== '' || c.kubeReservedCgroup !== '') err('reservedSystemCPUs', 'cannot be used with systemReservedCgroup or kubeReservedCgroup');
  }

  oneOf(errors, 'logging.format', c.logging.format, ['text', 'json']);
  if (c.enableSystemLogQuery) {
    if (!c.enableSystemLogHandler) err('enableSystemLogQuery', 'enableSystemLogQuery requires enableSystemLogHandler');
    if (!gate('NodeLogQuery')) err('enableSystemLogQuery', 'enableSystemLogQuery requires feature gate NodeLogQuery');
  }

  if (c.shutdownGracePeriod < 0) err('shutdownGracePeriod', 'must be >= 0');
  if (c.shutdownGracePeriodCriticalPods < 0) err('shutdownGracePeriodCriticalPods', 'must be >= 0');
  if (c.shutdownGracePeriodCriticalPods > c.shutdownGracePeriod) err('shutdownGracePeriodCriticalPods', 'must be <= shutdownGracePeriod');
  if ((c.shutdownGracePeriod !== 0 || c.shutdownGracePeriodCriticalPods !== 0) && !gate('GracefulNodeShutdown')) {
    err('shutdownGracePeriod', 'specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown');
  }
  if (c.shutdownGracePeriodByPodPriority && c.shutdownGracePeriodByPodPriority.length > 0) {
    if (c.shutdownGracePeriod !== 0 || c.shutdownGracePeriodCriticalPods !== 0) {
      err('shutdownGracePeriodByPodPriority', 'must be empty when shutdownGracePeriod or shutdownGracePeriodCriticalPods is set');
    }
    if (!gate('GracefulNodeShutdown')) err('shutdownGracePeriodByPodPriority', 'requires feature gate GracefulNodeShutdown');
  }

  if (c.memoryThrottlingFactor <= 0 || c.memoryThrottlingFactor > 1) err('memoryThrottlingFactor', `${c.memoryThrottlingFactor} must be greater than 0 and less than or equal to 1.0`);

  c.registerWithTaints?.forEach((t, i) => {
    if (!QUALIFIED_NAME.test(t.key) || t.key.length > 316) err(`registerWithTaints[${i}].key`, `${JSON.stringify(t.key)} must be a qualified name`);
    if (t.value !== undefined && t.value !== '' && (!/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(t.value) || t.value.length > 63)) {
      err(`registerWithTaints[${i}].value`, `${JSON.stringify(t.value)} must be a valid label value`);
    }
    oneOf(errors, `registerWithTaints[${i}].effect`, t.effect, TAINT_EFFECTS);
  });

  if (c.tracing?.samplingRatePerMillion !== undefined && (c.tracing.samplingRatePerMillion < 0 || c.tracing.samplingRatePerMillion > 1_000_000)) {
    err('tracing.samplingRatePerMillion', 'must be between 0 and 1000000, inclusive');
  }

  const endpoint = (field: string, v: string) => {
    if (v === '') err(field, 'Required value: the container runtime endpoint was not specified or empty');
    else if (!/^(unix|npipe|tcp):\/\/./.test(v)) err(field, `${JSON.stringify(v)} must be a unix://, npipe:// or tcp:// endpoint`);
  };
  endpoint('containerRuntimeEndpoint', c.containerRuntimeEndpoint);
  if (c.imageServiceEndpoint !== c.containerRuntimeEndpoint) endpoint('imageServiceEndpoint', c.imageServiceEndpoint);

  const softGrace = c.evictionSoftGracePeriod ?? {};
  for (const [signal, v] of Object.entries(softGrace)) duration(v, `evictionSoftGracePeriod[${signal}]`, errors);
  for (const signal of Object.keys(c.evictionSoft ?? {})) {
    if (!(signal in softGrace)) err(`evictionSoftGracePeriod[${signal}]`, `no grace period specified for soft eviction threshold ${signal}`);
  }
  c.reservedMemory?.forEach((r, i) => reserved(errors, `reservedMemory[${i}].limits`, Object.fromEntries(Object.entries(r.limits).filter(([k]) => !k.startsWith('hugepages-')))));

  c.parsed = {
    containerLogMaxSize,
    kubeReserved: reserved(errors, 'kubeReserved', c.kubeReserved),
    systemReserved: reserved(errors, 'systemReserved', c.systemReserved),
    evictionHard: thresholds(errors, 'evictionHard', c.evictionHard),
    evictionSoft: thresholds(errors, 'evictionSoft', c.evictionSoft),
    evictionMinimumReclaim: thresholds(errors, 'evictionMinimumReclaim', c.evictionMinimumReclaim),
  };
  return errors;
}

/** Options of {@link parseNodeAgentConfig}. */
export interface ParseNodeAgentConfigOptions {
  /** Kubelet flags (`max-pods` or `--max-pods` → string value) that override the file's values. */
  flags?: Record<string, string>;
}

/**
 * Parses a node agent configuration file (YAML or JSON) into the effective configuration: accepts
 * exactly the pairs of {@link NODE_AGENT_CONFIG_TYPES}; an empty document means "no file" and
 * yields the defaults. Unknown fields and wrongly typed values are errors naming the field; absent
 * fields get the v1beta1 defaults (a set map such as evictionHard replaces its default whole);
 * flags then override file values (a flag map or list replaces the file's); `imageServiceEndpoint`
 * defaults to `containerRuntimeEndpoint`; finally every validation rule runs. Throws
 * {@link NodeAgentConfigInvalid} listing all errors found.
 */
export function parseNodeAgentConfig(text: string, opts: ParseNodeAgentConfigOptions = {}): NodeAgentConfiguration {
  const errors: Errors = [];
  let doc: unknown;
  try {
    doc = YAML.parse(text, { uniqueKeys: true });
  } catch (e) {
    throw new NodeAgentConfigInvalid([{ field: '(document)', message: (e as Error).message }]);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isObject(doc)) throw new NodeAgentConfigInvalid([{ field: '(document)', message: `must be an object, got ${describe(doc)}` }]);
  const { apiVersion, kind, ...fields } = doc;
  const empty = Object.keys(doc).length === 0;
  const type = empty ? NODE_AGENT_CONFIG_TYPES[0]! : NODE_AGENT_CONFIG_TYPES.find((t) => t.apiVersion === apiVersion && t.kind === kind);
  if (!type) {
    const accepted = NODE_AGENT_CONFIG_TYPES.map((t) => `${t.apiVersion} ${t.kind}`).join(' or ');
    if (!NODE_AGENT_CONFIG_TYPES.some((t) => t.apiVersion === apiVersion)) errors.push({ field: 'apiVersion', message: `unsupported apiVersion ${JSON.stringify(apiVersion ?? '')}: want ${accepted}` });
    else errors.push({ field: 'kind', message: `unsupported kind ${JSON.stringify(kind ?? '')} for ${apiVersion}: want ${accepted}` });
  }
  const flagDoc = flagsToDocument(opts.flags ?? {}, errors);
  const merged = overlay(fields, flagDoc, NESTED_OBJECTS);
  const decoded = SPEC.decodeInto(merged, '', errors);
  if (!('imageServiceEndpoint' in merged) || decoded.imageServiceEndpoint === '') decoded.imageServiceEndpoint = decoded.containerRuntimeEndpoint;
  const config = { apiVersion: type?.apiVersion ?? String(apiVersion), kind: type?.kind ?? String(kind), ...decoded } as NodeAgentConfiguration;
  if (errors.length === 0) errors.push(...validate(config));
  if (errors.length > 0) throw new NodeAgentConfigInvalid(errors);
  return config;
}

/** The defaults: the configuration an empty file yields. */
export function defaultNodeAgentConfig(): NodeAgentConfiguration {
  return parseNodeAgentConfig('');
}

// ---- capacity and allocatable ----

/** A node's resources as Kubernetes prints them (canonical quantity strings). */
export interface NodeResources {
  cpu: string;
  memory: string;
  pods: string;
  'ephemeral-storage'?: string;
}

/** What a node reports: capacity, and allocatable = capacity − reservations − hard eviction thresholds. */
export interface NodeAllocatable {
  capacity: NodeResources;
  allocatable: NodeResources;
}

function thresholdAmount(t: ThresholdValue | undefined, capacity: Quantity): Quantity | undefined {
  if (!t) return undefined;
  if ('quantity' in t) return t.quantity;
  const bytes = BigInt(Math.round(Number(capacity.valueInt()) * t.percentage));
  return new Quantity(bytes, 0, 'BinarySI');
}

/**
 * Node capacity and allocatable as the kubelet computes them. Pods capacity is `capacity.pods`
 * when given, else `min(podsPerCore × whole cores, maxPods)` when podsPerCore > 0, else maxPods.
 * Allocatable per resource = capacity − kubeReserved − systemReserved − the hard eviction threshold
 * of its signal (`memory.available` for memory, `nodefs.available` for ephemeral-storage; a
 * percentage is of capacity), floored at zero. Pods are never reserved.
 */
export function nodeAllocatable(
  config: NodeAgentConfiguration,
  capacity: { cpu: string; memory: string; pods?: number; 'ephemeral-storage'?: string },
): NodeAllocatable {
  const cpu = parseQuantity(capacity.cpu);
  const memory = parseQuantity(capacity.memory);
  const storage = capacity['ephemeral-storage'] !== undefined ? parseQuantity(capacity['ephemeral-storage']) : undefined;
  let pods: number;
  if (capacity.pods !== undefined) pods = capacity.pods;
  else if (config.podsPerCore > 0) pods = Math.min(config.podsPerCore * Math.floor(cpu.value), config.maxPods);
  else pods = config.maxPods;

  const { kubeReserved, systemReserved, evictionHard } = config.parsed;
  const allocatable = (name: string, cap: Quantity, hard?: Quantity): string => {
    let v = cap;
    for (const r of [kubeReserved[name], systemReserved[name], hard]) if (r) v = v.sub(r);
    if (v.sign() < 0) v = new Quantity(0n, 0, cap.format);
    return v.toString();
  };
  const result: NodeAllocatable = {
    capacity: { cpu: cpu.toString(), memory: memory.toString(), pods: String(pods) },
    allocatable: {
      cpu: allocatable('cpu', cpu),
      memory: allocatable('memory', memory, thresholdAmount(evictionHard['memory.available'], memory)),
      pods: String(pods),
    },
  };
  if (storage) {
    result.capacity['ephemeral-storage'] = storage.toString();
    result.allocatable['ephemeral-storage'] = allocatable('ephemeral-storage', storage, thresholdAmount(evictionHard['nodefs.available'], storage));
  }
  return result;
}
