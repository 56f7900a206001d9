/**
 * Simulation kernel benchmark: events per wall second for trivial events (a callback that
 * reschedules itself), for async processes (`await env.timeout` loops), and with settle mode
 * 'always'. Prints a table. Run: `node --import tsx bench/sim-kernel.ts [events]`.
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
const rows: [string, number][] = [];
rows.push(['trivial callbacks, 1 chain, auto', await trivial(n, 'auto', 1)]);
rows.push(['trivial callbacks, 10k pending, auto', await trivial(n, 'auto', 10_000)]);
rows.push(['trivial callbacks, 10k pending, always', await trivial(n / 4, 'always', 10_000)]);
rows.push(['async timeout loops, 1k processes, auto', await processes(n / 4, 'auto', 1000)]);
rows.push(['async timeout loops, 1k processes, always', await processes(n / 4, 'always', 1000)]);
console.log('| scenario | events/s |\n|---|---:|');
for (const [name, rate] of rows) console.log(`| ${name} | ${Math.round(rate).toLocaleString('en-US')} |`);
