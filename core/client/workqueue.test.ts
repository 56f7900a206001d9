import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { ItemExponentialFailureRateLimiter, WorkQueue, defaultControllerRateLimiter, runWorkers } from './workqueue.ts';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

test('dedupes queued items and keeps insertion order', async () => {
  const q = new WorkQueue<string>({ clock: new FakeClock(0) });
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(q.len(), 0);
});

test('an item added while processing is re-queued only after done', async () => {
  const q = new WorkQueue<string>({ clock: new FakeClock(0) });
  q.add('a');
  const item = await q.get();
  q.add('a');
  q.add('a');
  assert.equal(q.len(), 0);
  let second: string | undefined;
  void q.get().then((x) => (second = x));
  await settle();
  assert.equal(second, undefined);
  q.done(item!);
  await settle();
  assert.equal(second, 'a');
  q.done('a');
  assert.equal(q.len(), 0);
});

test('workers never process one key concurrently, and every add is eventually processed', async () => {
  const q = new WorkQueue<string>({ clock: new FakeClock(0) });
  const active = new Set<string>();
  const processed: string[] = [];
  let overlap = false;
  const runs = runWorkers(q, 4, async (key) => {
    if (active.has(key)) overlap = true;
    active.add(key);
    await new Promise((r) => setImmediate(r));
    if (key === 'x' && processed.filter((k) => k === 'x').length === 0) q.add('x');
    processed.push(key);
    active.delete(key);
  });
  for (let i = 0; i < 20; i++) q.add(['x', 'y', 'z'][i % 3]!);
  await settle();
  for (let i = 0; i < 10; i++) await settle();
  q.shutDown();
  await runs;
  assert.equal(overlap, false);
  // The first x, y, z go straight to waiting workers; the later adds of each mark it dirty (one
  // re-run after done, however many adds), and x's own re-add during processing folds into that.
  assert.deepEqual(processed.slice(0, 3).sort(), ['x', 'y', 'z']);
  assert.equal(processed.length, 6);
  for (const k of ['x', 'y', 'z']) assert.equal(processed.filter((p) => p === k).length, 2);
});

test('addAfter fires on the clock; the earliest pending addAfter wins', async () => {
  const clock = new FakeClock(0);
  const q = new WorkQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 300);
  q.addAfter('a', 2000);
  clock.step(299);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  clock.step(5000);
  assert.equal(q.len(), 1);
});

test('addRateLimited backs off exponentially from 5 ms per key; forget resets', async () => {
  const clock = new FakeClock(0);
  const q = new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000_000) });
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const start = clock.now();
    q.addRateLimited('k');
    let t = 0;
    while (q.len() === 0) {
      clock.step(1);
      t++;
    }
    delays.push(clock.now() - start);
    assert.equal(await q.get(), 'k');
    q.done('k');
    assert.ok(t > 0);
  }
  assert.deepEqual(delays, [5, 10, 20, 40]);
  assert.equal(q.numRequeues('k'), 4);
  q.forget('k');
  assert.equal(q.numRequeues('k'), 0);
  const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
  let last = 0;
  for (let i = 0; i < 40; i++) last = rl.when('k');
  assert.equal(last, 1000_000);
  assert.equal(rl.when('other'), 5);
});

test('default controller rate limiter: 5 ms first retry, bucket of 100 then 10/s', () => {
  const clock = new FakeClock(0);
  const rl = defaultControllerRateLimiter<string>(clock);
  assert.equal(rl.when('a'), 5);
  assert.equal(rl.when('a'), 10);
  for (let i = 0; i < 98; i++) rl.when(`k${i}`);
  assert.equal(rl.when('fresh'), 100);
});

test('shutDown wakes waiting getters, drops delayed items, drains queued ones', async () => {
  const clock = new FakeClock(0);
  const q = new WorkQueue<string>({ clock });
  const waiting = q.get();
  q.shutDown();
  assert.equal(await waiting, undefined);
  const q2 = new WorkQueue<string>({ clock });
  q2.add('a');
  q2.addAfter('b', 10);
  q2.shutDown();
  q2.add('c');
  clock.step(100);
  assert.equal(await q2.get(), 'a');
  assert.equal(await q2.get(), undefined);
  assert.equal(clock.pending(), 0);
  assert.equal(q2.shuttingDown(), true);
});
