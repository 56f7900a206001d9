/**
 * The simulator of this checkout beside another checkout's, in one process, runs alternating:
 * on a shared machine whose speed drifts by tens of percent within minutes, a ratio measured this
 * way says more than two numbers measured apart.
 *
 *   git worktree add /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   node --expose-gc --max-semi-space-size=128 --import tsx bench/sim-ab.ts --base /tmp/base \
 *     [--nodes 1000] [--pods 10000] [--idle-minutes 0] [--reps 3]
 *
 * Both sides run the same options and seed, so their simulated runs should match (virtual seconds,
 * events); a mismatch is reported, since it means the change altered behaviour, not only cost.
 * Prints a Markdown table (wall and CPU seconds per run, medians, new/base) and writes
 * results/bench/sim-ab-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command } from 'commander';
import type { SimulationOptions, SimulationSummary } from '../sim/cluster.ts';

type Run = (o: SimulationOptions) => Promise<SimulationSummary>;

interface Sample {
  side: 'base' | 'new';
  wallSeconds: number;
  /** The idle stretch's share of the wall time (0 without one). */
  idleWallSeconds: number;
  cpuSeconds: number;
  virtualSeconds: number;
  events: number;
}

/** The median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main(): Promise<void> {
  const program = new Command()
    .requiredOption('--base <dir>', 'another checkout of orrery (with node_modules) to compare against')
    .option('--nodes <n>', 'nodes', '1000')
    .option('--pods <n>', 'pods', '10000')
    .option('--idle-minutes <n>', 'idle virtual minutes after the pods run', '0')
    .option('--reps <n>', 'runs per side', '3');
  program.parse(process.argv);
  const o = program.opts<{ base: string; nodes: string; pods: string; idleMinutes: string; reps: string }>();
  const nodes = Number(o.nodes);
  const pods = Number(o.pods);
  const idle = Number(o.idleMinutes);
  const reps = Number(o.reps);
  for (const [name, v] of [['--nodes', nodes], ['--pods', pods], ['--idle-minutes', idle], ['--reps', reps]] as const) {
    if (!Number.isFinite(v) || v < 0 || (name !== '--idle-minutes' && !Number.isInteger(v))) throw new Error(`${name}: not a valid number: ${v}`);
  }
  const here = fileURLToPath(new URL('../sim/cluster.ts', import.meta.url));
  const there = resolve(o.base, 'sim/cluster.ts');
  const runs: Record<'base' | 'new', Run> = {
    base: (await import(pathToFileURL(there).href)).runSimulation,
    new: (await import(pathToFileURL(here).href)).runSimulation,
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  const samples: Sample[] = [];
  for (let i = 0; i < reps * 2; i++) {
    const side = i % 2 === 0 ? 'base' : 'new';
    gc?.();
    const cpu0 = process.cpuUsage();
    const s = await runs[side]({ nodes, pods, seed: 1, idleAfterMs: idle * 60_000 });
    const cpu = process.cpuUsage(cpu0);
    const sample: Sample = { side, wallSeconds: s.wallSeconds + (s.idle?.wallSeconds ?? 0), idleWallSeconds: s.idle?.wallSeconds ?? 0, cpuSeconds: (cpu.user + cpu.system) / 1e6, virtualSeconds: s.virtualSeconds + (s.idle?.virtualSeconds ?? 0), events: s.events + (s.idle?.events ?? 0) };
    samples.push(sample);
    process.stderr.write(`${side} ${JSON.stringify(sample)}\n`);
  }
  const of = (side: 'base' | 'new', f: (s: Sample) => number) => samples.filter((s) => s.side === side).map(f);
  const same = new Set(samples.map((s) => `${s.virtualSeconds}/${s.events}`)).size === 1;
  const wall = { base: median(of('base', (s) => s.wallSeconds)), new: median(of('new', (s) => s.wallSeconds)) };
  const cpu = { base: median(of('base', (s) => s.cpuSeconds)), new: median(of('new', (s) => s.cpuSeconds)) };
  const idleWall = { base: median(of('base', (s) => s.idleWallSeconds)), new: median(of('new', (s) => s.idleWallSeconds)) };
  const lines = [
    `## orrery simulator A/B — ${new Date().toISOString()}`,
    '',
    `${nodes} nodes, ${pods} pods, ${idle} idle virtual minutes; ${reps} runs per side, alternating in one process. Base: \`${o.base}\`.`,
    '',
    '| side | wall s per run | median wall s | median idle wall s | median CPU s |',
    '|---|---|---:|---:|---:|',
    `| base | ${of('base', (s) => s.wallSeconds).map((x) => x.toFixed(2)).join(', ')} | ${wall.base.toFixed(2)} | ${idleWall.base.toFixed(2)} | ${cpu.base.toFixed(2)} |`,
    `| new | ${of('new', (s) => s.wallSeconds).map((x) => x.toFixed(2)).join(', ')} | ${wall.new.toFixed(2)} | ${idleWall.new.toFixed(2)} | ${cpu.new.toFixed(2)} |`,
    '',
    `new/base: wall ${(wall.new / wall.base).toFixed(3)}${idle > 0 ? `, idle wall ${(idleWall.new / idleWall.base).toFixed(3)}` : ''}, CPU ${(cpu.new / cpu.base).toFixed(3)}.`,
    same ? 'Both sides simulated the same run (virtual seconds and events match).' : '**The two sides simulated different runs** (virtual seconds or events differ): the change altered behaviour.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const dir = fileURLToPath(new URL('../results/bench/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}sim-ab-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify({ nodes, pods, idleMinutes: idle, base: o.base, samples, wall, idleWall, cpu, sameRun: same }, null, 2));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`sim-ab: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
