import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { SeededRng } from '../machinery/rng.ts';
import { isStorageError, type KeyValue, type ListOptions, type Storage, type StorageEvent } from './interface.ts';
import { SqliteStorage } from './sqlite.ts';
import { MemoryStorage } from './memory.ts';
import { WatchCache } from './watchcache.ts';
import { RecordingSink, runStorageConformance, settle } from './conformance.ts';

runStorageConformance('WatchCache(SqliteStorage)', () => ({ storage: new WatchCache(new SqliteStorage({ path: ':memory:' })) }));

// With a one-event history, watches from older revisions catch up through the inner storage.
runStorageConformance('WatchCache(SqliteStorage), one-event history', () => ({
  storage: new WatchCache(new SqliteStorage({ path: ':memory:' }), { maxHistoryEvents: 1 }),
}));

const describeEvent = (e: StorageEvent): string =>
  `${e.type} ${e.kv.key}@${e.kv.modRevision}/${e.kv.createRevision}=${e.kv.value} prev=${e.prevKv ? `${e.prevKv.modRevision}=${e.prevKv.value}` : '-'}`;

describe('WatchCache', () => {
  it('loads the current state of a non-empty inner storage', () => {
    const inner = new SqliteStorage({ path: ':memory:' });
    const a = inner.create('/r/a', '1');
    inner.create('/r/b', '2');
    inner.update('/r/a', '3', a.modRevision);
    inner.create('/q/c', '4');
    const cache = new WatchCache(inner);
    assert.equal(cache.currentRevision(), inner.currentRevision());
    assert.deepEqual(cache.list('/r/'), inner.list('/r/'));
    assert.equal(cache.count(''), 3);
    const c = cache.create('/r/c', '5');
    assert.equal(c.modRevision, 5);
    assert.deepEqual(inner.get('/r/c'), c);
    cache.close();
  });

  for (const [name, makeInner, readThrough] of [
    ['SqliteStorage', () => new SqliteStorage({ path: ':memory:' }), false],
    ['MemoryStorage, read-through', () => new MemoryStorage(), true],
  ] as const) it(`matches the inner storage after random operation sequences (${name})`, async () => {
    const rng = new SeededRng('watchcache-equivalence');
    const inner = makeInner();
    const cache = new WatchCache(inner, { maxHistoryEvents: 64, readThrough });
    const namespaces = ['a', 'ab', 'a-b', 'b', 'a0'];
    const keys = namespaces.flatMap((ns) => Array.from({ length: 12 }, (_, i) => `/registry/pods/${ns}/p${i}`));
    const prefixes = ['', '/registry/', '/registry/pods/', '/registry/pods/a', '/registry/pods/a/', '/registry/pods/ab/', '/registry/pods/b/', '/registry/pods/a/p1', '/none/'];
    const filters: Array<ListOptions['filter']> = [undefined, (kv: KeyValue) => kv.value.endsWith('7'), (kv: KeyValue) => kv.createRevision % 2 === 0];
    const checkpoints: number[] = [];
    const fromRev = 0;
    const cacheSink = new RecordingSink();
    const innerSink = new RecordingSink();
    let errors = 0;

    const compareLists = (revision?: number): void => {
      for (const prefix of prefixes) {
        const opts: ListOptions = { revision };
        const r = rng.int(4);
        if (r > 0) opts.limit = 1 + rng.int(8);
        if (rng.int(2) === 1) opts.afterKey = keys[rng.int(keys.length)];
        opts.filter = filters[rng.int(filters.length)];
        const fromCache = cache.list(prefix, opts);
        const fromInner = inner.list(prefix, opts);
        assert.deepEqual(fromCache, fromInner, `list ${prefix} ${JSON.stringify({ ...opts, filter: !!opts.filter })}`);
        if (!revision) assert.equal(cache.count(prefix), inner.count(prefix), `count ${prefix}`);
      }
    };

    for (let step = 0; step < 1500; step++) {
      const key = keys[rng.int(keys.length)];
      const cur = cache.get(key);
      const value = `v${step}`;
      try {
        if (!cur) {
          if (rng.int(10) === 0) cache.update(key, value, 1 + rng.int(cache.currentRevision() + 1));
          else cache.create(key, value);
        } else {
          const r = rng.int(10);
          if (r < 5) cache.update(key, value, cur.modRevision);
          else if (r < 7) cache.delete(key, rng.int(2) === 0 ? cur.modRevision : undefined);
          else if (r < 8) cache.update(key, value, cur.modRevision - 1);
          else if (r < 9) cache.create(key, value);
          else cache.delete(key, cur.modRevision + 1);
        }
      } catch (err) {
        assert.ok(isStorageError(err) && ['Conflict', 'KeyNotFound', 'KeyExists'].includes(err.code), String(err));
        errors++;
      }
      if (step === 200) {
        cache.watch({ prefix: '/registry/pods/a/', fromRevision: fromRev }, cacheSink);
        inner.watch({ prefix: '/registry/pods/a/', fromRevision: fromRev }, innerSink);
      }
      if (step % 100 === 0) checkpoints.push(cache.currentRevision());
      if (step % 50 === 0) {
        assert.equal(cache.currentRevision(), inner.currentRevision());
        compareLists();
      }
      if (step % 250 === 0) await settle();
    }
    assert.ok(errors > 50, `the sequence exercised failures (${errors})`);
    compareLists();
    for (const rev of checkpoints) compareLists(rev);
    for (const key of keys) assert.deepEqual(cache.get(key), inner.get(key));
    await settle();
    assert.ok(innerSink.events.length > 100);
    assert.deepEqual(cacheSink.events.map(describeEvent), innerSink.events.map(describeEvent));
    cache.close();
  });

  it('terminates a slow watcher past maxPendingPerWatcher and counts it', async () => {
    const cache = new WatchCache(new SqliteStorage({ path: ':memory:' }), { maxPendingPerWatcher: 3 });
    const slow = new RecordingSink();
    slow.accept = false;
    const ok = new RecordingSink();
    cache.watch({ prefix: '/r/', fromRevision: 0 }, slow);
    cache.watch({ prefix: '/r/', fromRevision: 0 }, ok);
    cache.create('/r/a', '1');
    await settle();
    assert.equal(slow.events.length, 1);
    for (let i = 0; i < 3; i++) cache.create(`/r/b${i}`, '1');
    await settle();
    assert.equal(slow.closed, false);
    assert.equal(cache.stats().slowWatchersTerminated, 0);
    cache.create('/r/c', '1');
    await settle();
    assert.equal(slow.closedWith?.code, 'TooSlow');
    assert.equal(slow.events.length, 1);
    assert.equal(ok.events.length, 5);
    assert.deepEqual(cache.stats(), { watchers: 1, eventsDispatched: 6, slowWatchersTerminated: 1 });
    cache.create('/r/d', '1');
    await settle();
    assert.equal(ok.events.length, 6);
    cache.close();
    assert.equal(ok.closedWith?.code, 'Closed');
  });

  it('serves watches older than the history window through the inner storage, then from memory', async () => {
    const clock = new FakeClock();
    const inner = new SqliteStorage({ path: ':memory:' });
    const cache = new WatchCache(inner, { clock, historyWindowMs: 1000 });
    const a = cache.create('/r/a', '1');
    const b = cache.create('/r/b', '2');
    clock.step(2000);
    const c = cache.create('/r/c', '3');
    const sink = new RecordingSink();
    cache.watch({ prefix: '/r/', fromRevision: 0 }, sink);
    assert.equal(inner.stats().watchers, 1, 'catching up through the inner storage');
    await settle();
    assert.deepEqual(sink.summary(), [`ADDED /r/a@${a.modRevision}`, `ADDED /r/b@${b.modRevision}`, `ADDED /r/c@${c.modRevision}`]);
    assert.equal(inner.stats().watchers, 0, 'switched to the in-memory history');
    const d = cache.update('/r/a', '4', a.modRevision);
    await settle();
    assert.deepEqual(sink.events.at(-1)?.kv, d);
    assert.equal(sink.events.at(-1)?.prevKv?.value, '1');
    cache.close();
  });

  it('keeps following the inner storage when no event reaches the history, without gaps', async () => {
    const clock = new FakeClock();
    const inner = new SqliteStorage({ path: ':memory:' });
    const cache = new WatchCache(inner, { clock, historyWindowMs: 1000 });
    cache.create('/r/a', '1');
    clock.step(2000);
    cache.create('/r/b', '2');
    const sink = new RecordingSink();
    cache.watch({ prefix: '/x/', fromRevision: 0 }, sink);
    await settle();
    assert.deepEqual(sink.events, []);
    const x = cache.create('/x/1', 'x');
    cache.create('/r/c', '3');
    const x2 = cache.update('/x/1', 'y', x.modRevision);
    await settle();
    assert.deepEqual(sink.summary(), [`ADDED /x/1@${x.modRevision}`, `MODIFIED /x/1@${x2.modRevision}`]);
    cache.close();
    assert.equal(sink.closedWith?.code, 'Closed');
    assert.equal(inner.stats().watchers, 0);
  });

  it('falls back to the inner storage when the history moves past a paused, catching-up watcher', async () => {
    const inner = new SqliteStorage({ path: ':memory:' });
    const cache = new WatchCache(inner, { maxHistoryEvents: 1000 });
    const expected: number[] = [];
    for (let i = 0; i < 600; i++) expected.push(cache.create(`/r/k${i}`, String(i)).modRevision);
    const sink = new RecordingSink();
    sink.accept = false;
    const w = cache.watch({ prefix: '/r/', fromRevision: 0 }, sink);
    await settle();
    assert.equal(sink.events.length, 1);
    for (let i = 600; i < 1600; i++) expected.push(cache.create(`/r/k${i}`, String(i)).modRevision);
    sink.accept = true;
    w.resume();
    await settle();
    assert.equal(sink.closed, false);
    assert.deepEqual(
      sink.events.map((e) => e.kv.modRevision),
      expected,
    );
    assert.equal(inner.stats().watchers, 0);
    cache.close();
  });

  it('closes a catching-up watcher with Compacted when the inner history it needs is compacted', async () => {
    const inner = new SqliteStorage({ path: ':memory:' });
    const cache = new WatchCache(inner, { maxHistoryEvents: 1000 });
    for (let i = 0; i < 600; i++) cache.create(`/r/k${i}`, String(i));
    const sink = new RecordingSink();
    sink.accept = false;
    const w = cache.watch({ prefix: '/r/', fromRevision: 0 }, sink);
    await settle();
    for (let i = 600; i < 1600; i++) cache.create(`/r/k${i}`, String(i));
    cache.compact(1000);
    sink.accept = true;
    w.resume();
    await settle();
    assert.equal(sink.events.length, 256);
    assert.equal(sink.closedWith?.code, 'Compacted');
    assert.equal(cache.stats().watchers, 0);
    cache.close();
  });

  it('reads at older revisions come from the inner storage', () => {
    const inner = new SqliteStorage({ path: ':memory:' });
    const cache = new WatchCache(inner);
    const a = cache.create('/r/a', '1');
    cache.update('/r/a', '2', a.modRevision);
    let innerReads = 0;
    const spy: Storage = inner;
    const originalGet = spy.get.bind(spy);
    spy.get = (key, revision) => {
      innerReads++;
      return originalGet(key, revision);
    };
    assert.equal(cache.get('/r/a')?.value, '2');
    assert.equal(innerReads, 0);
    assert.equal(cache.get('/r/a', a.modRevision)?.value, '1');
    assert.equal(innerReads, 1);
    cache.close();
  });

  it('pages through thousands of keys from memory, chunk boundaries included', () => {
    const cache = new WatchCache(new SqliteStorage({ path: ':memory:' }));
    const pad = (i: number): string => String(i).padStart(5, '0');
    // Interleaved creation order, so the sorted index splits and fills chunks out of order.
    for (let i = 0; i < 5000; i++) cache.create(`/registry/pods/ns${i % 10}/pod-${pad(i)}`, `{"i":${i}}`);
    for (let i = 4999; i >= 0; i--) cache.create(`/registry/pods/big/pod-${pad(i)}`, `{"i":${i}}`);
    for (let i = 0; i < 5000; i += 7) cache.delete(`/registry/pods/big/pod-${pad(i)}`);
    const expected = Array.from({ length: 5000 }, (_, i) => i).filter((i) => i % 7 !== 0).map((i) => `/registry/pods/big/pod-${pad(i)}`);
    const seen: string[] = [];
    let afterKey: string | undefined;
    for (;;) {
      const page = cache.list('/registry/pods/big/', { limit: 500, afterKey });
      seen.push(...page.items.map((kv) => kv.key));
      assert.equal(page.remaining, expected.length - seen.length);
      if (!page.more) break;
      afterKey = page.items[page.items.length - 1].key;
    }
    assert.deepEqual(seen, expected);
    assert.equal(cache.count('/registry/pods/big/'), expected.length);
    assert.equal(cache.count('/registry/pods/'), 5000 + expected.length);
    assert.equal(cache.count('/registry/pods/ns3/'), 500);
    cache.close();
  });
});

