import { test } from 'node:test';
import assert from 'node:assert/strict';
import { declaredPatchMeta, inlinedFields, isStringListMessage, jsonFields, patchMetaFor, patchMetaFields, structTypeOf } from './patchmeta.ts';
import { typeModel } from './typemodel.ts';

const CORE = 'k8s.io.api.core.v1.';

test('well-known strategic merge tags of Kubernetes 1.27', () => {
  assert.deepEqual(patchMetaFor(`${CORE}PodSpec`, 'containers'), { strategy: 'merge', mergeKey: 'name' });
  assert.deepEqual(patchMetaFor(`${CORE}PodSpec`, 'volumes'), { strategy: 'merge,retainKeys', mergeKey: 'name' });
  assert.equal(patchMetaFor(`${CORE}PodSpec`, 'tolerations'), undefined);
  assert.equal(patchMetaFor(`${CORE}Container`, 'ports')?.mergeKey, 'containerPort');
  assert.deepEqual(patchMetaFor(`${CORE}Container`, 'ports')?.listMapKeys, ['containerPort', 'protocol']);
  assert.equal(patchMetaFor(`${CORE}Container`, 'volumeMounts')?.mergeKey, 'mountPath');
  assert.equal(patchMetaFor(`${CORE}Container`, 'resizePolicy')?.listType, 'atomic');
  assert.equal(patchMetaFor(`${CORE}PodStatus`, 'conditions')?.mergeKey, 'type');
  assert.equal(patchMetaFor(`${CORE}NodeStatus`, 'addresses')?.mergeKey, 'type');
  assert.deepEqual(patchMetaFor('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'finalizers'), { strategy: 'merge' });
  assert.equal(patchMetaFor('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'ownerReferences')?.mergeKey, 'uid');
  assert.equal(patchMetaFor(`${CORE}ServiceSpec`, 'ports')?.mergeKey, 'port');
  assert.equal(patchMetaFor(`${CORE}ServiceSpec`, 'selector')?.mapType, 'atomic');
  assert.equal(patchMetaFor('k8s.io.api.apps.v1.DeploymentSpec', 'strategy')?.strategy, 'retainKeys');
  assert.equal(patchMetaFor('k8s.io.api.apps.v1.DeploymentStatus', 'conditions')?.mergeKey, 'type');
  assert.equal(patchMetaFor('k8s.io.api.policy.v1.PodDisruptionBudgetSpec', 'selector')?.strategy, 'replace');
  assert.equal(patchMetaFor('k8s.io.api.no.such.Message', 'x'), undefined);
});

test('inlined embedded structs are visible through the outer message', () => {
  assert.deepEqual(inlinedFields(`${CORE}Volume`), ['volumeSource']);
  assert.equal(patchMetaFor(`${CORE}EphemeralContainer`, 'env')?.mergeKey, 'name');
  const vol = jsonFields(`${CORE}Volume`);
  assert.ok(vol.has('emptyDir') && vol.has('name') && !vol.has('volumeSource'));
  assert.equal(vol.get('emptyDir')?.owner, `${CORE}VolumeSource`);
  assert.ok(jsonFields(`${CORE}Probe`).has('httpGet'));
  assert.ok(isStringListMessage('k8s.io.api.authorization.v1.ExtraValue'));
  assert.ok(!isStringListMessage(`${CORE}PodList`));
});

test('struct markers fold into singular fields only', () => {
  assert.equal(structTypeOf('k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector'), 'atomic');
  assert.equal(patchMetaFor('k8s.io.api.apps.v1.DeploymentSpec', 'selector')?.structType, 'atomic');
  assert.equal(patchMetaFor(`${CORE}PodSpec`, 'imagePullSecrets')?.structType, undefined);
  assert.ok(Object.isFrozen(patchMetaFor(`${CORE}PodSpec`, 'containers')));
});

test('every declared tag names a real field, and merge keys are fields of the list items', () => {
  const model = typeModel();
  for (const { message, field, meta } of declaredPatchMeta()) {
    const f = model.message(message).byName.get(field);
    assert.ok(f, `${message}.${field} does not exist`);
    assert.equal(patchMetaFields(message).get(field)?.strategy, meta.strategy, `${message}.${field} not reachable`);
    if (meta.mergeKey || meta.listType === 'set') assert.ok(f.repeated, `${message}.${field} is not a list`);
    if (meta.mapType) assert.ok(f.mapKey, `${message}.${field} is not a map`);
    for (const key of [meta.mergeKey, ...(meta.listMapKeys ?? [])]) {
      if (!key) continue;
      assert.equal(f.type.kind, 'message', `${message}.${field} items are not objects`);
      if (f.type.kind === 'message') assert.ok(jsonFields(f.type.message).has(key), `${key} is not a field of ${f.type.message}`);
    }
    if (meta.strategy === 'merge' && !meta.mergeKey) assert.equal(f.type.kind, 'scalar', `${message}.${field}: merge without key needs primitives`);
  }
});
