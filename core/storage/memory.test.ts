import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStorageConformance, settle, RecordingSink } from './conformance.ts';
import { MemoryStorage } from './memory.ts';
import { WatchCache } from './watchcache.ts';

runStorageConformance('MemoryStorage', () => ({ storage: new MemoryStorage() }));
runStorageConformance('WatchCache(MemoryStorage), one-event history', () => ({ storage: new WatchCache(new MemoryStorage(), { maxHistoryEvents: 1 }) }));

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
