import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { StorageError, isStorageError, type Storage } from './interface.ts';
import { SqliteStorage } from './sqlite.ts';
import { WatchCache } from './watchcache.ts';
import { startCompactor } from './compactor.ts';
import { RecordingSink } from './conformance.ts';

const MIN = 60_000;

describe('startCompactor', () => {
  it('compacts to the newest revision recorded at least one window ago', () => {
    const clock = new FakeClock();
    const s = new SqliteStorage({ path: ':memory:' });
    s.create('/r/a', '0');
    const c = startCompactor(s, { clock, windowMs: 5 * MIN, intervalMs: MIN });
    const revAt: number[] = [s.currentRevision()];
    for (let minute = 1; minute <= 8; minute++) {
      s.create(`/r/k${minute}`, String(minute));
      clock.step(MIN);
      revAt[minute] = s.currentRevision();
      // The tick at `minute` compacts to what was recorded at minute - 5.
      const expected = minute >= 5 ? revAt[minute - 5] : 0;
      assert.equal(s.compactedRevision(), expected, `after minute ${minute}`);
    }
    c.stop();
    s.close();
  });

  it('keeps history younger than the window readable and makes older history Compacted', () => {
    const clock = new FakeClock();
    const s = new WatchCache(new SqliteStorage({ path: ':memory:' }), { clock, historyWindowMs: 5 * MIN });
    const c = startCompactor(s, { clock, windowMs: 5 * MIN, intervalMs: MIN });
    const a = s.create('/r/a', '1');
    let prev = a;
    const revs: Array<{ at: number; rev: number }> = [];
    for (let i = 0; i < 40; i++) {
      clock.step(15_000);
      prev = s.update('/r/a', String(i), prev.modRevision);
      revs.push({ at: clock.now(), rev: prev.modRevision });
    }
    const now = clock.now();
    for (const { at, rev } of revs) {
      if (now - at <= 5 * MIN) {
        assert.equal(s.get('/r/a', rev)?.modRevision, rev, `revision written ${(now - at) / 1000}s ago is readable`);
        s.watch({ prefix: '/r/', fromRevision: rev }, new RecordingSink()).stop();
      }
    }
    const oldest = revs[0].rev;
    assert.throws(() => s.get('/r/a', oldest), (err: unknown) => isStorageError(err, 'Compacted'));
    assert.throws(() => s.watch({ prefix: '/r/', fromRevision: oldest }, new RecordingSink()), (err: unknown) => isStorageError(err, 'Compacted'));
    c.stop();
    s.close();
  });

  it('stop() cancels the timer and no compaction happens afterwards', () => {
    const clock = new FakeClock();
    const s = new SqliteStorage({ path: ':memory:' });
    s.create('/r/a', '1');
    const c = startCompactor(s, { clock, windowMs: MIN, intervalMs: 10_000 });
    assert.equal(clock.pending(), 1);
    c.stop();
    c.stop();
    assert.equal(clock.pending(), 0);
    clock.step(10 * MIN);
    assert.equal(s.compactedRevision(), 0);
    s.close();
  });

  it('stops by itself when the storage is closed', () => {
    const clock = new FakeClock();
    const s = new SqliteStorage({ path: ':memory:' });
    startCompactor(s, { clock, windowMs: MIN, intervalMs: 10_000 });
    s.close();
    clock.step(20_000);
    assert.equal(clock.pending(), 0);
  });

  it('reports other failures to onError and keeps running', () => {
    const clock = new FakeClock();
    const inner = new SqliteStorage({ path: ':memory:' });
    inner.create('/r/a', '1');
    const failing: Storage = Object.create(inner) as Storage;
    failing.compact = () => {
      throw new StorageError('Conflict', '', 0, 'injected');
    };
    const errors: unknown[] = [];
    const c = startCompactor(failing, { clock, windowMs: 10_000, intervalMs: 10_000, onError: (e) => errors.push(e) });
    clock.step(30_000);
    assert.equal(errors.length, 3);
    assert.equal(clock.pending(), 1);
    c.stop();
    inner.close();
  });
});
