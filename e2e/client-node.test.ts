// @kubernetes/client-node against one in-process orrery server: typed CRUD with Kubernetes errors,
// and an informer (makeInformer) that lists, follows add/update/delete, resumes from its
// resourceVersion after a reconnect, and relists when that version has been compacted (410 Gone).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, type RunningServer } from '../core/apiserver/serve.ts';
import { eventually, loadClientNode, makeTempDir, readKubeconfig, removeTempDir, request } from './harness.ts';

type K8s = typeof import('@kubernetes/client-node');

let server: RunningServer | undefined;
let workDir = '';
let k8s: K8s;
let kc: InstanceType<K8s['KubeConfig']>;
let core: InstanceType<K8s['CoreV1Api']>;

before(async () => {
  k8s = await loadClientNode();
  workDir = makeTempDir('client-node');
  server = await serve({ dataDir: join(workDir, 'data'), securePort: 0, bindAddress: '127.0.0.1', log: () => {} });
  kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  core = kc.makeApiClient(k8s.CoreV1Api);
});

after(async () => {
  await server?.stop();
  removeTempDir(workDir);
});

async function apiError(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await p;
  } catch (e: any) {
    const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
    return { code: e.code, body };
  }
  throw new Error('expected the call to fail');
}

const cm = (name: string, data: Record<string, string>, resourceVersion?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: resourceVersion ? { name, resourceVersion } : { name },
  data,
});

