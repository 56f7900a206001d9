import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiServer } from '../core/apiserver/handler.ts';
import { bootstrap } from '../core/apiserver/housekeeping.ts';
import { SqliteStorage } from '../core/storage/sqlite.ts';
import { WatchCache } from '../core/storage/watchcache.ts';
import type { ApiRequest, ApiResponse, ResponseStream } from '../core/apiserver/types.ts';
import { SimEnvironment } from './env.ts';
import { SimClock } from './clock.ts';
import { RngStreams } from './rng.ts';
import { SimConnectionError, SimNetwork, type SimNetworkOptions } from './transport.ts';
import { Client } from '../core/client/client.ts';
import { lookupResource } from '../core/apiserver/request.ts';

function get(path: string, query = ''): ApiRequest {
  return { method: 'GET', path, query: new URLSearchParams(query), headers: {} };
}

/** A server that records arrival times and answers 200 with the path; `/watch` returns a stream the test drives. */
function fakeServer(env: SimEnvironment) {
  const arrivals: string[] = [];
  let writer: ((c: string) => boolean) | undefined;
  let ender: (() => void) | undefined;
  let cancelled = false;
  const server = {
    handle(req: ApiRequest): ApiResponse {
      arrivals.push(`${env.now} ${req.path}`);
      if (req.path === '/watch') {
        const stream: ResponseStream = {
          start(w, e) {
            writer = w;
            ender = e;
          },
          resume() {},
          cancel() {
            cancelled = true;
          },
        };
        return { status: 200, headers: {}, stream };
      }
      return { status: 200, headers: {}, body: req.path };
    },
  };
  return { server, arrivals, write: (c: string) => writer!(c), end: () => ender!(), cancelled: () => cancelled };
}

function network(env: SimEnvironment, server: SimNetworkOptions['server'], extra: Partial<SimNetworkOptions> = {}): SimNetwork {
  const streams = new RngStreams(1);
  return new SimNetwork({ env, server, rngFor: (c) => streams.stream(`transport/${c}`), requestLatency: 3, responseLatency: 5, ...extra });
}

test('a request reaches handle after the request latency and the response arrives after the response latency', async () => {
  const env = new SimEnvironment();
  const f = fakeServer(env);
  const net = network(env, f.server);
  const got: string[] = [];
  env.process(
    (async () => {
      const r = await net.transport('c1').request(get('/a'));
      got.push(`${env.now} ${r.status} ${r.body}`);
    })(),
  );
  await env.run();
  assert.deepEqual(f.arrivals, ['3 /a']);
  assert.deepEqual(got, ['8 200 /a']);
});

test('faults: dropped request, partitioned client, server unavailable (503) and refused', async () => {
  const env = new SimEnvironment();
  const f = fakeServer(env);
  const net = network(env, f.server);
  const out: string[] = [];
  const call = (client: string, path: string) =>
    net
      .transport(client)
      .request(get(path))
      .then(
        (r) => out.push(`${env.now} ${client} ${path} ${r.status}`),
        (e: SimConnectionError) => out.push(`${env.now} ${client} ${path} ${e.code}`),
      );
  net.dropNext('a');
  net.partition(['b'], 100, 10);
  net.serverUnavailable(50, 'unavailable', 200);
  net.serverUnavailable(50, 'refused', 300);
  env.process(call('a', '/1'));
  env.process(call('a', '/2'));
  env.schedule(20, () => void env.process(call('b', '/3')));
  env.schedule(20, () => void env.process(call('c', '/4')));
  env.schedule(120, () => void env.process(call('b', '/5')));
  env.schedule(210, () => void env.process(call('c', '/6')));
  env.schedule(310, () => void env.process(call('c', '/7')));
  await env.run();
  assert.deepEqual(out, ['3 a /1 ECONNRESET', '8 a /2 200', '23 b /3 ECONNRESET', '28 c /4 200', '128 b /5 200', '218 c /6 503', '313 c /7 ECONNREFUSED']);
  assert.deepEqual(f.arrivals, ['3 /2', '23 /4', '123 /5']);
});

