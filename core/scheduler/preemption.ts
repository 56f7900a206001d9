import { selectorFromLabelSelector } from '../machinery/labels.ts';
import type { Rng } from '../machinery/rng.ts';
import { fitErrorMessage, type NodeFailure, type Profile } from './framework.ts';
import { newPodInfo, podKey, type NodeInfo, type PodInfo } from './nodeinfo.ts';
import { cloneCycleState, type CycleState, type PluginContext } from './plugins.ts';
import { podPriority } from './queue.ts';

/** DefaultPreemptionArgs.minCandidateNodesPercentage's default. */
export const DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10;
/** DefaultPreemptionArgs.minCandidateNodesAbsolute's default. */
export const DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100;

/** The arguments of the DefaultPreemption plugin (`DefaultPreemptionArgs`). */
export interface PreemptionConfig {
  /** Candidates to find, as a percentage of the nodes where preemption may help (default 10). */
  minCandidateNodesPercentage?: number;
  /** …but at least this many (default 100). */
  minCandidateNodesAbsolute?: number;
}

/** The status text of a node where removing pods cannot help. */
export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
/** The status text of a node without lower-priority pods. */
export const NO_PREEMPTION_VICTIMS = 'No preemption victims found for incoming pod';

/**
 * How many candidate nodes preemption looks for among `numNodes` potential ones, as Kubernetes'
 * calculateNumCandidates: `numNodes·percentage/100`, at least `absolute`, at most `numNodes`.
 */
export function numPreemptionCandidates(numNodes: number, config: PreemptionConfig = {}): number {
  const pct = config.minCandidateNodesPercentage ?? DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE;
  const abs = config.minCandidateNodesAbsolute ?? DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE;
  let n = Math.trunc((numNodes * pct) / 100);
  if (n < abs) n = abs;
  return n > numNodes ? numNodes : n;
}

const ALWAYS_UNRESOLVABLE = new Set(['NodeName', 'NodeUnschedulable', 'TaintToleration', 'NodeAffinity']);

/**
 * Whether a filter rejection is Kubernetes' UnschedulableAndUnresolvable, i.e. removing pods
 * from the node cannot help: node name, unschedulable node, taints and node affinity always; a
 * missing topology-spread key; unmet required pod affinity. Everything else (resources, ports,
 * spread skew, anti-affinity, unknown plugins) may be resolved by preemption.
 */
export function isUnresolvable(f: NodeFailure): boolean {
  if (ALWAYS_UNRESOLVABLE.has(f.plugin)) return true;
  if (f.plugin === 'PodTopologySpread') return f.reasons.some((r) => r.includes('(missing required label)'));
  if (f.plugin === 'InterPodAffinity') return f.reasons.some((r) => r === "node(s) didn't match pod affinity rules");
  return false;
}

/** A pod's `status.startTime` in ms, or `now` when it has none (as Kubernetes' GetPodStartTime). */
export function podStartTime(pod: any, now: number): number {
  const t = Date.parse(pod?.status?.startTime ?? '');
  return Number.isFinite(t) ? t : now;
}

/** Kubernetes' MoreImportantPod as a sort order: higher priority first, then the earlier start. */
export function compareImportance(a: any, b: any, now: number): number {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pb - pa;
  return podStartTime(a, now) - podStartTime(b, now);
}

const NO_PODS: PodInfo[] = [];

/**
 * Pods the scheduler nominated to a node (its PodNominator): a preemptor waits here, with the
 * node it preempted on, until it is bound or deleted. Fed both by the scheduler (at once, on
 * preemption) and by pod informer events (`status.nominatedNodeName`).
 */
export class Nominator {
  private readonly byPod = new Map<string, { info: PodInfo; node: string }>();
  private readonly byNode = new Map<string, Map<string, PodInfo>>();

  /** Nominates `pod` to `node` (replacing any earlier nomination). */
  add(pod: any, node: string): void {
    this.delete(pod);
    const info = newPodInfo(pod);
    this.byPod.set(info.key, { info, node });
    let m = this.byNode.get(node);
    if (!m) this.byNode.set(node, (m = new Map()));
    m.set(info.key, info);
  }

