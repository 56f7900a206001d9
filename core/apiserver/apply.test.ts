import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyConflictStatus, applyPatch, ApplyConflict, conflictCauses, fieldPathString, validateAppliedConfig } from './apply.ts';
import { FIELD_PATH_SEP, updateManagedFields } from './managedfields.ts';
import { StatusError } from '../machinery/status.ts';

const DEPLOYMENT = 'k8s.io.api.apps.v1.Deployment';
const CONFIGMAP = 'k8s.io.api.core.v1.ConfigMap';
const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-01T00:01:00Z';
const T2 = '2024-01-01T00:02:00Z';

function deployment(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, any> {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...metadata }, spec };
}

function podTemplate(containers: unknown[]): Record<string, unknown> {
  return { metadata: { labels: { app: 'web' } }, spec: { containers } };
}

function apply(live: object | undefined, applied: object, manager: string, opts: { force?: boolean; time?: string; messageName?: string; apiVersion?: string } = {}): Record<string, any> {
  return applyPatch({
    live,
    applied,
    manager,
    force: opts.force ?? false,
    messageName: opts.messageName ?? DEPLOYMENT,
    apiVersion: opts.apiVersion ?? 'apps/v1',
    time: opts.time ?? T1,
  });
}

/** An Update operation (PUT / merge patch) by `manager`, recorded the way the registry records it. */
function update(live: Record<string, any>, mutate: (o: Record<string, any>) => void, manager: string, messageName = DEPLOYMENT): Record<string, any> {
  const obj = structuredClone(live);
  mutate(obj);
  obj.metadata.managedFields = updateManagedFields({ old: live, obj, manager, apiVersion: obj.apiVersion, time: T1, messageName });
  return obj;
}

function entry(obj: Record<string, any>, manager: string, operation = 'Apply'): Record<string, any> | undefined {
  return obj.metadata.managedFields.find((e: any) => e.manager === manager && e.operation === operation);
}

describe('applyPatch: create', () => {
  it('creates the object from the configuration and records one Apply entry owning exactly its fields', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { app: 'x' }, creationTimestamp: null }, data: { a: '1', b: '2' } };
    const out = apply(undefined, cm, 'kubectl', { messageName: CONFIGMAP, apiVersion: 'v1' });
    assert.deepEqual(out.data, { a: '1', b: '2' });
    assert.equal(out.metadata.name, 'cm');
    assert.ok(!('creationTimestamp' in out.metadata), 'null values in the configuration are not copied');
    assert.deepEqual(out.metadata.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ]);
    assert.equal(cm.metadata.labels.app, 'x', 'the input is not modified');
    assert.ok(!('managedFields' in cm.metadata));
  });

  it('keys list-map items in the field set (containers by name, ports by containerPort and defaulted protocol)', () => {
    const out = apply(undefined, deployment({ replicas: 2, template: podTemplate([{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }]) }), 'kubectl');
    const spec = out.metadata.managedFields[0].fieldsV1['f:spec'];
    assert.deepEqual(spec['f:replicas'], {});
    const item = spec['f:template']['f:spec']['f:containers']['k:{"name":"app"}'];
    assert.deepEqual(Object.keys(item).sort(), ['.', 'f:image', 'f:name', 'f:ports']);
    assert.ok(item['f:ports']['k:{"containerPort":80,"protocol":"TCP"}'], 'port keyed with its defaulted protocol');
  });
});

describe('applyPatch: re-apply', () => {
  it('is a no-op when the configuration is unchanged (object and managedFields, time included)', () => {
    const config = deployment({ replicas: 1, template: podTemplate([{ name: 'app', image: 'nginx' }]) }, { labels: { tier: 'front' } });
    const first = apply(undefined, config, 'kubectl', { time: T0 });
    const live = { ...first, metadata: { ...first.metadata, uid: 'u1', resourceVersion: '5', creationTimestamp: T0 } };
    const again = apply(live, config, 'kubectl', { time: T2 });
    assert.deepEqual(again, live);
    assert.equal(again.metadata.managedFields[0].time, T0);
  });

  it('records the new time when the applied value changes', () => {
    const first = apply(undefined, deployment({ replicas: 1 }), 'kubectl', { time: T0 });
    const second = apply(first, deployment({ replicas: 4 }), 'kubectl', { time: T2 });
    assert.equal(second.spec.replicas, 4);
    assert.equal(second.metadata.managedFields.length, 1);
    assert.equal(second.metadata.managedFields[0].time, T2);
  });
});

