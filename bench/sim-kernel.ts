/**
 * Simulation kernel benchmark: events per wall second for trivial events (a callback that
 * reschedules itself), for async processes (`await env.timeout` loops), and with settle mode
 * 'always'. Each scenario runs `rounds` times and the best rate is kept (the machine is shared, so
 * the best round is the least disturbed one). Prints a table.
 * Run: `node --import tsx bench/sim-kernel.ts [events] [rounds]`.
 */
import { SimEnvironment, type SettleMode } from '../sim/env.ts';

async function trivial(n: number, settle: SettleMode, concurrency: number): Promise<number> {
  const env = new SimEnvironment({ settle });
  let left = n;
  const tick = (): void => {
    if (--left > 0) env.schedule(1 + (left % 7), tick);
  };
  for (let i = 0; i < concurrency; i++) env.schedule(i, tick);
  const t0 = process.hrtime.bigint();
  const res = await env.run();
  return res.events / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function processes(n: number, settle: SettleMode, concurrency: number): Promise<number> {
  const env = new SimEnvironment({ settle });
  const per = Math.ceil(n / concurrency);
  for (let i = 0; i < concurrency; i++) {
    env.process(
      (async () => {
        for (let k = 0; k < per; k++) await env.timeout(1 + ((i + k) % 5));
      })(),
    );
  }
  const t0 = process.hrtime.bigint();
  const res = await env.run();
  return res.events / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const n = Number(process.argv[2] ?? 2_000_000);
const rounds = Number(process.argv[3] ?? 3);
const scenarios: [string, () => Promise<number>][] = [
  ['trivial callbacks, 1 chain, auto', () => trivial(n, 'auto', 1)],
  ['trivial callbacks, 10k pending, auto', () => trivial(n, 'auto', 10_000)],
  ['trivial callbacks, 10k pending, always', () => trivial(n / 4, 'always', 10_000)],
  ['async timeout loops, 1k processes, auto', () => processes(n / 4, 'auto', 1000)],
  ['async timeout loops, 1k processes, always', () => processes(n / 4, 'always', 1000)],
];
const rows: [string, number][] = [];
for (const [name, run] of scenarios) {
  let best = 0;
  for (let r = 0; r < rounds; r++) best = Math.max(best, await run());
  rows.push([name, best]);
}
console.log('| scenario | events/s |\n|---|---:|');
for (const [name, rate] of rows) console.log(`| ${name} | ${Math.round(rate).toLocaleString('en-US')} |`);
