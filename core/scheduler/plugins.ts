import { newRequirement, selectorFromLabelSelector, type LabelRequirement, type LabelSelector, LabelSelector as Selector, type SelectorOperator } from '../machinery/labels.ts';
import { hostPortsConflict, type NodeInfo, type PodInfo, type Resource } from './nodeinfo.ts';
import type { ClusterEvent } from './queue.ts';

/** The highest score a score plugin gives a node after normalization. */
export const MAX_NODE_SCORE = 100;

/** Per-attempt state shared by a profile's plugins (PreFilter / PreScore results). */
export type CycleState = Map<string, unknown>;

/**
 * A CycleState entry that AddPod/RemovePod change: {@link cloneCycleState} clones it. Entries
 * without `clone` are treated as read-only and shared between clones.
 */
export interface StateData {
  clone(): StateData;
}

function isStateData(v: unknown): v is StateData {
  return typeof v === 'object' && v !== null && typeof (v as { clone?: unknown }).clone === 'function';
}

/**
 * Kubernetes' CycleState.Clone: a copy whose {@link StateData} entries are cloned, so a plugin's
 * `addPod` / `removePod` on the copy (a nominated pod added, a victim removed) leaves the
 * original untouched. Other entries are shared.
 */
export function cloneCycleState(state: CycleState): CycleState {
  const out: CycleState = new Map();
  for (const [k, v] of state) out.set(k, isStateData(v) ? v.clone() : v);
  return out;
}

/** What plugins may consult besides the node being filtered. */
export interface PluginContext {
  /** Every node (with a Node object) the scheduler knows. */
  allNodes: NodeInfo[];
  /** Labels of a namespace (for namespaceSelector in pod affinity terms). */
  namespaceLabels(ns: string): Record<string, string> | undefined;
  /** Pods nominated (by preemption) to run on a node, not yet bound; none when absent. */
  nominatedPodsOn?(nodeName: string): PodInfo[];
  /**
   * How many pods on `allNodes` have required pod anti-affinity; when absent, plugins look at
   * every node. When 0, InterPodAffinity's PreFilter skips the nodes for a pod without terms.
   */
  podsWithRequiredAntiAffinity?: number;
}

/**
 * A filter / score plugin, after Kubernetes' scheduling framework. `filter` returns the reasons a
 * node cannot run the pod (Kubernetes' wording) or nothing when it can. `score` ranks a feasible
 * node; `normalizeScore` maps raw scores to 0…{@link MAX_NODE_SCORE} in place.
 */
export interface Plugin {
  readonly name: string;
  /** Cluster events after which a pod this plugin rejected may fit. */
  readonly events?: readonly ClusterEvent[];
  /**
   * Computes what `filter` needs for this pod into `state`. Returning `'Skip'` (Kubernetes'
   * PreFilter Skip status) says the plugin's filter passes every node for this pod, so the cycle
   * does not run its `filter`, `addPod` or `removePod`.
   */
  preFilter?(state: CycleState, pod: any, ctx: PluginContext): 'Skip' | void;
  /**
   * PreFilterExtensions.AddPod: updates what `preFilter` stored in `state` as if `podInfoToAdd`
   * ran on `node` (a nominated pod). Called on a cloned state, before the pod is added to `node`.
   */
  addPod?(state: CycleState, pod: any, podInfoToAdd: PodInfo, node: NodeInfo): void;
  /**
   * PreFilterExtensions.RemovePod: updates `state` as if `podInfoToRemove` no longer ran on `node`
   * (a preemption victim). Called on a cloned state, after the pod left `node`.
   */
  removePod?(state: CycleState, pod: any, podInfoToRemove: PodInfo, node: NodeInfo): void;
  filter?(state: CycleState, pod: any, node: NodeInfo): string[] | undefined;
  /**
   * Computes what `score` needs into `state`. Returning `'Skip'` (Kubernetes' PreScore Skip) says
   * every node's normalized score would be 0, so the cycle runs neither `score` nor `normalizeScore`.
   */
  preScore?(state: CycleState, pod: any, nodes: NodeInfo[], ctx: PluginContext): 'Skip' | void;
  score?(state: CycleState, pod: any, node: NodeInfo): number;
  normalizeScore?(state: CycleState, pod: any, scores: number[], nodes: NodeInfo[]): void;
}

/** Kubernetes' DefaultNormalizeScore: scales to 0…max by the highest score, optionally reversed. */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: number[]): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(maxPriority);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    let s = Math.trunc((maxPriority * scores[i]) / max);
    if (reverse) s = maxPriority - s;
    scores[i] = s;
  }
}

// ---- taints and tolerations -------------------------------------------------------------------------------

const PREFER_NO_SCHEDULE_TOLERATIONS = 'TaintToleration/preferNoSchedule';

