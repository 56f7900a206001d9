import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { FIELD_PATH_SEP, fieldLeaves, fieldsV1Of, fieldsV1Paths, leafChanges, updateManagedFields, type ManagedFieldsEntry } from './managedfields.ts';
import { K8S_API_DIR, typeModel } from './typemodel.ts';
import { TestServer, pod as podObject } from './testing.ts';

const POD = 'k8s.io.api.core.v1.Pod';

function pod(status: Record<string, unknown>, managedFields: ManagedFieldsEntry[]): Record<string, any> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields }, spec: { nodeName: 'n1' }, status };
}

const creator: ManagedFieldsEntry = { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:nodeName': {} }, 'f:status': { 'f:qosClass': {} } } };
const kubelet: ManagedFieldsEntry = { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:01Z', fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {}, 'f:podIP': {} } } };

describe('updateManagedFields on a status update', () => {
  it('keeps the field set of a manager that already owns every changed field, with the new time', () => {
    const old = pod({ phase: 'Pending', podIP: '10.0.0.1', qosClass: 'BestEffort' }, [creator, kubelet]);
    const obj = pod({ phase: 'Running', podIP: '10.0.0.2', qosClass: 'BestEffort' }, [creator, kubelet]);
    const out = updateManagedFields({ old, obj, manager: 'kubelet', apiVersion: 'v1', time: '2026-01-01T00:00:09Z', messageName: POD, subresource: 'status' });
    assert.deepEqual(out, [creator, { ...kubelet, time: '2026-01-01T00:00:09Z' }]);
  });

  it('moves a changed field from its owner to the updater and drops an emptied entry', () => {
    const old = pod({ phase: 'Pending', qosClass: 'BestEffort' }, [creator, kubelet]);
    const obj = pod({ phase: 'Pending', qosClass: 'Burstable', hostIP: '10.1.0.1' }, [creator, kubelet]);
    const out = updateManagedFields({ old, obj, manager: 'kubelet', apiVersion: 'v1', time: 't2', messageName: POD, subresource: 'status' });
    assert.deepEqual(out, [
      { ...creator, fieldsV1: { 'f:spec': { 'f:nodeName': {} } } },
      { ...kubelet, time: 't2', fieldsV1: { 'f:status': { 'f:phase': {}, 'f:podIP': {}, 'f:qosClass': {}, 'f:hostIP': {} } } },
    ]);
    const onlyStatus: ManagedFieldsEntry = { ...creator, manager: 'other', fieldsV1: { 'f:status': { 'f:qosClass': {} } } };
    const again = updateManagedFields({ old: pod({ qosClass: 'BestEffort' }, [onlyStatus]), obj: pod({ qosClass: 'Guaranteed' }, [onlyStatus]), manager: 'kubelet', apiVersion: 'v1', time: 't3', messageName: POD, subresource: 'status' });
    assert.deepEqual(again.map((e) => e.manager), ['kubelet']);
  });

  it('removes a field the updater deleted from its own set', () => {
    const old = pod({ phase: 'Pending', podIP: '10.0.0.1' }, [kubelet]);
    const obj = pod({ phase: 'Pending' }, [kubelet]);
    const out = updateManagedFields({ old, obj, manager: 'kubelet', apiVersion: 'v1', time: 't4', messageName: POD, subresource: 'status' });
    assert.deepEqual(out, [{ ...kubelet, time: 't4', fieldsV1: { 'f:status': { 'f:phase': {} } } }]);
  });
});

describe('leafChanges equals diffing the full leaf maps', () => {
  const base = () => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', resourceVersion: '7', labels: { app: 'a', tier: 'web' }, annotations: { note: 'x' }, managedFields: [kubelet] },
    spec: {
      nodeName: 'n1',
      containers: [
        { name: 'app', image: 'img:1', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { requests: { cpu: '100m' } } },
        { name: 'side', image: 'side:1' },
      ],
      volumes: [{ name: 'v', emptyDir: {} }],
      nodeSelector: { disk: 'ssd' },
    },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
  });
  const cases: [string, (p: any) => void][] = [
    ['a scalar', (p) => (p.spec.nodeName = 'n2')],
    ['a label added and one removed', (p) => { p.metadata.labels.new = 'y'; delete p.metadata.labels.tier; }],
    ['a keyed list item changed', (p) => (p.spec.containers[1].image = 'side:2')],
    ['a keyed list item removed', (p) => p.spec.containers.pop()],
    ['keyed list items reordered', (p) => p.spec.containers.reverse()],
    ['an empty struct replaced', (p) => (p.spec.volumes[0] = { name: 'v', hostPath: { path: '/x' } })],
    ['a nested struct emptied', (p) => (p.spec.containers[0].resources = {})],
    ['a map removed entirely', (p) => delete p.spec.nodeSelector],
    ['system metadata only', (p) => { p.metadata.resourceVersion = '8'; p.metadata.managedFields = []; }],
    ['a status condition', (p) => (p.status.conditions[0].status = 'True')],
    ['status phase and new field', (p) => { p.status.phase = 'Running'; p.status.podIP = '10.0.0.1'; }],
  ];
  for (const scope of ['main', 'status'] as const) {
    for (const [title, mutate] of cases) {
      it(`${title} (${scope})`, () => {
        const old = base();
        const obj = base();
        mutate(obj);
        const before = fieldLeaves(old, POD, scope);
        const after = fieldLeaves(obj, POD, scope);
        const changed = [...after].filter(([k, v]) => before.get(k) !== v).map(([k]) => k).sort();
        const removed = [...before.keys()].filter((k) => !after.has(k)).sort();
        const got = leafChanges(old, obj, POD, scope);
        assert.deepEqual([...got.changed].sort(), changed);
        assert.deepEqual([...got.removed].sort(), removed);
      });
    }
  }
});

