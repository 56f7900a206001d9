import { StatusError, invalid, type StatusCause } from '../machinery/status.ts';
import type { Strategy, StrategyContext } from './registry.ts';
import { lookupResource } from './request.ts';
import { selectorFromLabelSelector } from '../machinery/labels.ts';
import { deepEqualExcept } from '../machinery/deepequal.ts';

const IMAGE = new Set(['image']);
const POD_MUTABLE = new Set(['containers', 'initContainers', 'activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds']);

/**
 * The per-kind strategies: defaults Kubernetes users rely on, server-owned fields, kind-specific
 * validation, graceful deletion of bound pods, Service IP and node port allocation, and the
 * conversion of events.k8s.io/v1 Events to the core/v1 form they share storage with.
 */

function defaultContainer(c: any): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const ref = c.image.split('@')[0];
    const slash = ref.lastIndexOf('/');
    const colon = ref.lastIndexOf(':');
    const tag = colon > slash ? ref.slice(colon + 1) : '';
    c.imagePullPolicy = tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ??= 'TCP';
}

/** Applies Kubernetes' PodSpec defaults in place. */
export function defaultPodSpec(spec: any): void {
  if (!spec || typeof spec !== 'object') return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  spec.enableServiceLinks ??= true;
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
}

function validateContainers(spec: any, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!spec || typeof spec !== 'object') return [{ reason: 'FieldValueRequired', field: path, message: 'Required value' }];
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push({ reason: 'FieldValueRequired', field: `${path}.containers`, message: 'Required value' });
    return causes;
  }
  const seen = new Set<string>();
  containers.forEach((c: any, i: number) => {
    const f = `${path}.containers[${i}]`;
    if (!c?.name) causes.push({ reason: 'FieldValueRequired', field: `${f}.name`, message: 'Required value' });
    else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(c.name) || c.name.length > 63) {
      causes.push({ reason: 'FieldValueInvalid', field: `${f}.name`, message: `Invalid value: "${c.name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` });
    } else if (seen.has(c.name)) causes.push({ reason: 'FieldValueDuplicate', field: `${f}.name`, message: `Duplicate value: "${c.name}"` });
    if (c?.name) seen.add(c.name);
    if (!c?.image) causes.push({ reason: 'FieldValueRequired', field: `${f}.image`, message: 'Required value' });
  });
  const rp = spec.restartPolicy;
  if (rp !== undefined && !['Always', 'OnFailure', 'Never'].includes(rp)) {
    causes.push({ reason: 'FieldValueNotSupported', field: `${path}.restartPolicy`, message: `Unsupported value: "${rp}": supported values: "Always", "OnFailure", "Never"` });
  }
  return causes;
}

function labelsMatch(selector: any, labels: Record<string, string> | undefined): boolean {
  try {
    return selectorFromLabelSelector(selector).matches(labels);
  } catch {
    return false;
  }
}

function validateWorkload(obj: any, opts: { replicas: boolean; restartPolicies?: string[] }): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = obj.spec;
  if (!spec) return [{ reason: 'FieldValueRequired', field: 'spec', message: 'Required value' }];
  if (opts.replicas && typeof spec.replicas === 'number' && spec.replicas < 0) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${spec.replicas}: must be greater than or equal to 0` });
  }
  if (!spec.selector) causes.push({ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' });
  else if (Object.keys(spec.selector.matchLabels ?? {}).length === 0 && (spec.selector.matchExpressions ?? []).length === 0) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.selector', message: 'Invalid value: {}: empty selector is invalid for deployment' });
  } else if (!labelsMatch(spec.selector, spec.template?.metadata?.labels)) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: `Invalid value: ${JSON.stringify(spec.template?.metadata?.labels ?? {})}: \`selector\` does not match template \`labels\`` });
  }
  causes.push(...validateContainers(spec.template?.spec, 'spec.template.spec'));
  const rp = spec.template?.spec?.restartPolicy;
  if (opts.restartPolicies && rp !== undefined && !opts.restartPolicies.includes(rp)) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'spec.template.spec.restartPolicy', message: `Unsupported value: "${rp}": supported values: ${opts.restartPolicies.map((p) => `"${p}"`).join(', ')}` });
  }
  return causes;
}

function defaultTemplate(spec: any): void {
  if (spec?.template) {
    spec.template.metadata ??= {};
    defaultPodSpec(spec.template.spec);
  }
}

// ---- Pod priority admission -------------------------------------------------------------

