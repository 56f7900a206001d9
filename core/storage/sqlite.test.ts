import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SqliteStorage } from './sqlite.ts';
import { RecordingSink, assertStorageError, runStorageConformance, settle } from './conformance.ts';

const root = mkdtempSync(join(tmpdir(), 'orrery-sqlite-'));
after(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;
const newFile = (): string => join(root, `db-${++seq}.sqlite`);

runStorageConformance('SqliteStorage (file)', () => {
  const path = newFile();
  return { storage: new SqliteStorage({ path }), cleanup: () => rmSync(path, { force: true }) };
});

runStorageConformance('SqliteStorage (:memory:)', () => ({ storage: new SqliteStorage({ path: ':memory:' }) }));

describe('SqliteStorage', () => {
  it('keeps data, the revision counter and the compacted revision across reopening', () => {
    const path = newFile();
    const s1 = new SqliteStorage({ path });
    const a = s1.create('/r/a', 'a1');
    const b = s1.create('/r/b', 'b1');
    s1.update('/r/a', 'a2', a.modRevision);
    const d = s1.delete('/r/b', b.modRevision);
    s1.compact(d.modRevision);
    s1.close();

    const s2 = new SqliteStorage({ path });
    assert.equal(s2.currentRevision(), d.modRevision);
    assert.equal(s2.compactedRevision(), d.modRevision);
    assert.equal(s2.get('/r/a')?.value, 'a2');
    assert.equal(s2.get('/r/a')?.createRevision, a.modRevision);
    assert.equal(s2.get('/r/b'), undefined);
    const c = s2.create('/r/c', 'c1');
    assert.equal(c.modRevision, d.modRevision + 1);
    s2.close();
  });

  it('never reuses a revision, even when compaction removed the newest log rows', () => {
    const path = newFile();
    const s1 = new SqliteStorage({ path });
    const a = s1.create('/r/a', '1');
    const d = s1.delete('/r/a', a.modRevision);
    s1.compact(d.modRevision);
    s1.close();
    const s2 = new SqliteStorage({ path });
    assert.equal(s2.currentRevision(), d.modRevision);
    assert.equal(s2.create('/r/a', '2').modRevision, d.modRevision + 1);
    s2.close();
  });

  it('compaction physically removes superseded rows and tombstones, round after round', () => {
    const s = new SqliteStorage({ path: ':memory:' });
    const db = (s as unknown as { db: Database.Database }).db;
    const rows = (): number[] => db.prepare('SELECT id FROM log ORDER BY id').pluck().all() as number[];
    let a = s.create('/r/a', '1');
    for (let i = 0; i < 3; i++) a = s.update('/r/a', String(i), a.modRevision);
    const b = s.create('/r/b', 'x');
    s.delete('/r/b', b.modRevision);
    const keep = s.create('/r/c', 'c');
    const mid = s.currentRevision();
    s.compact(mid);
    assert.deepEqual(rows(), [a.modRevision, keep.modRevision]);
    const a2 = s.update('/r/a', 'later', a.modRevision);
    const a3 = s.update('/r/a', 'latest', a2.modRevision);
    s.compact(a2.modRevision);
    assert.deepEqual(rows(), [keep.modRevision, a2.modRevision, a3.modRevision]);
    s.compact(a3.modRevision);
    assert.deepEqual(rows(), [keep.modRevision, a3.modRevision]);
    assert.equal(s.get('/r/a', a3.modRevision)?.value, 'latest');
    s.close();
  });

  it('two instances on one file serialize; the stale writer gets Conflict', () => {
    const path = newFile();
    const one = new SqliteStorage({ path });
    const two = new SqliteStorage({ path });
    try {
      const a = one.create('/r/a', 'v1');
      assert.equal(two.get('/r/a')?.value, 'v1');
      const fromTwo = two.update('/r/a', 'v2', a.modRevision);
      assertStorageError(() => one.update('/r/a', 'v3', a.modRevision), 'Conflict');
      assertStorageError(() => one.delete('/r/a', a.modRevision), 'Conflict');
      assertStorageError(() => one.create('/r/a', 'again'), 'KeyExists');
      assert.equal(one.currentRevision(), fromTwo.modRevision);
      assert.equal(one.get('/r/a')?.value, 'v2');
      const b = one.create('/r/b', 'x');
      assert.equal(b.modRevision, fromTwo.modRevision + 1);
      assert.deepEqual(
        two.list('/r/').items.map((kv) => kv.key),
        ['/r/a', '/r/b'],
      );
    } finally {
      one.close();
      two.close();
    }
  });

  it('translates the (name, prev_revision) unique constraint into Conflict', () => {
    const path = newFile();
    const s = new SqliteStorage({ path });
    const a = s.create('/r/a', 'v1');
    const b = s.create('/r/b', 'v1');
    // A row chained on the same previous revision, as a concurrent writer would have left it.
    const raw = new Database(path);
    raw.prepare('INSERT INTO log (name, created, deleted, create_revision, prev_revision, value) VALUES (?, 0, 0, ?, ?, ?)').run('/r/a', a.modRevision, a.modRevision, 'other');
    raw.prepare('INSERT INTO log (name, created, deleted, create_revision, prev_revision, value) VALUES (?, 0, 0, ?, ?, ?)').run('/r/b', b.modRevision, b.modRevision, 'other');
    raw.close();
    assertStorageError(() => s.update('/r/a', 'v2', a.modRevision), 'Conflict');
    assertStorageError(() => s.delete('/r/b'), 'Conflict');
    assert.equal(s.get('/r/a')?.value, 'v1');
    s.close();
  });

  it('uses WAL for files and honours synchronous=FULL', () => {
    const path = newFile();
    const s = new SqliteStorage({ path, synchronous: 'FULL' });
    s.create('/r/a', '1');
    const db = (s as unknown as { db: Database.Database }).db;
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('synchronous', { simple: true }), 2);
    s.close();
  });

  it('keeps acknowledged writes when the process is killed with SIGKILL', () => {
    const path = newFile();
    const module = fileURLToPath(new URL('./sqlite.ts', import.meta.url));
    const script = `
      import { SqliteStorage } from ${JSON.stringify(module)};
      const s = new SqliteStorage({ path: ${JSON.stringify(path)} });
      let rev = 0;
      for (let i = 0; i < 200; i++) rev = s.create('/r/k' + i, 'v' + i).modRevision;
      process.stdout.write(String(rev), () => process.kill(process.pid, 'SIGKILL'));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const acknowledged = Number(child.stdout);
    assert.ok(acknowledged >= 200);
    const s = new SqliteStorage({ path });
    assert.equal(s.currentRevision(), acknowledged);
    assert.equal(s.count('/r/'), 200);
    assert.equal(s.get('/r/k199')?.value, 'v199');
    s.close();
  });

  it('a watch catches up from the log in batches, then continues live', async () => {
    const s = new SqliteStorage({ path: ':memory:' });
    const expected: number[] = [];
    for (let i = 0; i < 700; i++) {
      const kv = s.create(`/r/k${i}`, String(i));
      s.create(`/other/k${i}`, String(i));
      expected.push(kv.modRevision);
    }
    const sink = new RecordingSink();
    s.watch({ prefix: '/r/', fromRevision: 0 }, sink);
    const live = s.update('/r/k0', 'x', expected[0]);
    expected.push(live.modRevision);
    await settle();
    assert.deepEqual(
      sink.events.map((e) => e.kv.modRevision),
      expected,
    );
    assert.deepEqual(sink.events.at(-1)?.prevKv?.value, '0');
    s.close();
  });

  it('a paused watch that is still catching up is closed with Compacted when its history is compacted', async () => {
    const s = new SqliteStorage({ path: ':memory:' });
    for (let i = 0; i < 600; i++) s.create(`/r/k${i}`, String(i));
    const sink = new RecordingSink();
    sink.accept = false;
    const w = s.watch({ prefix: '/r/', fromRevision: 0 }, sink);
    await settle();
    assert.equal(sink.events.length, 1);
    s.compact(s.currentRevision());
    sink.accept = true;
    w.resume();
    await settle();
    // The batch already read (256 events) is delivered; the next read of the log finds it compacted.
    assert.equal(sink.events.length, 256);
    assert.deepEqual(
      sink.events.map((e) => e.kv.modRevision),
      Array.from({ length: 256 }, (_, i) => i + 1),
    );
    assert.equal(sink.closedWith?.code, 'Compacted');
    assert.equal(s.stats().watchers, 0);
    s.close();
  });

  it('terminates a watcher whose pending live events exceed the bound, and counts it', async () => {
    const s = new SqliteStorage({ path: ':memory:', maxPendingPerWatcher: 5 });
    const slow = new RecordingSink();
    slow.accept = false;
    const fast = new RecordingSink();
    s.watch({ prefix: '/r/', fromRevision: 0 }, slow);
    s.watch({ prefix: '/r/', fromRevision: 0 }, fast);
    s.create('/r/first', '0');
    await settle();
    assert.equal(slow.events.length, 1);
    for (let i = 0; i < 5; i++) s.create(`/r/k${i}`, String(i));
    await settle();
    assert.equal(slow.closed, false, 'five pending events are within the bound');
    s.create('/r/k5', '5');
    await settle();
    assert.equal(slow.closedWith?.code, 'TooSlow');
    assert.equal(slow.events.length, 1);
    assert.equal(fast.events.length, 7);
    assert.equal(fast.closed, false);
    assert.deepEqual(s.stats(), { watchers: 1, eventsDispatched: 8, slowWatchersTerminated: 1 });
    s.close();
  });

  it('never terminates a watcher that keeps accepting, however large the burst', async () => {
    const s = new SqliteStorage({ path: ':memory:', maxPendingPerWatcher: 5 });
    const sink = new RecordingSink();
    s.watch({ prefix: '/r/', fromRevision: 0 }, sink);
    for (let i = 0; i < 50; i++) s.create(`/r/k${i}`, String(i));
    await settle();
    assert.equal(sink.events.length, 50);
    assert.equal(sink.closed, false);
    assert.equal(s.stats().slowWatchersTerminated, 0);
    s.close();
  });

  it('throws Closed after close()', () => {
    const s = new SqliteStorage({ path: ':memory:' });
    s.close();
    s.close();
    assertStorageError(() => s.create('/r/a', '1'), 'Closed');
    assertStorageError(() => s.get('/r/a'), 'Closed');
    assertStorageError(() => s.list('/r/'), 'Closed');
  });
});