  /** Drops the nomination of `pod`, if any. */
  delete(pod: any): void {
    const key = podKey(pod);
    const cur = this.byPod.get(key);
    if (!cur) return;
    this.byPod.delete(key);
    const m = this.byNode.get(cur.node);
    m?.delete(key);
    if (m && m.size === 0) this.byNode.delete(cur.node);
  }

  /**
   * An informer reported a pending pod: a `status.nominatedNodeName` (re)nominates it; one that
   * disappeared between `old` and `pod` clears the nomination; otherwise an in-memory nomination
   * is kept with the new pod object (the status write may not have landed yet).
   */
  update(old: any, pod: any): void {
    const node = pod?.status?.nominatedNodeName;
    if (node) {
      this.add(pod, node);
      return;
    }
    const cur = this.byPod.get(podKey(pod));
    if (!cur) return;
    if (old?.status?.nominatedNodeName) this.delete(pod);
    else this.add(pod, cur.node);
  }

  /** The node `pod` is nominated to. */
  nodeOf(pod: any): string | undefined {
    return this.byPod.get(podKey(pod))?.node;
  }

  /** PodInfos of the pods nominated to `node` (a fresh array; a shared empty one when none). */
  podsOn(node: string): PodInfo[] {
    const m = this.byNode.get(node);
    return m ? [...m.values()] : NO_PODS;
  }

  /** How many pods are nominated. */
  get size(): number {
    return this.byPod.size;
  }
}

/** A node where preemption makes room for the pod, and the pods to delete there (highest priority first). */
export interface PreemptionCandidate {
  node: string;
  victims: any[];
  /** Victims whose eviction violates a PodDisruptionBudget. */
  numPDBViolations: number;
}

/**
 * Splits pods into those whose removal would violate a PodDisruptionBudget and the rest, keeping
 * order (Kubernetes' filterPodsWithPDBViolation): each matching PDB in the pod's namespace
 * (non-empty selector, pod not already in `status.disruptedPods`) spends one of its
 * `status.disruptionsAllowed`; a pod that drives any budget below zero is violating.
 */
