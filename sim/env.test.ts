import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimEnvironment, SimulationMisuse, SimulationTooSlow, type SettleMode } from './env.ts';
import { performance } from 'node:perf_hooks';
import { SimClock } from './clock.ts';
import { SeededRng } from '../core/machinery/rng.ts';

test('events fire at exact times, ties broken by priority then insertion order', async () => {
  const env = new SimEnvironment();
  const log: string[] = [];
  const at = (name: string) => () => log.push(`${env.now}:${name}`);
  env.schedule(5, at('a'));
  env.schedule(3, at('b'));
  env.schedule(3, at('c'), -1);
  env.schedule(3, at('d'));
  env.schedule(0, at('e'), 2);
  env.schedule(0, at('f'), 1);
  env.schedule(3, () => {
    log.push(`${env.now}:g`);
    env.schedule(0, at('h'), -5);
    env.schedule(0, at('i'));
  });
  const res = await env.run();
  assert.deepEqual(log, ['0:f', '0:e', '3:c', '3:b', '3:d', '3:g', '3:h', '3:i', '5:a']);
  assert.deepEqual(res, { stoppedBy: 'exhausted', now: 5, events: 9 });
});

test('step() fires exactly one event; cancelled events never fire', () => {
  const env = new SimEnvironment({ initialTime: 100 });
  const log: number[] = [];
  env.schedule(1, () => log.push(env.now));
  const gone = env.schedule(2, () => log.push(-1));
  env.scheduleAt(110, () => log.push(env.now));
  gone.cancel();
  assert.equal(env.peek(), 101);
  assert.equal(env.step(), true);
  assert.deepEqual(log, [101]);
  assert.equal(env.step(), true);
  assert.deepEqual(log, [101, 110]);
  assert.equal(env.step(), false);
  assert.equal(env.now, 110);
  assert.throws(() => env.schedule(-1, () => {}), SimulationMisuse);
  assert.throws(() => env.scheduleAt(5, () => {}), SimulationMisuse);
});

async function interleaving(settle: SettleMode): Promise<string[]> {
  const env = new SimEnvironment({ settle });
  const log: string[] = [];
  const worker = async (name: string, period: number, n: number) => {
    for (let i = 0; i < n; i++) {
      await env.timeout(period);
      log.push(`${env.now} ${name}#${i}`);
      await Promise.resolve();
      log.push(`${env.now} ${name}#${i}+`);
    }
  };
  env.process(worker('A', 2, 3));
  env.process(worker('B', 3, 2));
  env.process(async () => {
    await env.timeout(4);
    let x = 0;
    for (let i = 0; i < 200; i++) x += await Promise.resolve(i);
    log.push(`${env.now} deep-chain ${x}`);
  });
  env.schedule(1, () => queueMicrotask(() => log.push(`${env.now} raw-microtask`)));
  env.schedule(4.5, () => log.push(`${env.now} sync-event`));
  await env.run();
  return log;
}

test('async components interleave deterministically and settle before time advances', async () => {
  const log = await interleaving('auto');
  assert.deepEqual(log, [
    '1 raw-microtask',
    '2 A#0',
    '2 A#0+',
    '3 B#0',
    '3 B#0+',
    // the deep chain's timeout was scheduled at 0, A's second at 2: insertion order at t=4, and
    // the chain's 200 awaits all finish before the next event fires.
    '4 deep-chain 19900',
    '4 A#1',
    '4 A#1+',
    '4.5 sync-event',
    '6 B#1',
    '6 B#1+',
    '6 A#2',
    '6 A#2+',
  ]);
  assert.deepEqual(await interleaving('always'), log);
});

async function microtaskDepth(settle: SettleMode): Promise<string[]> {
  const env = new SimEnvironment({ settle });
  const log: string[] = [];
  const rawChain = (name: string, depth: number): void => {
    queueMicrotask(() => {
      if (depth > 1) rawChain(name, depth - 1);
      else log.push(`${env.now} ${name} done`);
    });
  };
  env.schedule(1, () => {
    void Promise.resolve().then(() => rawChain('raw-after-promise', 6));
    process.nextTick(() => log.push(`${env.now} tick`));
  });
  env.schedule(1, () => log.push(`${env.now} second-at-1`));
  env.schedule(2, () => {
    void (async () => {
      for (let i = 0; i < 50; i++) await null;
      rawChain('await-then-raw', 4);
    })();
  });
  env.schedule(2, () => log.push(`${env.now} second-at-2`));
  await env.run();
  return log;
}

