/**
 * The SQLite revision log (kine's schema, better-sqlite3): the durable {@link Storage} of orrery.
 */
import Database from 'better-sqlite3';
import {
  StorageError,
  textOf,
  type KeyValue,
  type StoredValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type Watch,
  type WatchOptions,
  type WatchSink,
} from './interface.ts';
import { WatchFanout, prefixEnd, type WatchStats } from './fanout.ts';

/** Options of {@link SqliteStorage}. */
export interface SqliteStorageOptions {
  /** A database file (created if missing) or `':memory:'`. */
  path: string;
  /**
   * SQLite's `synchronous` setting. NORMAL (default) in WAL mode: a committed write is in the
   * WAL file before the call returns, so it survives kill -9 of the process; only an operating
   * system crash or power loss can lose the last transactions. FULL also fsyncs every commit.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a writer waits for another process's write lock before failing (default 5,000 ms). */
  busyTimeoutMs?: number;
  /** Slow-watcher bound of the fan-out (default 10,000 pending events). */
  maxPendingPerWatcher?: number;
}

/** A raw log row as the read statements return it. */
interface Row {
  name: string;
  id: number;
  cr: number;
  value: string;
}

interface EventRow extends Row {
  created: number;
  deleted: number;
  prev: number;
  pv: string | null;
}

const SCHEMA_VERSION = 1;
/** Sorts after every key made of BMP characters; the upper bound of an empty prefix. */
const KEY_MAX = '\u{10FFFF}\u{10FFFF}';
const CR = 'CASE WHEN l.created THEN l.id ELSE l.create_revision END AS cr';

function keyRange(prefix: string): [string, string] {
  return [prefix, prefixEnd(prefix) ?? KEY_MAX];
}

function toKv(r: Row): KeyValue {
  return { key: r.name, value: r.value, modRevision: r.id, createRevision: r.cr };
}

function isConstraintError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}

/**
 * A {@link Storage} over one SQLite database, laid out as kine lays out etcd's keyspace:
 *
 * - `log`: append-only, one row per change (name, created, deleted, create_revision,
 *   prev_revision, value); its `INTEGER PRIMARY KEY AUTOINCREMENT` id is the global revision, so
 *   revisions are strictly increasing and never reused, even after compaction or reopening.
 *   A deletion row keeps the last value. `UNIQUE (name, prev_revision)` makes two writers that
 *   start from the same version of a key collide; the collision surfaces as StorageError
 *   Conflict (KeyExists for a create), never as an SQL error.
 * - `current`: name → id of the live row, so get/list/count of the current state are index reads;
 *   reads at an older revision read the log.
 * - `meta`: the compacted revision.
 *
 * Every write is one `BEGIN IMMEDIATE` transaction, so several instances (processes) on the same
 * file serialize and a stale expectedRevision gives Conflict. WAL mode with `synchronous=NORMAL`
 * by default: an acknowledged write survives kill -9 of the process.
 *
 * Watches catch up from the log (rows after the start revision under the prefix, read in batches
 * while the sink keeps up), then receive live events for every write committed through this
 * instance; writes of other processes are seen only while catching up. Events are delivered from
 * a microtask in revision order, never inside a write call. Slow-watcher policy: see
 * {@link WatchFanout} (pending live events beyond `maxPendingPerWatcher` terminate the watch with
 * TooSlow, counted in {@link stats}).
 *
 * Key order is SQLite's binary (UTF-8 byte) order, which equals JavaScript's string order for
 * ASCII keys.
 */
