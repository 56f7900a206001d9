import { parseQuantity } from '../machinery/quantity.ts';

/**
 * An amount of each schedulable resource, as Kubernetes' framework.Resource: CPU in milli-cores,
 * memory and ephemeral storage in bytes, a pod count, and scalar (extended, hugepages) resources.
 */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  allowedPodNumber: number;
  scalar: Record<string, number>;
}

/** The request Kubernetes assumes for a container without a CPU request when scoring (100m). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
/** The request Kubernetes assumes for a container without a memory request when scoring (200Mi). */
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** A zero Resource. */
export function emptyResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: {} };
}

/** Parsed quantity strings (milli units, then whole units): pods repeat a handful of request values. */
const parsedMilli = new Map<string, number>();
const parsedWhole = new Map<string, number>();
const PARSED_LIMIT = 4096;

function quantity(v: unknown, milli: boolean): number {
  if (v === undefined || v === null) return 0;
  const cache = typeof v === 'string' ? (milli ? parsedMilli : parsedWhole) : undefined;
  const hit = cache?.get(v as string);
  if (hit !== undefined) return hit;
  let n: number;
  try {
    const q = parseQuantity(v as string | number);
    n = milli ? q.milli : Number(q.valueInt());
  } catch {
    n = 0;
  }
  if (cache && cache.size < PARSED_LIMIT) cache.set(v as string, n);
  return n;
}

/** A Resource from a ResourceList (`{cpu: '2', memory: '4Gi', pods: '110', …}`). */
export function resourceFromList(list: Record<string, unknown> | undefined): Resource {
  const r = emptyResource();
  for (const [name, v] of Object.entries(list ?? {})) addNamed(r, name, name === 'cpu' ? quantity(v, true) : quantity(v, false));
  return r;
}

function addNamed(r: Resource, name: string, v: number): void {
  switch (name) {
    case 'cpu':
      r.milliCPU += v;
      break;
    case 'memory':
      r.memory += v;
      break;
    case 'ephemeral-storage':
      r.ephemeralStorage += v;
      break;
    case 'pods':
      r.allowedPodNumber += v;
      break;
    default:
      if (isScalarResourceName(name)) r.scalar[name] = (r.scalar[name] ?? 0) + v;
  }
}

/** Extended resources (`example.com/gpu`), hugepages and attachable volumes count as scalar resources. */
export function isScalarResourceName(name: string): boolean {
  return name.startsWith('hugepages-') || name.startsWith('attachable-volumes-') || (name.includes('/') && !name.startsWith('kubernetes.io/') && !name.includes('.kubernetes.io/'));
}

/** Adds `b` into `a`. */
export function addResource(a: Resource, b: Resource, sign = 1): void {
  a.milliCPU += sign * b.milliCPU;
  a.memory += sign * b.memory;
  a.ephemeralStorage += sign * b.ephemeralStorage;
  a.allowedPodNumber += sign * b.allowedPodNumber;
  for (const [k, v] of Object.entries(b.scalar)) a.scalar[k] = (a.scalar[k] ?? 0) + sign * v;
}

function maxInto(a: Resource, b: Resource): void {
  a.milliCPU = Math.max(a.milliCPU, b.milliCPU);
  a.memory = Math.max(a.memory, b.memory);
  a.ephemeralStorage = Math.max(a.ephemeralStorage, b.ephemeralStorage);
  for (const [k, v] of Object.entries(b.scalar)) a.scalar[k] = Math.max(a.scalar[k] ?? 0, v);
}

function cloneResource(r: Resource): Resource {
  return { ...r, scalar: { ...r.scalar } };
}

function containerRequests(c: any, nonZero: boolean): Resource {
  const req = c?.resources?.requests ?? {};
  const lim = c?.resources?.limits ?? {};
  const r = emptyResource();
  const names = new Set([...Object.keys(req), ...Object.keys(lim)]);
  for (const name of names) {
    if (name === 'pods') continue;
    const v = req[name] ?? lim[name];
    addNamed(r, name, name === 'cpu' ? quantity(v, true) : quantity(v, false));
  }
  if (nonZero) {
    if (req.cpu === undefined && lim.cpu === undefined) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
    if (req.memory === undefined && lim.memory === undefined) r.memory = DEFAULT_MEMORY_REQUEST;
  }
  return r;
}