describe('applyPatch: conflicts', () => {
  const base = () => apply(undefined, deployment({ replicas: 1, paused: false }), 'kubectl', { time: T0 });

  it('fails when another (Update) manager changed the field to a different value, in Kubernetes wording', () => {
    const edited = update(base(), (o) => (o.spec.replicas = 3), 'kubectl-edit');
    assert.equal(entry(edited, 'kubectl', 'Apply')!.fieldsV1['f:spec']['f:replicas'], undefined, 'the update took ownership');
    assert.throws(
      () => apply(edited, deployment({ replicas: 1, paused: false }), 'kubectl'),
      (e: unknown) => {
        assert.ok(e instanceof ApplyConflict);
        assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas');
        assert.deepEqual(
          e.conflicts.map((c) => [c.manager, c.field]),
          [['kubectl-edit', '.spec.replicas']],
        );
        assert.deepEqual(conflictCauses(e), [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using apps/v1', field: '.spec.replicas' }]);
        const status = applyConflictStatus(e).toStatus();
        assert.equal(status.code, 409);
        assert.equal(status.reason, 'Conflict');
        assert.equal(status.details?.causes?.length, 1);
        return true;
      },
    );
  });

  it('force takes the value and sole ownership; the Update manager loses the field (and its entry when empty)', () => {
    const edited = update(base(), (o) => (o.spec.replicas = 3), 'kubectl-edit');
    const out = apply(edited, deployment({ replicas: 1, paused: false }), 'kubectl', { force: true, time: T2 });
    assert.equal(out.spec.replicas, 1);
    assert.equal(entry(out, 'kubectl-edit', 'Update'), undefined);
    const mine = entry(out, 'kubectl')!;
    assert.deepEqual(mine.fieldsV1['f:spec'], { 'f:replicas': {}, 'f:paused': {} });
    assert.equal(mine.time, T2);
  });

  it('a forced apply only strips the taken fields from the other manager', () => {
    const edited = update(base(), (o) => ((o.spec.replicas = 3), (o.spec.minReadySeconds = 5)), 'kubectl-edit');
    const out = apply(edited, deployment({ replicas: 1, paused: false }), 'kubectl', { force: true });
    assert.equal(out.spec.minReadySeconds, 5);
    assert.deepEqual(entry(out, 'kubectl-edit', 'Update')!.fieldsV1, { 'f:spec': { 'f:minReadySeconds': {} } });
  });

  it('conflicts with other appliers too, and lists several conflicts grouped by manager', () => {
    const a = apply(undefined, deployment({ replicas: 1, minReadySeconds: 1 }), 'alice');
    const b = apply(a, deployment({ replicas: 1, minReadySeconds: 1, paused: true }), 'bob');
    const edited = update(b, (o) => (o.spec.progressDeadlineSeconds = 60), 'kubectl-edit');
    assert.throws(
      () => apply(edited, deployment({ replicas: 2, minReadySeconds: 2, progressDeadlineSeconds: 30 }), 'carol'),
      (e: unknown) => {
        assert.ok(e instanceof ApplyConflict);
        assert.equal(e.conflicts.length, 5);
        assert.equal(
          e.message,
          'Apply failed with 5 conflicts: conflicts with "alice":\n- .spec.minReadySeconds\n- .spec.replicas\n' +
            'conflicts with "bob":\n- .spec.minReadySeconds\n- .spec.replicas\n' +
            'conflicts with "kubectl-edit" using apps/v1:\n- .spec.progressDeadlineSeconds',
        );
        return true;
      },
    );
  });

  it('an Update never owns what it did not change, so applying its unchanged fields does not conflict', () => {
    const edited = update(base(), (o) => (o.metadata.labels = { team: 'x' }), 'labeler');
    const out = apply(edited, deployment({ replicas: 5, paused: false }), 'kubectl');
    assert.equal(out.spec.replicas, 5);
    assert.deepEqual(out.metadata.labels, { team: 'x' });
    assert.ok(entry(out, 'labeler', 'Update'));
  });
});

describe('applyPatch: shared ownership', () => {
  it('a second applier setting the same value shares the field; the first dropping it leaves value and the other owner', () => {
    const a = apply(undefined, deployment({ replicas: 3, paused: false }), 'alice');
    const ab = apply(a, deployment({ replicas: 3 }), 'bob');
    assert.ok(entry(ab, 'alice')!.fieldsV1['f:spec']['f:replicas']);
    assert.ok(entry(ab, 'bob')!.fieldsV1['f:spec']['f:replicas']);
    assert.throws(() => apply(ab, deployment({ replicas: 4 }), 'bob'), ApplyConflict, 'sharing still conflicts on a different value');
    const dropped = apply(ab, deployment({ paused: false }), 'alice');
    assert.equal(dropped.spec.replicas, 3, 'still owned by bob, so the value stays');
    assert.deepEqual(entry(dropped, 'alice')!.fieldsV1, { 'f:spec': { 'f:paused': {} } });
    const now = apply(dropped, deployment({ replicas: 4 }), 'bob');
    assert.equal(now.spec.replicas, 4, 'the sole owner changes it freely');
  });

  it('setting the same value as an Update manager shares ownership with it', () => {
    const live = update(apply(undefined, deployment({ paused: false }), 'kubectl'), (o) => (o.spec.replicas = 7), 'scaler');
    const out = apply(live, deployment({ paused: false, replicas: 7 }), 'kubectl');
    assert.ok(entry(out, 'scaler', 'Update')!.fieldsV1['f:spec']['f:replicas']);
    assert.ok(entry(out, 'kubectl')!.fieldsV1['f:spec']['f:replicas']);
    assert.equal(out.metadata.managedFields[0].operation, 'Apply', 'Apply entries sort before Update entries');
  });
});

describe('applyPatch: removal', () => {
  it('removes fields the applier owned and omits now (labels, annotations, scalars)', () => {
    const first = apply(undefined, deployment({ replicas: 2, paused: true }, { labels: { a: '1', b: '2' }, annotations: { note: 'x' } }), 'kubectl');
    const out = apply(first, deployment({ replicas: 2 }, { labels: { a: '1' } }), 'kubectl');
    assert.deepEqual(out.metadata.labels, { a: '1' });
    assert.equal(out.metadata.annotations, undefined);
    assert.equal(out.spec.paused, undefined);
    assert.deepEqual(entry(out, 'kubectl')!.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:replicas': {} } });
  });

  it('keeps omitted fields another manager also owns, and never removes fields the applier never owned', () => {
    const first = apply(undefined, deployment({ replicas: 2 }, { labels: { a: '1' } }), 'kubectl');
    const labeled = update(first, (o) => (o.metadata.labels.b = '2'), 'labeler');
    const out = apply(labeled, deployment({ replicas: 2 }), 'kubectl');
    assert.deepEqual(out.metadata.labels, { b: '2' });
  });

  it('replaces atomic fields whole (selector) instead of merging them', () => {
    const first = apply(undefined, deployment({ selector: { matchLabels: { app: 'web', tier: 'x' } } }), 'kubectl');
    const out = apply(first, deployment({ selector: { matchLabels: { app: 'web' } } }), 'kubectl');
    assert.deepEqual(out.spec.selector, { matchLabels: { app: 'web' } });
    assert.deepEqual(entry(out, 'kubectl')!.fieldsV1['f:spec'], { 'f:selector': {} });
  });
});

describe('applyPatch: list-map items (containers by name)', () => {
  const two = () => deployment({ template: podTemplate([{ name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }] }, { name: 'sidecar', image: 'envoy' }]) });

  it('merges items by key: changed fields update, fields set by others inside the item stay', () => {
    const first = apply(undefined, two(), 'kubectl');
    const patched = update(first, (o) => (o.spec.template.spec.containers[0].imagePullPolicy = 'Always'), 'kubectl-patch');
    const out = apply(patched, deployment({ template: podTemplate([{ name: 'app', image: 'nginx:2', env: [{ name: 'A', value: '1' }] }, { name: 'sidecar', image: 'envoy' }]) }), 'kubectl');
    assert.deepEqual(out.spec.template.spec.containers, [
      { name: 'app', image: 'nginx:2', env: [{ name: 'A', value: '1' }], imagePullPolicy: 'Always' },
      { name: 'sidecar', image: 'envoy' },
    ]);
  });

  it('removes an item the applier no longer lists, and appends new items', () => {
    const first = apply(undefined, two(), 'kubectl');
    const out = apply(first, deployment({ template: podTemplate([{ name: 'app', image: 'nginx:1' }, { name: 'init-like', image: 'busybox' }]) }), 'kubectl');
    assert.deepEqual(out.spec.template.spec.containers, [
      { name: 'app', image: 'nginx:1' },
      { name: 'init-like', image: 'busybox' },
    ]);
    const containers = entry(out, 'kubectl')!.fieldsV1['f:spec']['f:template']['f:spec']['f:containers'];
    assert.deepEqual(Object.keys(containers).sort(), ['k:{"name":"app"}', 'k:{"name":"init-like"}']);
  });

  it('keeps an item another manager added, and an omitted item whose field another manager owns', () => {
    const first = apply(undefined, two(), 'kubectl');
    const added = update(first, (o) => o.spec.template.spec.containers.push({ name: 'debug', image: 'busybox' }), 'kubectl-debug');
    const touched = update(added, (o) => (o.spec.template.spec.containers[1].image = 'envoy:2'), 'kubectl-set');
    const out = apply(touched, deployment({ template: podTemplate([{ name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }] }]) }), 'kubectl');
    assert.deepEqual(
      out.spec.template.spec.containers.map((c: any) => [c.name, c.image]),
      [
        ['app', 'nginx:1'],
        ['sidecar', 'envoy:2'],
        ['debug', 'busybox'],
      ],
    );
  });

  it('conflicts name the item by its key', () => {
    const first = apply(undefined, two(), 'kubectl');
    const set = update(first, (o) => (o.spec.template.spec.containers[0].image = 'nginx:9'), 'kubectl-set');
    assert.throws(
      () => apply(set, two(), 'kubectl'),
      (e: unknown) => e instanceof ApplyConflict && e.message === 'Apply failed with 1 conflict: conflict with "kubectl-set" using apps/v1: .spec.template.spec.containers[name="app"].image',
    );
  });
});

