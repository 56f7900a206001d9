import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingTransport, TestServer, configMap } from '../apiserver/testing.ts';
import { Client } from './client.ts';
import { Indexer, Informer, SharedInformerFactory } from './informer.ts';
import { InProcessTransport } from './transport.ts';

const CM = { group: '', version: 'v1', resource: 'configmaps' };

function setup(historyWindowMs?: number) {
  const s = new TestServer({ historyWindowMs });
  const { transport, requests } = recordingTransport(s);
  const client = new Client({
    transport,
    qps: -1,
  });
  return { s, client, requests, cms: client.resource(CM).namespace('default') };
}

function recorder() {
  const events: string[] = [];
  return {
    events,
    handler: {
      onAdd: (o: any) => events.push(`add ${o.metadata.name}`),
      onUpdate: (a: any, b: any) => events.push(`update ${b.metadata.name} ${a.data?.k}->${b.data?.k}`),
      onDelete: (o: any) => events.push(`delete ${o.metadata.name}`),
    },
  };
}

test('lists, then watches from the list resourceVersion with bookmarks; handles MODIFIED and DELETED', async () => {
  const { s, client, requests, cms } = setup();
  await cms.create(configMap('a'));
  await cms.create(configMap('b'));
  const inf = new Informer(client.resource(CM), { clock: s.clock });
  const rec = recorder();
  inf.addEventHandler(rec.handler);
  assert.equal(inf.hasSynced(), false);
  inf.start();
  await inf.waitForSync();
  assert.equal(inf.hasSynced(), true);
  assert.deepEqual(rec.events, ['add a', 'add b']);
  await s.settle();
  const watchReq = requests.find((r) => r.query.get('watch') === 'true')!;
  assert.equal(watchReq.query.get('allowWatchBookmarks'), 'true');
  const listRv = requests.find((r) => r.query.get('watch') === null && r.method === 'GET')!;
  assert.ok(listRv);
  assert.equal(watchReq.query.get('resourceVersion'), inf.lastSyncResourceVersion());

  await cms.patch('a', { data: { k: 'v2' } });
  await cms.delete('b');
  await cms.create(configMap('c'));
  await s.settle();
  assert.deepEqual(rec.events.slice(2), ['update a v->v2', 'delete b', 'add c']);
  assert.deepEqual(inf.store.listKeys(), ['default/a', 'default/c']);
  assert.equal(inf.store.get('default', 'a').data.k, 'v2');
  await inf.stop();
});

test('bookmarks advance the resourceVersion; a watch that ends is resumed from the last one', async () => {
  const { s, client, requests, cms } = setup();
  const inf = new Informer(client.resource(CM), { clock: s.clock, watchTimeoutSeconds: 5, labelSelector: 'app in (x,z)' });
  inf.start();
  await inf.waitForSync();
  await s.settle();
  // A change the selector filters out: only a bookmark can tell the informer about its revision.
  await cms.create(configMap('unlabelled'));
  await s.settle();
  const rvBefore = Number(inf.lastSyncResourceVersion());
  s.clock.step(1500);
  await s.settle();
  const afterBookmark = Number(inf.lastSyncResourceVersion());
  assert.ok(afterBookmark > rvBefore, `bookmark should advance ${rvBefore} -> ${afterBookmark}`);
  s.clock.step(5000);
  await s.settle();
  const watches = requests.filter((r) => r.query.get('watch') === 'true');
  assert.ok(watches.length >= 2);
  assert.equal(watches.at(-1)!.query.get('resourceVersion'), inf.lastSyncResourceVersion());
  assert.equal(inf.lists, 1);
  await cms.create(configMap('after', { app: 'x' }));
  await s.settle();
  assert.deepEqual(inf.store.listKeys(), ['default/after']);
  await inf.stop();
});

