import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, configMap } from '../apiserver/testing.ts';
import { ApiError, Client, isAlreadyExists, isConflict, isGone, isNotFound, type WatchEvent } from './client.ts';
import { InProcessTransport, type Transport } from './transport.ts';

const CM = { group: '', version: 'v1', resource: 'configmaps' };

function setup(opts: { qps?: number; burst?: number } = {}) {
  const s = new TestServer();
  const client = new Client({ transport: new InProcessTransport((r) => s.api.handle(r)), clock: s.clock, qps: opts.qps ?? -1, burst: opts.burst });
  return { s, client };
}

test('create, get, list, update, patch (merge, json, strategic), delete a namespaced resource', async () => {
  const { client } = setup();
  const cms = client.resource(CM).namespace('default');
  const created = await cms.create(configMap('a', { app: 'x' }));
  assert.equal(created.metadata.namespace, 'default');
  assert.ok(created.metadata.resourceVersion);
  assert.deepEqual((await cms.get('a')).data, { k: 'v' });

  await cms.create(configMap('b', { app: 'y' }));
  const list = await cms.list({ labelSelector: 'app=x' });
  assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['a']);
  assert.ok(Number(list.metadata.resourceVersion) >= Number(created.metadata.resourceVersion));

  const upd = await cms.update({ ...created, data: { k: 'w' } });
  assert.equal(upd.data.k, 'w');
  await assert.rejects(cms.update({ ...created, data: { k: 'z' } }), (e) => isConflict(e) && (e as ApiError).status === 409);

  assert.equal((await cms.patch('a', { data: { m: '1' } }, 'merge')).data.m, '1');
  assert.equal((await cms.patch('a', [{ op: 'replace', path: '/data/k', value: 'j' }], 'json')).data.k, 'j');
  const sp = await cms.patch('a', { metadata: { labels: { tier: 't' } } }, 'strategic');
  assert.deepEqual(sp.metadata.labels, { app: 'x', tier: 't' });

  await cms.delete('a');
  await assert.rejects(cms.get('a'), (e) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.reason, 'NotFound');
    assert.equal(e.details?.name, 'a');
    return isNotFound(e);
  });
  await assert.rejects(cms.create(configMap('b')), isAlreadyExists);
});