describe('fieldsV1Of', () => {
  it('builds the tree of any set of leaf paths, in any order (inverse of fieldsV1Paths)', () => {
    const j = (...segs: string[]) => segs.join(FIELD_PATH_SEP);
    const leaves = [
      j('f:spec', 'f:containers', 'k:{"name":"a"}', 'f:image'),
      j('f:metadata', 'f:labels', 'f:app'),
      j('f:spec', 'f:containers', 'k:{"name":"a"}', '.'),
      j('f:spec', 'f:nodeName'),
      j('f:metadata', 'f:labels', '.'),
      j('f:spec', 'f:containers', 'k:{"name":"b"}', 'f:image'),
      j('f:status', 'f:phase'),
    ];
    for (const order of [leaves, [...leaves].reverse(), [...leaves].sort()]) {
      assert.deepEqual([...fieldsV1Paths(fieldsV1Of(order))].sort(), [...leaves].sort());
    }
    assert.deepEqual(fieldsV1Of([j('f:a', 'f:b'), j('f:a'), j('f:a', 'f:c')]), { 'f:a': { 'f:b': {}, 'f:c': {} } });
  });
});

/** Kubernetes' round-trip fixtures (one object of every kind, every field set), with their message names. */
function fixtures(): { base: string; obj: Record<string, any>; messageName: string | undefined }[] {
  const dir = new URL('testdata-v1.27/', K8S_API_DIR);
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const base = f.slice(0, -'.json'.length);
    const [kind, version, ...rest] = base.split('.').reverse();
    const group = rest.reverse().join('.');
    const candidates = [`k8s.io.api.${group.split('.')[0]}.${version}.${kind}`, `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`];
    const messageName = candidates.find((n) => typeModel().has(n));
    return { base, obj: JSON.parse(readFileSync(new URL(f, dir), 'utf8')), messageName };
  });
}

/** The fieldsV1 a create by `m` records. */
function created(obj: Record<string, any>, messageName: string | undefined, subresource?: string): Record<string, unknown> {
  const out = updateManagedFields({ old: undefined, obj, manager: 'm', apiVersion: 'v1', time: 't', messageName, subresource });
  assert.equal(out.length, 1);
  return out[0].fieldsV1;
}