test('watch chunks are re-timed by their own latency and keep their order; a partition breaks the watch', async () => {
  const env = new SimEnvironment();
  const f = fakeServer(env);
  const net = network(env, f.server, { requestLatency: 1, responseLatency: 1, watchEventLatency: { dist: 'uniform', min: 1, max: 30 } });
  const got: { at: number; chunk: string }[] = [];
  let endedAt = -1;
  env.process(
    (async () => {
      const r = await net.transport('w').request(get('/watch', 'watch=1'));
      r.stream!.start(
        (c) => (got.push({ at: env.now, chunk: String(c) }), true),
        () => (endedAt = env.now),
      );
    })(),
  );
  const sentAt: number[] = [];
  for (let i = 0; i < 20; i++) {
    env.schedule(10 + i, () => {
      sentAt.push(env.now);
      f.write(`e${i}`);
    });
  }
  net.partition(['w'], 10, 45);
  await env.run();
  const delivered = got.map((g) => g.chunk);
  assert.deepEqual(
    delivered,
    Array.from({ length: delivered.length }, (_, i) => `e${i}`),
  );
  assert.ok(delivered.length >= 1 && delivered.length < 20, `some chunks lost to the partition: ${delivered.length}`);
  for (let i = 0; i < got.length; i++) {
    assert.ok(got[i].at >= sentAt[i] + 1 && got[i].at < 45 + 1e-9, `chunk ${i} at ${got[i].at}`);
    if (i > 0) assert.ok(got[i].at >= got[i - 1].at);
  }
  assert.ok(new Set(got.map((g) => g.at - sentAt[got.indexOf(g)])).size > 1, 'latencies vary');
  assert.equal(endedAt, 45);
  assert.equal(f.cancelled(), true);
  assert.equal(net.openWatches, 0);
});

test('a client that returns false from write gets no more chunks until it resumes; end comes after the backlog', async () => {
  const env = new SimEnvironment();
  const f = fakeServer(env);
  const net = network(env, f.server, { watchEventLatency: 2 });
  const got: string[] = [];
  let stream: ResponseStream | undefined;
  env.process(
    (async () => {
      stream = (await net.transport('w').request(get('/watch', 'watch=1'))).stream!;
      stream.start(
        (c) => (got.push(`${env.now} ${c}`), got.length !== 1),
        () => got.push(`${env.now} end`),
      );
    })(),
  );
  env.schedule(10, () => (f.write('a'), f.write('b'), f.write('c'), f.end()));
  env.schedule(20, () => stream!.resume());
  await env.run();
  assert.deepEqual(got, ['12 a', '20 b', '20 c', '20 end']);
});

