/**
 * Simulated-cluster benchmark: for each cluster size, creates pods and runs until all are Running
 * (scheduling throughput per wall and per virtual second, events/s, virtual-to-wall ratio, peak RSS),
 * then an idle stretch of virtual time (heartbeats and leases only).
 *
 *   node --import tsx bench/sim-cluster.ts [--sizes 100,1000] [--pods-per-node 10] [--idle-minutes 10]
 *
 * Each size runs in its own child process so peak memory is per size. Writes
 * results/bench/sim-cluster-<timestamp>.json and prints a Markdown table.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { runSimulation } from '../sim/cluster.ts';

interface Row {
  nodes: number;
  pods: number;
  wallSeconds: number;
  virtualSeconds: number;
  events: number;
  podsScheduledPerWallSecond: number;
  podsScheduledPerVirtualSecond: number;
  peakRssMB: number;
  idleVirtualSeconds: number;
  idleWallSeconds: number;
}

async function child(nodes: number, pods: number, idleMinutes: number, events: boolean): Promise<void> {
  const s = await runSimulation({
    nodes,
    pods,
    seed: 1,
    idleAfterMs: idleMinutes * 60_000,
    events,
    onProgress: (p) => process.stderr.write(`  ${new Date().toISOString()} ${JSON.stringify(p)}\n`),
  });
  process.stdout.write(`${JSON.stringify(s)}\n`);
  process.exit(0);
}

function fmt(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

async function main(): Promise<void> {
  const program = new Command()
    .option('--sizes <list>', 'cluster sizes (nodes)', '100,1000')
    .option('--pods-per-node <n>', 'pods per node', '10')
    .option('--idle-minutes <n>', 'virtual minutes of an idle cluster after the pods run', '10')
    .option('--no-events', 'leave out Kubernetes Events (node agents, scheduler)')
    .option('--child <nodes,pods,idle>', 'internal: run one size');
  program.parse(process.argv);
  const o = program.opts<{ sizes: string; podsPerNode: string; idleMinutes: string; events: boolean; child?: string }>();
  if (o.child) {
    const [n, p, i] = o.child.split(',').map(Number);
    return child(n, p, i, o.events);
  }
  const rows: Row[] = [];
  for (const nodes of o.sizes.split(',').map(Number)) {
    const pods = nodes * Number(o.podsPerNode);
    process.stderr.write(`simulating ${nodes} nodes, ${pods} pods, then ${o.idleMinutes} idle virtual minutes…\n`);
    const r = spawnSync(process.execPath, ['--max-old-space-size=20480', '--max-semi-space-size=128', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', `${nodes},${pods},${o.idleMinutes}`, ...(o.events ? [] : ['--no-events'])], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
    if (r.status !== 0) throw new Error(`size ${nodes} failed with status ${r.status} (see the lines above)`);
    const s = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    rows.push({ nodes, pods, wallSeconds: s.wallSeconds, virtualSeconds: s.virtualSeconds, events: s.events, podsScheduledPerWallSecond: s.podsScheduledPerWallSecond, podsScheduledPerVirtualSecond: s.podsScheduledPerVirtualSecond, peakRssMB: s.peakRssMB, idleVirtualSeconds: s.idle?.virtualSeconds ?? 0, idleWallSeconds: s.idle?.wallSeconds ?? 0 });
  }
  const lines = [
    `## orrery simulated cluster benchmark — ${new Date().toISOString()}`,
    '',
    `Command: \`node --import tsx bench/sim-cluster.ts --sizes ${o.sizes} --pods-per-node ${o.podsPerNode} --idle-minutes ${o.idleMinutes}${o.events ? '' : ' --no-events'}\`; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.`,
    '',
    '| nodes | pods | wall s to all Running | virtual s | virtual/wall | events/s | pods scheduled / wall s | pods scheduled / virtual s | peak RSS MB | idle: virtual s per wall s |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      `| ${fmt(r.nodes, 0)} | ${fmt(r.pods, 0)} | ${fmt(r.wallSeconds)} | ${fmt(r.virtualSeconds)} | ${fmt(r.virtualSeconds / r.wallSeconds, 2)} | ${fmt(r.events / r.wallSeconds, 0)} | ${fmt(r.podsScheduledPerWallSecond)} | ${fmt(r.podsScheduledPerVirtualSecond, 0)} | ${fmt(r.peakRssMB, 0)} | ${r.idleWallSeconds ? fmt(r.idleVirtualSeconds / r.idleWallSeconds, 1) : '—'} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const dir = fileURLToPath(new URL('../results/bench/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}sim-cluster-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify(rows, null, 2));
  writeFileSync(`${dir}sim-cluster-latest.md`, `${lines.join('\n')}\n`);
}

main().catch((e) => {
  process.stderr.write(`sim-cluster: ${(e as Error).message}\n`);
  process.exit(1);
});