/** The pod's tolerations that can tolerate a PreferNoSchedule taint (those with no effect or that one). */
function preferNoScheduleTolerations(pod: any): any[] {
  return (pod.spec?.tolerations ?? []).filter((t: any) => !t.effect || t.effect === 'PreferNoSchedule');
}

/** Whether a toleration tolerates a taint (Kubernetes' Toleration.ToleratesTaint). */
export function toleratesTaint(tol: any, taint: any): boolean {
  if (tol?.effect && tol.effect !== taint?.effect) return false;
  if (tol?.key && tol.key !== taint?.key) return false;
  if (!tol?.key && tol?.operator !== 'Exists') return false;
  const op = tol?.operator || 'Equal';
  if (op === 'Exists') return true;
  if (op === 'Equal') return (tol?.value ?? '') === (taint?.value ?? '');
  return false;
}

function tolerated(tolerations: any[], taint: any): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/** Rejects nodes with `spec.unschedulable` unless the pod tolerates node.kubernetes.io/unschedulable. */
export const nodeUnschedulable: Plugin = {
  name: 'NodeUnschedulable',
  events: ['NodeAdd', 'NodeUpdate'],
  filter(_s, pod, node) {
    if (!node.unschedulable) return undefined;
    const taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
    return tolerated(pod.spec?.tolerations ?? [], taint) ? undefined : ['node(s) were unschedulable'];
  },
};

/** Rejects every node but `spec.nodeName` when the pod names one. */
export const nodeName: Plugin = {
  name: 'NodeName',
  events: ['NodeAdd'],
  preFilter(_s, pod) {
    if (!pod.spec?.nodeName) return 'Skip';
  },
  filter(_s, pod, node) {
    const want = pod.spec?.nodeName;
    return !want || want === node.name ? undefined : ["node(s) didn't match the requested node name"];
  },
};

/**
 * Filter: rejects a node with a NoSchedule or NoExecute taint the pod does not tolerate. Score:
 * fewer untolerated PreferNoSchedule taints rank higher (reverse-normalized counts).
 */