export function filterPodsWithPDBViolation(pods: PodInfo[], pdbs: any[]): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = pdbs.map((p) => p?.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((p) => {
    try {
      const sel = selectorFromLabelSelector(p?.spec?.selector);
      return sel.empty() ? undefined : sel;
    } catch {
      return undefined;
    }
  });
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const pi of pods) {
    const labels = pi.pod.metadata?.labels;
    let violated = false;
    if (labels && Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        const sel = selectors[i];
        if (!sel || pdb.metadata?.namespace !== pi.pod.metadata?.namespace || !sel.matches(labels)) return;
        if (pdb.status?.disruptedPods && pi.pod.metadata?.name in pdb.status.disruptedPods) return;
        allowed[i]--;
        if (allowed[i] < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(pi);
  }
  return { violating, nonViolating };
}

/** What {@link selectVictimsOnNode} found: victims, or why the node cannot be made to fit. */
export type VictimSelection = { victims: any[]; numPDBViolations: number; failure?: undefined } | { failure: NodeFailure };

/**
 * Kubernetes' SelectVictimsOnNode on a copy of `node` and a clone of `state` (neither the cache
 * nor `state` is changed): removes every pod of lower priority than `pod`, updating the PreFilter
 * results through the plugins' `removePod`; fails unless `pod` then passes the filters (with
 * nominated pods); then re-adds ("reprieves") the removed pods (`addPod`), the PDB-violating ones
 * first, each group from the most important pod down, keeping each that still lets `pod` fit.
 * The pods left out are the victims, sorted most important first. `state` is the PreFilter state
 * of `pod` over `ctx.allNodes`; computed when not given.
 */
export function selectVictimsOnNode(pod: any, node: NodeInfo, profile: Profile, ctx: PluginContext, pdbs: any[], now: number, state?: CycleState): VictimSelection {
  const prio = podPriority(pod);
  const potential = [...node.pods.values()].filter((pi) => podPriority(pi.pod) < prio);
  if (potential.length === 0) return { failure: { plugin: 'DefaultPreemption', reasons: [NO_PREEMPTION_VICTIMS] } };
  const copy = node.clone();
  const nodeState = cloneCycleState(state ?? profile.newCycleState(pod, ctx));
  const check = () => profile.filterWithNominatedPods(nodeState, pod, copy, ctx);
  const removePod = (pi: PodInfo) => {
    copy.removePod(pi.key);
    profile.removePodFromState(nodeState, pod, pi, copy);
  };
  const addPod = (pi: PodInfo) => {
    profile.addPodToState(nodeState, pod, pi, copy);
    copy.addPod(pi);
  };
  for (const pi of potential) removePod(pi);
  const failed = check();
  if (failed) return { failure: failed };
  potential.sort((a, b) => compareImportance(a.pod, b.pod, now));
  const { violating, nonViolating } = filterPodsWithPDBViolation(potential, pdbs);
  const victims: any[] = [];
  let numPDBViolations = 0;
  const reprieve = (pi: PodInfo): boolean => {
    addPod(pi);
    if (!check()) return true;
    removePod(pi);
    victims.push(pi.pod);
    return false;
  };
  for (const pi of violating) if (!reprieve(pi)) numPDBViolations++;
  for (const pi of nonViolating) reprieve(pi);
  if (victims.length === 0) return { failure: { plugin: 'DefaultPreemption', reasons: [`expected at least one victim pod on node "${node.name}"`] } };
  victims.sort((a, b) => compareImportance(a, b, now));
  return { victims, numPDBViolations };
}

function earliestStartOfHighestPriority(victims: any[], now: number): number {
  const top = podPriority(victims[0]);
  let earliest = podStartTime(victims[0], now);
  for (const v of victims) if (podPriority(v) === top) earliest = Math.min(earliest, podStartTime(v, now));
  return earliest;
}

/**
 * Kubernetes' pickOneNodeForPreemption: among candidates, keeps those with the fewest PDB
 * violations, then the lowest highest-victim priority, then the smallest sum of victim
 * priorities (each offset by 2^31 so negative priorities count as small), then the fewest
 * victims, then the latest start time of the highest-priority victims; the first one left wins.
 */
export function pickOneNodeForPreemption(candidates: PreemptionCandidate[], now: number): PreemptionCandidate | undefined {
  if (candidates.length === 0) return undefined;
  let left = candidates;
  const keepMin = (score: (c: PreemptionCandidate) => number) => {
    if (left.length <= 1) return;
    let best = Infinity;
    for (const c of left) best = Math.min(best, score(c));
    left = left.filter((c) => score(c) === best);
  };
  keepMin((c) => c.numPDBViolations);
  keepMin((c) => podPriority(c.victims[0]));
  keepMin((c) => c.victims.reduce((sum, v) => sum + podPriority(v) + 2 ** 31, 0));
  keepMin((c) => c.victims.length);
  keepMin((c) => -earliestStartOfHighestPriority(c.victims, now));
  return left[0];
}

/**
 * Kubernetes' PodEligibleToPreemptOthers: the reason `pod` may not preempt (Kubernetes' message),
 * or undefined when it may. A pod with `preemptionPolicy: Never` never preempts; a pod already
 * nominated to a node where a lower-priority pod is still terminating waits for it instead,
 * unless that node has become unresolvable for it.
 */
export function preemptionIneligibility(pod: any, nominatedNode: string | undefined, ctx: PluginContext, nodeFailures: Map<string, NodeFailure>): string | undefined {
  if (pod?.spec?.preemptionPolicy === 'Never') return 'not eligible due to preemptionPolicy=Never.';
  if (!nominatedNode) return undefined;
  const f = nodeFailures.get(nominatedNode);
  if (f && isUnresolvable(f)) return undefined;
  const node = ctx.allNodes.find((n) => n.name === nominatedNode);
  if (!node) return undefined;
  const prio = podPriority(pod);
  for (const pi of node.pods.values()) {
    if (pi.pod.metadata?.deletionTimestamp && podPriority(pi.pod) < prio) return 'not eligible due to a terminating pod on the nominated node.';
  }
  return undefined;
}

/** The input of {@link preempt}. */
export interface PreemptArgs {
  pod: any;
  profile: Profile;
  /** The cluster as the failed attempt saw it (nominated pods included). */
  ctx: PluginContext;
  /** Why each node rejected the pod in the failed attempt. */
  nodeFailures: Map<string, NodeFailure>;
  /** Every PodDisruptionBudget. */
  pdbs: any[];
  /** The node the pod is already nominated to (in memory or in its status). */
  nominatedNode?: string;
  /** Start of the round-robin over potential nodes; offset 0 without it. */
  rng?: Rng;
  /** Clock time (ms), standing in for victims without a start time. */
  now: number;
  config?: PreemptionConfig;
  /** The pod's PreFilter state over `ctx.allNodes` (the failed attempt's); computed once when absent. */
  state?: CycleState;
}

/** What {@link preempt} decided. `message` (prefixed `preemption: `) completes the FitError. */
export type PreemptionOutcome =
  | { status: 'Preempted'; candidate: PreemptionCandidate; candidates: number; message?: undefined }
  | { status: 'NotEligible'; message: string }
  /** No node can be made to fit: the pod's nomination, if any, is to be cleared. */
  | { status: 'NoCandidates'; message: string };

/**
 * The DefaultPreemption PostFilter, deciding only (no API calls): checks eligibility, takes the
 * nodes whose rejection is resolvable, and from a deterministic offset (`rng.int(n)`, or 0)
 * dry-runs {@link selectVictimsOnNode} node by node until at least one candidate without PDB
 * violations is found and the candidates number {@link numPreemptionCandidates}; then picks one
 * with {@link pickOneNodeForPreemption}. Messages are Kubernetes' (`preemption: 0/N nodes are
 * available: …`).
 */
export function preempt(a: PreemptArgs): PreemptionOutcome {
  const why = preemptionIneligibility(a.pod, a.nominatedNode, a.ctx, a.nodeFailures);
  if (why) return { status: 'NotEligible', message: `preemption: ${why}` };
  const statuses = new Map<string, NodeFailure>();
  const potential: NodeInfo[] = [];
  for (const n of a.ctx.allNodes) {
    const f = a.nodeFailures.get(n.name);
    if (!f) continue;
    if (isUnresolvable(f)) statuses.set(n.name, { plugin: 'DefaultPreemption', reasons: [PREEMPTION_NOT_HELPFUL] });
    else potential.push(n);
  }
  const nonViolating: PreemptionCandidate[] = [];
  const violating: PreemptionCandidate[] = [];
  if (potential.length > 0) {
    const offset = a.rng ? a.rng.int(potential.length) : 0;
    const want = numPreemptionCandidates(potential.length, a.config);
    const state = a.state ?? a.profile.newCycleState(a.pod, a.ctx);
    for (let i = 0; i < potential.length; i++) {
      const node = potential[(offset + i) % potential.length];
      const sel = selectVictimsOnNode(a.pod, node, a.profile, a.ctx, a.pdbs, a.now, state);
      if (sel.failure) {
        statuses.set(node.name, sel.failure);
        continue;
      }
      const c = { node: node.name, victims: sel.victims, numPDBViolations: sel.numPDBViolations };
      (c.numPDBViolations === 0 ? nonViolating : violating).push(c);
      if (nonViolating.length > 0 && nonViolating.length + violating.length >= want) break;
    }
  }
  const candidates = [...nonViolating, ...violating];
  const best = pickOneNodeForPreemption(candidates, a.now);
  if (best) return { status: 'Preempted', candidate: best, candidates: candidates.length };
  const counts = new Map<string, number>();
  for (const f of statuses.values()) for (const r of f.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return { status: 'NoCandidates', message: `preemption: ${fitErrorMessage(statuses.size, counts)}` };
}
