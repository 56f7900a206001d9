import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DurationParseError, formatDuration, formatDurationNanos, parseDuration, parseDurationNanos } from './duration.ts';

test('parses Go durations into milliseconds', () => {
  const cases: [string, number][] = [
    ['0', 0],
    ['0s', 0],
    ['20s', 20_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['2h45m', 2 * 3_600_000 + 45 * 60_000],
    ['1.5h', 5_400_000],
    ['-1m', -60_000],
    ['+3s', 3_000],
    ['100us', 0.1],
    ['250µs', 0.25],
    ['1h0m0s', 3_600_000],
    ['8760h0m0s', 8760 * 3_600_000],
    ['.5s', 500],
    ['1s500ms', 1_500],
  ];
  for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, input);
  assert.equal(parseDurationNanos('3ns'), 3n);
  assert.equal(parseDurationNanos('1.0000000009s'), 1_000_000_000n);
});

test('rejects what Go rejects, with Go wording', () => {
  for (const bad of ['', '-', '10', '1x', 's', '1.2.3s', '.s', '1m 30s', '9999999999h']) {
    assert.throws(() => parseDuration(bad), DurationParseError, JSON.stringify(bad));
  }
  assert.throws(() => parseDuration('10'), { message: 'time: missing unit in duration "10"' });
  assert.throws(() => parseDuration('3d'), { message: 'time: unknown unit "d" in duration "3d"' });
});

test('formats as Go Duration.String does', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [500, '500ms'],
    [1_500, '1.5s'],
    [90_000, '1m30s'],
    [3_600_000, '1h0m0s'],
    [8760 * 3_600_000, '8760h0m0s'],
    [-60_000, '-1m0s'],
    [0.0015, '1.5µs'],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text, text);
  assert.equal(formatDurationNanos(20n), '20ns');
  for (const s of ['2h45m0s', '1m30s', '20s', '100ms']) assert.equal(formatDuration(parseDuration(s)), s);
});