/**
 * The resources a pod requests, computed as Kubernetes does: the sum over its containers, raised
 * to the largest init container (regular init containers run one at a time; restartable "sidecar"
 * init containers keep running and add up), plus the pod overhead. A container without a request
 * but with a limit requests its limit (API defaulting). With `nonZero`, containers without a CPU
 * or memory request count 100m / 200Mi, as the scoring plugins see them.
 */
export function podRequests(pod: any, nonZero = false): Resource {
  const reqs = emptyResource();
  for (const c of pod?.spec?.containers ?? []) addResource(reqs, containerRequests(c, nonZero));
  const restartable = emptyResource();
  const initMax = emptyResource();
  for (const c of pod?.spec?.initContainers ?? []) {
    let r = containerRequests(c, nonZero);
    if (c?.restartPolicy === 'Always') {
      addResource(reqs, r);
      addResource(restartable, r);
      r = cloneResource(restartable);
    } else {
      addResource(r, restartable);
    }
    maxInto(initMax, r);
  }
  maxInto(reqs, initMax);
  if (pod?.spec?.overhead) {
    const o = resourceFromList(pod.spec.overhead);
    o.allowedPodNumber = 0;
    addResource(reqs, o);
  }
  return reqs;
}

/** A host port a pod uses: protocol, host IP (0.0.0.0 when unset) and port. */
export interface HostPort {
  protocol: string;
  ip: string;
  port: number;
}

/** The host ports requested by a pod's containers. */
export function podHostPorts(pod: any): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod?.spec?.containers ?? []) {
    for (const p of c?.ports ?? []) {
      if (!p?.hostPort || p.hostPort <= 0) continue;
      out.push({ protocol: p.protocol || 'TCP', ip: p.hostIP || '0.0.0.0', port: p.hostPort });
    }
  }
  return out;
}

/** Whether two host ports collide: same protocol and port, and the same IP or either is 0.0.0.0. */
export function hostPortsConflict(a: HostPort, b: HostPort): boolean {
  if (a.protocol !== b.protocol || a.port !== b.port) return false;
  return a.ip === b.ip || a.ip === '0.0.0.0' || b.ip === '0.0.0.0';
}

/** `namespace/name` of a pod. */
export function podKey(pod: any): string {
  return `${pod?.metadata?.namespace ?? ''}/${pod?.metadata?.name ?? ''}`;
}

/** A pod with what the scheduler derives from it once: requests, non-zero requests, host ports. */
export interface PodInfo {
  pod: any;
  key: string;
  requests: Resource;
  nonZeroRequests: Resource;
  ports: HostPort[];
  hasAffinity: boolean;
  hasRequiredAntiAffinity: boolean;
}

/** Derives a {@link PodInfo}. */
export function newPodInfo(pod: any): PodInfo {
  const aff = pod?.spec?.affinity;
  const hasAffinity = !!(aff?.podAffinity || aff?.podAntiAffinity);
  return {
    pod,
    key: podKey(pod),
    requests: podRequests(pod),
    nonZeroRequests: podRequests(pod, true),
    ports: podHostPorts(pod),
    hasAffinity,
    hasRequiredAntiAffinity: (aff?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).length > 0,
  };
}

/**
 * What the scheduler knows about one node: the Node object (absent while only pods reference it),
 * its allocatable resources, the pods on it (bound or assumed) and the sums of their requests and
 * host ports. `requested` and `nonZeroRequested` always equal the sums over `pods`.
 */
export class NodeInfo {
  node: any;
  allocatable: Resource = emptyResource();
  readonly pods = new Map<string, PodInfo>();
  readonly requested: Resource = emptyResource();
  readonly nonZeroRequested: Resource = emptyResource();
  podsWithAffinity = 0;
  podsWithRequiredAntiAffinity = 0;
  /** Bumped on every change, so callers can cache derived values. */
  generation = 0;