describe('the field set of a create', () => {
  const small = () => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'web' } },
    spec: {
      containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }] }],
      volumes: [{ name: 'tmp', emptyDir: {} }],
      nodeSelector: { disk: 'ssd' },
      restartPolicy: 'Always',
    },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
  });

  it('has the FieldsV1 shape Kubernetes documents for a small Pod', () => {
    // Maps carry `.` and `f:` per key; keyed list items are `k:` + the JSON of their merge keys,
    // with `.`; an empty struct and an atomic map are leaves; server-set metadata and status
    // (for the main resource) are no fields.
    const item = (...fields: string[]) => Object.fromEntries(['.', ...fields].map((f) => [f, {}]));
    assert.deepEqual(created(small(), POD), {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"app"}': {
            ...item('f:name', 'f:image'),
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': item('f:containerPort', 'f:protocol') },
            'f:env': { 'k:{"name":"A"}': item('f:name', 'f:value') },
          },
        },
        'f:volumes': { 'k:{"name":"tmp"}': item('f:name', 'f:emptyDir') },
        'f:nodeSelector': {},
        'f:restartPolicy': {},
      },
    });
    assert.deepEqual(created(small(), POD, 'status'), { 'f:status': { 'f:phase': {}, 'f:conditions': { 'k:{"type":"Ready"}': item('f:type', 'f:status') } } });
  });

  it('leaves out members that hold no field, and empty lists', () => {
    const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: undefined, finalizers: [] }, spec: { containers: [], nodeName: undefined, hostname: 'h' } };
    assert.deepEqual(created(obj, POD), { 'f:spec': { 'f:hostname': {} } });
    assert.deepEqual(created({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, POD), {});
  });

  it('merges list items with the same key into one, as their leaf paths do', () => {
    const obj = { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'a', resources: {} }, 'x', { name: 'a', image: 'i', resources: { limits: { cpu: '1' } } }, {}] } };
    const tree = created(obj, POD);
    assert.equal(JSON.stringify(tree), JSON.stringify(fieldsV1Of(fieldLeaves(obj, POD, 'main').keys())));
    assert.deepEqual(tree, {
      'f:spec': {
        'f:containers': {
          'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:resources': { 'f:limits': { '.': {}, 'f:cpu': {} } }, 'f:image': {} },
          'k:{}': { '.': {} },
        },
      },
    });
  });

  it('is fieldsV1Of its leaf paths, key order included, for every Kubernetes fixture', () => {
    const all = fixtures();
    assert.ok(all.length > 100 && all.filter((f) => f.messageName).length > 100);
    for (const { base, obj, messageName } of all) {
      for (const name of [messageName, undefined]) {
        for (const [scope, subresource] of [['main', undefined], ['status', 'status']] as const) {
          const want = fieldsV1Of(fieldLeaves(obj, name, scope).keys());
          const got = created(obj, name, subresource);
          assert.deepEqual(got, want, `${base} (${name}, ${scope})`);
          assert.equal(JSON.stringify(got), JSON.stringify(want), `${base} (${name}, ${scope}): key order`);
        }
      }
    }
  });
});

/** A deterministic edit of roughly a third of an object's leaves (JSON values only). */
function edit(value: unknown, n = { i: 0 }): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => edit(v, n));
    return n.i++ % 4 === 0 ? items.reverse() : items;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const i = n.i++;
      if (k === 'managedFields' || i % 7 === 3) continue;
      out[k] = i % 11 === 5 ? {} : edit(v, n);
    }
    if (n.i++ % 5 === 0) out.addedByEdit = 'x';
    return out;
  }
  const i = n.i++;
  if (i % 3 !== 0) return value;
  if (typeof value === 'string') return `${value}-edited`;
  if (typeof value === 'number') return value + 1;
  return typeof value === 'boolean' ? !value : value;
}

describe('leafChanges on every Kubernetes fixture', () => {
  it('equals diffing the full leaf maps, with changed leaves in the order of the new object', () => {
    for (const { base, obj, messageName } of fixtures()) {
      const next = edit(obj) as Record<string, unknown>;
      for (const scope of ['main', 'status'] as const) {
        const before = fieldLeaves(obj, messageName, scope);
        const after = fieldLeaves(next, messageName, scope);
        const got = leafChanges(obj, next, messageName, scope);
        assert.deepEqual([...got.changed], [...after].filter(([k, v]) => before.get(k) !== v).map(([k]) => k), `${base} (${scope})`);
        assert.deepEqual([...got.removed].sort(), [...before.keys()].filter((k) => !after.has(k)).sort(), `${base} (${scope})`);
      }
    }
  });

  it('sees a keyed list item whose struct became empty, though deepEqual calls the items equal', () => {
    const mk = (resources: unknown, image: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', resources }, { name: 'b', image }] } });
    const item = (name: string, field: string) => ['f:spec', 'f:containers', `k:{"name":"${name}"}`, field].join(FIELD_PATH_SEP);
    const got = leafChanges(mk({ limits: undefined }, 'x:1'), mk({}, 'x:2'), POD, 'main');
    assert.deepEqual([...got.changed], [item('a', 'f:resources'), item('b', 'f:image')]);
    assert.deepEqual([...got.removed], []);
  });

  it('compares atomic lists as their JSON does (NaN is null there)', () => {
    const mk = (args: unknown[]) => ({ apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'a', args }] } });
    const argsPath = ['f:spec', 'f:containers', 'k:{"name":"a"}', 'f:args'].join(FIELD_PATH_SEP);
    assert.deepEqual([...leafChanges(mk([NaN]), mk([null]), POD, 'main').changed], []);
    assert.deepEqual([...leafChanges(mk(['1']), mk([1]), POD, 'main').changed], [argsPath]);
    assert.deepEqual([...leafChanges(mk([{ a: 1, b: 2 }]), mk([{ b: 2, a: 1 }]), POD, 'main').changed], []);
  });
});

