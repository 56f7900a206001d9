/**
 * The one test suite of the {@link Storage} contract, run against every implementation (SQLite on
 * a file and in memory, the watch cache, later etcd). Uses node:test; call it from a `*.test.ts`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StorageError, isStorageError, type KeyValue, type Storage, type StorageEvent, type StorageErrorCode, type Watch, type WatchSink } from './interface.ts';

/** A KeyValue's contract fields, whatever class holds them (a store may keep deferred values). */
function kvOf(kv: KeyValue | undefined): KeyValue | undefined {
  return kv && { key: kv.key, value: kv.value, modRevision: kv.modRevision, createRevision: kv.createRevision };
}

/** A fresh, empty storage for one test, and how to remove what it left behind. */
export interface StorageFixture {
  storage: Storage;
  cleanup?: () => void;
}

/** Records what a watch delivers; `accept` is what `event()` answers. */
export class RecordingSink implements WatchSink {
  readonly events: StorageEvent[] = [];
  closedWith: StorageError | undefined | null = null;
  accept = true;
  /** Called after each event is recorded (e.g. to write from inside delivery). */
  onEvent?: (ev: StorageEvent) => void;

  event(ev: StorageEvent): boolean {
    this.events.push(ev);
    this.onEvent?.(ev);
    return this.accept;
  }

  close(err?: StorageError): void {
    this.closedWith = err;
  }

  /** True once `close` has been called (with or without an error). */
  get closed(): boolean {
    return this.closedWith !== null;
  }

  /** Compact `TYPE key@rev` lines, for order assertions. */
  summary(): string[] {
    return this.events.map((e) => `${e.type} ${e.kv.key}@${e.kv.modRevision}`);
  }
}

