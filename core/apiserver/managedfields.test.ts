import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FIELD_PATH_SEP, fieldLeaves, fieldsV1Of, fieldsV1Paths, leafChanges, updateManagedFields, type ManagedFieldsEntry } from './managedfields.ts';

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