  // NOTE: copies of what the filters and scores read for every node of every cycle, kept in this
  // object so that a cycle over hundreds of nodes reads one object per node, not four or five.
  /** `pods.size`. */
  podCount = 0;
  /** `allocatable` cpu (milli), memory, ephemeral storage, pods. */
  allocMilliCPU = 0;
  allocMemory = 0;
  allocEphemeralStorage = 0;
  allocPods = 0;
  /** `requested` cpu (milli), memory, ephemeral storage. */
  reqMilliCPU = 0;
  reqMemory = 0;
  reqEphemeralStorage = 0;
  /** `nonZeroRequested` cpu (milli), memory. */
  nonZeroMilliCPU = 0;
  nonZeroMemory = 0;
  /** The node's `spec.taints` (undefined when it has none) and `spec.unschedulable`. */
  taints: any[] | undefined = undefined;
  unschedulable = false;

  constructor(
    readonly name: string,
    node?: any,
  ) {
    if (node) this.setNode(node);
  }

  /** Sets (or replaces) the Node object; allocatable falls back to capacity. */
  setNode(node: any): void {
    this.node = node;
    this.allocatable = resourceFromList(node?.status?.allocatable ?? node?.status?.capacity);
    const taints = node?.spec?.taints;
    this.taints = Array.isArray(taints) && taints.length > 0 ? taints : undefined;
    this.unschedulable = !!node?.spec?.unschedulable;
    this.generation++;
    this.syncCopies();
  }

  /** Refreshes the flat copies of the resource sums (see podCount and the fields after it). */
  private syncCopies(): void {
    const a = this.allocatable;
    const r = this.requested;
    const nz = this.nonZeroRequested;
    this.podCount = this.pods.size;
    this.allocMilliCPU = a.milliCPU;
    this.allocMemory = a.memory;
    this.allocEphemeralStorage = a.ephemeralStorage;
    this.allocPods = a.allowedPodNumber;
    this.reqMilliCPU = r.milliCPU;
    this.reqMemory = r.memory;
    this.reqEphemeralStorage = r.ephemeralStorage;
    this.nonZeroMilliCPU = nz.milliCPU;
    this.nonZeroMemory = nz.memory;
  }

  /** Labels of the node. */
  labels(): Record<string, string> {
    return this.node?.metadata?.labels ?? {};
  }

