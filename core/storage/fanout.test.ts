import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { SqliteStorage } from './sqlite.ts';
import { WatchCache } from './watchcache.ts';
import type { KeyValue, StorageEvent } from './interface.ts';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

const ownerOf = (kv: KeyValue) => (JSON.parse(kv.value) as { owner?: string }).owner;

describe('watch triggers (indexed dispatch)', () => {
  it('a triggered watcher gets only events whose old or new value matches; plain watchers get all', async () => {
    const cache = new WatchCache(new SqliteStorage({ path: ':memory:' }), { clock: new FakeClock() });
    const seen: Record<string, string[]> = { a: [], b: [], all: [] };
    const sink = (name: string) => ({ event: (ev: StorageEvent) => (seen[name].push(`${ev.type}:${ev.kv.key}`), true), close() {} });
    const from = cache.currentRevision();
    cache.watch({ prefix: '/r/', fromRevision: from, trigger: { fn: ownerOf, value: 'a' } }, sink('a'));
    cache.watch({ prefix: '/r/', fromRevision: from, trigger: { fn: ownerOf, value: 'b' } }, sink('b'));
    cache.watch({ prefix: '/r/', fromRevision: from }, sink('all'));
    const x = cache.create('/r/x', JSON.stringify({ owner: 'a' }));
    cache.create('/r/y', JSON.stringify({ owner: 'b' }));
    cache.update('/r/x', JSON.stringify({ owner: 'b' }), x.modRevision);
    cache.create('/r/z', JSON.stringify({ owner: 'c' }));
    await settle();
    assert.deepEqual(seen.a, ['ADDED:/r/x', 'MODIFIED:/r/x'], 'a sees x created, and x moving away from a');
    assert.deepEqual(seen.b, ['ADDED:/r/y', 'MODIFIED:/r/x']);
    assert.deepEqual(seen.all, ['ADDED:/r/x', 'ADDED:/r/y', 'MODIFIED:/r/x', 'ADDED:/r/z']);
    assert.equal(cache.stats().eventsDispatched, 8, 'z was dispatched to the plain watcher only');
    cache.close();
  });

  it('stopping triggered watchers removes them from the index', async () => {
    const cache = new WatchCache(new SqliteStorage({ path: ':memory:' }), { clock: new FakeClock() });
    const got: string[] = [];
    const w = cache.watch({ prefix: '/r/', fromRevision: cache.currentRevision(), trigger: { fn: ownerOf, value: 'a' } }, { event: (ev) => (got.push(ev.kv.key), true), close() {} });
    w.stop();
    cache.create('/r/x', JSON.stringify({ owner: 'a' }));
    await settle();
    assert.deepEqual(got, []);
    assert.equal(cache.stats().watchers, 0);
    cache.close();
  });
});