test('promise work and the microtasks it queues, however deep, finish before the next event at the same time', async () => {
  const log = await microtaskDepth('auto');
  assert.deepEqual(log, ['1 tick', '1 raw-after-promise done', '1 second-at-1', '2 await-then-raw done', '2 second-at-2']);
  assert.deepEqual(await microtaskDepth('always'), log);
});

test('a long run of events still yields macrotask turns', async () => {
  const env = new SimEnvironment();
  const n = 20_000;
  let seenAt = -1;
  env.schedule(0, () => setImmediate(() => (seenAt = env.eventsFired)));
  for (let i = 1; i < n; i++) env.schedule(i, () => {});
  const res = await env.run();
  assert.equal(res.events, n);
  assert.ok(seenAt > 0 && seenAt < n, `setImmediate ran after event ${seenAt} of ${n}`);
});

test('run({ until: time }) stops before events at that time and sets now; a later run continues', async () => {
  const env = new SimEnvironment();
  const log: number[] = [];
  for (const t of [1, 2, 3]) env.schedule(t, () => log.push(env.now));
  assert.deepEqual(await env.run({ until: 2 }), { stoppedBy: 'time', now: 2, events: 1 });
  assert.deepEqual(log, [1]);
  assert.deepEqual(await env.run({ until: 10 }), { stoppedBy: 'exhausted', now: 10, events: 2 });
  assert.deepEqual(log, [1, 2, 3]);
  await assert.rejects(env.run({ until: 5 }), SimulationMisuse);
});

test('run({ until: predicate }) stops as soon as the condition holds after an event settles', async () => {
  const env = new SimEnvironment();
  let done = 0;
  for (let i = 0; i < 10; i++) {
    env.process(async () => {
      await env.timeout(10 * (i + 1));
      await Promise.resolve();
      done++;
    });
  }
  const res = await env.run({ until: () => done >= 3 });
  assert.deepEqual(res, { stoppedBy: 'condition', now: 30, events: 3 });
  assert.equal(env.pending, 7);
});

test('a throwing event rejects run with that error at its virtual time', async () => {
  const env = new SimEnvironment();
  const boom = new Error('boom');
  let after = false;
  env.schedule(7, () => {
    throw boom;
  });
  env.schedule(8, () => (after = true));
  await assert.rejects(env.run(), (e) => e === boom);
  assert.equal(env.now, 7);
  assert.equal(after, false);
  await env.run();
  assert.equal(after, true);
});

test('a rejected process fails the run; outside a run it fails the next step', async () => {
  const env = new SimEnvironment();
  const bad = new Error('process failed');
  env.process(async () => {
    await env.timeout(3);
    throw bad;
  });
  env.schedule(100, () => {});
  await assert.rejects(env.run(), (e) => e === bad);
  assert.equal(env.now, 3);

  const env2 = new SimEnvironment();
  env2.process(Promise.reject(bad));
  await env2.settle();
  env2.schedule(1, () => {});
  assert.throws(() => env2.step(), (e) => e === bad);
  assert.equal(env2.step(), true);
});

test('a throwing until predicate rejects run; concurrent run() is refused', async () => {
  const env = new SimEnvironment();
  env.schedule(1, () => {});
  const p = env.run();
  await assert.rejects(env.run(), SimulationMisuse);
  await p;
  const err = new Error('pred');
  env.schedule(1, () => {});
  await assert.rejects(
    env.run({
      until: () => {
        throw err;
      },
    }),
    (e) => e === err,
  );
});

test('trace lines carry the virtual time', async () => {
  const env = new SimEnvironment({ trace: true });
  env.schedule(1.5, () => env.record('tick', 'a b'));
  env.record('start', '-');
  await env.run();
  assert.deepEqual(env.trace(), ['0.000 start -', '1.500 tick a b']);
  assert.deepEqual(new SimEnvironment().trace(), []);
});