/** The storage prefix of PriorityClasses (cluster-scoped, group scheduling.k8s.io). */
const PRIORITY_CLASS_PREFIX = '/registry/scheduling.k8s.io/priorityclasses/';

/** Kubernetes' built-in PriorityClasses, which the API server creates at start (see `bootstrap`). */
export const SYSTEM_PRIORITY_CLASSES: readonly { name: string; value: number; description: string }[] = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

function podForbidden(obj: any, why: string): StatusError {
  const name = obj.metadata?.name ?? '';
  return new StatusError(403, 'Forbidden', `pods "${name}" is forbidden: ${why}`, { name, kind: 'pods' });
}

const PRIORITY_CLASSES = lookupResource('scheduling.k8s.io', 'v1', 'priorityclasses')!;

/**
 * The Priority admission plugin on pod create, as Kubernetes runs it: a named
 * `spec.priorityClassName` must exist (403 `no PriorityClass with name X was found`); without a
 * name the `globalDefault` class (the lowest-valued one if several) is used and named, and without
 * one the priority is 0. `spec.priority` and `spec.preemptionPolicy` are set from the class; a pod
 * that sets either to something else than the class computes is refused with 403.
 */
export function admitPodPriority(obj: any, ctx: StrategyContext): void {
  const spec = obj.spec;
  let priority = 0;
  let policy: string | undefined = 'PreemptLowerPriority';
  if (spec.priorityClassName) {
    const kv = ctx.registry.storage.get(PRIORITY_CLASS_PREFIX + spec.priorityClassName);
    if (!kv) throw podForbidden(obj, `no PriorityClass with name ${spec.priorityClassName} was found`);
    const pc = ctx.registry.decodeShared(PRIORITY_CLASSES, kv);
    priority = pc.value;
    policy = pc.preemptionPolicy;
  } else {
    const best = defaultPriorityClass(ctx);
    if (best) {
      spec.priorityClassName = best.metadata.name;
      priority = best.value;
      policy = best.preemptionPolicy;
    }
  }
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
    throw podForbidden(obj, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  if (policy) {
    if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
      throw podForbidden(obj, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = policy;
  }
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
}

// ---- PriorityClasses (scheduling.k8s.io/v1) -----------------------------------------------------

/** The largest value a PriorityClass not named `system-…` may have (HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** Names with this prefix are reserved for {@link SYSTEM_PRIORITY_CLASSES}. */
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

function isInt32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v <= 2 ** 31 - 1;
}

/** Why `name`/`value`/`globalDefault` is not a built-in class (IsKnownSystemPriorityClass's error), or undefined when it is. */
function unknownSystemPriorityClass(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const spc = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${name} PriorityClass must be ${spc.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

/** Kubernetes' ValidatePriorityClass (the metadata is validated by the registry). */
export function validatePriorityClass(pc: any): StatusCause[] {
  const causes: StatusCause[] = [];
  const name: string = pc.metadata?.name ?? '';
  if (pc.value === undefined || pc.value === null) causes.push({ reason: 'FieldValueRequired', field: 'value', message: 'Required value' });
  else if (!isInt32(pc.value)) causes.push({ reason: 'FieldValueInvalid', field: 'value', message: `Invalid value: ${JSON.stringify(pc.value)}: must be a 32-bit integer` });
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const why = unknownSystemPriorityClass(name, pc.value, pc.globalDefault === true);
    if (why) causes.push({ reason: 'FieldValueForbidden', field: 'metadata.name', message: `Forbidden: priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${why}` });
  } else if (isInt32(pc.value) && pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    causes.push({ reason: 'FieldValueForbidden', field: 'value', message: `Forbidden: maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}` });
  }
  const policy = pc.preemptionPolicy;
  if (policy === '') causes.push({ reason: 'FieldValueRequired', field: 'preemptionPolicy', message: 'Required value' });
  else if (policy !== undefined && policy !== null && !PREEMPTION_POLICIES.includes(policy)) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'preemptionPolicy', message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${PREEMPTION_POLICIES.map((p) => `"${p}"`).join(', ')}` });
  }
  return causes;
}

/** Kubernetes' ValidatePriorityClassUpdate: `value` and `preemptionPolicy` are immutable. */
export function validatePriorityClassUpdate(pc: any, old: any): StatusCause[] {
  const causes = validatePriorityClass(pc);
  if (pc.value !== old.value) causes.push({ reason: 'FieldValueForbidden', field: 'value', message: 'Forbidden: may not be changed in an update.' });
  if ((pc.preemptionPolicy ?? null) !== (old.preemptionPolicy ?? null)) {
    causes.push({ reason: 'FieldValueInvalid', field: 'preemptionPolicy', message: `Invalid value: ${pc.preemptionPolicy == null ? 'null' : JSON.stringify(pc.preemptionPolicy)}: field is immutable` });
  }
  return causes;
}

/** The globalDefault PriorityClass admission uses: the lowest-valued one when several exist. */
function defaultPriorityClass(ctx: StrategyContext): any {
  let best: any;
  for (const kv of ctx.registry.storage.list(PRIORITY_CLASS_PREFIX).items) {
    const pc = ctx.registry.decodeShared(PRIORITY_CLASSES, kv);
    if (pc.globalDefault === true && (!best || pc.value < best.value)) best = pc;
  }
  return best;
}

/**
 * The Priority admission plugin's check on PriorityClass writes, run after validation as
 * Kubernetes' validating admission is: a class may become `globalDefault` only when no other
 * class is (403 Forbidden `PriorityClass X is already marked as default. Only one default can exist`).
 */
function admitPriorityClass(pc: any, ctx: StrategyContext, isCreate: boolean): void {
  if (pc.globalDefault !== true) return;
  const dpc = defaultPriorityClass(ctx);
  if (!dpc || (!isCreate && dpc.metadata?.name === pc.metadata?.name)) return;
  const name = pc.metadata?.name ?? '';
  throw new StatusError(403, 'Forbidden', `priorityclasses.scheduling.k8s.io "${name}" is forbidden: PriorityClass ${dpc.metadata?.name} is already marked as default. Only one default can exist`, {
    name,
    group: 'scheduling.k8s.io',
    kind: 'priorityclasses',
  });
}

/**
 * PriorityClasses as Kubernetes 1.27 stores them: `preemptionPolicy` defaults to
 * PreemptLowerPriority (on create and update, as decoding defaults it); {@link validatePriorityClass}
 * and {@link validatePriorityClassUpdate} give 422 Invalid; then at most one `globalDefault` class
 * is admitted ({@link admitPriorityClass}, 403 Forbidden).
 */
function priorityClassStrategy(): Strategy {
  return {
    prepareForCreate(obj) {
      obj.preemptionPolicy ??= 'PreemptLowerPriority';
    },
    prepareForUpdate(obj, _old, _ctx, sub) {
      if (!sub) obj.preemptionPolicy ??= 'PreemptLowerPriority';
    },
    validate(obj, ctx) {
      const causes = validatePriorityClass(obj);
      if (causes.length === 0) admitPriorityClass(obj, ctx, true);
      return causes;
    },
    validateUpdate(obj, old, ctx) {
      const causes = validatePriorityClassUpdate(obj, old);
      if (causes.length === 0) admitPriorityClass(obj, ctx, false);
      return causes;
    },
  };
}

// ---- Services: cluster IPs and node ports -------------------------------------------------

/** Service allocation settings (`--service-cluster-ip-range`, `--service-node-port-range`). */
export interface ServiceAllocation {
  /** IPv4 CIDR, default 10.0.0.0/24. */
  clusterIPRange: string;
  /** Inclusive node port range, default 30000-32767. */
  nodePortRange: [number, number];
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((a, b) => a * 256 + Number(b), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function parseCidr(cidr: string): { base: number; size: number } {
  const [ip, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return { base: Math.floor(ipToInt(ip) / size) * size, size };
}

function serviceStrategy(ctxAlloc: ServiceAllocation): Strategy {
  const range = parseCidr(ctxAlloc.clusterIPRange);
  const [lo, hi] = ctxAlloc.nodePortRange;
  const usage = (ctx: StrategyContext, exceptUid?: string) => {
    const ips = new Set<string>();
    const ports = new Set<number>();
    for (const kv of ctx.registry.storage.list('/registry/core/services/').items) {
      const s = JSON.parse(kv.value);
      if (exceptUid && s.metadata?.uid === exceptUid) continue;
      for (const ip of s.spec?.clusterIPs ?? [s.spec?.clusterIP]) if (ip) ips.add(ip);
      for (const p of s.spec?.ports ?? []) if (p.nodePort) ports.add(p.nodePort);
    }
    return { ips, ports };
  };
  const needsNodePorts = (spec: any) => spec.type === 'NodePort' || spec.type === 'LoadBalancer';

  const allocate = (obj: any, old: any | undefined, ctx: StrategyContext) => {
    const spec = (obj.spec ??= {});
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    const causes: StatusCause[] = [];
    const { ips, ports } = usage(ctx, obj.metadata?.uid);
    (spec.ports ?? []).forEach((p: any) => {
      p.protocol ??= 'TCP';
      p.targetPort ??= p.port;
    });
    if (spec.type !== 'ExternalName') {
      if (old?.spec?.clusterIP && !spec.clusterIP) spec.clusterIP = old.spec.clusterIP;
      if (!spec.clusterIP) {
        const free: number[] = [];
        for (let i = 2; i < range.size - 1 && free.length < 64; i++) {
          const cand = range.base + ((i + ctx.rng.int(range.size)) % (range.size - 2)) + 1;
          if (!ips.has(intToIp(cand)) && !free.includes(cand)) free.push(cand);
        }
        if (free.length === 0) throw invalid('Service', '', obj.metadata?.name ?? '', [{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Internal error: failed to allocate a serviceIP: range is full' }]);
        spec.clusterIP = intToIp(free[0]);
      } else if (spec.clusterIP !== 'None' && spec.clusterIP !== old?.spec?.clusterIP) {
        const n = ipToInt(spec.clusterIP);
        if (!/^\d+\.\d+\.\d+\.\d+$/.test(spec.clusterIP) || n < range.base || n >= range.base + range.size) {
          causes.push({ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: []string{"${spec.clusterIP}"}: failed to allocate IP ${spec.clusterIP}: the provided IP (${spec.clusterIP}) is not in the valid range. The range of valid IPs is ${ctxAlloc.clusterIPRange}` });
        } else if (ips.has(spec.clusterIP)) {
          causes.push({ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: []string{"${spec.clusterIP}"}: failed to allocate IP ${spec.clusterIP}: provided IP is already allocated` });
        }
      }
      spec.clusterIPs = [spec.clusterIP];
      if (spec.clusterIP !== 'None') {
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
      }
      spec.internalTrafficPolicy ??= 'Cluster';
    }
    if (needsNodePorts(spec)) {
      spec.externalTrafficPolicy ??= 'Cluster';
      const oldPorts = new Map<string, number>((old?.spec?.ports ?? []).filter((p: any) => p.nodePort).map((p: any) => [`${p.port}/${p.protocol ?? 'TCP'}`, p.nodePort]));
      const mine = new Set<number>();
      (spec.ports ?? []).forEach((p: any, i: number) => {
        if (!p.nodePort) p.nodePort = oldPorts.get(`${p.port}/${p.protocol}`);
        if (p.nodePort) {
          if (p.nodePort < lo || p.nodePort > hi) {
            causes.push({ reason: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, message: `Invalid value: ${p.nodePort}: provided port is not in the valid range. The range of valid ports is ${lo}-${hi}` });
          } else if (ports.has(p.nodePort) || mine.has(p.nodePort)) {
            causes.push({ reason: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, message: `Invalid value: ${p.nodePort}: provided port is already allocated` });
          }
          mine.add(p.nodePort);
          return;
        }
        const size = hi - lo + 1;
        const start = ctx.rng.int(size);
        for (let k = 0; k < size; k++) {
          const cand = lo + ((start + k) % size);
          if (!ports.has(cand) && !mine.has(cand)) {
            p.nodePort = cand;
            mine.add(cand);
            return;
          }
        }
        causes.push({ reason: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, message: 'Internal error: range is full' });
      });
    } else {
      for (const p of spec.ports ?? []) delete p.nodePort;
    }
    if (causes.length > 0) throw invalid('Service', '', obj.metadata?.name ?? '', causes);
  };

  return {
    prepareForCreate(obj, ctx) {
      allocate(obj, undefined, ctx);
      obj.status = { loadBalancer: {} };
    },
    prepareForUpdate(obj, old, ctx, sub) {
      if (sub === 'status') return;
      if (old.spec?.clusterIP && obj.spec?.clusterIP && obj.spec.clusterIP !== old.spec.clusterIP) {
        throw invalid('Service', '', old.metadata.name, [{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', message: `Invalid value: []string{"${obj.spec.clusterIP}"}: may not change once set` }]);
      }
      allocate(obj, old, ctx);
    },
    validate(obj) {
      const causes: StatusCause[] = [];
      const spec = obj.spec ?? {};
      if (spec.type !== 'ExternalName' && spec.clusterIP !== 'None' && (!Array.isArray(spec.ports) || spec.ports.length === 0)) {
        causes.push({ reason: 'FieldValueRequired', field: 'spec.ports', message: 'Required value' });
      }
      (spec.ports ?? []).forEach((p: any, i: number) => {
        if (!(Number.isInteger(p.port) && p.port >= 1 && p.port <= 65535)) {
          causes.push({ reason: 'FieldValueInvalid', field: `spec.ports[${i}].port`, message: `Invalid value: ${p.port}: must be between 1 and 65535, inclusive` });
        }
      });
      if (!['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'].includes(spec.type)) {
        causes.push({ reason: 'FieldValueNotSupported', field: 'spec.type', message: `Unsupported value: "${spec.type}": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"` });
      }
      return causes;
    },
  };
}

