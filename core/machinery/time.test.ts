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

test('formatMicroTime matches the ISO form across seconds, before 1970 and beyond year 9999', () => {
  const iso = (ms: number) => `${new Date(Math.floor(ms)).toISOString().slice(0, -1)}000Z`;
  const samples = [0, 999, 1000, 1001, -1, -999, -1000, -1001, Date.UTC(2026, 10, 22, 23, 59, 59, 999), Date.UTC(2026, 10, 23), Date.UTC(12000, 0, 1, 0, 0, 0, 5), Date.UTC(-50, 0, 1, 0, 0, 0, 5)];
  for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2026, 0, 1) + 5000; t += 37) samples.push(t, t + 0.5);
  for (const ms of samples) assert.equal(formatMicroTime(ms), iso(ms), String(ms));
  assert.equal(formatMicroTime(Date.UTC(2026, 0, 1, 0, 0, 1, 2)), '2026-01-01T00:00:01.002000Z');
});