/** The determinism scenario: an ApiServer on the simulated clock, writers and a watcher over SimTransport. */
async function scenario(seed: number): Promise<string[]> {
  const env = new SimEnvironment({ trace: true });
  const clock = new SimClock(env);
  const streams = new RngStreams(seed);
  const storage = new WatchCache(new SqliteStorage({ path: ':memory:' }), { clock });
  const api = new ApiServer({ storage, clock, rng: streams.stream('apiserver') });
  bootstrap(api.registry);
  const net = new SimNetwork({
    env,
    server: api,
    rngFor: (c) => streams.stream(`transport/${c}`),
    requestLatency: { dist: 'lognormal', median: '2ms', p99: '20ms' },
    responseLatency: { dist: 'uniform', min: '1ms', max: '10ms' },
    dropProbability: 0.05,
  });
  const base = '/api/v1/namespaces/default/configmaps';
  const send = (client: string, method: string, path: string, body?: unknown, contentType = 'application/json') =>
    net.transport(client).request({
      method,
      path,
      query: new URLSearchParams(),
      headers: { 'content-type': contentType },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    });

  let watched = 0;
  env.process(
    (async () => {
      const r = await net.transport('watcher').request({ method: 'GET', path: base, query: new URLSearchParams('watch=1'), headers: {} });
      r.stream!.start(
        (chunk) => {
          for (const line of String(chunk).split('\n')) {
            if (!line) continue;
            const ev = JSON.parse(line);
            watched++;
            env.record('watch', `${ev.type} ${ev.object.metadata.name} rv=${ev.object.metadata.resourceVersion} uid=${ev.object.metadata.uid}`);
          }
          return true;
        },
        () => env.record('watch', 'closed'),
      );
    })(),
  );
  const writer = async (id: number) => {
    const think = streams.stream(`writer-${id}`);
    await env.timeout(5);
    for (let i = 0; i < 4; i++) {
      const name = `cm-${id}-${i}`;
      try {
        const r = await send(`writer-${id}`, 'POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: '0' } });
        env.record('client', `writer-${id} create ${name} ${r.status}`);
        await env.timeout(think.next() * 20);
        const p = await send(`writer-${id}`, 'PATCH', `${base}/${name}`, { data: { n: String(i + 1) } }, 'application/merge-patch+json');
        env.record('client', `writer-${id} patch ${name} ${p.status} ${JSON.parse(String(p.body)).metadata?.resourceVersion}`);
      } catch (e) {
        env.record('client', `writer-${id} ${name} ${(e as SimConnectionError).code}`);
      }
    }
  };
  for (let id = 0; id < 4; id++) env.process(writer(id));
  await env.run({ until: 2000 });
  assert.ok(watched > 10, `watcher saw ${watched} events`);
  return [...env.trace()];
}

test('determinism: same seed gives a byte-identical trace, a different seed differs', async () => {
  const a = await scenario(11);
  const b = await scenario(11);
  const c = await scenario(12);
  assert.ok(a.length > 50);
  assert.equal(a.join('\n'), b.join('\n'));
  assert.notEqual(a.join('\n'), c.join('\n'));
  assert.ok(a.some((l) => / watch ADDED cm-/.test(l)) && a.some((l) => / watch MODIFIED cm-/.test(l)));
});

/** The real API server behind a SimNetwork, and a configmaps client in namespace default over it. */
function apiOverSimNetwork(opts: Partial<SimNetworkOptions>) {
  const env = new SimEnvironment();
  const clock = new SimClock(env);
  const storage = new WatchCache(new SqliteStorage({ path: ':memory:' }), { clock });
  const api = new ApiServer({ storage, clock, rng: new RngStreams(1).stream('apiserver') });
  bootstrap(api.registry);
  const net = new SimNetwork({ env, server: api, rngFor: (c) => new RngStreams(1).stream(c), ...opts });
  const cms = new Client({ transport: net.transport('c'), clock, qps: -1 }).resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('default');
  return { env, storage, api, cms };
}

test('JSON watch events reach a client decoded (the server\'s shared object, no parse), and equal the parsed frames', async () => {
  const run = async (decodedWatchEvents: boolean) => {
    const { env, storage, api, cms } = apiOverSimNetwork({ responseLatency: '1ms', decodedWatchEvents });
    const events: any[] = [];
    env.process(
      (async () => {
        const w = await cms.watch({ resourceVersion: api.registry.currentResourceVersion() });
        for await (const ev of w) {
          events.push(ev);
          if (events.length === 2) w.stop();
        }
      })(),
    );
    env.process(
      (async () => {
        const created = await cms.create({ metadata: { name: 'a' }, data: { k: 'v' } });
        await cms.update({ ...created, data: { k: 'w' } });
      })(),
    );
    await env.run();
    const kv = storage.get('/registry/core/configmaps/default/a')!;
    return { events, current: api.registry.decodeShared(lookupResource('', 'v1', 'configmaps')!, kv) };
  };
  const decoded = await run(true);
  const parsed = await run(false);
  assert.deepEqual(decoded.events.map((e) => e.type), ['ADDED', 'MODIFIED']);
  assert.deepEqual(decoded.events, parsed.events);
  assert.equal(decoded.events[1].object, decoded.current, 'the client holds the API server\'s shared object');
  assert.notEqual(parsed.events[1].object, parsed.current, 'without it, the client parsed its own copy');
});

test('responses reach a client decoded (the stored objects, shared) and equal the parsed bodies; errors are still Status errors', async () => {
  const run = async (decoded: boolean) => {
    const { env, storage, api, cms } = apiOverSimNetwork({ decodedBodies: decoded, decodedResponses: decoded });
    const out: any = {};
    env.process(
      (async () => {
        out.created = await cms.create({ metadata: { name: 'a' }, data: { k: 'v' } });
        out.updated = await cms.update({ ...out.created, data: { k: 'w' } });
        out.got = await cms.get('a');
        out.list = await cms.list();
        out.conflict = await cms.update({ ...out.created, data: { k: 'x' } }).catch((e: unknown) => e);
      })(),
    );
    await env.run();
    const cmRes = lookupResource('', 'v1', 'configmaps')!;
    return { out, shared: api.registry.decodeShared(cmRes, storage.get('/registry/core/configmaps/default/a')!) };
  };
  const d = await run(true);
  const p = await run(false);
  for (const k of ['created', 'updated', 'got', 'list']) assert.deepEqual(d.out[k], p.out[k], k);
  assert.equal(d.out.got, d.shared, 'a GET returns the shared stored object');
  assert.equal(d.out.list.items[0], d.shared);
  assert.notEqual(p.out.got, p.shared);
  assert.equal(d.out.conflict.reason, 'Conflict');
  assert.equal(p.out.conflict.reason, 'Conflict');
});
