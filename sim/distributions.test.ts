import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRng } from '../core/machinery/rng.ts';
import { DistributionInvalid, parseDistribution, parseDuration } from './distributions.ts';

function samples(config: unknown, n: number, seed = 7): number[] {
  const d = parseDistribution(config);
  const rng = new SeededRng(seed);
  return Array.from({ length: n }, () => d.sample(rng));
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

test('durations: units and bare numbers in ms', () => {
  assert.equal(parseDuration('5ms', 'f'), 5);
  assert.equal(parseDuration('1.5s', 'f'), 1500);
  assert.equal(parseDuration('250us', 'f'), 0.25);
  assert.equal(parseDuration('2m', 'f'), 120_000);
  assert.equal(parseDuration('3', 'f'), 3);
  assert.equal(parseDuration(0, 'f'), 0);
  assert.throws(() => parseDuration('5 parsecs', 'net.latency'), /^DistributionInvalid: net\.latency: invalid duration "5 parsecs"/);
  assert.throws(() => parseDuration(-1, 'x'), DistributionInvalid);
  assert.throws(() => parseDuration(Infinity, 'x'), DistributionInvalid);
});

test('constant and bare durations', () => {
  assert.deepEqual(samples({ dist: 'constant', value: '4ms' }, 3), [4, 4, 4]);
  assert.deepEqual(samples('2s', 2), [2000, 2000]);
});

test('uniform stays within [min, max] and covers it', () => {
  const xs = samples({ dist: 'uniform', min: 1, max: 3 }, 5000);
  assert.ok(xs.every((x) => x >= 1 && x < 3));
  assert.ok(Math.min(...xs) < 1.01 && Math.max(...xs) > 2.99);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(Math.abs(mean - 2) < 0.05, `mean ${mean}`);
});

test('exponential has the configured mean; clamping applies', () => {
  const xs = samples({ dist: 'exponential', mean: '10ms' }, 20000);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(Math.abs(mean - 10) < 0.4, `mean ${mean}`);
  const clamped = samples({ dist: 'exponential', mean: '10ms', max: '15ms' }, 2000);
  assert.equal(Math.max(...clamped), 15);
});

test('normal is clamped at 0 by default and at the given bounds', () => {
  const xs = samples({ dist: 'normal', mean: 1, stddev: 2 }, 5000);
  assert.ok(xs.every((x) => x >= 0));
  assert.ok(xs.filter((x) => x === 0).length > 1000);
  const ys = samples({ dist: 'normal', mean: 100, stddev: 10, min: 90, max: 105 }, 5000);
  assert.ok(ys.every((y) => y >= 90 && y <= 105));
  const mid = samples({ dist: 'normal', mean: 100, stddev: 10 }, 20000);
  assert.ok(Math.abs(quantile(mid, 0.5) - 100) < 0.5);
  assert.ok(Math.abs(quantile(mid, 0.8413) - 110) < 0.6);
});

test('lognormal from median and p99 reproduces both quantiles', () => {
  const xs = samples({ dist: 'lognormal', median: '5ms', p99: '50ms' }, 40000);
  assert.ok(Math.abs(quantile(xs, 0.5) - 5) < 0.2, `median ${quantile(xs, 0.5)}`);
  assert.ok(Math.abs(quantile(xs, 0.99) - 50) < 4, `p99 ${quantile(xs, 0.99)}`);
  const capped = samples({ dist: 'lognormal', median: '5ms', p99: '50ms', max: '20ms' }, 2000);
  assert.equal(Math.max(...capped), 20);
});

test('same seed, same samples; different seed, different samples', () => {
  const c = { dist: 'lognormal', median: 5, p99: 50 };
  assert.deepEqual(samples(c, 20, 1), samples(c, 20, 1));
  assert.notDeepEqual(samples(c, 20, 1), samples(c, 20, 2));
});

test('invalid configs name the offending field', () => {
  const cases: [unknown, string][] = [
    [{ dist: 'poisson', mean: 1 }, 'latency.dist'],
    [{ dist: 'uniform', min: 1 }, 'latency.max'],
    [{ dist: 'uniform', min: 3, max: 1 }, 'latency.max'],
    [{ dist: 'lognormal', median: '5ms', p99: '1ms' }, 'latency.p99'],
    [{ dist: 'lognormal', median: 0, p99: '1ms' }, 'latency.median'],
    [{ dist: 'normal', mean: 1, stdev: 1 }, 'latency.stdev'],
    [{ dist: 'exponential', mean: 'fast' }, 'latency.mean'],
    [{ dist: 'constant', value: null }, 'latency.value'],
    [[1, 2], 'latency'],
  ];
  for (const [config, field] of cases) {
    assert.throws(
      () => parseDistribution(config, 'latency'),
      (e: unknown) => e instanceof DistributionInvalid && e.field === field && e.code === 'DISTRIBUTION_INVALID' && e.message.startsWith(`${field}: `),
      `${JSON.stringify(config)} should fail on ${field}`,
    );
  }
});

test('descriptions are canonical', () => {
  assert.equal(parseDistribution({ dist: 'lognormal', median: '5ms', p99: '0.05s' }).description, 'lognormal(median=5ms, p99=50ms)');
  assert.equal(parseDistribution({ dist: 'uniform', min: 1, max: '3ms' }).description, 'uniform(min=1ms, max=3ms)');
});