// ---- Events: core/v1 is the stored form; events.k8s.io/v1 is converted ---------------------

function eventToEventsV1(e: any): any {
  const out: any = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: e.metadata };
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  };
  set('eventTime', e.eventTime);
  set('series', e.series);
  set('reportingController', e.reportingComponent);
  set('reportingInstance', e.reportingInstance);
  set('action', e.action);
  set('reason', e.reason);
  set('regarding', e.involvedObject);
  set('related', e.related);
  set('note', e.message);
  set('type', e.type);
  if (e.source && Object.keys(e.source).length) out.deprecatedSource = e.source;
  set('deprecatedFirstTimestamp', e.firstTimestamp);
  set('deprecatedLastTimestamp', e.lastTimestamp);
  if (e.count) out.deprecatedCount = e.count;
  return out;
}

function eventFromEventsV1(e: any): any {
  const out: any = { apiVersion: 'v1', kind: 'Event', metadata: e.metadata, involvedObject: e.regarding ?? {} };
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  };
  set('eventTime', e.eventTime);
  set('series', e.series);
  set('reportingComponent', e.reportingController);
  set('reportingInstance', e.reportingInstance);
  set('action', e.action);
  set('reason', e.reason);
  set('related', e.related);
  set('message', e.note);
  set('type', e.type);
  set('source', e.deprecatedSource);
  set('firstTimestamp', e.deprecatedFirstTimestamp);
  set('lastTimestamp', e.deprecatedLastTimestamp);
  set('count', e.deprecatedCount);
  return out;
}