  /** Adds a pod (replacing one with the same key). */
  addPod(pi: PodInfo): void {
    if (this.pods.has(pi.key)) this.removePod(pi.key);
    this.pods.set(pi.key, pi);
    addResource(this.requested, pi.requests);
    addResource(this.nonZeroRequested, pi.nonZeroRequests);
    if (pi.hasAffinity) this.podsWithAffinity++;
    if (pi.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity++;
    this.generation++;
    this.syncCopies();
  }

  /** Removes a pod by key; returns whether it was there. */
  removePod(key: string): boolean {
    const pi = this.pods.get(key);
    if (!pi) return false;
    this.pods.delete(key);
    addResource(this.requested, pi.requests, -1);
    addResource(this.nonZeroRequested, pi.nonZeroRequests, -1);
    if (pi.hasAffinity) this.podsWithAffinity--;
    if (pi.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity--;
    this.generation++;
    this.syncCopies();
    return true;
  }

  /** An independent copy (same Node object and PodInfos) that can be changed without touching this one. */
  clone(): NodeInfo {
    const c = new NodeInfo(this.name);
    c.node = this.node;
    c.allocatable = this.allocatable;
    c.taints = this.taints;
    c.unschedulable = this.unschedulable;
    for (const pi of this.pods.values()) c.addPod(pi);
    c.syncCopies();
    return c;
  }

  /** Every host port used by the pods on this node. */
  usedPorts(): HostPort[] {
    const out: HostPort[] = [];
    for (const pi of this.pods.values()) out.push(...pi.ports);
    return out;
  }
}

function isTerminal(pod: any): boolean {
  const phase = pod?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * The scheduler's in-memory view of the cluster, fed by the node and pod informers: a NodeInfo per
 * node with the pods bound to it, plus pods the scheduler *assumed* onto a node before the binding
 * was confirmed, so consecutive decisions see each other. An assumed pod is confirmed when the
 * informer reports it bound, and dropped by `forget` when binding fails. Terminal pods do not
 * count against a node.
 */
export class SchedulerCache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly podNode = new Map<string, string>();
  private readonly assumed = new Set<string>();
  private nodeList: NodeInfo[] | undefined;
  private requiredAntiAffinityPods = 0;

  /**
   * Pods with required pod anti-affinity on all nodes, bound or assumed (Kubernetes'
   * HavePodsWithRequiredAntiAffinityList, as a count): while it is 0, a pod without affinity
   * terms of its own need not look at any node's pods.
   */
  get podsWithRequiredAntiAffinity(): number {
    return this.requiredAntiAffinityPods;
  }

  /** Adds or updates a node. */
  addOrUpdateNode(node: any): NodeInfo {
    const name = node.metadata.name;
    let ni = this.nodes.get(name);
    if (!ni) {
      ni = new NodeInfo(name, node);
      this.nodes.set(name, ni);
      this.nodeList = undefined;
    } else {
      if (!ni.node) this.nodeList = undefined;
      ni.setNode(node);
    }
    return ni;
  }

  /** Removes a node (pods still referencing it keep a node-less NodeInfo). */
  removeNode(name: string): void {
    const ni = this.nodes.get(name);
    if (!ni) return;
    this.nodeList = undefined;
    if (ni.pods.size === 0) this.nodes.delete(name);
    else {
      ni.node = undefined;
      ni.taints = undefined;
      ni.unschedulable = false;
    }
  }

  /** Adds, updates or (for terminal or unbound pods) removes a pod that informers report. */
  addOrUpdatePod(pod: any): void {
    const key = podKey(pod);
    const nodeName = pod?.spec?.nodeName;
    if (!nodeName || isTerminal(pod)) {
      if (!this.assumed.has(key)) this.removePod(pod);
      return;
    }
    this.assumed.delete(key);
    const prev = this.podNode.get(key);
    if (prev && prev !== nodeName) this.detach(key, prev);
    this.attach(newPodInfo(pod), nodeName);
  }

  /** Removes a pod wherever it is (bound or assumed). */
  removePod(pod: any): void {
    const key = podKey(pod);
    this.assumed.delete(key);
    const prev = this.podNode.get(key);
    if (prev) this.detach(key, prev);
  }

  /** Counts a pod against `nodeName` before its binding is confirmed. */
  assumePod(pod: any, nodeName: string): void {
    const key = podKey(pod);
    const prev = this.podNode.get(key);
    if (prev) this.detach(key, prev);
    this.assumed.add(key);
    this.attach(newPodInfo({ ...pod, spec: { ...pod.spec, nodeName } }), nodeName);
  }

  /** Drops an assumed pod (binding failed); a confirmed pod is left alone. */
  forgetPod(pod: any): void {
    const key = podKey(pod);
    if (!this.assumed.has(key)) return;
    this.assumed.delete(key);
    const prev = this.podNode.get(key);
    if (prev) this.detach(key, prev);
  }

  /** Whether a pod is assumed and not yet confirmed. */
  isAssumed(pod: any): boolean {
    return this.assumed.has(podKey(pod));
  }

  /** The node a pod is bound or assumed to. */
  nodeOf(pod: any): string | undefined {
    return this.podNode.get(podKey(pod));
  }

  /** The NodeInfo of a node name. */
  nodeInfo(name: string): NodeInfo | undefined {
    return this.nodes.get(name);
  }

  /** NodeInfos of every node that exists, sorted by name (a stable order for round-robin search). */
  list(): NodeInfo[] {
    if (!this.nodeList) this.nodeList = [...this.nodes.values()].filter((n) => n.node).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return this.nodeList;
  }

  private attach(pi: PodInfo, nodeName: string): void {
    let ni = this.nodes.get(nodeName);
    if (!ni) {
      ni = new NodeInfo(nodeName);
      this.nodes.set(nodeName, ni);
    }
    if (ni.pods.get(pi.key)?.hasRequiredAntiAffinity) this.requiredAntiAffinityPods--;
    ni.addPod(pi);
    if (pi.hasRequiredAntiAffinity) this.requiredAntiAffinityPods++;
    this.podNode.set(pi.key, nodeName);
  }

  private detach(key: string, nodeName: string): void {
    const ni = this.nodes.get(nodeName);
    this.podNode.delete(key);
    if (!ni) return;
    if (ni.pods.get(key)?.hasRequiredAntiAffinity) this.requiredAntiAffinityPods--;
    ni.removePod(key);
    if (!ni.node && ni.pods.size === 0) this.nodes.delete(nodeName);
  }
}
