/**
 * Scheduler throughput, as Kubernetes' scheduler_perf measures it: N Ready nodes that exist only
 * as API objects (no node agents), P pods created by a load client, and the real scheduler binding
 * them through the real API server, all on the simulator (virtual time, simulated network). Reports
 * pods bound per wall second (the issue's "scheduling throughput") and per virtual second.
 *
 *   node --import tsx bench/scheduler.ts [--nodes 5000] [--pods 20000] [--events]
 *
 * Writes results/bench/scheduler-<timestamp>.json and prints a Markdown table row.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { Client } from '../core/client/client.ts';
import { Scheduler } from '../core/scheduler/scheduler.ts';
import { simulatedControlPlane } from '../sim/cluster.ts';
import { SimEnvironment } from '../sim/env.ts';

async function main(): Promise<void> {
  const o = new Command()
    .option('--nodes <n>', 'Ready nodes (API objects only)', '5000')
    .option('--pods <n>', 'pods to schedule', '20000')
    .option('--events', 'let the scheduler record Scheduled Events (one more write per pod)')
    .parse(process.argv)
    .opts<{ nodes: string; pods: string; events?: boolean }>();
  const nodes = Number(o.nodes);
  const pods = Number(o.pods);
  const env = new SimEnvironment();
  const { clock, streams, storage, net } = simulatedControlPlane(env, { seed: 1 });
  const load = new Client({ transport: net.transport('load'), qps: -1, clock });
  const nodeClient = load.resource({ group: '', version: 'v1', resource: 'nodes' });
  const podClient = load.resource({ group: '', version: 'v1', resource: 'pods' }).namespace('default');
  const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' };
  env.process(
    (async () => {
      for (let i = 0; i < nodes; i++) {
        const name = `node-${String(i).padStart(5, '0')}`;
        const capacity = { cpu: '32', memory: '128Gi', pods: '110' };
        await nodeClient.create({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
          status: { capacity, allocatable: capacity, conditions: [ready] },
        });
      }
    })(),
  );
  await env.run();

  let bound = 0;
  let first = 0;
  let last = 0;
  const prefix = '/registry/core/pods/';
  storage.watch(
    { prefix, fromRevision: storage.currentRevision() },
    {
      event(ev) {
        if (ev.type === 'MODIFIED' && !ev.prevKv?.value.includes('"nodeName"') && ev.kv.value.includes('"nodeName"')) {
          if (bound++ === 0) first = performance.now();
          last = performance.now();
        }
        return true;
      },
      close() {},
    },
  );
  const scheduler = new Scheduler({ client: new Client({ transport: net.transport('kube-scheduler'), qps: -1, clock }), clock, rng: streams.stream('scheduler'), recordEvents: Boolean(o.events), decisionHistory: 0 });
  env.process(scheduler.start());
  let next = 0;
  const creator = async () => {
    while (next < pods) {
      const i = next++;
      await podClient.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `pod-${String(i).padStart(6, '0')}` },
        spec: { containers: [{ name: 'app', image: 'registry.example/app:1', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
      });
    }
  };
  const v0 = env.now;
  for (let c = 0; c < 100; c++) env.process(creator());
  await env.run({ until: () => bound >= pods });
  const virtualSeconds = (env.now - v0) / 1000;
  const wallSeconds = (last - first) / 1000;
  const row = {
    nodes,
    pods,
    bound,
    events: Boolean(o.events),
    wallSeconds: Math.round(wallSeconds * 10) / 10,
    podsPerWallSecond: Math.round(bound / wallSeconds),
    podsPerVirtualSecond: Math.round(bound / virtualSeconds),
    attempts: scheduler.stats.attempts,
  };
  const lines = [
    `Command: \`node --import tsx bench/scheduler.ts --nodes ${nodes} --pods ${pods}${o.events ? ' --events' : ''}\`; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.`,
    '',
    '| nodes | pods | wall s (first to last binding) | pods bound / wall s | pods bound / virtual s | scheduling attempts |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${nodes} | ${bound} | ${row.wallSeconds} | ${row.podsPerWallSecond} | ${row.podsPerVirtualSecond} | ${row.attempts} |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const dir = fileURLToPath(new URL('../results/bench/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}scheduler-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify(row, null, 2));
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