// ---- The table ---------------------------------------------------------------------------------

/** Builds the strategy map keyed by `group/resource`. */
export function buildStrategies(alloc: ServiceAllocation): Map<string, Strategy> {
  const m = new Map<string, Strategy>();
  m.set('/namespaces', {
    returnDeletedObject: true,
    prepareForCreate(obj) {
      obj.spec = { finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
    },
    pendingFinalization: (obj) => (obj.spec?.finalizers ?? []).length > 0,
    onTerminating(obj) {
      obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
    },
    prepareForUpdate(obj, old, _ctx, sub) {
      if (sub !== 'finalize') obj.spec = old.spec;
      if (sub !== 'status') obj.status = old.status;
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': old.metadata.name };
    },
  });
  m.set('/nodes', {
    prepareForCreate(obj) {
      obj.status ??= {};
    },
  });
  m.set('/pods', {
    returnDeletedObject: true,
    prepareForCreate(obj, ctx) {
      obj.spec ??= {};
      defaultPodSpec(obj.spec);
      obj.spec.serviceAccountName ??= obj.spec.serviceAccount ?? 'default';
      obj.spec.serviceAccount = obj.spec.serviceAccountName;
      admitPodPriority(obj, ctx);
      obj.spec.tolerations ??= [];
      for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
        if (!obj.spec.tolerations.some((t: any) => t.key === key)) obj.spec.tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
      }
      obj.status = { phase: 'Pending', qosClass: qosClass(obj.spec) };
    },
    validate(obj) {
      return validateContainers(obj.spec, 'spec');
    },
    validateUpdate(obj, old, _ctx, sub) {
      if (sub === 'binding' || sub === 'status') return [];
      const sameContainers = (a: any[] | undefined, b: any[] | undefined) =>
        (a?.length ?? 0) === (b?.length ?? 0) && (a ?? []).every((c, i) => deepEqualExcept(c, b![i], IMAGE));
      const s = obj.spec ?? {};
      const o = old.spec ?? {};
      if (!deepEqualExcept(s, o, POD_MUTABLE) || !sameContainers(s.containers, o.containers) || !sameContainers(s.initContainers, o.initContainers)) {
        return [{ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)' }];
      }
      return validateContainers(obj.spec, 'spec');
    },
    gracePeriodSeconds(obj, requested) {
      if (!obj.spec?.nodeName) return 0;
      const phase = obj.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return 0;
      return requested ?? obj.spec?.terminationGracePeriodSeconds ?? 30;
    },
  });
  m.set('/services', serviceStrategy(alloc));
  m.set('/configmaps', {});
  m.set('/secrets', {
    prepareForCreate(obj) {
      obj.type ??= 'Opaque';
    },
  });
  m.set('events.k8s.io/events', { toServed: eventToEventsV1, toStored: eventFromEventsV1 });
  const workload = (replicas: boolean, extra?: (spec: any) => void, restartPolicies?: string[]): Strategy => ({
    prepareForCreate(obj) {
      if (obj.spec) {
        if (replicas) obj.spec.replicas ??= 1;
        extra?.(obj.spec);
        defaultTemplate(obj.spec);
      }
      obj.status = {};
    },
    prepareForUpdate(obj, _old, _ctx, sub) {
      if (sub !== 'status' && obj.spec) defaultTemplate(obj.spec);
    },
    validate: (obj) => validateWorkload(obj, { replicas, restartPolicies }),
    validateUpdate: (obj) => validateWorkload(obj, { replicas, restartPolicies }),
    generation: true,
  });
  m.set('apps/deployments', workload(true, (s) => {
    s.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
    s.revisionHistoryLimit ??= 10;
    s.progressDeadlineSeconds ??= 600;
  }));
  m.set('apps/replicasets', workload(true));
  m.set('apps/statefulsets', workload(true, (s) => {
    s.podManagementPolicy ??= 'OrderedReady';
    s.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    s.revisionHistoryLimit ??= 10;
  }));
  m.set('apps/daemonsets', workload(false, (s) => {
    s.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    s.revisionHistoryLimit ??= 10;
  }));
  m.set('batch/jobs', {
    prepareForCreate(obj, ctx) {
      const s = obj.spec;
      if (s) {
        s.parallelism ??= 1;
        s.completions ??= 1;
        s.backoffLimit ??= 6;
        s.completionMode ??= 'NonIndexed';
        s.suspend ??= false;
        if (!s.selector && s.manualSelector !== true) {
          const uid = obj.metadata.uid ?? ctx.rng.uuid();
          s.selector = { matchLabels: { 'controller-uid': uid } };
          s.template ??= {};
          s.template.metadata ??= {};
          s.template.metadata.labels = { ...(s.template.metadata.labels ?? {}), 'controller-uid': uid, 'job-name': obj.metadata.name ?? '' };
        }
        defaultTemplate(s);
      }
      obj.status = {};
    },
    validate: (obj) => validateWorkload(obj, { replicas: false, restartPolicies: ['OnFailure', 'Never'] }),
    generation: true,
  });
  m.set('batch/cronjobs', {
    prepareForCreate(obj) {
      const s = obj.spec;
      if (s) {
        s.concurrencyPolicy ??= 'Allow';
        s.suspend ??= false;
        s.successfulJobsHistoryLimit ??= 3;
        s.failedJobsHistoryLimit ??= 1;
        if (s.jobTemplate?.spec) defaultTemplate(s.jobTemplate.spec);
      }
      obj.status = {};
    },
    validate(obj) {
      const causes: StatusCause[] = [];
      if (!obj.spec?.schedule) causes.push({ reason: 'FieldValueRequired', field: 'spec.schedule', message: 'Required value' });
      causes.push(...validateContainers(obj.spec?.jobTemplate?.spec?.template?.spec, 'spec.jobTemplate.spec.template.spec'));
      return causes;
    },
    generation: true,
  });
  m.set('scheduling.k8s.io/priorityclasses', priorityClassStrategy());
  m.set('coordination.k8s.io/leases', {});
  m.set('policy/poddisruptionbudgets', {
    prepareForCreate(obj) {
      obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    generation: true,
  });
  m.set('discovery.k8s.io/endpointslices', { generation: true });
  return m;
}

/** The QoS class of a pod spec, as Kubernetes computes it. */
export function qosClass(spec: any): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const res of ['cpu', 'memory']) {
      if (lim[res] === undefined) guaranteed = false;
      else if (req[res] !== undefined && String(req[res]) !== String(lim[res])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