export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly fanout: WatchFanout;
  private closed = false;

  private readonly sGetCurrent: Database.Statement<[string], Row>;
  private readonly sGetAt: Database.Statement<[string, number], Row & { deleted: number }>;
  private readonly sLatest: Database.Statement<[string], { id: number; deleted: number }>;
  private readonly sInsert: Database.Statement<[string, number, number, number, number, string]>;
  private readonly sInsertCurrent: Database.Statement<[string, number | bigint]>;
  private readonly sUpdateCurrent: Database.Statement<[number | bigint, string]>;
  private readonly sDeleteCurrent: Database.Statement<[string]>;
  private readonly sRevision: Database.Statement<[], { seq: number }>;
  private readonly sCompacted: Database.Statement<[], { value: number }>;
  private readonly sSetCompacted: Database.Statement<[number]>;
  private readonly sListCurrent: Database.Statement<[string, string, number], Row>;
  private readonly sCountCurrent: Database.Statement<[string, string], { n: number }>;
  private readonly sListAt: Database.Statement<[string, string, number, number], Row>;
  private readonly sCountAt: Database.Statement<[string, string, number], { n: number }>;
  private readonly sEvents: Database.Statement<[number, string, string, number], EventRow>;
  private readonly sCompact: Database.Statement<[{ from: number; rev: number }]>;

  private readonly txCreate: Database.Transaction<(key: string, value: string) => KeyValue>;
  private readonly txUpdate: Database.Transaction<(key: string, value: string, expected: number) => [KeyValue, KeyValue]>;
  private readonly txDelete: Database.Transaction<(key: string, expected: number | undefined) => [KeyValue, KeyValue]>;
  private readonly txCompact: Database.Transaction<(rev: number) => void>;
  private readonly txRead: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(opts: SqliteStorageOptions) {
    this.fanout = new WatchFanout({ maxPendingPerWatcher: opts.maxPendingPerWatcher });
    const db = new Database(opts.path);
    this.db = db;
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    if (opts.path !== ':memory:' && opts.path !== '') db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
    this.migrate();

    this.sGetCurrent = db.prepare(`SELECT l.name, l.id, ${CR}, l.value FROM current c JOIN log l ON l.id = c.id WHERE c.name = ?`);
    this.sGetAt = db.prepare(
      `SELECT l.name, l.id, ${CR}, l.value, l.deleted FROM log l WHERE l.name = ? AND l.id <= ? ORDER BY l.id DESC LIMIT 1`,
    );
    this.sLatest = db.prepare('SELECT id, deleted FROM log WHERE name = ? ORDER BY id DESC LIMIT 1');
    this.sInsert = db.prepare(
      'INSERT INTO log (name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.sInsertCurrent = db.prepare('INSERT INTO current (name, id) VALUES (?, ?)');
    this.sUpdateCurrent = db.prepare('UPDATE current SET id = ? WHERE name = ?');
    this.sDeleteCurrent = db.prepare('DELETE FROM current WHERE name = ?');
    this.sRevision = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'");
    this.sCompacted = db.prepare("SELECT value FROM meta WHERE key = 'compact_rev'");
    this.sSetCompacted = db.prepare("INSERT INTO meta (key, value) VALUES ('compact_rev', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    this.sListCurrent = db.prepare(
      `SELECT l.name, l.id, ${CR}, l.value FROM current c JOIN log l ON l.id = c.id WHERE c.name >= ? AND c.name < ? ORDER BY c.name LIMIT ?`,
    );
    this.sCountCurrent = db.prepare('SELECT count(*) AS n FROM current WHERE name >= ? AND name < ?');
    const atRevision = `FROM log l
       WHERE l.name >= ? AND l.name < ?
         AND l.id = (SELECT MAX(m.id) FROM log m WHERE m.name = l.name AND m.id <= ?) AND l.deleted = 0`;
    this.sListAt = db.prepare(`SELECT l.name, l.id, ${CR}, l.value ${atRevision} ORDER BY l.name LIMIT ?`);
    this.sCountAt = db.prepare(`SELECT count(*) AS n ${atRevision}`);
    this.sEvents = db.prepare(
      `SELECT l.name, l.id, ${CR}, l.value, l.created, l.deleted, l.prev_revision AS prev, p.value AS pv
       FROM log l LEFT JOIN log p ON p.id = l.prev_revision
       WHERE l.id > ? AND +l.name >= ? AND +l.name < ? ORDER BY l.id LIMIT ?`,
    );
    this.sCompact = db.prepare(
      `DELETE FROM log WHERE id IN (SELECT prev_revision FROM log WHERE id > @from AND id <= @rev AND prev_revision > 0)
         OR (id > @from AND id <= @rev AND deleted = 1)`,
    );

    this.txCreate = db.transaction((key: string, value: string): KeyValue => {
      const existing = this.sGetCurrent.get(key);
      if (existing) throw new StorageError('KeyExists', key, existing.id, `key ${key} already exists`);
      const last = this.sLatest.get(key);
      const id = Number(this.sInsert.run(key, 1, 0, 0, last ? last.id : 0, value).lastInsertRowid);
      this.sInsertCurrent.run(key, id);
      return { key, value, modRevision: id, createRevision: id };
    });
    this.txUpdate = db.transaction((key: string, value: string, expected: number): [KeyValue, KeyValue] => {
      const cur = this.sGetCurrent.get(key);
      if (!cur) throw new StorageError('KeyNotFound', key, expected, `key ${key} not found`);
      if (cur.id !== expected) {
        throw new StorageError('Conflict', key, cur.id, `key ${key} is at revision ${cur.id}, not ${expected}`);
      }
      const id = Number(this.sInsert.run(key, 0, 0, cur.cr, cur.id, value).lastInsertRowid);
      this.sUpdateCurrent.run(id, key);
      return [{ key, value, modRevision: id, createRevision: cur.cr }, toKv(cur)];
    });
    this.txDelete = db.transaction((key: string, expected: number | undefined): [KeyValue, KeyValue] => {
      const cur = this.sGetCurrent.get(key);
      if (!cur) throw new StorageError('KeyNotFound', key, expected ?? 0, `key ${key} not found`);
      if (expected !== undefined && cur.id !== expected) {
        throw new StorageError('Conflict', key, cur.id, `key ${key} is at revision ${cur.id}, not ${expected}`);
      }
      const id = Number(this.sInsert.run(key, 0, 1, cur.cr, cur.id, cur.value).lastInsertRowid);
      this.sDeleteCurrent.run(key);
      return [{ key, value: cur.value, modRevision: id, createRevision: cur.cr }, toKv(cur)];
    });
    this.txCompact = db.transaction((rev: number) => {
      const current = this.sRevision.get()?.seq ?? 0;
      if (rev > current) throw new StorageError('FutureRevision', '', current, `revision ${rev} is newer than the current revision ${current}`);
      const from = this.readCompacted();
      if (rev <= from) return;
      // Everything superseded at or before `from` went in earlier compactions.
      this.sCompact.run({ from, rev });
      this.sSetCompacted.run(rev);
    });
    this.txRead = db.transaction((fn: () => unknown) => fn());
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version > SCHEMA_VERSION) throw new Error(`storage schema version ${version} is newer than this orrery (${SCHEMA_VERSION})`);
    this.db.exec(`
      BEGIN IMMEDIATE;
      CREATE TABLE IF NOT EXISTS log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        created INTEGER NOT NULL,
        deleted INTEGER NOT NULL,
        create_revision INTEGER NOT NULL,
        prev_revision INTEGER NOT NULL,
        value TEXT NOT NULL
      );
      CREATE UNIQUE INDEX IF NOT EXISTS log_name_prev_revision ON log (name, prev_revision);
      CREATE INDEX IF NOT EXISTS log_name_id ON log (name, id, deleted);
      CREATE TABLE IF NOT EXISTS current (name TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
      PRAGMA user_version = ${SCHEMA_VERSION};
      COMMIT;
    `);
  }

  /** Runs `fn` in one read transaction (one consistent snapshot, also across processes). */
  private read<T>(fn: () => T): T {
    return this.txRead(fn) as T;
  }

  private assertOpen(key = ''): void {
    if (this.closed) throw new StorageError('Closed', key, 0, 'storage is closed');
  }

  private readCompacted(): number {
    return this.sCompacted.get()?.value ?? 0;
  }

  /** Throws Compacted / FutureRevision unless the state at `revision` can be read. */
  private checkReadable(key: string, revision: number): void {
    const current = this.sRevision.get()?.seq ?? 0;
    if (revision > current) {
      throw new StorageError('FutureRevision', key, current, `revision ${revision} is newer than the current revision ${current}`);
    }
    const compacted = this.readCompacted();
    if (revision < compacted) {
      throw new StorageError('Compacted', key, compacted, `revision ${revision} has been compacted (oldest available: ${compacted})`);
    }
  }

  /** The revision of the newest change in the database (including other processes' writes). */
  currentRevision(): number {
    this.assertOpen();
    return this.sRevision.get()?.seq ?? 0;
  }

  /** The revision passed to the last effective {@link compact} (0 if never compacted). */
  compactedRevision(): number {
    this.assertOpen();
    return this.readCompacted();
  }

  /** Creates `key` at the next revision; KeyExists if it is live. */
  create(key: string, value: StoredValue): KeyValue {
    this.assertOpen(key);
    let kv: KeyValue;
    try {
      kv = this.txCreate.immediate(key, textOf(value));
    } catch (err) {
      if (isConstraintError(err)) throw new StorageError('KeyExists', key, 0, `key ${key} already exists`);
      throw err;
    }
    if (this.fanout.hasWatchers()) this.fanout.publish({ type: 'ADDED', kv });
    return kv;
  }

  /** The value of `key` now, or as of `revision` (Compacted / FutureRevision outside the readable range). */
  get(key: string, revision?: number): KeyValue | undefined {
    this.assertOpen(key);
    if (!revision) {
      const row = this.sGetCurrent.get(key);
      return row ? toKv(row) : undefined;
    }
    return this.read(() => {
      this.checkReadable(key, revision);
      const row = this.sGetAt.get(key, revision);
      return row && !row.deleted ? toKv(row) : undefined;
    });
  }

  /** Live keys under `prefix` at the current revision or `opts.revision`, in key order, paged. */
  list(prefix: string, opts: ListOptions = {}): ListResult {
    this.assertOpen(prefix);
    return this.read(() => this.listTx(prefix, opts));
  }

  private listTx(prefix: string, opts: ListOptions): ListResult {
    const current = this.sRevision.get()?.seq ?? 0;
    const at = opts.revision && opts.revision !== current ? opts.revision : 0;
    if (at) this.checkReadable(prefix, at);
    const revision = at || current;
    const [lo, hi] = keyRange(prefix);
    const after = opts.afterKey !== undefined ? opts.afterKey + '\u0000' : '';
    const from = after > lo ? after : lo;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const filter = opts.filter;

    if (!filter) {
      const rows = at ? this.sListAt.all(from, hi, at, limit || -1) : this.sListCurrent.all(from, hi, limit || -1);
      const items = rows.map(toKv);
      let remaining = 0;
      if (limit && items.length === limit) {
        const next = items[items.length - 1].key + '\u0000';
        remaining = at ? this.sCountAt.get(next, hi, at)!.n : this.sCountCurrent.get(next, hi)!.n;
      }
      return { items, revision, more: remaining > 0, remaining };
    }

    const items: KeyValue[] = [];
    let more = false;
    const iter = at ? this.sListAt.iterate(from, hi, at, -1) : this.sListCurrent.iterate(from, hi, -1);
    for (const row of iter) {
      const kv = toKv(row);
      if (!filter(kv)) continue;
      if (limit && items.length === limit) {
        more = true;
        break;
      }
      items.push(kv);
    }
    return { items, revision, more };
  }

  /** How many live keys are under `prefix` now. */
  count(prefix: string): number {
    this.assertOpen(prefix);
    const [lo, hi] = keyRange(prefix);
    return this.sCountCurrent.get(lo, hi)!.n;
  }

  /** Compare-and-swap on the key's modRevision: KeyNotFound if absent, Conflict if it moved on. */
  update(key: string, value: StoredValue, expectedRevision: number): KeyValue {
    this.assertOpen(key);
    let kv: KeyValue;
    let prevKv: KeyValue;
    try {
      [kv, prevKv] = this.txUpdate.immediate(key, textOf(value), expectedRevision);
    } catch (err) {
      if (isConstraintError(err)) throw new StorageError('Conflict', key, expectedRevision, `key ${key} was modified concurrently`);
      throw err;
    }
    if (this.fanout.hasWatchers()) this.fanout.publish({ type: 'MODIFIED', kv, prevKv });
    return kv;
  }

  /** Deletes `key` (only at `expectedRevision` if given); returns its last value at the deletion's revision. */
  delete(key: string, expectedRevision?: number): KeyValue {
    this.assertOpen(key);
    let kv: KeyValue;
    let prevKv: KeyValue;
    try {
      [kv, prevKv] = this.txDelete.immediate(key, expectedRevision);
    } catch (err) {
      if (isConstraintError(err)) throw new StorageError('Conflict', key, expectedRevision ?? 0, `key ${key} was modified concurrently`);
      throw err;
    }
    if (this.fanout.hasWatchers()) this.fanout.publish({ type: 'DELETED', kv, prevKv });
    return kv;
  }

  /**
   * Watches `opts.prefix` after `opts.fromRevision`: Compacted if older than the compacted
   * revision, FutureRevision if newer than the current one.
   */
  watch(opts: WatchOptions, sink: WatchSink): Watch {
    this.assertOpen(opts.prefix);
    const from = opts.fromRevision;
    const current = this.sRevision.get()?.seq ?? 0;
    this.checkReadable(opts.prefix, from);
    const w = this.fanout.add(opts.prefix, from, sink);
    if (from === current) {
      this.fanout.goLive(w);
    } else {
      const [lo, hi] = keyRange(opts.prefix);
      this.fanout.catchUp(w, (after, max) => this.readEvents(opts.prefix, after, lo, hi, max));
    }
    return w;
  }

  private readEvents(prefix: string, after: number, lo: string, hi: string, max: number): StorageEvent[] {
    if (this.closed) throw new StorageError('Closed', prefix, after, 'storage is closed');
    return this.read(() => {
      const compacted = this.readCompacted();
      if (after < compacted) {
        throw new StorageError('Compacted', prefix, compacted, `revision ${after} has been compacted (oldest available: ${compacted})`);
      }
      return this.sEvents.all(after, lo, hi, max).map((r): StorageEvent => {
        const kv: KeyValue = { key: r.name, value: r.value, modRevision: r.id, createRevision: r.cr };
        if (r.created) return { type: 'ADDED', kv };
        const prevKv: KeyValue = { key: r.name, value: r.pv ?? r.value, modRevision: r.prev, createRevision: r.cr };
        return { type: r.deleted ? 'DELETED' : 'MODIFIED', kv, prevKv };
      });
    });
  }

  /**
   * Drops log rows superseded at or before `revision` and deletion rows at or before it; the
   * state at `revision` and everything after stays readable. FutureRevision if `revision` is
   * newer than the current one; compacting to an older revision than before does nothing.
   */
  compact(revision: number): void {
    this.assertOpen();
    this.txCompact.immediate(revision);
  }

  /** The fan-out's watcher counters (see {@link WatchFanout} for the slow-watcher policy). */
  stats(): WatchStats {
    return this.fanout.stats();
  }

  /** Closes every watch with StorageError Closed and the database. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fanout.closeAll(new StorageError('Closed', '', 0, 'storage is closed'));
    this.db.close();
  }
}
