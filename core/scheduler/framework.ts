import type { Rng } from '../machinery/rng.ts';
import { newPodInfo, type NodeInfo, type PodInfo } from './nodeinfo.ts';
import type { PreemptionConfig } from './preemption.ts';
import { podPriority } from './queue.ts';
import { cloneCycleState, DEFAULT_FILTER_PLUGINS, DEFAULT_SCORE_PLUGINS, defaultPluginRegistry, type CycleState, type Plugin, type PluginContext } from './plugins.ts';

/** The CycleState key of the filter plugins not skipped by their PreFilter. */
const ACTIVE_FILTERS = 'framework/activeFilters';

/** Below this many nodes every node is searched (Kubernetes' minFeasibleNodesToFind). */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** The adaptive percentage never drops below this (minFeasibleNodesPercentageToFind). */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * How many feasible nodes to find before scoring, as Kubernetes' numFeasibleNodesToFind: all of
 * them below 100 nodes or at ≥ 100 %; with percentage 0 (the default) an adaptive
 * 50 − nodes/125 percent, at least 5 %; never fewer than 100 nodes.
 */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentageOfNodesToScore >= 100) return numAllNodes;
  let adaptive = percentageOfNodesToScore;
  if (adaptive <= 0) {
    adaptive = 50 - Math.trunc(numAllNodes / 125);
    if (adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * adaptive) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

/** Why a filter rejected one node: the plugin and its reasons (Kubernetes' wording). */
export interface NodeFailure {
  plugin: string;
  reasons: string[];
}

/** One scheduling attempt's outcome: where the pod goes, or why it cannot go anywhere. */
export interface ScheduleResult {
  /** The chosen node, when the pod fits somewhere. */
  node?: string;
  totalNodes: number;
  /** Nodes the filters were run on. */
  evaluatedNodes: number;
  feasibleNodes: number;
  /** Weighted score of the chosen node by plugin, and their sum. */
  scores?: Record<string, number>;
  totalScore?: number;
  /** Kubernetes' FitError message when unschedulable. */
  message?: string;
  /** Plugins that rejected at least one node. */
  unschedulablePlugins: string[];
  /** When no node is feasible: why each node was rejected (the input of preemption). */
  nodeFailures?: Map<string, NodeFailure>;
}

/** Which plugins a profile runs (names from the registry) and its search breadth. */
export interface ProfileConfig {
  schedulerName: string;
  filter?: string[];
  score?: { name: string; weight: number }[];
  /** 0 = adaptive (Kubernetes' default). */
  percentageOfNodesToScore?: number;
  /** The DefaultPreemption PostFilter's arguments; `false` disables preemption. Default: enabled with Kubernetes' defaults. */
  preemption?: PreemptionConfig | false;
}

/** Kubernetes' FitError text: `0/N nodes are available: <count reason>, … .` with reasons sorted. */
export function fitErrorMessage(numAllNodes: number, reasonCounts: Map<string, number>): string {
  if (numAllNodes === 0) return 'no nodes available to schedule pods';
  const parts = [...reasonCounts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`;
}

/**
 * A scheduling profile: filter plugins in order (a node is rejected by the first plugin that
 * fails it), weighted score plugins, and Kubernetes' search: nodes are visited round-robin from
 * where the previous attempt stopped, until `numFeasibleNodesToFind` feasible nodes are found;
 * the highest total score wins, ties broken uniformly at random with the injected Rng.
 */
export class Profile {
  readonly schedulerName: string;
  readonly filters: Plugin[];
  readonly scorers: { plugin: Plugin; weight: number }[];
  readonly percentageOfNodesToScore: number;
  /** DefaultPreemption's arguments, or undefined when preemption is disabled. */
  readonly preemption: PreemptionConfig | undefined;
  private nextStartNodeIndex = 0;

  constructor(
    config: ProfileConfig,
    private readonly rng: Rng,
    registry: Map<string, Plugin> = defaultPluginRegistry(),
  ) {
    const get = (name: string) => {
      const p = registry.get(name);
      if (!p) throw new Error(`plugin "${name}" does not exist`);
      return p;
    };
    this.schedulerName = config.schedulerName;
    this.filters = (config.filter ?? DEFAULT_FILTER_PLUGINS).map(get);
    this.scorers = (config.score ?? DEFAULT_SCORE_PLUGINS).map((s) => ({ plugin: get(s.name), weight: s.weight }));
    this.percentageOfNodesToScore = config.percentageOfNodesToScore ?? 0;
    this.preemption = config.preemption === false ? undefined : (config.preemption ?? {});
  }

  /** A fresh cycle state for `pod` with every PreFilter run over `ctx.allNodes`. */
  newCycleState(pod: any, ctx: PluginContext): CycleState {
    const state: CycleState = new Map();
    state.set('podInfo', newPodInfo(pod));
    const active: Plugin[] = [];
    for (const f of this.filters) if (f.preFilter?.(state, pod, ctx) !== 'Skip') active.push(f);
    state.set(ACTIVE_FILTERS, active);
    return state;
  }

  /** The filter plugins of this cycle: those whose PreFilter did not return Skip. */
  private activeFilters(state: CycleState): Plugin[] {
    return (state.get(ACTIVE_FILTERS) as Plugin[] | undefined) ?? this.filters;
  }

  /**
   * RunPreFilterExtensionAddPod: every filter plugin's `addPod` on `state` (which the caller has
   * cloned), as if `podInfoToAdd` ran on `node`. Call before adding the pod to `node`.
   */
  addPodToState(state: CycleState, pod: any, podInfoToAdd: PodInfo, node: NodeInfo): void {
    for (const f of this.activeFilters(state)) f.addPod?.(state, pod, podInfoToAdd, node);
  }

  /**
   * RunPreFilterExtensionRemovePod: every filter plugin's `removePod` on `state` (which the
   * caller has cloned), as if `podInfoToRemove` left `node`. Call after removing the pod from `node`.
   */
  removePodFromState(state: CycleState, pod: any, podInfoToRemove: PodInfo, node: NodeInfo): void {
    for (const f of this.activeFilters(state)) f.removePod?.(state, pod, podInfoToRemove, node);
  }

  /** Runs the filters in order on one node; the first rejection, or undefined when the node fits. */
  runFilters(state: CycleState, pod: any, node: NodeInfo, active = this.activeFilters(state)): NodeFailure | undefined {
    for (let i = 0; i < active.length; i++) {
      const f = active[i];
      const reasons = f.filter?.(state, pod, node);
      if (reasons) return { plugin: f.name, reasons };
    }
    return undefined;
  }

  /**
   * Kubernetes' RunFilterPluginsWithNominatedPods: when pods of equal or higher priority than
   * `pod` are nominated to the node (`ctx.nominatedPodsOn`), the node must fit `pod` both with
   * them added and without them; otherwise the filters run once. A lower-priority pod therefore
   * never takes the room a higher-priority preemptor is waiting for. The pass with them runs on a
   * clone of `state` updated by the plugins' `addPod` (Kubernetes' addGenericNominatedPods), so
   * PreFilter results such as topology spread counts and inter-pod (anti-)affinity see them too;
   * `state` itself is not changed. Without nominated pods there is no extra work.
   */
  filterWithNominatedPods(state: CycleState, pod: any, node: NodeInfo, ctx: PluginContext, active?: Plugin[]): NodeFailure | undefined {
    const nominated = ctx.nominatedPodsOn?.(node.name);
    if (nominated && nominated.length > 0) {
      const prio = podPriority(pod);
      const self = state.get('podInfo') as { key: string } | undefined;
      const uid = pod?.metadata?.uid;
      const add = nominated.filter((pi) => podPriority(pi.pod) >= prio && pi.key !== self?.key && (!uid || pi.pod?.metadata?.uid !== uid));
      if (add.length > 0) {
        const stateOut = cloneCycleState(state);
        const withNominated = node.clone();
        for (const pi of add) {
          // A nominated pod already on the node (assumed or bound) replaces itself, as NodeInfo.addPod does.
          const existing = withNominated.pods.get(pi.key);
          if (existing) {
            withNominated.removePod(pi.key);
            this.removePodFromState(stateOut, pod, existing, withNominated);
          }
          this.addPodToState(stateOut, pod, pi, withNominated);
          withNominated.addPod(pi);
        }
        const failed = this.runFilters(stateOut, pod, withNominated);
        if (failed) return failed;
      }
    }
    return this.runFilters(state, pod, node, active);
  }

  /** Every plugin the profile uses, deduplicated. */
  plugins(): Plugin[] {
    return [...new Set([...this.filters, ...this.scorers.map((s) => s.plugin)])];
  }

  /**
   * Finds a node for `pod` among `ctx.allNodes` (does not change any state but the search start).
   * A pod with `status.nominatedNodeName` gets that node when it passes the filters, without a
   * search (Kubernetes' evaluateNominatedNode). Nominated pods count as in
   * {@link filterWithNominatedPods}.
   */
  schedule(pod: any, ctx: PluginContext): ScheduleResult {
    const nodes = ctx.allNodes;
    const total = nodes.length;
    if (total === 0) return { totalNodes: 0, evaluatedNodes: 0, feasibleNodes: 0, message: fitErrorMessage(0, new Map()), unschedulablePlugins: [] };
    const state = this.newCycleState(pod, ctx);
    const nominatedName = pod?.status?.nominatedNodeName;
    if (nominatedName) {
      const nominated = nodes.find((n) => n.name === nominatedName);
      if (nominated && !this.filterWithNominatedPods(state, pod, nominated, ctx)) {
        return { totalNodes: total, evaluatedNodes: 1, feasibleNodes: 1, unschedulablePlugins: [], node: nominatedName, scores: {}, totalScore: 0 };
      }
    }
    const want = numFeasibleNodesToFind(this.percentageOfNodesToScore, total);
    const feasible: NodeInfo[] = [];
    const reasons = new Map<string, number>();
    const rejecting = new Set<string>();
    const nodeFailures = new Map<string, NodeFailure>();
    let evaluated = 0;
    const active = this.activeFilters(state);
    for (; evaluated < total && feasible.length < want; evaluated++) {
      const node = nodes[(this.nextStartNodeIndex + evaluated) % total];
      const failed = this.filterWithNominatedPods(state, pod, node, ctx, active);
      if (failed) {
        rejecting.add(failed.plugin);
        nodeFailures.set(node.name, failed);
        for (const r of failed.reasons) reasons.set(r, (reasons.get(r) ?? 0) + 1);
      } else feasible.push(node);
    }
    this.nextStartNodeIndex = (this.nextStartNodeIndex + evaluated) % total;
    const base = { totalNodes: total, evaluatedNodes: evaluated, feasibleNodes: feasible.length, unschedulablePlugins: [...rejecting].sort() };
    if (feasible.length === 0) return { ...base, message: fitErrorMessage(total, reasons), nodeFailures };
    if (feasible.length === 1) return { ...base, node: feasible[0].name, scores: {}, totalScore: 0 };
    const totals = new Array<number>(feasible.length).fill(0);
    // A plugin whose PreScore says Skip scores 0 everywhere: no array, nothing added.
    const perPlugin: (number[] | undefined)[] = [];
    for (const { plugin, weight } of this.scorers) {
      if (plugin.preScore?.(state, pod, feasible, ctx) === 'Skip' || (!plugin.score && !plugin.normalizeScore)) {
        perPlugin.push(undefined);
        continue;
      }
      const scores = feasible.map((n) => plugin.score?.(state, pod, n) ?? 0);
      plugin.normalizeScore?.(state, pod, scores, feasible);
      for (let i = 0; i < scores.length; i++) {
        scores[i] *= weight;
        totals[i] += scores[i];
      }
      perPlugin.push(scores);
    }
    let best = 0;
    let ties = 1;
    for (let i = 1; i < feasible.length; i++) {
      if (totals[i] > totals[best]) {
        best = i;
        ties = 1;
      } else if (totals[i] === totals[best]) {
        ties++;
        if (this.rng.int(ties) === 0) best = i;
      }
    }
    const scores: Record<string, number> = {};
    this.scorers.forEach(({ plugin }, j) => (scores[plugin.name] = perPlugin[j]?.[best] ?? 0));
    return { ...base, node: feasible[best].name, scores, totalScore: totals[best] };
  }
}
