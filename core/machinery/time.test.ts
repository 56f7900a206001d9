import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMicroTime, formatTime } from './time.ts';

test('formatTime drops the fraction and stays right across seconds, also going back', () => {
  const t = Date.UTC(2006, 0, 2, 15, 4, 5, 999);
  assert.equal(formatTime(t), '2006-01-02T15:04:05Z');
  assert.equal(formatTime(t + 1), '2006-01-02T15:04:06Z');
  assert.equal(formatTime(t - 5000.5), '2006-01-02T15:04:00Z');
  assert.equal(formatTime(t), '2006-01-02T15:04:05Z');
});

test('formatMicroTime has six fractional digits, also for fractional milliseconds', () => {
  assert.equal(formatMicroTime(Date.UTC(2006, 0, 2, 15, 4, 5, 120)), '2006-01-02T15:04:05.120000Z');
  assert.equal(formatMicroTime(Date.UTC(2006, 0, 2, 15, 4, 5, 7) + 0.6), '2006-01-02T15:04:05.007000Z');
});