export const taintToleration: Plugin = {
  name: 'TaintToleration',
  events: ['NodeAdd', 'NodeUpdate'],
  filter(_s, pod, node) {
    const taints = node.taints;
    if (taints === undefined) return undefined;
    const tolerations = pod.spec?.tolerations ?? [];
    for (const taint of taints) {
      if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
      if (!tolerated(tolerations, taint)) return [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`];
    }
    return undefined;
  },
  preScore(state, pod) {
    state.set(PREFER_NO_SCHEDULE_TOLERATIONS, preferNoScheduleTolerations(pod));
  },
  score(state, pod, node) {
    const taints = node.taints;
    if (taints === undefined) return 0;
    const tolerations = (state.get(PREFER_NO_SCHEDULE_TOLERATIONS) as any[] | undefined) ?? preferNoScheduleTolerations(pod);
    let n = 0;
    for (const taint of taints) if (taint.effect === 'PreferNoSchedule' && !tolerated(tolerations, taint)) n++;
    return n;
  },
  normalizeScore(_s, _pod, scores) {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
  },
};

// ---- node affinity ----------------------------------------------------------------------------------------

const NODE_SELECTOR_OPERATORS: Record<string, SelectorOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!', Gt: 'gt', Lt: 'lt' };

function requirementsOf(exprs: any[] | undefined): LabelRequirement[] | undefined {
  const out: LabelRequirement[] = [];
  for (const e of exprs ?? []) {
    const op = NODE_SELECTOR_OPERATORS[e?.operator];
    if (!op) return undefined;
    try {
      out.push(newRequirement(e.key, op, e.values ?? []));
    } catch {
      return undefined;
    }
  }
  return out;
}

/** Whether a NodeSelectorTerm matches a node: all matchExpressions on labels and matchFields on metadata.name; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: any, node: any): boolean {
  const exprs = term?.matchExpressions ?? [];
  const fields = term?.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labelReqs = requirementsOf(exprs);
  if (!labelReqs) return false;
  const labels = node?.metadata?.labels ?? {};
  if (!Selector.of(labelReqs).matches(labels)) return false;
  for (const f of fields) {
    if (f?.key !== 'metadata.name') return false;
    const reqs = requirementsOf([{ ...f, key: 'metadata.name' }]);
    if (!reqs || !Selector.of(reqs).matches({ 'metadata.name': node?.metadata?.name ?? '' })) return false;
  }
  return true;
}

/** Whether a node satisfies the pod's `nodeSelector` and required node affinity (terms are ORed). */
export function podMatchesNodeSelectorAndAffinity(pod: any, node: any): boolean {
  const labels = node?.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod?.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t: any) => nodeSelectorTermMatches(t, node));
}

/** Filter on nodeSelector + required node affinity; score by the weights of matching preferred terms. */
export const nodeAffinity: Plugin = {
  name: 'NodeAffinity',
  events: ['NodeAdd', 'NodeUpdate'],
  preFilter(_s, pod) {
    const selector = pod.spec?.nodeSelector;
    const hasSelector = selector && typeof selector === 'object' && Object.keys(selector).length > 0;
    if (!hasSelector && !pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution) return 'Skip';
  },
  filter(_s, pod, node) {
    return podMatchesNodeSelectorAndAffinity(pod, node.node) ? undefined : ["node(s) didn't match Pod's node affinity/selector"];
  },
  preScore(_s, pod) {
    // Without preferred terms every raw score is 0, and so is every normalized one.
    if (!(pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length > 0)) return 'Skip';
  },
  score(_s, pod, node) {
    let sum = 0;
    for (const t of pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
      if (t?.weight && nodeSelectorTermMatches(t.preference, node.node)) sum += t.weight;
    }
    return sum;
  },
  normalizeScore(_s, _pod, scores) {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
  },
};

// ---- resources ----------------------------------------------------------------------------------------------

const FIT_STATE = 'NodeResourcesFit';

const NOTHING_INSUFFICIENT: string[] = Object.freeze([]) as unknown as string[];

function isEmpty(o: Record<string, unknown>): boolean {
  for (const _ in o) return false;
  return true;
}

/** The reasons a pod's requests do not fit on a node (Kubernetes' fitsRequest), in its order; a shared frozen empty array when it fits. */
export function insufficientResources(req: Resource, node: NodeInfo): string[] {
  // The common case first, from the node's flat copies and without allocating: everything fits.
  if (
    node.podCount + 1 <= node.allocPods &&
    !(req.milliCPU > 0 && req.milliCPU > node.allocMilliCPU - node.reqMilliCPU) &&
    !(req.memory > 0 && req.memory > node.allocMemory - node.reqMemory) &&
    !(req.ephemeralStorage > 0 && req.ephemeralStorage > node.allocEphemeralStorage - node.reqEphemeralStorage) &&
    isEmpty(req.scalar)
  ) {
    return NOTHING_INSUFFICIENT;
  }
  const alloc = node.allocatable;
  const used = node.requested;
  const out: string[] = [];
  if (node.pods.size + 1 > alloc.allowedPodNumber) out.push('Too many pods');
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) out.push('Insufficient cpu');
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) out.push('Insufficient memory');
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) out.push('Insufficient ephemeral-storage');
  let names: string[] | undefined;
  for (const name in req.scalar) (names ??= []).push(name);
  if (names) {
    names.sort();
    for (const name of names) {
      const v = req.scalar[name];
      if (v > 0 && v > (alloc.scalar[name] ?? 0) - (used.scalar[name] ?? 0)) out.push(`Insufficient ${name}`);
    }
  }
  return out;
}

/** A resource and its weight in the allocation scores (defaults: cpu 1, memory 1). */
export interface ResourceSpec {
  name: string;
  weight: number;
}

/** Kubernetes' default scoring resources. */
export const DEFAULT_SCORING_RESOURCES: ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

function amount(r: Resource, name: string): number {
  if (name === 'cpu') return r.milliCPU;
  if (name === 'memory') return r.memory;
  if (name === 'ephemeral-storage') return r.ephemeralStorage;
  if (name === 'pods') return r.allowedPodNumber;
  return r.scalar[name] ?? 0;
}

/** Whether the scoring resources are cpu then memory (any weights): the scores' fast path. */
function isCpuAndMemory(resources: ResourceSpec[]): boolean {
  return resources.length === 2 && resources[0].name === 'cpu' && resources[1].name === 'memory';
}

/** LeastAllocated's score of one resource: the free share after the pod, 0 when it does not fit. */
function leastAllocated(alloc: number, requested: number): number {
  return alloc === 0 || requested > alloc ? 0 : Math.trunc(((alloc - requested) * MAX_NODE_SCORE) / alloc);
}

interface FitState {
  requests: Resource;
  nonZero: Resource;
}

function fitState(state: CycleState, pod: any): FitState {
  let s = state.get(FIT_STATE) as FitState | undefined;
  if (!s) {
    const pi = state.get('podInfo') as PodInfo;
    s = { requests: pi?.requests, nonZero: pi?.nonZeroRequests };
    if (!pi) throw new Error(`no podInfo in cycle state for ${pod?.metadata?.name}`);
    state.set(FIT_STATE, s);
  }
  return s;
}

/**
 * NodeResourcesFit: filter on the pod's requests (init containers and overhead included) against
 * allocatable minus what the node's pods request, and the pod count; score by LeastAllocated:
 * per resource (allocatable − requested)·100 / allocatable with non-zero requests, weighted mean.
 */
export function nodeResourcesFit(resources: ResourceSpec[] = DEFAULT_SCORING_RESOURCES): Plugin {
  const cpuAndMemory = isCpuAndMemory(resources);
  const cpuWeight = resources[0]?.weight ?? 0;
  const memoryWeight = resources[1]?.weight ?? 0;
  return {
    name: 'NodeResourcesFit',
    events: ['NodeAdd', 'NodeUpdate', 'AssignedPodDelete'],
    filter(state, pod, node) {
      const r = insufficientResources(fitState(state, pod).requests, node);
      return r.length > 0 ? r : undefined;
    },
    score(state, pod, node) {
      const req = fitState(state, pod).nonZero;
      if (cpuAndMemory && cpuWeight + memoryWeight > 0) {
        // The default resources, without the per-resource lookups (the same arithmetic as below).
        return Math.trunc((leastAllocated(node.allocMilliCPU, node.nonZeroMilliCPU + req.milliCPU) * cpuWeight + leastAllocated(node.allocMemory, node.nonZeroMemory + req.memory) * memoryWeight) / (cpuWeight + memoryWeight));
      }
      let score = 0;
      let weights = 0;
      for (const { name, weight } of resources) {
        const alloc = amount(node.allocatable, name);
        const requested = amount(node.nonZeroRequested, name) + amount(req, name);
        score += leastAllocated(alloc, requested) * weight;
        weights += weight;
      }
      return weights === 0 ? 0 : Math.trunc(score / weights);
    },
  };
}

/**
 * NodeResourcesBalancedAllocation: favours nodes whose resource fractions (requested incl. the
 * pod / allocatable, capped at 1) are close to each other: (1 − standard deviation)·100.
 */
export function nodeResourcesBalancedAllocation(resources: ResourceSpec[] = DEFAULT_SCORING_RESOURCES): Plugin {
  const cpuAndMemory = isCpuAndMemory(resources);
  return {
    name: 'NodeResourcesBalancedAllocation',
    events: ['NodeAdd', 'NodeUpdate', 'AssignedPodDelete'],
    score(state, pod, node) {
      const req = fitState(state, pod).requests;
      if (cpuAndMemory) {
        // The default resources, without the fractions array (the same arithmetic as below).
        // One fraction or none: a standard deviation of 0.
        if (node.allocMilliCPU === 0 || node.allocMemory === 0) return MAX_NODE_SCORE;
        const cpu = Math.min(1, (node.reqMilliCPU + req.milliCPU) / node.allocMilliCPU);
        const memory = Math.min(1, (node.reqMemory + req.memory) / node.allocMemory);
        return Math.trunc((1 - Math.abs((cpu - memory) / 2)) * MAX_NODE_SCORE);
      }
      const fractions: number[] = [];
      for (const { name } of resources) {
        const alloc = amount(node.allocatable, name);
        if (alloc === 0) continue;
        fractions.push(Math.min(1, (amount(node.requested, name) + amount(req, name)) / alloc));
      }
      let std = 0;
      if (fractions.length === 2) std = Math.abs((fractions[0] - fractions[1]) / 2);
      else if (fractions.length > 2) {
        const mean = fractions.reduce((a, b) => a + b, 0) / fractions.length;
        std = Math.sqrt(fractions.reduce((a, f) => a + (f - mean) ** 2, 0) / fractions.length);
      }
      return Math.trunc((1 - std) * MAX_NODE_SCORE);
    },
  };
}

/** NodePorts: rejects a node where a requested host port is already in use. */
export const nodePorts: Plugin = {
  name: 'NodePorts',
  events: ['NodeAdd', 'AssignedPodDelete'],
  preFilter(state) {
    if ((state.get('podInfo') as PodInfo).ports.length === 0) return 'Skip';
  },
  filter(state, _pod, node) {
    const pi = state.get('podInfo') as PodInfo;
    if (pi.ports.length === 0) return undefined;
    const used = node.usedPorts();
    for (const want of pi.ports) if (used.some((u) => hostPortsConflict(want, u))) return ["node(s) didn't have free ports for the requested pod ports"];
    return undefined;
  },
};

// ---- topology spread ------------------------------------------------------------------------------------

interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  nodeAffinityPolicy: string;
  nodeTaintsPolicy: string;
}

function spreadConstraints(pod: any, action: string): SpreadConstraint[] {
  const out: SpreadConstraint[] = [];
  for (const c of pod?.spec?.topologySpreadConstraints ?? []) {
    if (c?.whenUnsatisfiable !== action) continue;
    let selector: LabelSelector;
    try {
      selector = selectorFromLabelSelector(c.labelSelector);
      const keys: string[] = c.matchLabelKeys ?? [];
      const labels = pod.metadata?.labels ?? {};
      const extra = keys.filter((k) => k in labels).map((k) => newRequirement(k, 'in', [labels[k]]));
      if (extra.length > 0) selector = Selector.of([...selector.requirements, ...extra]);
    } catch {
      selector = Selector.nothing();
    }
    out.push({
      maxSkew: c.maxSkew ?? 1,
      topologyKey: c.topologyKey,
      selector,
      minDomains: c.minDomains ?? 1,
      nodeAffinityPolicy: c.nodeAffinityPolicy ?? 'Honor',
      nodeTaintsPolicy: c.nodeTaintsPolicy ?? 'Ignore',
    });
  }
  return out;
}

function countsForSpread(p: any, ns: string, selector: LabelSelector): boolean {
  return p.metadata?.namespace === ns && !p.metadata?.deletionTimestamp && selector.matches(p.metadata?.labels);
}

function countsMatching(node: NodeInfo, ns: string, selector: LabelSelector): number {
  let n = 0;
  for (const pi of node.pods.values()) if (countsForSpread(pi.pod, ns, selector)) n++;
  return n;
}

function eligibleForSpread(pod: any, node: NodeInfo, c: SpreadConstraint): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !podMatchesNodeSelectorAndAffinity(pod, node.node)) return false;
  if (c.nodeTaintsPolicy === 'Honor') {
    const tol = pod.spec?.tolerations ?? [];
    for (const t of node.node?.spec?.taints ?? []) if ((t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerated(tol, t)) return false;
  }
  return true;
}

function minMatchOf(c: SpreadConstraint, counts: Map<string, number>): number {
  if (counts.size < c.minDomains) return 0;
  let m = Infinity;
  for (const v of counts.values()) if (v < m) m = v;
  return m === Infinity ? 0 : m;
}

/** PodTopologySpread's PreFilter result: matching pods per domain and the global minimum, per constraint. */
class SpreadFilterState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    readonly counts: Map<string, number>[],
    readonly minMatch: number[],
  ) {}

  clone(): SpreadFilterState {
    return new SpreadFilterState(this.constraints, this.counts.map((m) => new Map(m)), [...this.minMatch]);
  }

  /** Kubernetes' updateWithPod: counts `other` (±1) in `node`'s domains where it matches and the node is eligible for `pod`. */
  update(pod: any, other: any, node: NodeInfo, delta: number): void {
    const ns = pod.metadata?.namespace;
    if (other?.metadata?.namespace !== ns || !node.node || !hasAllKeys(node, this.constraints)) return;
    const labels = node.labels();
    this.constraints.forEach((c, i) => {
      if (!countsForSpread(other, ns, c.selector) || !eligibleForSpread(pod, node, c)) return;
      const v = labels[c.topologyKey];
      this.counts[i].set(v, (this.counts[i].get(v) ?? 0) + delta);
      this.minMatch[i] = minMatchOf(c, this.counts[i]);
    });
  }
}

const SPREAD_FILTER_STATE = 'PodTopologySpread/filter';

function hasAllKeys(node: NodeInfo, constraints: SpreadConstraint[]): boolean {
  const labels = node.labels();
  return constraints.every((c) => c.topologyKey in labels);
}

/**
 * PodTopologySpread. Filter (whenUnsatisfiable DoNotSchedule): a node is feasible when placing the
 * pod keeps (matching pods in its domain + 1 − global minimum) ≤ maxSkew for every constraint;
 * domains come from nodes that pass the pod's node affinity and carry every constraint's key, and
 * fewer domains than minDomains make the minimum 0. Score (ScheduleAnyway): fewer matching pods in
 * the node's domains rank higher, each constraint weighted by log(domains + 2).
 */
export const podTopologySpread: Plugin = {
  name: 'PodTopologySpread',
  events: ['NodeAdd', 'NodeUpdate', 'NodeDelete', 'AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete'],
  preFilter(state, pod, ctx) {
    const constraints = spreadConstraints(pod, 'DoNotSchedule');
    if (constraints.length === 0) return 'Skip';
    const ns = pod.metadata?.namespace;
    const counts = constraints.map(() => new Map<string, number>());
    for (const node of ctx.allNodes) {
      if (!hasAllKeys(node, constraints)) continue;
      const labels = node.labels();
      constraints.forEach((c, i) => {
        if (!eligibleForSpread(pod, node, c)) return;
        const v = labels[c.topologyKey];
        counts[i].set(v, (counts[i].get(v) ?? 0) + countsMatching(node, ns, c.selector));
      });
    }
    const minMatch = constraints.map((c, i) => minMatchOf(c, counts[i]));
    state.set(SPREAD_FILTER_STATE, new SpreadFilterState(constraints, counts, minMatch));
  },
  addPod(state, pod, podInfoToAdd, node) {
    (state.get(SPREAD_FILTER_STATE) as SpreadFilterState | undefined)?.update(pod, podInfoToAdd.pod, node, 1);
  },
  removePod(state, pod, podInfoToRemove, node) {
    (state.get(SPREAD_FILTER_STATE) as SpreadFilterState | undefined)?.update(pod, podInfoToRemove.pod, node, -1);
  },
  filter(state, pod, node) {
    const s = state.get(SPREAD_FILTER_STATE) as SpreadFilterState | undefined;
    if (!s) return undefined;
    const labels = node.labels();
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i];
      const v = labels[c.topologyKey];
      if (v === undefined) return ["node(s) didn't match pod topology spread constraints (missing required label)"];
      const self = c.selector.matches(pod.metadata?.labels) ? 1 : 0;
      const skew = (s.counts[i].get(v) ?? 0) + self - s.minMatch[i];
      if (skew > c.maxSkew) return ["node(s) didn't match pod topology spread constraints"];
    }
    return undefined;
  },
  preScore(state, pod, nodes, ctx) {
    const constraints = spreadConstraints(pod, 'ScheduleAnyway');
    // NOTE: no state then, so every score would be 0 and normalizeScore would leave them so.
    if (constraints.length === 0) return 'Skip';
    const ns = pod.metadata?.namespace;
    const ignored = new Set<string>();
    const domains = constraints.map(() => new Set<string>());
    for (const n of nodes) {
      if (!hasAllKeys(n, constraints)) {
        ignored.add(n.name);
        continue;
      }
      constraints.forEach((c, i) => domains[i].add(n.labels()[c.topologyKey]));
    }
    const counts = constraints.map(() => new Map<string, number>());
    for (const node of ctx.allNodes) {
      if (!hasAllKeys(node, constraints)) continue;
      constraints.forEach((c, i) => {
        if (c.topologyKey === 'kubernetes.io/hostname' || !eligibleForSpread(pod, node, c)) return;
        const v = node.labels()[c.topologyKey];
        if (!domains[i].has(v)) return;
        counts[i].set(v, (counts[i].get(v) ?? 0) + countsMatching(node, ns, c.selector));
      });
    }
    const weights = constraints.map((c, i) => Math.log((c.topologyKey === 'kubernetes.io/hostname' ? nodes.length - ignored.size : domains[i].size) + 2));
    state.set('PodTopologySpread/score', { constraints, counts, weights, ignored });
  },
  score(state, pod, node) {
    const s = state.get('PodTopologySpread/score') as { constraints: SpreadConstraint[]; counts: Map<string, number>[]; weights: number[]; ignored: Set<string> } | undefined;
    if (!s || s.ignored.has(node.name)) return 0;
    let score = 0;
    const labels = node.labels();
    s.constraints.forEach((c, i) => {
      const v = labels[c.topologyKey];
      if (v === undefined) return;
      const cnt = c.topologyKey === 'kubernetes.io/hostname' ? countsMatching(node, pod.metadata?.namespace, c.selector) : (s.counts[i].get(v) ?? 0);
      score += cnt * s.weights[i] + (c.maxSkew - 1);
    });
    return Math.round(score);
  },
  normalizeScore(state, _pod, scores, nodes) {
    const s = state.get('PodTopologySpread/score') as { ignored: Set<string> } | undefined;
    if (!s) return;
    let min = Infinity;
    let max = 0;
    nodes.forEach((n, i) => {
      if (s.ignored.has(n.name)) return;
      min = Math.min(min, scores[i]);
      max = Math.max(max, scores[i]);
    });
    nodes.forEach((n, i) => {
      if (s.ignored.has(n.name)) scores[i] = 0;
      else if (max === 0) scores[i] = MAX_NODE_SCORE;
      else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - scores[i])) / max);
    });
  },
};

// ---- inter-pod affinity ------------------------------------------------------------------------------------

interface AffinityTerm {
  selector: LabelSelector;
  namespaces: Set<string>;
  namespaceSelector?: LabelSelector;
  topologyKey: string;
}

function affinityTerms(ownerNs: string, terms: any[] | undefined): AffinityTerm[] {
  return (terms ?? []).map((t: any) => {
    let selector: LabelSelector;
    let namespaceSelector: LabelSelector | undefined;
    try {
      selector = selectorFromLabelSelector(t?.labelSelector);
      namespaceSelector = t?.namespaceSelector ? selectorFromLabelSelector(t.namespaceSelector) : undefined;
    } catch {
      selector = Selector.nothing();
    }
    const namespaces = new Set<string>(t?.namespaces ?? []);
    if (namespaces.size === 0 && !namespaceSelector) namespaces.add(ownerNs);
    return { selector, namespaces, namespaceSelector, topologyKey: t?.topologyKey ?? '' };
  });
}

function termMatches(term: AffinityTerm, pod: any, ctx: PluginContext): boolean {
  const ns = pod.metadata?.namespace ?? '';
  const nsOk = term.namespaces.has(ns) || (term.namespaceSelector !== undefined && term.namespaceSelector.matches(ctx.namespaceLabels(ns)));
  return nsOk && term.selector.matches(pod.metadata?.labels);
}

const pair = (key: string, value: string) => `${key}\u0000${value}`;

function addCount(m: Map<string, number>, k: string, delta: number): void {
  const n = (m.get(k) ?? 0) + delta;
  if (n === 0) m.delete(k);
  else m.set(k, n);
}

/**
 * InterPodAffinity's PreFilter result: per topology pair, the pods matching all of the incoming
 * pod's required affinity terms, those matching its anti-affinity terms, and existing pods whose
 * required anti-affinity matches the incoming pod. Pairs with a zero count are absent.
 */
class AffinityState implements StateData {
  constructor(
    readonly affinity: AffinityTerm[],
    readonly antiAffinity: AffinityTerm[],
    readonly affinityCounts: Map<string, number>,
    readonly antiAffinityCounts: Map<string, number>,
    readonly existingAntiAffinityCounts: Map<string, number>,
    readonly podMatchesOwnAffinity: boolean,
    /** The context of the PreFilter (namespace labels for namespaceSelector terms). */
    readonly ctx: PluginContext,
  ) {}

  clone(): AffinityState {
    return new AffinityState(this.affinity, this.antiAffinity, new Map(this.affinityCounts), new Map(this.antiAffinityCounts), new Map(this.existingAntiAffinityCounts), this.podMatchesOwnAffinity, this.ctx);
  }

  /** Kubernetes' updateWithPod: counts `other` (±1) on `node` as PreFilter would have. */
  update(pod: any, other: PodInfo, node: NodeInfo, delta: number): void {
    const labels = node.labels();
    if (other.hasRequiredAntiAffinity) {
      const terms = affinityTerms(other.pod.metadata?.namespace ?? '', other.pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution);
      for (const t of terms) if (t.topologyKey in labels && termMatches(t, pod, this.ctx)) addCount(this.existingAntiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]), delta);
    }
    if (this.affinity.length > 0 && this.affinity.every((t) => termMatches(t, other.pod, this.ctx))) {
      for (const t of this.affinity) if (t.topologyKey in labels) addCount(this.affinityCounts, pair(t.topologyKey, labels[t.topologyKey]), delta);
    }
    for (const t of this.antiAffinity) if (t.topologyKey in labels && termMatches(t, other.pod, this.ctx)) addCount(this.antiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]), delta);
  }
}

const AFFINITY_FILTER_STATE = 'InterPodAffinity/filter';

/**
 * InterPodAffinity (required terms): a node is rejected when a required pod-affinity term has no
 * matching pod in the node's topology domain (unless no pod matches anywhere and the pod matches
 * its own terms: the first of a group), when a required anti-affinity term has a matching pod in
 * the domain, or when an existing pod's required anti-affinity matches this pod in the domain.
 * Score: the pod's preferred (anti-)affinity terms add (subtract) their weight per matching pod in
 * the node's domain; min-max normalized.
 */
export const interPodAffinity: Plugin = {
  name: 'InterPodAffinity',
  events: ['NodeAdd', 'NodeUpdate', 'AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete'],
  preFilter(state, pod, ctx) {
    const ns = pod.metadata?.namespace ?? '';
    const aff = pod.spec?.affinity;
    const affinity = affinityTerms(ns, aff?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
    const antiAffinity = affinityTerms(ns, aff?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
    const s = new AffinityState(affinity, antiAffinity, new Map(), new Map(), new Map(), affinity.every((t) => termMatches(t, pod, ctx)), ctx);
    const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    const ownTerms = affinity.length > 0 || antiAffinity.length > 0;
    // NOTE: with no pod anywhere holding required anti-affinity, a pod without terms has nothing to count.
    const nodes = !ownTerms && ctx.podsWithRequiredAntiAffinity === 0 ? [] : ctx.allNodes;
    for (const node of nodes) {
      // NOTE: most nodes have no pod with required anti-affinity and most pods no terms: skip them at the cost of two reads.
      if (!ownTerms && node.podsWithRequiredAntiAffinity === 0) continue;
      const labels = node.labels();
      if (node.podsWithRequiredAntiAffinity > 0) {
        for (const pi of node.pods.values()) {
          if (!pi.hasRequiredAntiAffinity) continue;
          const terms = affinityTerms(pi.pod.metadata?.namespace ?? '', pi.pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution);
          for (const t of terms) if (t.topologyKey in labels && termMatches(t, pod, ctx)) inc(s.existingAntiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]));
        }
      }
      if (affinity.length === 0 && antiAffinity.length === 0) continue;
      for (const pi of node.pods.values()) {
        if (affinity.length > 0 && affinity.every((t) => termMatches(t, pi.pod, ctx))) {
          for (const t of affinity) if (t.topologyKey in labels) inc(s.affinityCounts, pair(t.topologyKey, labels[t.topologyKey]));
        }
        for (const t of antiAffinity) if (t.topologyKey in labels && termMatches(t, pi.pod, ctx)) inc(s.antiAffinityCounts, pair(t.topologyKey, labels[t.topologyKey]));
      }
    }
    state.set(AFFINITY_FILTER_STATE, s);
    // NOTE: nothing can fail then; a nominated pod's anti-affinity (addPod) could, so only without nominations.
    if (!ownTerms && s.existingAntiAffinityCounts.size === 0 && !ctx.nominatedPodsOn) return 'Skip';
  },
  addPod(state, pod, podInfoToAdd, node) {
    (state.get(AFFINITY_FILTER_STATE) as AffinityState | undefined)?.update(pod, podInfoToAdd, node, 1);
  },
  removePod(state, pod, podInfoToRemove, node) {
    (state.get(AFFINITY_FILTER_STATE) as AffinityState | undefined)?.update(pod, podInfoToRemove, node, -1);
  },
  filter(state, _pod, node) {
    const s = state.get(AFFINITY_FILTER_STATE) as AffinityState | undefined;
    if (!s) return undefined;
    const labels = node.labels();
    if (s.affinity.length > 0) {
      let ok = true;
      for (const t of s.affinity) {
        const v = labels[t.topologyKey];
        if (v === undefined || !(s.affinityCounts.get(pair(t.topologyKey, v)) ?? 0)) ok = false;
      }
      if (!ok) {
        const anyKeysMissing = s.affinity.some((t) => !(t.topologyKey in labels));
        if (anyKeysMissing || s.affinityCounts.size > 0 || !s.podMatchesOwnAffinity) return ["node(s) didn't match pod affinity rules"];
      }
    }
    for (const t of s.antiAffinity) {
      const v = labels[t.topologyKey];
      if (v !== undefined && (s.antiAffinityCounts.get(pair(t.topologyKey, v)) ?? 0) > 0) return ["node(s) didn't match pod anti-affinity rules"];
    }
    if (s.existingAntiAffinityCounts.size > 0) {
      for (const [k, v] of Object.entries(labels)) if ((s.existingAntiAffinityCounts.get(pair(k, v)) ?? 0) > 0) return ["node(s) didn't satisfy existing pods anti-affinity rules"];
    }
    return undefined;
  },
  preScore(state, pod, _nodes, ctx) {
    const ns = pod.metadata?.namespace ?? '';
    const aff = pod.spec?.affinity;
    const weighted = (list: any[] | undefined, sign: number) =>
      (list ?? []).map((w: any) => ({ term: affinityTerms(ns, [w?.podAffinityTerm])[0], weight: sign * (w?.weight ?? 0) }));
    const terms = [...weighted(aff?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, 1), ...weighted(aff?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, -1)];
    // NOTE: no state then, so every score would be 0 and normalizeScore would leave them so.
    if (terms.length === 0) return 'Skip';
    const topologyScore = new Map<string, number>();
    for (const node of ctx.allNodes) {
      const labels = node.labels();
      for (const pi of node.pods.values()) {
        for (const { term, weight } of terms) {
          if (!(term.topologyKey in labels) || !termMatches(term, pi.pod, ctx)) continue;
          const k = pair(term.topologyKey, labels[term.topologyKey]);
          topologyScore.set(k, (topologyScore.get(k) ?? 0) + weight);
        }
      }
    }
    state.set('InterPodAffinity/score', topologyScore);
  },
  score(state, _pod, node) {
    const m = state.get('InterPodAffinity/score') as Map<string, number> | undefined;
    if (!m || m.size === 0) return 0;
    let s = 0;
    for (const [k, v] of Object.entries(node.labels())) s += m.get(pair(k, v)) ?? 0;
    return s;
  },
  normalizeScore(state, _pod, scores) {
    if (!state.get('InterPodAffinity/score')) return;
    const min = Math.min(...scores);
    const max = Math.max(...scores);
    const diff = max - min;
    for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc((MAX_NODE_SCORE * (scores[i] - min)) / diff) : 0;
  },
};

/** Every plugin by name, built with default arguments. */
export function defaultPluginRegistry(): Map<string, Plugin> {
  const list = [nodeUnschedulable, nodeName, taintToleration, nodeAffinity, nodePorts, nodeResourcesFit(), podTopologySpread, interPodAffinity, nodeResourcesBalancedAllocation()];
  return new Map(list.map((p) => [p.name, p]));
}

/** Kubernetes' default filter plugins, in order. */
export const DEFAULT_FILTER_PLUGINS = ['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity'];

/** Kubernetes' default score plugins and weights. */
export const DEFAULT_SCORE_PLUGINS: { name: string; weight: number }[] = [
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
];