test('SimClock: now from the start epoch, timers and sleep on the environment', async () => {
  const env = new SimEnvironment();
  const clock = new SimClock(env, 1_000_000);
  const log: string[] = [];
  const h = clock.setTimer(50, () => log.push(`cancelled ${clock.now()}`));
  clock.setTimer(20, () => log.push(`timer ${clock.now()}`));
  clock.setTimer(-5, () => log.push(`negative ${clock.now()}`));
  clock.clearTimer(h);
  clock.clearTimer(h);
  env.process(
    (async () => {
      await clock.sleep(30);
      log.push(`slept ${clock.now()}`);
    })(),
  );
  assert.equal(clock.now(), 1_000_000);
  await env.run();
  assert.deepEqual(log, ['negative 1000000', 'timer 1000020', 'slept 1000030']);
  assert.equal(env.now, 30);
});

test('real-time mode paces events to wall time by the factor, in the same order and at the same virtual times', async () => {
  const fired: [number, number][] = [];
  const env = new SimEnvironment();
  for (const t of [0, 40, 20, 60]) env.schedule(t, () => fired.push([env.now, performance.now()]));
  const start = performance.now();
  const r = await env.run({ until: 80, realtime: { factor: 2 } });
  const end = performance.now();
  assert.deepEqual(fired.map(([v]) => v), [0, 20, 40, 60]);
  assert.equal(r.now, 80);
  // Lower bounds only (pacing may never fire early; it may fire late on a busy machine).
  for (const [v, w] of fired) assert.ok(w - start >= v / 2 - 1, `event at ${v} fired ${w - start} ms after the start`);
  assert.ok(end - start >= 80 / 2 - 1);
});

test('strict real-time mode rejects once the simulation falls behind by more than the tolerance', async () => {
  const env = new SimEnvironment();
  env.schedule(0, () => {
    const until = performance.now() + 60;
    while (performance.now() < until); // an event that takes 60 wall ms
  });
  env.schedule(1, () => {});
  await assert.rejects(env.run({ realtime: { factor: 1, strict: true, toleranceMs: 20 } }), (e: unknown) => e instanceof SimulationTooSlow && e.virtualTime === 1);
  await assert.rejects(new SimEnvironment().run({ realtime: { factor: 0 } }), SimulationMisuse);
});

test('thousands of events, many at equal times and priorities, some cancelled, also scheduled while running, fire in (time, priority, insertion) order', async () => {
  const env = new SimEnvironment();
  const rng = new SeededRng('heap-order');
  const fired: { time: number; priority: number; seq: number }[] = [];
  const expected: { time: number; priority: number; seq: number }[] = [];
  let seq = 0;
  const add = (delay: number, priority: number, cancel: boolean, depth: number): void => {
    const mine = { time: env.now + delay, priority, seq: seq++ };
    const ev = env.schedule(
      delay,
      () => {
        fired.push(mine);
        // Events scheduled while running, often at a time others already wait for (never at now:
        // those would fire after the ones of lower priority already gone, out of global order).
        if (depth < 2 && rng.int(4) === 0) add(1 + rng.int(50), rng.int(3), rng.int(10) === 0, depth + 1);
      },
      priority,
    );
    if (cancel) ev.cancel();
    else expected.push(mine);
  };
  for (let i = 0; i < 5000; i++) add(rng.int(200) + (rng.int(2) === 0 ? 0 : rng.int(1000) / 1000), rng.int(3), rng.int(10) === 0, 0);
  await env.run();
  const order = (a: { time: number; priority: number; seq: number }, b: { time: number; priority: number; seq: number }) => a.time - b.time || a.priority - b.priority || a.seq - b.seq;
  for (let i = 1; i < fired.length; i++) assert.ok(order(fired[i - 1], fired[i]) < 0, `event ${i} out of order`);
  assert.deepEqual(new Set(fired), new Set(expected), 'every live event fired once, no cancelled one');
  assert.ok(fired.length > 5000, 'events scheduled while running fired too');
});
