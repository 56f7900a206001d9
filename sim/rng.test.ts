import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RngStreams } from './rng.ts';

const draw = (r: { next(): number }, n: number) => Array.from({ length: n }, () => r.next());

test('a stream draws the same sequence whatever other streams exist or draw', () => {
  const a = new RngStreams(42);
  const scheduler = draw(a.stream('scheduler'), 10);

  const b = new RngStreams(42);
  draw(b.stream('node-1'), 100);
  draw(b.stream('apiserver'), 7);
  assert.deepEqual(draw(b.stream('scheduler'), 10), scheduler);
});

test('names and seeds select different streams; a name maps to one stream', () => {
  const s = new RngStreams('seed');
  assert.equal(s.stream('x'), s.stream('x'));
  assert.notDeepEqual(draw(new RngStreams('seed').stream('x'), 5), draw(new RngStreams('seed').stream('y'), 5));
  assert.notDeepEqual(draw(new RngStreams(1).stream('x'), 5), draw(new RngStreams(2).stream('x'), 5));
  s.stream('b');
  assert.deepEqual(s.names(), ['b', 'x']);
});
