import { parse } from 'yaml';
import type { ProfileConfig } from './framework.ts';
import { DEFAULT_FILTER_PLUGINS, DEFAULT_SCORE_PLUGINS } from './plugins.ts';

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

/**
 * Parses a KubeSchedulerConfiguration (YAML or JSON, apiVersion kubescheduler.config.k8s.io/v1):
 * profiles with schedulerName (default `default-scheduler`), per-profile plugin sets for `filter`
 * and `score` (and `multiPoint`, applied to both) with enabled/disabled lists (`*` disables every
 * default; an enabled plugin's weight replaces its default weight), percentageOfNodesToScore
 * (global or per profile), podInitialBackoffSeconds (1) and podMaxBackoffSeconds (10).
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
    const scorable = new Set(DEFAULT_SCORE_PLUGINS.map((s) => s.name));
    const filterable = new Set(DEFAULT_FILTER_PLUGINS);
    return {
      schedulerName,
      filter: filter.map((f) => f.name).filter((n) => filterable.has(n) || p.plugins?.filter?.enabled?.some((e: any) => e.name === n)),
      score: score.filter((s) => scorable.has(s.name) || p.plugins?.score?.enabled?.some((e: any) => e.name === s.name)),
      percentageOfNodesToScore: p.percentageOfNodesToScore ?? globalPct,
    };
  });
  return {
    profiles,
    podInitialBackoffMs: (doc.podInitialBackoffSeconds ?? 1) * 1000,
    podMaxBackoffMs: (doc.podMaxBackoffSeconds ?? 10) * 1000,
    leaderElect: doc.leaderElection?.leaderElect ?? true,
  };
}
