import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonClone } from './jsonclone.ts';

const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v));

test('jsonClone gives what a JSON round trip gives, for plain data and the odd cases', () => {
  const cases: unknown[] = [
    { a: 1, b: 'x', c: [1, 'two', { d: null }], e: true, f: { g: { h: [] } } },
    { u: undefined, fn: () => 1, sym: Symbol('s'), keep: 0 },
    [undefined, () => 1, Symbol('s'), NaN, Infinity, -Infinity, -0, 1.5],
    { date: new Date(Date.UTC(2026, 0, 2)), nested: { toJSON: () => 'custom' } },
    { map: new Map([[1, 2]]), set: new Set([1]) },
    Object.assign(Object.create(null), { bare: 1 }),
    'text',
    42,
    null,
  ];
  for (const c of cases) assert.deepEqual(jsonClone(c), roundTrip(c), JSON.stringify(c));
  assert.ok(Object.is(jsonClone(-0), 0));
  assert.deepEqual(Object.keys(jsonClone({ u: undefined, a: 1 }) as object), ['a']);
});

test('jsonClone copies: changing the copy leaves the original alone', () => {
  const o = { metadata: { labels: { a: '1' } }, list: [{ x: 1 }] };
  const c = jsonClone(o);
  c.metadata.labels.a = '2';
  c.list[0].x = 2;
  assert.equal(o.metadata.labels.a, '1');
  assert.equal(o.list[0].x, 1);
});

test('jsonClone throws where JSON.stringify throws: a cycle, a BigInt', () => {
  const cyclic: any = { a: {} };
  cyclic.a.self = cyclic;
  assert.throws(() => jsonClone(cyclic), TypeError);
  assert.throws(() => jsonClone({ n: 1n }), TypeError);
});

test('jsonClone keeps the arrays `keep` accepts, and copies everything else as JSON would', () => {
  const kept = [{ a: 1 }];
  const other = [{ b: 2 }];
  const value = { x: kept, y: { z: other, u: undefined }, w: [kept] };
  const copy = jsonClone(value, (a) => a === kept);
  assert.equal(copy.x, kept);
  assert.equal(copy.w[0], kept);
  assert.notEqual(copy.y.z, other);
  assert.deepEqual(copy, JSON.parse(JSON.stringify(value)));
  assert.notEqual(jsonClone(value).x, kept);
});
