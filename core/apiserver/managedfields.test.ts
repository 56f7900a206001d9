import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { updateManagedFields, type ManagedFieldsEntry } from './managedfields.ts';

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
