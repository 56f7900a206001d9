import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deepEqual, deepEqualExcept } from './deepequal.ts';

describe('deepEqual', () => {
  it('compares JSON structurally, ignoring key order and undefined members', () => {
    assert.equal(deepEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
    assert.equal(deepEqual({ a: 1, u: undefined }, { a: 1 }), true);
    assert.equal(deepEqual({ a: 1 }, { a: 1, b: null }), false);
    assert.equal(deepEqual([1, 2], [2, 1]), false);
    assert.equal(deepEqual([], {}), false);
    assert.equal(deepEqual({ a: [1] }, { a: [1, 2] }), false);
    assert.equal(deepEqual('1', 1), false);
    assert.equal(deepEqual(null, {}), false);
  });

  it('deepEqualExcept ignores the named keys only', () => {
    const except = new Set(['image']);
    assert.equal(deepEqualExcept({ name: 'c', image: 'a' }, { name: 'c', image: 'b' }, except), true);
    assert.equal(deepEqualExcept({ name: 'c', image: 'a' }, { name: 'd', image: 'a' }, except), false);
    assert.equal(deepEqualExcept({ name: 'c' }, { name: 'c', extra: 1 }, except), false);
  });
});
