import { parse } from 'yaml';
import type { ProfileConfig } from './framework.ts';
import { DEFAULT_FILTER_PLUGINS, DEFAULT_SCORE_PLUGINS } from './plugins.ts';
import { DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE, DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, type PreemptionConfig } from './preemption.ts';

/** A KubeSchedulerConfiguration that is not valid, with the offending field. */
export class SchedulerConfigInvalid extends Error {
  readonly code = 'SCHEDULER_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'SchedulerConfigInvalid';
  }
}

/** The parts of `kubescheduler.config.k8s.io/v1` KubeSchedulerConfiguration the scheduler uses. */
export interface SchedulerConfig {
  profiles: ProfileConfig[];
  podInitialBackoffMs: number;
  podMaxBackoffMs: number;
  leaderElect: boolean;
}

type PluginSet = { enabled?: { name: string; weight?: number }[]; disabled?: { name: string }[] };

function applySet<T extends { name: string }>(defaults: T[], set: PluginSet | undefined, make: (e: { name: string; weight?: number }) => T): T[] {
  if (!set) return defaults;
  const disabled = new Set((set.disabled ?? []).map((d) => d.name));
  const base = disabled.has('*') ? [] : defaults.filter((d) => !disabled.has(d.name));
  for (const e of set.enabled ?? []) {
    const i = base.findIndex((b) => b.name === e.name);
    if (i >= 0) base[i] = make(e);
    else base.push(make(e));
  }
  return base;
}

function preemptionArgs(pluginConfig: any[] | undefined, profile: number): PreemptionConfig {
  const j = (pluginConfig ?? []).findIndex((c) => c?.name === 'DefaultPreemption');
  if (j < 0) return {};
  const args = pluginConfig![j].args ?? {};
  const path = `profiles[${profile}].pluginConfig[${j}].args`;
  const pct = args.minCandidateNodesPercentage ?? DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE;
  const abs = args.minCandidateNodesAbsolute ?? DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE;
  if (!Number.isInteger(pct) || pct < 0 || pct > 100) throw new SchedulerConfigInvalid(`${path}.minCandidateNodesPercentage: Invalid value: ${pct}: not in valid range [0, 100]`);
  if (!Number.isInteger(abs) || abs < 0) throw new SchedulerConfigInvalid(`${path}.minCandidateNodesAbsolute: Invalid value: ${abs}: not in valid range [0, inf)`);
  if (pct === 0 && abs === 0) throw new SchedulerConfigInvalid(`${path}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute`);
  return { minCandidateNodesPercentage: pct, minCandidateNodesAbsolute: abs };
}

/**
 * Parses a KubeSchedulerConfiguration (YAML or JSON, apiVersion kubescheduler.config.k8s.io/v1):
 * profiles with schedulerName (default `default-scheduler`), per-profile plugin sets for `filter`
 * and `score` (and `multiPoint`, applied to both) with enabled/disabled lists (`*` disables every
 * default; an enabled plugin's weight replaces its default weight), percentageOfNodesToScore
 * (global or per profile), the `postFilter` set (DefaultPreemption, disabled → no preemption) with
 * its `pluginConfig` DefaultPreemptionArgs (minCandidateNodesPercentage 0–100, default 10;
 * minCandidateNodesAbsolute ≥ 0, default 100; not both 0), podInitialBackoffSeconds (1) and
 * podMaxBackoffSeconds (10).
 * Throws {@link SchedulerConfigInvalid} for a wrong kind/apiVersion or duplicate scheduler names.
 */
export function parseSchedulerConfig(text: string): SchedulerConfig {
  const doc = parse(text) ?? {};
  if (doc.kind !== 'KubeSchedulerConfiguration') throw new SchedulerConfigInvalid(`kind: expected KubeSchedulerConfiguration, got ${JSON.stringify(doc.kind)}`);
  if (doc.apiVersion !== 'kubescheduler.config.k8s.io/v1') throw new SchedulerConfigInvalid(`apiVersion: unsupported ${JSON.stringify(doc.apiVersion)}`);
  const globalPct = doc.percentageOfNodesToScore ?? 0;
  if (globalPct < 0 || globalPct > 100) throw new SchedulerConfigInvalid(`percentageOfNodesToScore: Invalid value: ${globalPct}: not in valid range [0-100]`);
  const seen = new Set<string>();
  const profiles: ProfileConfig[] = ((doc.profiles ?? [{}]) as any[]).map((p, i) => {
    const schedulerName = p.schedulerName || 'default-scheduler';
    if (seen.has(schedulerName)) throw new SchedulerConfigInvalid(`profiles[${i}].schedulerName: Duplicate value: "${schedulerName}"`);
    seen.add(schedulerName);
    const mp: PluginSet | undefined = p.plugins?.multiPoint;
    let filter = applySet(DEFAULT_FILTER_PLUGINS.map((name) => ({ name })), mp, (e) => ({ name: e.name }));
    filter = applySet(filter, p.plugins?.filter, (e) => ({ name: e.name }));
    let score = applySet(DEFAULT_SCORE_PLUGINS, mp, (e) => ({ name: e.name, weight: e.weight ?? 1 }));
    score = applySet(score, p.plugins?.score, (e) => ({ name: e.name, weight: e.weight ?? 1 }));
    let postFilter = applySet([{ name: 'DefaultPreemption' }], mp, (e) => ({ name: e.name }));
    postFilter = applySet(postFilter, p.plugins?.postFilter, (e) => ({ name: e.name }));
    const preemption = postFilter.some((f) => f.name === 'DefaultPreemption') ? preemptionArgs(p.pluginConfig, i) : false;
    const scorable = new Set(DEFAULT_SCORE_PLUGINS.map((s) => s.name));
    const filterable = new Set(DEFAULT_FILTER_PLUGINS);
    return {
      schedulerName,
      filter: filter.map((f) => f.name).filter((n) => filterable.has(n) || p.plugins?.filter?.enabled?.some((e: any) => e.name === n)),
      score: score.filter((s) => scorable.has(s.name) || p.plugins?.score?.enabled?.some((e: any) => e.name === s.name)),
      percentageOfNodesToScore: p.percentageOfNodesToScore ?? globalPct,
      preemption,
    };
  });
  return {
    profiles,
    podInitialBackoffMs: (doc.podInitialBackoffSeconds ?? 1) * 1000,
    podMaxBackoffMs: (doc.podMaxBackoffSeconds ?? 10) * 1000,
    leaderElect: doc.leaderElection?.leaderElect ?? true,
  };
}