describe('applyPatch: sets and status', () => {
  it('unions set members (finalizers) and removes only the applier\'s own members', () => {
    const first = apply(undefined, deployment({}, { finalizers: ['a', 'b'] }), 'kubectl');
    const other = update(first, (o) => o.metadata.finalizers.push('c'), 'controller');
    const out = apply(other, deployment({}, { finalizers: ['a'] }), 'kubectl');
    assert.deepEqual(out.metadata.finalizers, ['a', 'c']);
  });

  it('applies to the status subresource without touching or owning the main resource', () => {
    const live = apply(undefined, deployment({ replicas: 1 }), 'kubectl');
    const out = applyPatch({ live, applied: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { replicas: 1 } }, manager: 'ctrl', force: false, messageName: DEPLOYMENT, apiVersion: 'apps/v1', time: T1, subresource: 'status' });
    assert.equal(out.status.replicas, 1);
    assert.equal(out.spec.replicas, 1);
    const e = out.metadata.managedFields.find((m: any) => m.manager === 'ctrl');
    assert.equal(e.subresource, 'status');
    assert.deepEqual(e.fieldsV1, { 'f:status': { 'f:replicas': {} } });
  });
});

describe('apply helpers', () => {
  it('validateAppliedConfig rejects managedFields and another apiVersion with 400', () => {
    const mf = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields: [] } };
    assert.throws(() => validateAppliedConfig(mf, 'v1'), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'metadata.managedFields must be nil');
    assert.throws(
      () => validateAppliedConfig({ apiVersion: 'apps/v1beta1', kind: 'Deployment' }, 'apps/v1'),
      (e: unknown) => e instanceof StatusError && e.code === 400 && /Specified patch version: apps\/v1beta1, expected: apps\/v1/.test(e.message),
    );
    assert.throws(() => validateAppliedConfig([1], 'v1'), StatusError);
    validateAppliedConfig({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'v1');
  });

  it('fieldPathString renders keys, set values and fields as Kubernetes prints paths', () => {
    const S = FIELD_PATH_SEP;
    assert.equal(fieldPathString(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:targetPort'].join(S)), '.spec.ports[port=80,protocol="TCP"].targetPort');
    assert.equal(fieldPathString(['f:metadata', 'f:finalizers', 'v:"x"'].join(S)), '.metadata.finalizers[="x"]');
  });
});