describe('WatchCache maxHistoryBytes', () => {
  it('keeps only the newest events within the byte bound and serves older starts from inner', async () => {
    let innerWatches = 0;
    const inner = new (class extends SqliteStorage {
      override watch(...args: Parameters<SqliteStorage['watch']>) {
        innerWatches++;
        return super.watch(...args);
      }
    })({ path: ':memory:' });
    const cache = new WatchCache(inner, { maxHistoryBytes: 200 });
    const key = '/registry/pods/a/p';
    let kv = cache.create(key, 'x'.repeat(40));
    const start = kv.modRevision;
    for (let i = 0; i < 10; i++) kv = cache.update(key, `${i}`.repeat(40), kv.modRevision);
    // 10 events of 18 + 40 + 40 characters: only the newest two fit in 200.
    const late = new RecordingSink();
    cache.watch({ prefix: '/registry/pods/', fromRevision: kv.modRevision - 2 }, late);
    assert.equal(innerWatches, 0);
    const early = new RecordingSink();
    cache.watch({ prefix: '/registry/pods/', fromRevision: start }, early);
    await settle();
    assert.deepEqual(late.events.map((e) => e.kv.value[0]), ['8', '9']);
    assert.deepEqual(early.events.map((e) => e.kv.value[0]), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    assert.equal(early.events[0].prevKv?.value, 'x'.repeat(40));
    assert.equal(innerWatches, 1);
    cache.close();
  });
});

it('a watcher catching up reads its resource history only, in order, across evictions', async () => {
  const cache = new WatchCache(new MemoryStorage(), { maxHistoryEvents: 6 });
  const revs: number[] = [];
  for (let i = 0; i < 5; i++) {
    revs.push(cache.create(`/registry/core/pods/ns/p${i}`, `p${i}`).modRevision);
    cache.create(`/registry/coordination.k8s.io/leases/ns/l${i}`, `l${i}`);
  }
  // History keeps the last 6 events: l2 p3 l3 p4 l4 … a watch from p3 reads the history, from p1 the inner store.
  for (const [from, want] of [
    [revs[3], ['p4']],
    [revs[2], ['p3', 'p4']],
    [revs[0], ['p1', 'p2', 'p3', 'p4']],
  ] as const) {
    const sink = new RecordingSink();
    cache.watch({ prefix: '/registry/core/pods/', fromRevision: from }, sink);
    const ns = new RecordingSink();
    cache.watch({ prefix: '/registry/core/pods/ns/', fromRevision: from }, ns);
    await settle();
    assert.deepEqual(sink.events.map((e) => e.kv.value), want, `from ${from}`);
    assert.deepEqual(ns.events.map((e) => e.kv.value), want, `namespace prefix from ${from}`);
  }
  const none = new RecordingSink();
  cache.watch({ prefix: '/registry/apps/deployments/', fromRevision: revs[3] }, none);
  cache.create('/registry/apps/deployments/ns/d', 'd');
  await settle();
  assert.deepEqual(none.events.map((e) => e.kv.value), ['d']);
  cache.close();
});