describe('managedFields a client edits or resets (non-apply writes)', () => {
  const CMS = '/api/v1/namespaces/default/configmaps';
  const merge = { 'content-type': 'application/merge-patch+json' };
  const setup = async () => {
    const s = new TestServer();
    await s.request('POST', `${CMS}?fieldManager=creator`, { metadata: { name: 'a', labels: { app: 'x' } }, data: { k: 'v' } });
    const patched = await s.request('PATCH', `${CMS}/a?fieldManager=editor`, { data: { k: 'w' } }, merge);
    assert.deepEqual(patched.body.metadata.managedFields.map((e: any) => e.manager), ['creator', 'editor']);
    return { s, live: patched.body };
  };

  it('a list of one empty entry strips them all, and the write takes a new resourceVersion', async () => {
    const { s, live } = await setup();
    const reset = await s.request('PATCH', `${CMS}/a?fieldManager=resetter`, { metadata: { managedFields: [{}] } }, merge);
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal(reset.body.metadata.managedFields, undefined);
    assert.ok(Number(reset.body.metadata.resourceVersion) > Number(live.metadata.resourceVersion));
    assert.equal((await s.request('GET', `${CMS}/a`)).body.metadata.managedFields, undefined);
  });

  it('with other changes the reset comes first: the writer then owns only what it changed', async () => {
    const { s } = await setup();
    const reset = await s.request('PATCH', `${CMS}/a?fieldManager=resetter`, { metadata: { managedFields: [{}], labels: { tier: 'web' } } }, merge);
    assert.deepEqual(reset.body.metadata.managedFields.map((e: any) => [e.manager, e.operation]), [['resetter', 'Update']]);
    assert.deepEqual(reset.body.metadata.managedFields[0].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:tier': {} } } });
  });

  it('an empty list does not reset them, and neither does sending the live list back', async () => {
    const { s, live } = await setup();
    const empty = await s.request('PATCH', `${CMS}/a?fieldManager=other`, { metadata: { managedFields: [] } }, merge);
    assert.deepEqual(empty.body.metadata.managedFields, live.metadata.managedFields);
    assert.equal(empty.body.metadata.resourceVersion, live.metadata.resourceVersion, 'nothing changed: no write');
    const same = await s.request('PUT', `${CMS}/a?fieldManager=other`, live);
    assert.equal(same.body.metadata.resourceVersion, live.metadata.resourceVersion);
  });

  it('an edited list is kept: a PUT that drops an entry drops it', async () => {
    const { s, live } = await setup();
    const edited = { ...live, metadata: { ...live.metadata, managedFields: live.metadata.managedFields.filter((e: any) => e.manager !== 'editor') } };
    const put = await s.request('PUT', `${CMS}/a?fieldManager=other`, edited);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body.metadata.managedFields.map((e: any) => e.manager), ['creator']);
    assert.ok(Number(put.body.metadata.resourceVersion) > Number(live.metadata.resourceVersion));
  });

  it('a subresource write ignores the list it is sent', async () => {
    const s = new TestServer();
    await s.request('POST', '/api/v1/namespaces/default/pods', podObject('p'));
    const live = (await s.request('GET', '/api/v1/namespaces/default/pods/p')).body;
    const res = await s.request('PATCH', '/api/v1/namespaces/default/pods/p/status?fieldManager=kubelet', { metadata: { managedFields: [{}] }, status: { phase: 'Running' } }, merge);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.metadata.managedFields.slice(0, live.metadata.managedFields.length), live.metadata.managedFields.map((e: any) => ({ ...e })));
    assert.equal(res.body.metadata.managedFields.at(-1).manager, 'kubelet');
  });
});
