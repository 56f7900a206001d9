import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../machinery/clock.ts';
import { SeededRng } from '../machinery/rng.ts';
import { SqliteStorage } from '../storage/sqlite.ts';
import { memoizedTrigger, Registry } from './registry.ts';
import { TestServer, pod } from './testing.ts';
import type { ApiRequest } from './types.ts';

const CM = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, subresources: [] } as any;

describe('Registry.decodeShared', () => {
  it('shares one decoded object per KeyValue among the most recent ones only', () => {
    const storage = new SqliteStorage({ path: ':memory:' });
    const registry = new Registry(storage, new FakeClock(0), new SeededRng(1), new Map(), 2);
    const kvs = ['a', 'b', 'c'].map((n) => storage.create(`/registry/core/configmaps/d/${n}`, JSON.stringify({ metadata: { name: n }, data: { k: n } })));
    const a = registry.decodeShared(CM, kvs[0]);
    assert.equal(registry.decodeShared(CM, kvs[0]), a);
    assert.equal(a.metadata.resourceVersion, String(kvs[0].modRevision));
    registry.decodeShared(CM, kvs[1]);
    registry.decodeShared(CM, kvs[2]);
    const again = registry.decodeShared(CM, kvs[0]);
    assert.notEqual(again, a);
    assert.deepEqual(again, a);
    assert.equal(registry.decodeShared(CM, kvs[2]), registry.decodeShared(CM, kvs[2]));
  });

  it('keeps each resource\'s most recent ones: another resource\'s decodes do not push them out', () => {
    const storage = new SqliteStorage({ path: ':memory:' });
    const registry = new Registry(storage, new FakeClock(0), new SeededRng(1), new Map(), 2);
    const SECRET = { ...CM, kind: 'Secret', resource: 'secrets' };
    const OTHER_GROUP_CM = { ...CM, group: 'example.com' };
    const cm = storage.create('/registry/core/configmaps/d/a', JSON.stringify({ metadata: { name: 'a' } }));
    const a = registry.decodeShared(CM, cm);
    for (const n of ['s1', 's2', 's3', 's4']) registry.decodeShared(SECRET, storage.create(`/registry/core/secrets/d/${n}`, JSON.stringify({ metadata: { name: n } })));
    for (const n of ['x1', 'x2', 'x3']) registry.decodeShared(OTHER_GROUP_CM, storage.create(`/registry/example.com/configmaps/d/${n}`, JSON.stringify({ metadata: { name: n } })));
    assert.equal(registry.decodeShared(CM, cm), a, 'still cached after other resources\' decodes');
    // The same KeyValue under another group's resource of the same name is a separate cache entry.
    assert.notEqual(registry.decodeShared(OTHER_GROUP_CM, cm), a);
  });

  it('takes a bound per resource from a function', () => {
    const storage = new SqliteStorage({ path: ':memory:' });
    const registry = new Registry(storage, new FakeClock(0), new SeededRng(1), new Map(), (r) => (r.resource === 'secrets' ? 1 : 3));
    const SECRET = { ...CM, kind: 'Secret', resource: 'secrets' };
    const make = (res: string, n: string) => storage.create(`/registry/core/${res}/d/${n}`, JSON.stringify({ metadata: { name: n } }));
    const [c1, c2, c3] = ['a', 'b', 'c'].map((n) => make('configmaps', n));
    const [s1, s2] = ['a', 'b'].map((n) => make('secrets', n));
    const firstCm = registry.decodeShared(CM, c1);
    registry.decodeShared(CM, c2);
    registry.decodeShared(CM, c3);
    assert.equal(registry.decodeShared(CM, c1), firstCm, 'three configmaps fit');
    const firstSecret = registry.decodeShared(SECRET, s1);
    registry.decodeShared(SECRET, s2);
    assert.notEqual(registry.decodeShared(SECRET, s1), firstSecret, 'a second secret pushes the first out');
  });
});

