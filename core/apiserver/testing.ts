import { FakeClock } from '../machinery/clock.ts';
import { SeededRng } from '../machinery/rng.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { SqliteStorage } from '../storage/sqlite.ts';
import { WatchCache } from '../storage/watchcache.ts';
import { ApiServer } from './handler.ts';
import { bootstrap } from './housekeeping.ts';
import type { ApiRequest, ApiResponse } from './types.ts';
import { InProcessTransport } from '../client/transport.ts';

/** A parsed response for tests. */
export interface TestResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: any;
  raw: ApiResponse;
}

/** A watch opened in a test: collected events, and a way to stop it. */
export interface TestWatch {
  status: number;
  events: { type: string; object: any }[];
  ended: () => boolean;
  stop(): void;
}

/**
 * An in-process API server on an in-memory store with a fake clock and seeded randomness, for
 * handle()-level tests: no sockets, no wall-clock time.
 */
export class TestServer {
  readonly clock = new FakeClock(Date.UTC(2026, 0, 1));
  readonly storage: WatchCache;
  readonly api: ApiServer;

  /** `storage`: the SQLite log of `orrery serve` (default) or the simulator's in-memory one, read through. */
  constructor(opts: { historyWindowMs?: number; storage?: 'sqlite' | 'memory' } = {}) {
    const memory = opts.storage === 'memory';
    this.storage = new WatchCache(memory ? new MemoryStorage() : new SqliteStorage({ path: ':memory:' }), { clock: this.clock, historyWindowMs: opts.historyWindowMs, readThrough: memory });
    this.api = new ApiServer({ storage: this.storage, clock: this.clock, rng: new SeededRng(1), bookmarkIntervalMs: 1000 });
    // Shared decoded objects are frozen in tests: a handler or strategy that mutates one fails loudly.
    this.api.registry.freezeShared = true;
    bootstrap(this.api.registry);
  }

  /** Sends a request; `body` objects are JSON-encoded. */
  async request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const u = new URL(url, 'http://x');
    const req: ApiRequest = {
      method,
      path: u.pathname,
      query: u.searchParams,
      headers: { 'content-type': 'application/json', ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    };
    const raw = await this.api.handle(req);
    let parsed: any = raw.body;
    const ct = String(raw.headers['content-type'] ?? '');
    if (typeof raw.body === 'string' && ct.startsWith('application/json')) parsed = JSON.parse(raw.body);
    return { status: raw.status, headers: raw.headers, body: parsed, raw };
  }

  /** Opens a watch and collects its JSON events until stopped. */
  async watch(url: string, headers: Record<string, string> = {}): Promise<TestWatch> {
    const res = await this.request('GET', url, undefined, headers);
    const events: { type: string; object: any }[] = [];
    let ended = false;
    if (!res.raw.stream) return { status: res.status, events, ended: () => true, stop() {} };
    res.raw.stream.start(
      (chunk) => {
        for (const line of String(chunk).split('\n')) if (line) events.push(JSON.parse(line));
        return true;
      },
      () => {
        ended = true;
      },
    );
    const stream = res.raw.stream;
    return { status: res.status, events, ended: () => ended, stop: () => stream.cancel() };
  }

  /** Lets queued watch deliveries (microtasks) run. */
  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
}

/**
 * A client machinery Transport into this server's `handle()` that records every request it
 * carries (for tests that assert what a component sent).
 */
export function recordingTransport(server: TestServer): { transport: InProcessTransport; requests: ApiRequest[] } {
  const requests: ApiRequest[] = [];
  const transport = new InProcessTransport((r) => {
    requests.push(r);
    return server.api.handle(r);
  });
  return { transport, requests };
}

/** A minimal valid ConfigMap body. */
export function configMap(name: string, labels?: Record<string, string>, data: Record<string, string> = { k: 'v' }): any {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

/** A minimal valid Pod body. */
export function pod(name: string, extra: Record<string, unknown> = {}): any {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...extra } };
}