/** Resolves once every queued microtask (and every microtask those queue) has run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Asserts that `fn` throws a StorageError with `code`. */
export function assertStorageError(fn: () => unknown, code: StorageErrorCode): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isStorageError(err), `expected StorageError ${code}, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  });
}

const keysOf = (kvs: readonly KeyValue[]): string[] => kvs.map((kv) => kv.key);

/**
 * Registers the conformance tests of the Storage contract under `describe(name)`. Each test gets
 * a new storage from `newStorage()`, closes it and calls `cleanup` at the end.
 */
export function runStorageConformance(name: string, newStorage: () => StorageFixture): void {
  const test = (title: string, body: (s: Storage) => void | Promise<void>): void => {
    it(title, async () => {
      const fx = newStorage();
      try {
        await body(fx.storage);
      } finally {
        fx.storage.close();
        fx.cleanup?.();
      }
    });
  };

  describe(`Storage conformance: ${name}`, () => {
    test('starts empty at revision 0', (s) => {
      assert.equal(s.currentRevision(), 0);
      assert.equal(s.get('/registry/pods/default/a'), undefined);
      const l = s.list('/registry/');
      assert.deepEqual(l.items, []);
      assert.equal(l.revision, 0);
      assert.equal(l.more, false);
      assert.equal(s.count('/registry/'), 0);
    });

    test('every write gets the next revision, across keys', (s) => {
      const a = s.create('/r/a', '1');
      const b = s.create('/r/b', '2');
      const a2 = s.update('/r/a', '3', a.modRevision);
      const bd = s.delete('/r/b');
      const revs = [a.modRevision, b.modRevision, a2.modRevision, bd.modRevision];
      for (let i = 1; i < revs.length; i++) assert.ok(revs[i] > revs[i - 1], `revisions ${revs.join(',')} increase`);
      assert.equal(s.currentRevision(), bd.modRevision);
      assert.equal(a.createRevision, a.modRevision);
      assert.equal(a2.createRevision, a.modRevision);
      assert.deepEqual(kvOf(s.get('/r/a')), { key: '/r/a', value: '3', modRevision: a2.modRevision, createRevision: a.modRevision });
    });

    test('create of an existing key throws KeyExists; a deleted key can be created again', (s) => {
      const a = s.create('/r/a', '1');
      assertStorageError(() => s.create('/r/a', '2'), 'KeyExists');
      assert.equal(s.get('/r/a')?.value, '1');
      assert.equal(s.currentRevision(), a.modRevision);
      s.delete('/r/a');
      const again = s.create('/r/a', '3');
      assert.ok(again.modRevision > a.modRevision);
      assert.equal(again.createRevision, again.modRevision);
      assert.equal(s.get('/r/a')?.value, '3');
    });

    test('update is a compare-and-swap: stale revision → Conflict, missing key → KeyNotFound', (s) => {
      const a = s.create('/r/a', '1');
      const a2 = s.update('/r/a', '2', a.modRevision);
      assertStorageError(() => s.update('/r/a', 'stale', a.modRevision), 'Conflict');
      assert.equal(s.get('/r/a')?.value, '2');
      assertStorageError(() => s.update('/r/missing', 'x', a2.modRevision), 'KeyNotFound');
      assert.equal(s.currentRevision(), a2.modRevision);
    });

    test('delete returns the last value at the deletion revision; stale → Conflict, missing → KeyNotFound', (s) => {
      const a = s.create('/r/a', 'v1');
      const a2 = s.update('/r/a', 'v2', a.modRevision);
      assertStorageError(() => s.delete('/r/a', a.modRevision), 'Conflict');
      const d = s.delete('/r/a', a2.modRevision);
      assert.equal(d.key, '/r/a');
      assert.equal(d.value, 'v2');
      assert.ok(d.modRevision > a2.modRevision);
      assert.equal(d.createRevision, a.modRevision);
      assert.equal(s.get('/r/a'), undefined);
      assertStorageError(() => s.delete('/r/a'), 'KeyNotFound');
      assertStorageError(() => s.update('/r/a', 'x', d.modRevision), 'KeyNotFound');
    });

    test('get and list at an older revision see the state of that revision', (s) => {
      const a = s.create('/r/a', 'a1');
      const b = s.create('/r/b', 'b1');
      const at = s.currentRevision();
      s.update('/r/a', 'a2', a.modRevision);
      s.delete('/r/b', b.modRevision);
      s.create('/r/c', 'c1');
      assert.equal(s.get('/r/a', at)?.value, 'a1');
      assert.equal(s.get('/r/a', at)?.modRevision, a.modRevision);
      assert.equal(s.get('/r/b', at)?.value, 'b1');
      assert.equal(s.get('/r/c', at), undefined);
      assert.equal(s.get('/r/b'), undefined);
      const old = s.list('/r/', { revision: at });
      assert.equal(old.revision, at);
      assert.deepEqual(
        old.items.map((kv) => [kv.key, kv.value, kv.modRevision]),
        [
          ['/r/a', 'a1', a.modRevision],
          ['/r/b', 'b1', b.modRevision],
        ],
      );
      const now = s.list('/r/');
      assert.equal(now.revision, s.currentRevision());
      assert.deepEqual(
        now.items.map((kv) => [kv.key, kv.value]),
        [
          ['/r/a', 'a2'],
          ['/r/c', 'c1'],
        ],
      );
      assert.equal(s.list('/r/', { revision: s.currentRevision() }).items.length, 2);
    });

    test('list pages with afterKey and limit, reporting more and remaining', (s) => {
      const names = ['e', 'a', 'd', 'b', 'c', 'f', 'g'];
      for (const n of names) s.create(`/r/${n}`, n);
      s.create('/q/x', 'outside');
      s.create('/s/x', 'outside');
      const p1 = s.list('/r/', { limit: 3 });
      assert.deepEqual(keysOf(p1.items), ['/r/a', '/r/b', '/r/c']);
      assert.equal(p1.more, true);
      assert.equal(p1.remaining, 4);
      const p2 = s.list('/r/', { limit: 3, afterKey: '/r/c' });
      assert.deepEqual(keysOf(p2.items), ['/r/d', '/r/e', '/r/f']);
      assert.equal(p2.more, true);
      assert.equal(p2.remaining, 1);
      const p3 = s.list('/r/', { limit: 3, afterKey: '/r/f' });
      assert.deepEqual(keysOf(p3.items), ['/r/g']);
      assert.equal(p3.more, false);
      assert.equal(p3.remaining, 0);
      const exact = s.list('/r/', { limit: 7 });
      assert.equal(exact.items.length, 7);
      assert.equal(exact.more, false);
      assert.equal(exact.remaining, 0);
      const between = s.list('/r/', { afterKey: '/r/bb', limit: 2 });
      assert.deepEqual(keysOf(between.items), ['/r/c', '/r/d']);
      const all = s.list('/r/');
      assert.equal(all.items.length, 7);
      assert.equal(all.more, false);
    });

    test('list pages at an older revision', (s) => {
      for (const n of ['a', 'b', 'c', 'd']) s.create(`/r/${n}`, n);
      const at = s.currentRevision();
      s.delete('/r/b');
      s.create('/r/bb', 'bb');
      const p1 = s.list('/r/', { revision: at, limit: 2 });
      assert.deepEqual(keysOf(p1.items), ['/r/a', '/r/b']);
      assert.equal(p1.more, true);
      assert.equal(p1.remaining, 2);
      assert.equal(p1.revision, at);
      const p2 = s.list('/r/', { revision: at, limit: 2, afterKey: '/r/b' });
      assert.deepEqual(keysOf(p2.items), ['/r/c', '/r/d']);
      assert.equal(p2.more, false);
    });

    test('filter applies before limit; remaining is undefined', (s) => {
      for (let i = 0; i < 10; i++) s.create(`/r/k${i}`, i % 2 === 0 ? 'even' : 'odd');
      const even = (kv: KeyValue): boolean => kv.value === 'even';
      const p1 = s.list('/r/', { filter: even, limit: 2 });
      assert.deepEqual(keysOf(p1.items), ['/r/k0', '/r/k2']);
      assert.equal(p1.more, true);
      assert.equal(p1.remaining, undefined);
      const p2 = s.list('/r/', { filter: even, limit: 2, afterKey: '/r/k6' });
      assert.deepEqual(keysOf(p2.items), ['/r/k8']);
      assert.equal(p2.more, false);
      const p3 = s.list('/r/', { filter: even, limit: 1, afterKey: '/r/k7' });
      assert.deepEqual(keysOf(p3.items), ['/r/k8']);
      assert.equal(p3.more, false, 'k9 follows but does not match');
      assert.equal(s.list('/r/', { filter: even }).items.length, 5);
    });

    test('count counts live keys under a prefix', (s) => {
      s.create('/r/a', '1');
      s.create('/r/b', '2');
      s.create('/r/c', '3');
      s.create('/rx/a', '4');
      s.delete('/r/b');
      assert.equal(s.count('/r/'), 2);
      assert.equal(s.count('/rx/'), 1);
      assert.equal(s.count('/'), 3);
      assert.equal(s.count(''), 3);
      assert.equal(s.count('/none/'), 0);
    });

    test('prefixes are isolated: default/ does not see default2/', (s) => {
      s.create('/registry/pods/default/a', '1');
      s.create('/registry/pods/default2/a', '2');
      s.create('/registry/pods/default-x/a', '3');
      s.create('/registry/pods/defaulu/a', '4');
      s.create('/registry/pods/defaul/a', '5');
      assert.deepEqual(keysOf(s.list('/registry/pods/default/').items), ['/registry/pods/default/a']);
      assert.equal(s.count('/registry/pods/default/'), 1);
      assert.deepEqual(keysOf(s.list('/registry/pods/default2/').items), ['/registry/pods/default2/a']);
      assert.equal(s.count('/registry/pods/'), 5);
      assert.deepEqual(keysOf(s.list('/registry/pods/default/', { limit: 1 }).items), ['/registry/pods/default/a']);
      assert.equal(s.list('/registry/pods/default/', { limit: 1 }).more, false);
      assert.deepEqual(keysOf(s.list('/registry/pods/', { revision: s.currentRevision() - 1, afterKey: '/registry/pods/default/a' }).items), [
        '/registry/pods/default2/a',
        '/registry/pods/defaulu/a',
      ]);
    });

    test('watch from a revision delivers exactly the later events, in order, with prevKv', async (s) => {
      const a = s.create('/r/a', 'a1');
      const from = s.currentRevision();
      const a2 = s.update('/r/a', 'a2', a.modRevision);
      const b = s.create('/r/b', 'b1');
      s.create('/other/z', 'z');
      const sink = new RecordingSink();
      const w = s.watch({ prefix: '/r/', fromRevision: from }, sink);
      const d = s.delete('/r/a');
      const b2 = s.update('/r/b', 'b2', b.modRevision);
      await settle();
      assert.deepEqual(sink.summary(), [
        `MODIFIED /r/a@${a2.modRevision}`,
        `ADDED /r/b@${b.modRevision}`,
        `DELETED /r/a@${d.modRevision}`,
        `MODIFIED /r/b@${b2.modRevision}`,
      ]);
      const [mod, add, del, mod2] = sink.events;
      assert.deepEqual(kvOf(mod.kv), kvOf(a2));
      assert.deepEqual(kvOf(mod.prevKv), { key: '/r/a', value: 'a1', modRevision: a.modRevision, createRevision: a.modRevision });
      assert.equal(add.prevKv, undefined);
      assert.deepEqual(kvOf(add.kv), kvOf(b));
      assert.deepEqual(kvOf(del.kv), { key: '/r/a', value: 'a2', modRevision: d.modRevision, createRevision: a.modRevision });
      assert.deepEqual(kvOf(del.prevKv), kvOf(a2));
      assert.deepEqual(kvOf(mod2.prevKv), kvOf(b));
      assert.equal(sink.closed, false);
      w.stop();
    });

    test('watch from the current revision sees only new events; from 0 sees all history', async (s) => {
      s.create('/r/a', '1');
      s.create('/r/b', '2');
      const live = new RecordingSink();
      const all = new RecordingSink();
      s.watch({ prefix: '/r/', fromRevision: s.currentRevision() }, live);
      s.watch({ prefix: '/r/', fromRevision: 0 }, all);
      const c = s.create('/r/c', '3');
      await settle();
      assert.deepEqual(live.summary(), [`ADDED /r/c@${c.modRevision}`]);
      assert.deepEqual(
        all.events.map((e) => e.kv.key),
        ['/r/a', '/r/b', '/r/c'],
      );
    });

    test('watch on a directory prefix does not see a sibling directory', async (s) => {
      const sink = new RecordingSink();
      s.watch({ prefix: '/registry/pods/default/', fromRevision: 0 }, sink);
      s.create('/registry/pods/default2/a', '1');
      s.create('/registry/pods/default/a', '2');
      s.create('/registry/pods/defaulu/a', '3');
      await settle();
      assert.deepEqual(
        sink.events.map((e) => e.kv.key),
        ['/registry/pods/default/a'],
      );
    });

    test('events are never delivered inside a write call, even when the sink writes', async (s) => {
      const sink = new RecordingSink();
      let writing = false;
      let reentrant = 0;
      sink.onEvent = (ev) => {
        if (writing) reentrant++;
        if (ev.kv.key === '/r/a' && ev.type === 'ADDED') {
          writing = true;
          s.create('/r/from-sink', 'x');
          writing = false;
        }
      };
      s.watch({ prefix: '/r/', fromRevision: s.currentRevision() }, sink);
      writing = true;
      s.create('/r/a', '1');
      s.create('/r/b', '2');
      writing = false;
      assert.equal(sink.events.length, 0, 'nothing delivered synchronously');
      await settle();
      assert.equal(reentrant, 0);
      assert.deepEqual(
        sink.events.map((e) => e.kv.key),
        ['/r/a', '/r/b', '/r/from-sink'],
      );
    });

    test('stop() ends delivery without close; it is idempotent', async (s) => {
      const sink = new RecordingSink();
      const w = s.watch({ prefix: '/r/', fromRevision: 0 }, sink);
      s.create('/r/a', '1');
      await settle();
      w.stop();
      s.create('/r/b', '2');
      await settle();
      w.stop();
      assert.deepEqual(
        sink.events.map((e) => e.kv.key),
        ['/r/a'],
      );
      assert.equal(sink.closed, false);
    });

    test('stop() before delivery drops queued events', async (s) => {
      s.create('/r/a', '1');
      const sink = new RecordingSink();
      const w = s.watch({ prefix: '/r/', fromRevision: 0 }, sink);
      s.create('/r/b', '2');
      w.stop();
      await settle();
      assert.deepEqual(sink.events, []);
    });

    test('a sink that returns false is paused until resume(), then gets the rest in order', async (s) => {
      const sink = new RecordingSink();
      sink.accept = false;
      const from = s.currentRevision();
      const w: Watch = s.watch({ prefix: '/r/', fromRevision: from }, sink);
      for (let i = 0; i < 5; i++) s.create(`/r/k${i}`, String(i));
      await settle();
      assert.equal(sink.events.length, 1);
      sink.accept = true;
      w.resume();
      await settle();
      assert.deepEqual(
        sink.events.map((e) => e.kv.key),
        ['/r/k0', '/r/k1', '/r/k2', '/r/k3', '/r/k4'],
      );
      s.create('/r/k5', '5');
      await settle();
      assert.equal(sink.events.length, 6);
    });

    test('compaction keeps the latest value of live keys and drops older history', async (s) => {
      const a = s.create('/r/a', 'a1');
      const b = s.create('/r/b', 'b1');
      const beforeUpdate = s.currentRevision();
      const a2 = s.update('/r/a', 'a2', a.modRevision);
      s.delete('/r/b', b.modRevision);
      const c = s.create('/r/c', 'c1');
      const compactAt = s.currentRevision() - 1;
      s.compact(compactAt);
      assert.equal(s.compactedRevision(), compactAt);
      assert.deepEqual(kvOf(s.get('/r/a')), kvOf(a2));
      assert.deepEqual(kvOf(s.get('/r/a', compactAt)), kvOf(a2));
      assert.equal(s.get('/r/b', compactAt), undefined);
      assert.deepEqual(keysOf(s.list('/r/', { revision: compactAt }).items), ['/r/a']);
      assert.deepEqual(keysOf(s.list('/r/').items), ['/r/a', '/r/c']);
      assertStorageError(() => s.get('/r/a', beforeUpdate), 'Compacted');
      assertStorageError(() => s.list('/r/', { revision: beforeUpdate }), 'Compacted');
      assertStorageError(() => s.watch({ prefix: '/r/', fromRevision: compactAt - 1 }, new RecordingSink()), 'Compacted');
      assertStorageError(() => s.watch({ prefix: '/r/', fromRevision: 0 }, new RecordingSink()), 'Compacted');
      const sink = new RecordingSink();
      s.watch({ prefix: '/r/', fromRevision: compactAt }, sink);
      await settle();
      assert.deepEqual(sink.summary(), [`ADDED /r/c@${c.modRevision}`]);
      s.compact(compactAt - 1);
      assert.equal(s.compactedRevision(), compactAt, 'compaction never moves back');
      assert.ok(a2.modRevision > 0);
    });

    test('a key deleted before compaction can be created again', (s) => {
      const a = s.create('/r/a', '1');
      s.delete('/r/a', a.modRevision);
      s.compact(s.currentRevision());
      const again = s.create('/r/a', '2');
      assert.equal(s.get('/r/a')?.value, '2');
      const updated = s.update('/r/a', '3', again.modRevision);
      assert.equal(updated.createRevision, again.modRevision);
    });

    test('revisions newer than the current one throw FutureRevision', (s) => {
      s.create('/r/a', '1');
      const next = s.currentRevision() + 1;
      assertStorageError(() => s.get('/r/a', next), 'FutureRevision');
      assertStorageError(() => s.list('/r/', { revision: next }), 'FutureRevision');
      assertStorageError(() => s.watch({ prefix: '/r/', fromRevision: next }, new RecordingSink()), 'FutureRevision');
    });

    test('close() closes open watches with Closed', async (s) => {
      const sink = new RecordingSink();
      s.watch({ prefix: '/r/', fromRevision: 0 }, sink);
      s.create('/r/a', '1');
      await settle();
      s.close();
      assert.ok(sink.closedWith instanceof StorageError);
      assert.equal(sink.closedWith.code, 'Closed');
    });

    test('many watchers on different prefixes each get their own events in order', async (s) => {
      const sinks = new Map<string, RecordingSink>();
      for (const ns of ['a', 'b', 'c']) {
        const sink = new RecordingSink();
        sinks.set(ns, sink);
        s.watch({ prefix: `/registry/pods/${ns}/`, fromRevision: 0 }, sink);
      }
      const whole = new RecordingSink();
      s.watch({ prefix: '/registry/pods/', fromRevision: 0 }, whole);
      const expected = new Map<string, number[]>([
        ['a', []],
        ['b', []],
        ['c', []],
      ]);
      const all: number[] = [];
      for (let i = 0; i < 30; i++) {
        const ns = ['a', 'b', 'c'][i % 3];
        const kv = s.create(`/registry/pods/${ns}/p${i}`, String(i));
        expected.get(ns)!.push(kv.modRevision);
        all.push(kv.modRevision);
      }
      await settle();
      for (const [ns, sink] of sinks) assert.deepEqual(sink.events.map((e) => e.kv.modRevision), expected.get(ns));
      assert.deepEqual(whole.events.map((e) => e.kv.modRevision), all);
    });
  });
}