describe('Registry.patch of the status subresource', () => {
  it('changes only status and leaves the stored spec and labels alone', async () => {
    const s = new TestServer();
    await s.request('POST', '/api/v1/namespaces/default/pods', pod('p', { nodeName: 'n1' }), { 'user-agent': 'kubectl/1.30' });
    const before = (await s.request('GET', '/api/v1/namespaces/default/pods/p')).body;
    const res = await s.request('PATCH', '/api/v1/namespaces/default/pods/p/status', { metadata: { labels: { x: 'y' } }, spec: { nodeName: 'n2' }, status: { phase: 'Running' } }, { 'content-type': 'application/strategic-merge-patch+json', 'user-agent': 'kubelet/1' });
    assert.equal(res.status, 200);
    assert.equal(res.body.status.phase, 'Running');
    const after = (await s.request('GET', '/api/v1/namespaces/default/pods/p')).body;
    assert.deepEqual(after.spec, before.spec);
    assert.equal(after.metadata.labels, undefined);
    assert.equal(after.status.phase, 'Running');
    assert.equal(after.status.qosClass, before.status.qosClass);
    assert.deepEqual(res.body, after);
    assert.deepEqual(after.metadata.managedFields.map((e: any) => [e.manager, e.subresource]), [['kubectl', undefined], ['kubelet', 'status']]);
  });

  it('is a no-op write when the patch changes nothing', async () => {
    const s = new TestServer();
    await s.request('POST', '/api/v1/namespaces/default/pods', pod('p'));
    const first = await s.request('PATCH', '/api/v1/namespaces/default/pods/p/status', { status: { phase: 'Running' } }, { 'content-type': 'application/merge-patch+json' });
    const second = await s.request('PATCH', '/api/v1/namespaces/default/pods/p/status', { status: { phase: 'Running' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
  });
});

for (const storage of ['sqlite', 'memory'] as const) {
  describe(`Registry over ${storage}: the written object becomes the shared decoded one`, () => {
    it('what watchers, updates and patches see of a write equals decoding what was stored, and its served JSON matches', async () => {
      const s = new TestServer({ storage });
      const r = s.api.registry;
      const seen: any[] = [];
      const prefix = '/registry/core/configmaps/';
      // A watcher of the storage that decodes as the API server's watch fan-out does, during the write.
      r.storage.watch({ prefix, fromRevision: r.storage.currentRevision() }, { event: (ev) => (seen.push({ kv: ev.kv, obj: r.decodeShared(CM, ev.kv) }), true), close() {} });
      const created = await s.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a', labels: { x: '1' } }, data: { k: 'v' } });
      assert.equal(created.status, 201);
      await s.request('PATCH', '/api/v1/namespaces/default/configmaps/a', { metadata: { labels: { x: null } }, data: { k: 'w' } }, { 'content-type': 'application/merge-patch+json' });
      await s.request('DELETE', '/api/v1/namespaces/default/configmaps/a');
      await new Promise((res) => setImmediate(res));
      assert.equal(seen.length, 3);
      for (const { kv, obj } of seen) {
        assert.deepEqual(obj, r.decode(CM, kv));
        assert.deepEqual(JSON.parse(r.servedJson(obj)!), r.decode(CM, kv));
        const { resourceVersion, ...meta } = obj.metadata;
        assert.equal(resourceVersion, String(kv.modRevision));
        assert.deepEqual(JSON.parse(kv.value), { ...obj, metadata: meta }, 'the stored text lacks only the resourceVersion');
        assert.equal(r.decodeShared(CM, kv), obj);
      }
      assert.equal('labels' in seen[1].obj.metadata, false, 'no empty labels map is left behind, as Kubernetes omits it');
      assert.equal(seen[1].obj.data.k, 'w');
      assert.equal(seen[2].obj.metadata.resourceVersion, String(seen[2].kv.modRevision), 'the deletion is seen at its own revision');
      assert.equal(seen[2].obj.data.k, 'w');
      assert.ok(Object.isFrozen(seen[1].obj.data), 'the test server freezes shared objects, written ones included');
      const copy = r.decode(CM, seen[1].kv);
      copy.data.k = 'changed';
      assert.equal(seen[1].obj.data.k, 'w', 'decode gives a copy of its own');
    });
  });
}

describe('Registry over the in-memory log', () => {
  it('never makes a JSON text that nothing reads: decoded writes, reads and watch events stay objects', async () => {
    const s = new TestServer({ storage: 'memory' });
    const transport = { request: (req: ApiRequest) => s.api.handle(req) };
    const kvs: any[] = [];
    s.storage.watch({ prefix: '/registry/core/configmaps/', fromRevision: s.storage.currentRevision() }, { event: (ev) => (kvs.push(ev.kv), true), close() {} });
    const stringify = JSON.stringify;
    let texts = 0;
    JSON.stringify = ((v: any, ...rest: any[]) => {
      if ((v?.kind === 'ConfigMap' && v.metadata) || v?.object?.kind === 'ConfigMap') texts++;
      return (stringify as any)(v, ...rest);
    }) as typeof JSON.stringify;
    try {
      const base = '/api/v1/namespaces/default/configmaps';
      const json = { 'content-type': 'application/json', accept: 'application/json' };
      const watch = await transport.request({ method: 'GET', path: base, query: new URLSearchParams('watch=true'), headers: json });
      const events: any[] = [];
      watch.stream!.start((chunk, decoded) => (assert.equal(chunk, ''), events.push(decoded), true), () => {}, { decodedOnly: true });
      const created = await transport.request({ method: 'POST', path: base, query: new URLSearchParams(), headers: json, object: { metadata: { name: 'a' }, data: { k: 'v' } } });
      assert.equal(created.status, 201);
      const updated = await transport.request({ method: 'PUT', path: `${base}/a`, query: new URLSearchParams(), headers: json, object: { ...structuredClone(created.object as any), data: { k: 'w' } } });
      assert.equal(updated.status, 200);
      const got = await transport.request({ method: 'GET', path: `${base}/a`, query: new URLSearchParams(), headers: json });
      assert.equal((got.object as any).data.k, 'w');
      await new Promise((res) => setImmediate(res));
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.data.k}`), ['ADDED v', 'MODIFIED w']);
      assert.equal(texts, 0, 'no ConfigMap was serialized');
      assert.ok(kvs.length === 2 && kvs.every((kv) => kv.deferred !== undefined));
      assert.deepEqual(JSON.parse(kvs[1].value).data, { k: 'w' });
      assert.equal(texts, 1, 'reading the value made its text');
    } finally {
      JSON.stringify = stringify;
    }
  });
});

describe('memoizedTrigger', () => {
  it('answers for the two newest KeyValues of a key without recomputing, and recomputes for anything else', () => {
    let calls = 0;
    const fn = memoizedTrigger((kv) => {
      calls++;
      return JSON.parse(kv.value).node;
    });
    const kv = (rev: number, node: string) => ({ key: '/registry/core/pods/d/p', value: JSON.stringify({ node }), modRevision: rev, createRevision: 1 });
    const [v1, v2, v3] = [kv(1, 'a'), kv(2, 'b'), kv(3, 'c')];
    assert.equal(fn(v1), 'a');
    assert.equal(fn(v2), 'b');
    assert.equal(calls, 2);
    assert.equal(fn(v1), 'a', 'as prevKv of the second update');
    assert.equal(fn(v2), 'b');
    assert.equal(calls, 2);
    assert.equal(fn(v3), 'c');
    assert.equal(fn(v2), 'b');
    assert.equal(calls, 3);
    assert.equal(fn(v1), 'a', 'an older one is computed again');
    assert.equal(calls, 4);
    assert.equal(fn({ ...v3 }), 'c', 'another KeyValue object with equal fields is computed, not trusted');
    assert.equal(calls, 5);
  });
});

describe('Registry: empty metadata collections', () => {
  it('are left out on create and update, as Kubernetes stores metadata', async () => {
    const s = new TestServer();
    const c = await s.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'e', labels: {}, annotations: {}, finalizers: [], ownerReferences: [] } });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    for (const f of ['labels', 'annotations', 'finalizers', 'ownerReferences']) assert.equal(f in c.body.metadata, false, f);
    const u = await s.request('PUT', '/api/v1/namespaces/default/configmaps/e', { ...c.body, metadata: { ...c.body.metadata, labels: {}, finalizers: [] }, data: { a: 'b' } });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal('labels' in u.body.metadata, false);
    assert.equal('finalizers' in u.body.metadata, false);
  });
});