test('recovers from 410 after compaction by relisting, ending with a correct cache', async () => {
  const s = new TestServer({ historyWindowMs: 1000 });
  // A transport that can drop the open watches and hold new requests, as a network partition would.
  const ends: (() => void)[] = [];
  let held: (() => void)[] | undefined;
  const transport = new InProcessTransport(async (r) => {
    if (held) await new Promise<void>((resolve) => held!.push(resolve));
    const res = await s.api.handle(r);
    const stream = res.stream;
    if (stream) {
      res.stream = {
        start: (write, end) => {
          ends.push(() => {
            stream.cancel();
            end();
          });
          stream.start(write, end);
        },
        resume: () => stream.resume(),
        cancel: () => stream.cancel(),
      };
    }
    return res;
  });
  const client = new Client({ transport, qps: -1 });
  const cms = client.resource(CM).namespace('default');
  await cms.create(configMap('keep'));
  await cms.create(configMap('gone'));
  const inf = new Informer(client.resource(CM), { clock: s.clock });
  const rec = recorder();
  inf.addEventHandler(rec.handler);
  inf.start();
  await inf.waitForSync();
  await s.settle();
  rec.events.length = 0;

  held = [];
  for (const end of ends.splice(0)) end();
  await s.settle();
  const writer = new Client({ transport: new InProcessTransport((r) => s.api.handle(r)), qps: -1 }).resource(CM).namespace('default');
  await writer.patch('keep', { data: { k: 'v2' } });
  await writer.delete('gone');
  await writer.create(configMap('new'));
  s.clock.step(5000);
  await writer.patch('new', { data: { k: 'n2' } });
  s.storage.compact(s.storage.currentRevision());
  const release = held;
  held = undefined;
  for (const r of release) r();
  for (let i = 0; i < 4; i++) await s.settle();

  assert.equal(inf.lists, 2);
  assert.deepEqual(inf.store.listKeys(), ['default/keep', 'default/new']);
  assert.equal(inf.store.get('default', 'keep').data.k, 'v2');
  assert.equal(inf.store.get('default', 'new').data.k, 'n2');
  assert.deepEqual(rec.events.sort(), ['add new', 'delete gone', 'update keep v->v2']);
  await writer.patch('keep', { data: { k: 'v3' } });
  await s.settle();
  assert.equal(inf.store.get('default', 'keep').data.k, 'v3');
  await inf.stop();
});

test('resync re-delivers every cached object as an update on the clock', async () => {
  const { s, client, cms } = setup();
  await cms.create(configMap('a'));
  const inf = new Informer(client.resource(CM), { clock: s.clock, resyncPeriodMs: 30_000 });
  const rec = recorder();
  inf.addEventHandler(rec.handler);
  inf.start();
  await inf.waitForSync();
  await s.settle();
  s.clock.step(29_999);
  await s.settle();
  assert.deepEqual(rec.events, ['add a']);
  s.clock.step(1);
  await s.settle();
  assert.deepEqual(rec.events, ['add a', 'update a v->v']);
  await inf.stop();
});

test('indexer: by namespace and custom indexers, kept up to date on change', () => {
  const ix = new Indexer({ byApp: (o: any) => (o.metadata.labels?.app ? [o.metadata.labels.app] : []) });
  ix.upsert({ metadata: { namespace: 'n1', name: 'a', labels: { app: 'web' } } });
  ix.upsert({ metadata: { namespace: 'n2', name: 'b', labels: { app: 'web' } } });
  ix.upsert({ metadata: { namespace: 'n1', name: 'c' } });
  assert.deepEqual(ix.listByNamespace('n1').map((o: any) => o.metadata.name), ['a', 'c']);
  assert.deepEqual(ix.byIndex('byApp', 'web').map((o: any) => o.metadata.name), ['a', 'b']);
  ix.upsert({ metadata: { namespace: 'n2', name: 'b', labels: { app: 'db' } } });
  assert.deepEqual(ix.byIndex('byApp', 'web').map((o: any) => o.metadata.name), ['a']);
  ix.deleteKey('n1/a');
  assert.deepEqual(ix.byIndex('byApp', 'web'), []);
  ix.addIndexers({ byName: (o: any) => [o.metadata.name] });
  assert.equal(ix.byIndex('byName', 'c').length, 1);
  assert.throws(() => ix.byIndex('nope', 'x'), /does not exist/);
  assert.throws(() => ix.addIndexers({ byApp: () => [] }), /conflict/);
});

test('shared informer factory: one list and one watch per resource for all components', async () => {
  const { s, client, requests, cms } = setup();
  await cms.create(configMap('a'));
  const f = new SharedInformerFactory(client, { clock: s.clock });
  const one = f.informerFor(CM);
  const two = f.informerFor(CM);
  assert.equal(one, two);
  f.informerFor({ group: '', version: 'v1', resource: 'secrets' });
  const r1 = recorder();
  one.addEventHandler(r1.handler);
  f.start();
  await f.waitForCacheSync();
  await s.settle();
  const r2 = recorder();
  two.addEventHandler(r2.handler);
  assert.deepEqual(r2.events, ['add a']);
  const cmReqs = requests.filter((r) => r.method === 'GET' && r.path.endsWith('/configmaps'));
  assert.equal(cmReqs.filter((r) => r.query.get('watch') === 'true').length, 1);
  assert.equal(cmReqs.filter((r) => r.query.get('watch') !== 'true').length, 1);
  await f.shutdown();
});
