import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { TokenBucketRateLimiter, UnlimitedRateLimiter, rateLimiterFor } from './ratelimit.ts';

const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

test('admits burst at once, then qps per second of clock time', async () => {
  const clock = new FakeClock(0);
  const rl = new TokenBucketRateLimiter({ qps: 5, burst: 3, clock });
  const admitted: number[] = [];
  for (let i = 0; i < 8; i++) void rl.wait().then(() => admitted.push(clock.now()));
  await settle();
  assert.deepEqual(admitted, [0, 0, 0]);
  clock.step(199);
  await settle();
  assert.equal(admitted.length, 3);
  clock.step(1);
  await settle();
  assert.deepEqual(admitted, [0, 0, 0, 200]);
  for (let i = 0; i < 4; i++) {
    clock.step(200);
    await settle();
  }
  assert.deepEqual(admitted, [0, 0, 0, 200, 400, 600, 800, 1000]);
});

test('refills up to burst only, and tryAccept never waits', () => {
  const clock = new FakeClock(0);
  const rl = new TokenBucketRateLimiter({ qps: 10, burst: 2, clock });
  assert.equal(rl.tryAccept(), true);
  assert.equal(rl.tryAccept(), true);
  assert.equal(rl.tryAccept(), false);
  clock.step(60_000);
  assert.equal(rl.tryAccept(), true);
  assert.equal(rl.tryAccept(), true);
  assert.equal(rl.tryAccept(), false);
  clock.step(100);
  assert.equal(rl.tryAccept(), true);
});

test('rejects invalid settings; client-go defaults for 0 and negative qps', () => {
  assert.throws(() => new TokenBucketRateLimiter({ qps: 0, burst: 1 }), /qps/);
  assert.throws(() => new TokenBucketRateLimiter({ qps: 1, burst: 0 }), /burst/);
  const d = rateLimiterFor(0, 0, new FakeClock(0)) as TokenBucketRateLimiter;
  assert.equal(d.qps, 5);
  assert.equal(d.burst, 10);
  assert.ok(rateLimiterFor(-1, 0) instanceof UnlimitedRateLimiter);
});