test('cluster-scoped resources and all-namespace lists use the right paths', async () => {
  const { client } = setup();
  const ns = client.resource({ group: '', version: 'v1', resource: 'namespaces' });
  assert.equal(ns.path('x'), '/api/v1/namespaces/x');
  await ns.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  assert.equal((await ns.get('team')).metadata.name, 'team');
  const cms = client.resource(CM);
  await cms.create({ ...configMap('in-team'), metadata: { name: 'in-team', namespace: 'team' } });
  await cms.namespace('default').create(configMap('in-default'));
  const all = await cms.list();
  const names = all.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
  assert.ok(names.includes('team/in-team') && names.includes('default/in-default'));
  assert.equal(client.resource({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('n').path('d', 'scale'), '/apis/apps/v1/namespaces/n/deployments/d/scale');
  await assert.rejects(cms.get('x'), /namespaced/);
});

test('watch yields ADDED/MODIFIED/DELETED in order from a resourceVersion, and stop ends it', async () => {
  const { s, client } = setup();
  const cms = client.resource(CM).namespace('default');
  const first = await cms.create(configMap('w1'));
  const w = await cms.watch({ resourceVersion: first.metadata.resourceVersion });
  const got: WatchEvent[] = [];
  const done = (async () => {
    for await (const ev of w) got.push(ev);
  })();
  await cms.create(configMap('w2'));
  await cms.patch('w2', { data: { k: 'x' } });
  await cms.delete('w2');
  await s.settle();
  w.stop();
  await done;
  assert.deepEqual(
    got.map((e) => `${e.type} ${e.object.metadata.name}`),
    ['ADDED w2', 'MODIFIED w2', 'DELETED w2'],
  );
});

test('a watch from a compacted resourceVersion reports 410 (refused or as an ERROR event)', async () => {
  const s = new TestServer({ historyWindowMs: 1000 });
  const client = new Client({ transport: new InProcessTransport((r) => s.api.handle(r)), qps: -1 });
  const cms = client.resource(CM).namespace('default');
  const a = await cms.create(configMap('a'));
  for (let i = 0; i < 5; i++) await cms.patch('a', { data: { k: String(i) } });
  s.clock.step(5000);
  await cms.patch('a', { data: { k: 'late' } });
  s.storage.compact(s.storage.currentRevision());
  let saw410 = false;
  try {
    const w = await cms.watch({ resourceVersion: a.metadata.resourceVersion });
    const ev = await w.next();
    saw410 = ev?.type === 'ERROR' && ev.object.code === 410;
    w.stop();
  } catch (err) {
    saw410 = isGone(err);
  }
  assert.ok(saw410);
});

test('every request waits for the rate limiter: burst at once, then qps per second', async () => {
  const { s, client } = setup({ qps: 2, burst: 3 });
  const cms = client.resource(CM).namespace('default');
  const finished: number[] = [];
  const start = s.clock.now();
  for (let i = 0; i < 5; i++) void cms.create(configMap(`r${i}`)).then(() => finished.push(s.clock.now() - start));
  await s.settle();
  assert.equal(finished.length, 3);
  s.clock.step(499);
  await s.settle();
  assert.equal(finished.length, 3);
  s.clock.step(1);
  await s.settle();
  assert.equal(finished.length, 4);
  s.clock.step(500);
  await s.settle();
  assert.deepEqual(finished, [0, 0, 0, 500, 1000]);
});

test('error bodies that are not Status still become typed ApiErrors', async () => {
  const transport: Transport = { request: async () => ({ status: 404, headers: {}, body: 'page not found' }) };
  const client = new Client({ transport, qps: -1 });
  await assert.rejects(client.resource(CM).namespace('d').get('x'), (e) => isNotFound(e) && (e as ApiError).message === 'page not found');
});

test('discardResult: a successful write resolves to undefined without decoding; an error still throws its Status', async () => {
  const { client } = setup();
  const cms = client.resource(CM).namespace('default');
  assert.equal(await cms.create(configMap('a', { app: 'x' }), { discardResult: true }), undefined);
  assert.equal((await cms.get('a')).metadata.labels.app, 'x');
  assert.equal(await cms.patch('a', { data: { k: 'w' } }, 'merge', { discardResult: true }), undefined);
  assert.equal((await cms.get('a')).data.k, 'w');
  await assert.rejects(cms.create(configMap('a', { app: 'x' }), { discardResult: true }), (e) => isAlreadyExists(e));
});

test('over an in-process transport, a body holding a managedFields list the server shares sends it uncopied; the server keeps it unchanged', async () => {
  const s = new TestServer({ storage: 'memory' });
  const received: any[] = [];
  // What each request's body holds as managedFields when the server gets it (the server then sets its own).
  const owners: any[] = [];
  const transport = new InProcessTransport((req) => (received.push((req.object as any)?.metadata?.managedFields), owners.push((req.object as any)?.metadata?.ownerReferences), s.api.handle(req)), s.api.isShared);
  const cms = new Client({ transport, userAgent: 'kubelet/v1.27.0' }).resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('default');
  const created = await cms.create({ metadata: { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u-1' }] }, data: { k: 'v' } });
  assert.ok(Object.isFrozen(created.metadata.managedFields), 'the test server froze the shared object');
  const updated = await cms.update({ ...created, metadata: { ...created.metadata }, data: { k: 'w' } });
  assert.equal(received.at(-1), created.metadata.managedFields, 'the shared list went as it is');
  assert.equal(owners.at(-1), created.metadata.ownerReferences, 'and so did the ownerReferences');
  assert.deepEqual(updated.metadata.ownerReferences, created.metadata.ownerReferences);
  // A patch is merged by the server: its body is copied whole.
  await cms.patch('a', { metadata: { ownerReferences: updated.metadata.ownerReferences } }, 'merge');
  assert.notEqual(owners.at(-1), updated.metadata.ownerReferences);
  assert.equal(updated.data.k, 'w');
  assert.equal(created.data.k, 'v', 'what the caller holds is unchanged');
  assert.deepEqual(updated.metadata.managedFields.map((e: any) => [e.manager, Object.keys(e.fieldsV1)]), [['kubelet', ['f:metadata', 'f:data']]]);
  // A list of the caller's own is copied as ever.
  const own = structuredClone(updated.metadata.managedFields);
  await cms.update({ ...updated, metadata: { ...updated.metadata, managedFields: own }, data: { k: 'x' } });
  assert.notEqual(received.at(-1), own);
  assert.deepEqual(received.at(-1), own);
});

test('a request that cannot be made rejects rather than throwing, and writes without parameters share a query no one can change', async () => {
  const seen: URLSearchParams[] = [];
  const s = new TestServer();
  const transport: Transport = { request: (r) => (seen.push(r.query), s.api.handle(r)) };
  const client = new Client({ transport, qps: -1 });
  const unbound = client.resource(CM);
  let pending: Promise<unknown> | undefined;
  assert.doesNotThrow(() => (pending = unbound.get('a')));
  await assert.rejects(pending!, /namespaced/);
  await assert.rejects(unbound.patch('a', {}), /namespaced/);
  await assert.rejects(client.resource(CM).namespace('default').patch('a', {}, 'bogus' as never), /unknown patch type/);

  const cms = client.resource(CM).namespace('default');
  const a = await cms.create(configMap('a', {}));
  await cms.update({ ...a, data: { k: 'w' } });
  await cms.update({ ...a, metadata: { ...a.metadata, resourceVersion: undefined } }, { fieldManager: 'me' });
  assert.equal(seen.length, 3);
  assert.equal(seen[0], seen[1]);
  assert.equal(seen[2].get('fieldManager'), 'me');
  assert.throws(() => seen[0].set('dryRun', 'All'), TypeError);
  assert.equal(seen[0].toString(), '');
});

test('a body handed over reaches an in-process server as it is; any other is copied', async () => {
  const bodies: unknown[] = [];
  const s = new TestServer();
  const transport: Transport = { decodedBodies: true, decodedResponses: true, request: (r) => (bodies.push(r.object), s.api.handle(r)) };
  const cms = new Client({ transport, qps: -1 }).resource(CM).namespace('default');
  const copied = configMap('a', {});
  await cms.create(copied);
  assert.notEqual(bodies[0], copied);
  assert.deepEqual(bodies[0] && (bodies[0] as any).data, copied.data);
  const handed = configMap('b', {});
  const created = await cms.create(handed, { handOver: true });
  assert.equal(bodies[1], handed);
  assert.equal(created.metadata.name, 'b');
});
