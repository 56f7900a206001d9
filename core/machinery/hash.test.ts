import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fnv32 } from './hash.ts';

test('fnv32 is FNV-1a: the published vectors, unsigned, stable', () => {
  assert.equal(fnv32(''), 0x811c9dc5);
  assert.equal(fnv32('a'), 0xe40c292c);
  assert.equal(fnv32('foobar'), 0xbf9cf968);
  assert.equal(fnv32('node-1'), fnv32('node-1'));
  assert.notEqual(fnv32('node-1'), fnv32('node-2'));
});