describe('@kubernetes/client-node', { concurrency: 1 }, () => {
  it('creates, reads, lists, patches and replaces with Kubernetes errors', async () => {
    const ns = await core.createNamespace({ body: { metadata: { name: 'typed' } } });
    assert.equal(ns.metadata?.name, 'typed');
    assert.equal(ns.status?.phase, 'Active');

    const created = await core.createNamespacedConfigMap({ namespace: 'typed', body: cm('one', { a: '1' }) });
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.ok(created.metadata?.uid);
    assert.ok(created.metadata?.creationTimestamp instanceof Date, 'creationTimestamp deserializes to a Date');

    const dup = await apiError(core.createNamespacedConfigMap({ namespace: 'typed', body: cm('one', { a: '1' }) }));
    assert.equal(dup.code, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
    assert.deepEqual(dup.body.details, { name: 'one', kind: 'configmaps' });

    const missing = await apiError(core.readNamespacedConfigMap({ namespace: 'typed', name: 'nope' }));
    assert.equal(missing.code, 404);
    assert.equal(missing.body.reason, 'NotFound');
    assert.equal(missing.body.message, 'configmaps "nope" not found');

    const read = await core.readNamespacedConfigMap({ namespace: 'typed', name: 'one' });
    assert.deepEqual(read.data, { a: '1' });

    const list = await core.listNamespacedConfigMap({ namespace: 'typed' });
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['one']);
    assert.ok(Number(list.metadata?.resourceVersion) >= Number(created.metadata!.resourceVersion));

    const patched = await core.patchNamespacedConfigMap(
      { namespace: 'typed', name: 'one', body: { data: { b: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(patched.data, { a: '1', b: '2' });

    const replaced = await core.replaceNamespacedConfigMap({ namespace: 'typed', name: 'one', body: cm('one', { c: '3' }, patched.metadata!.resourceVersion) });
    assert.deepEqual(replaced.data, { c: '3' });
    assert.ok(Number(replaced.metadata!.resourceVersion) > Number(patched.metadata!.resourceVersion));

    const stale = await apiError(core.replaceNamespacedConfigMap({ namespace: 'typed', name: 'one', body: cm('one', { d: '4' }, patched.metadata!.resourceVersion) }));
    assert.equal(stale.code, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.match(stale.body.message, /the object has been modified; please apply your changes to the latest version and try again/);

    await core.deleteNamespacedConfigMap({ namespace: 'typed', name: 'one' });
    assert.equal((await apiError(core.readNamespacedConfigMap({ namespace: 'typed', name: 'one' }))).code, 404);
  });

  it('an informer lists, follows events, resumes after a reconnect and relists after 410 Gone', async () => {
    const namespace = 'informer';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedConfigMap({ namespace, body: cm('pre-1', { v: '1' }) });
    await core.createNamespacedConfigMap({ namespace, body: cm('pre-2', { v: '1' }) });
    // Noise elsewhere, so the informer's namespace is not the only thing moving the revision.
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('noise-0', {}) });

    let listCalls = 0;
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => {
      listCalls++;
      return core.listNamespacedConfigMap({ namespace });
    });
    const events: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => events.push(`add ${o.metadata!.name} ${JSON.stringify(o.data ?? {})}`));
    informer.on('update', (o) => events.push(`update ${o.metadata!.name} ${JSON.stringify(o.data ?? {})}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    const cache = () =>
      informer
        .list()
        .map((o) => `${o.metadata!.name}=${o.data?.v}`)
        .sort()
        .join(',');
    const until = (what: string, pred: () => boolean) => eventually(what, pred, 10_000);

    try {
      await informer.start();
      await until('the initial list', () => cache() === 'pre-1=1,pre-2=1');
      assert.equal(listCalls, 1);
      assert.deepEqual(events.splice(0).sort(), ['add pre-1 {"v":"1"}', 'add pre-2 {"v":"1"}']);

      await core.createNamespacedConfigMap({ namespace, body: cm('live-1', { v: '1' }) });
      await until('add live-1', () => events.includes('add live-1 {"v":"1"}'));
      await core.patchNamespacedConfigMap({ namespace, name: 'pre-1', body: { data: { v: '2' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await until('update pre-1', () => events.includes('update pre-1 {"v":"2"}'));
      await core.deleteNamespacedConfigMap({ namespace, name: 'pre-2' });
      await until('delete pre-2', () => events.includes('delete pre-2'));
      assert.equal(cache(), 'live-1=1,pre-1=2');
      assert.deepEqual(events.splice(0), ['add live-1 {"v":"1"}', 'update pre-1 {"v":"2"}', 'delete pre-2']);
      assert.equal(listCalls, 1, 'events came from the watch, not from relists');

      // Reconnect within the history window: the watch resumes from the last resourceVersion and
      // replays what was missed; no relist.
      await informer.stop();
      await core.createNamespacedConfigMap({ namespace, body: cm('gap-1', { v: '1' }) });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('noise-1', {}) });
      await informer.start();
      await until('add gap-1 replayed by the resumed watch', () => events.includes('add gap-1 {"v":"1"}'));
      assert.equal(listCalls, 1, 'a resumed watch needs no relist');
      assert.equal(cache(), 'gap-1=1,live-1=1,pre-1=2');
      events.length = 0;

      // Reconnect after compaction: the watch from the old resourceVersion gets 410 Gone and the
      // informer relists; the relist must bring adds, updates and deletes it missed.
      await informer.stop();
      await core.createNamespacedConfigMap({ namespace, body: cm('gap-2', { v: '1' }) });
      await core.replaceNamespacedConfigMap({ namespace, name: 'live-1', body: cm('live-1', { v: '5' }) });
      await core.deleteNamespacedConfigMap({ namespace, name: 'pre-1' });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('noise-2', {}) });
      const storage = server!.api.registry.storage;
      storage.compact(storage.currentRevision());
      errors.length = 0;
      await informer.start();
      await until('the relist after 410', () => listCalls === 2 && cache() === 'gap-1=1,gap-2=1,live-1=5');
      assert.deepEqual(events.slice().sort(), ['add gap-2 {"v":"1"}', 'delete pre-1', 'update live-1 {"v":"5"}']);
      assert.deepEqual(errors, [], 'a 410 is handled by relisting, not reported as an error');

      // The relisted informer keeps following the watch.
      events.length = 0;
      await core.createNamespacedConfigMap({ namespace, body: cm('after-1', { v: '1' }) });
      await until('add after-1 after the relist', () => events.includes('add after-1 {"v":"1"}'));
      assert.equal(cache(), 'after-1=1,gap-1=1,gap-2=1,live-1=5');
    } finally {
      await informer.stop();
    }
  });

  it('a watch from a compacted resourceVersion is answered with 410 Expired', async () => {
    const access = readKubeconfig(server!.kubeconfigPath);
    const first = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('old-rv', {}) });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('new-rv', {}) });
    const storage = server!.api.registry.storage;
    storage.compact(storage.currentRevision());
    const rv = first.metadata!.resourceVersion!;
    const r = await request(access, 'GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    if (r.status === 200) {
      const ev = JSON.parse(r.text.split('\n')[0]!);
      assert.equal(ev.type, 'ERROR');
      assert.equal(ev.object.kind, 'Status');
      assert.equal(ev.object.code, 410);
      assert.equal(ev.object.reason, 'Expired');
      assert.match(ev.object.message, /too old resource version/);
    } else {
      assert.equal(r.status, 410, r.text);
      assert.equal(r.body.reason, 'Expired');
    }
    const exact = await request(access, 'GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 410, exact.text);
    assert.equal(exact.body.reason, 'Expired');
  });
});
