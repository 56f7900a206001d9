import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStorageConformance, settle, RecordingSink } from './conformance.ts';
import { MemoryStorage } from './memory.ts';
import { WatchCache } from './watchcache.ts';
import type { Storage, StoredValue } from './interface.ts';

/** `inner` with every written text handed over as a deferred value (as the registry writes). */
function deferring(inner: Storage): Storage {
  const defer = (v: StoredValue): StoredValue => (typeof v === 'string' ? { text: () => v } : v);
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'create') return (key: string, value: StoredValue) => target.create(key, defer(value));
      if (prop === 'update') return (key: string, value: StoredValue, rev: number) => target.update(key, defer(value), rev);
      const v = (target as any)[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

runStorageConformance('MemoryStorage', () => ({ storage: new MemoryStorage() }));
runStorageConformance('WatchCache(MemoryStorage), one-event history', () => ({ storage: new WatchCache(new MemoryStorage(), { maxHistoryEvents: 1 }) }));
runStorageConformance('WatchCache(MemoryStorage), read-through', () => ({ storage: new WatchCache(new MemoryStorage(), { readThrough: true }) }));
runStorageConformance('MemoryStorage, deferred values', () => ({ storage: deferring(new MemoryStorage()) }));
runStorageConformance('WatchCache(MemoryStorage), read-through, deferred values', () => ({ storage: deferring(new WatchCache(new MemoryStorage(), { readThrough: true })) }));
runStorageConformance('WatchCache(MemoryStorage), read-through, one-event history', () => ({ storage: new WatchCache(new MemoryStorage(), { readThrough: true, maxHistoryEvents: 1 }) }));

test('MemoryStorage reads an old revision by undoing only the later changes of the prefix', () => {
  const s = new MemoryStorage();
  const a = s.create('/r/a', 'a1');
  s.create('/x/other', 'o1');
  const at = s.currentRevision();
  s.update('/r/a', 'a2', a.modRevision);
  const a3 = s.update('/r/a', 'a3', s.get('/r/a')!.modRevision);
  s.create('/r/b', 'b1');
  s.delete('/x/other');
  assert.equal(s.get('/r/a', at)?.value, 'a1');
  assert.equal(s.get('/r/b', at), undefined);
  assert.equal(s.get('/x/other', at)?.value, 'o1');
  assert.deepEqual(s.list('/r/', { revision: at }).items.map((kv) => `${kv.key}=${kv.value}`), ['/r/a=a1']);
  assert.deepEqual(s.list('/r/').items.map((kv) => `${kv.key}=${kv.value}@${kv.modRevision}`), [`/r/a=a3@${a3.modRevision}`, `/r/b=b1@${a3.modRevision + 1}`]);
  const page = s.list('/', { revision: at, limit: 1 });
  assert.deepEqual([page.items.map((kv) => kv.key), page.more, page.remaining], [['/r/a'], true, 1]);
});

test('MemoryStorage after compaction: the log before it is gone, a watch from it still works', async () => {
  const s = new MemoryStorage();
  const a = s.create('/r/a', 'a1');
  const a2 = s.update('/r/a', 'a2', a.modRevision);
  s.update('/r/a', 'a3', a2.modRevision);
  s.compact(a2.modRevision);
  assert.equal(s.get('/r/a', a2.modRevision)?.value, 'a2');
  assert.throws(() => s.get('/r/a', a.modRevision), { code: 'Compacted' });
  const sink = new RecordingSink();
  s.watch({ prefix: '/r/', fromRevision: a2.modRevision }, sink);
  await settle();
  assert.deepEqual(sink.events.map((e) => `${e.type} ${e.kv.value}`), ['MODIFIED a3']);
  s.close();
});

test('MemoryStorage with a log bound compacts itself: old revisions answer Compacted, the current state stays', () => {
  const s = new MemoryStorage({ maxLogBytes: 100 });
  const first = s.create('/r/a', 'x'.repeat(30));
  let last = first;
  for (let i = 0; i < 10; i++) last = s.update('/r/a', `${i}`.repeat(30), last.modRevision);
  assert.ok(s.compactedRevision() > first.modRevision, `compacted to ${s.compactedRevision()}`);
  assert.throws(() => s.get('/r/a', first.modRevision), { code: 'Compacted' });
  assert.equal(s.get('/r/a')?.value, '9'.repeat(30));
  // What is still in the log stays readable and within the bound.
  assert.equal(s.get('/r/a', s.compactedRevision())?.modRevision, s.compactedRevision());
  assert.ok(s.list('/r/', { revision: last.modRevision - 1 }).items.length === 1);
  s.close();
});

test('MemoryStorage keeps the newest change even when it alone exceeds the log bound', () => {
  const s = new MemoryStorage({ maxLogBytes: 10 });
  const a = s.create('/r/a', 'y'.repeat(50));
  assert.equal(s.get('/r/a')?.value.length, 50);
  const b = s.update('/r/a', 'z'.repeat(50), a.modRevision);
  assert.equal(s.compactedRevision(), a.modRevision);
  assert.equal(s.get('/r/a', a.modRevision)?.value.length, 50);
  assert.equal(s.get('/r/a')?.modRevision, b.modRevision);
  s.close();
});

test('MemoryStorage keeps deferred values: no text until a value is read, deletions keep them, byte bounds count only keys', () => {
  let made = 0;
  const deferred = (text: string) => ({ text: () => (made++, text) });
  const s = new MemoryStorage({ maxLogBytes: 40 });
  const a = s.create('/r/a', deferred('{"v":1}'));
  const a2 = s.update('/r/a', deferred('{"v":2}'), a.modRevision);
  for (let i = 0; i < 5; i++) s.create(`/r/b${i}`, deferred('{"v":3}'));
  const del = s.delete('/r/a');
  assert.equal(made, 0, 'nothing asked for a text');
  assert.equal(s.compactedRevision(), 0, 'the keys alone stay under the byte bound');
  assert.equal(del.deferred, a2.deferred);
  assert.equal(del.value, '{"v":2}');
  assert.equal(s.get('/r/a', a.modRevision)?.value, '{"v":1}');
  assert.equal(made, 2);
  s.close();
});

test('MemoryStorage with an entry bound compacts itself to 90% of it', () => {
  const s = new MemoryStorage({ maxLogEntries: 10 });
  let last = s.create('/r/a', { text: () => 'x' });
  for (let i = 0; i < 10; i++) last = s.update('/r/a', { text: () => 'x' }, last.modRevision);
  // The eleventh change went past the bound: the log keeps the newest 9 changes.
  assert.equal(s.compactedRevision(), last.modRevision - 9);
  assert.throws(() => s.get('/r/a', s.compactedRevision() - 1), { code: 'Compacted' });
  assert.equal(s.get('/r/a', s.compactedRevision())?.modRevision, s.compactedRevision());
  s.close();
});
