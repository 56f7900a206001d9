import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, pod } from './testing.ts';
import { bootstrap } from './housekeeping.ts';

async function priorityClass(s: TestServer, name: string, value: number, extra: Record<string, unknown> = {}): Promise<void> {
  const r = await s.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

async function createPod(s: TestServer, name: string, spec: Record<string, unknown> = {}) {
  return s.request('POST', '/api/v1/namespaces/default/pods', pod(name, spec));
}

describe('pod priority admission', () => {
  it('without a class and without a globalDefault the priority is 0 and pods may preempt', async () => {
    const s = new TestServer();
    const r = await createPod(s, 'plain');
    assert.equal(r.status, 201);
    assert.equal(r.body.spec.priority, 0);
    assert.equal(r.body.spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(r.body.spec.priorityClassName, undefined);
    assert.equal((await createPod(s, 'zero', { priority: 0 })).status, 201);
  });

  it('an unknown class is refused with 403 Forbidden', async () => {
    const s = new TestServer();
    const r = await createPod(s, 'p', { priorityClassName: 'nope' });
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Forbidden');
    assert.equal(r.body.message, 'pods "p" is forbidden: no PriorityClass with name nope was found');
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/p')).status, 404);
  });

  it('the built-in classes resolve to their values', async () => {
    const s = new TestServer();
    const node = await createPod(s, 'node-critical', { priorityClassName: 'system-node-critical' });
    assert.equal(node.status, 201, JSON.stringify(node.body));
    assert.equal(node.body.spec.priority, 2000001000);
    const cluster = await createPod(s, 'cluster-critical', { priorityClassName: 'system-cluster-critical' });
    assert.equal(cluster.body.spec.priority, 2000000000);
  });

  it('the globalDefault class (the lowest one when several) applies to pods that name none, with its preemptionPolicy', async () => {
    const s = new TestServer();
    await priorityClass(s, 'default-low', 5, { globalDefault: true, preemptionPolicy: 'Never' });
    // A second default can only exist from before admission refused it: written to storage directly.
    const legacy = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'default-high', uid: 'u-high', creationTimestamp: '2026-01-01T00:00:00Z' }, value: 50, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' };
    s.api.registry.storage.create('/registry/scheduling.k8s.io/priorityclasses/default-high', JSON.stringify(legacy));
    await priorityClass(s, 'other', 100);
    const r = await createPod(s, 'p');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.spec.priorityClassName, 'default-low');
    assert.equal(r.body.spec.priority, 5);
    assert.equal(r.body.spec.preemptionPolicy, 'Never');
    const named = await createPod(s, 'q', { priorityClassName: 'other' });
    assert.deepEqual([named.body.spec.priority, named.body.spec.preemptionPolicy], [100, 'PreemptLowerPriority']);
  });

  it('a priority or preemptionPolicy that differs from the class is refused; a matching one is accepted', async () => {
    const s = new TestServer();
    await priorityClass(s, 'batch', 10, { preemptionPolicy: 'Never' });
    const wrong = await createPod(s, 'wrong', { priorityClassName: 'batch', priority: 11 });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.message, 'pods "wrong" is forbidden: the integer value of priority (11) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name');
    const noClass = await createPod(s, 'no-class', { priority: 7 });
    assert.equal(noClass.status, 403);
    const policy = await createPod(s, 'policy', { priorityClassName: 'batch', preemptionPolicy: 'PreemptLowerPriority' });
    assert.equal(policy.status, 403);
    assert.match(policy.body.message, /the string value of PreemptionPolicy \(PreemptLowerPriority\) must not be provided in pod spec; priority admission controller computed Never/);
    const ok = await createPod(s, 'ok', { priorityClassName: 'batch', priority: 10, preemptionPolicy: 'Never' });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });
});

const PC_URL = '/apis/scheduling.k8s.io/v1/priorityclasses';

function pcBody(name: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, ...extra };
}

function assertInvalid(r: { status: number; body: any }, field: string, message: string): void {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'Invalid');
  assert.deepEqual(
    r.body.details.causes.map((c: any) => [c.field, c.message]),
    [[field, message]],
  );
}

describe('PriorityClass validation', () => {
  it('value is required', async () => {
    const s = new TestServer();
    const r = await s.request('POST', PC_URL, pcBody('no-value', {}));
    assertInvalid(r, 'value', 'Required value');
    assert.equal(r.body.message, 'PriorityClass.scheduling.k8s.io "no-value" is invalid: value: Required value');
    assert.equal((await s.request('POST', PC_URL, pcBody('zero', { value: 0 }))).status, 201);
  });

  it('value must be an int32 (refused while decoding, as Kubernetes does)', async () => {
    const s = new TestServer();
    assert.equal((await s.request('POST', PC_URL, pcBody('big', { value: 2 ** 31 }))).status, 400);
    assert.equal((await s.request('POST', PC_URL, pcBody('frac', { value: 1.5 }))).status, 400);
    assert.equal((await s.request('POST', PC_URL, pcBody('negative', { value: -(2 ** 31) }))).status, 201);
  });

  it('a user-defined class may not exceed HighestUserDefinablePriority (1000000000)', async () => {
    const s = new TestServer();
    assertInvalid(await s.request('POST', PC_URL, pcBody('too-high', { value: 1_000_000_001 })), 'value', 'Forbidden: maximum allowed value of a user defined priority is 1000000000');
    const ok = await s.request('POST', PC_URL, pcBody('highest', { value: 1_000_000_000 }));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  it('the system- prefix is reserved for the built-in classes with their exact values', async () => {
    const s = new TestServer();
    assertInvalid(
      await s.request('POST', PC_URL, pcBody('system-mine', { value: 10 })),
      'metadata.name',
      "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    );
    await s.request('DELETE', `${PC_URL}/system-node-critical`);
    assertInvalid(
      await s.request('POST', PC_URL, pcBody('system-node-critical', { value: 5 })),
      'metadata.name',
      "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
    );
    assertInvalid(
      await s.request('POST', PC_URL, pcBody('system-node-critical', { value: 2000001000, globalDefault: true })),
      'metadata.name',
      "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-node-critical PriorityClass must be false",
    );
    const ok = await s.request('POST', PC_URL, pcBody('system-node-critical', { value: 2000001000 }));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  it('bootstrap creates the built-in classes through validation, and is idempotent', async () => {
    const s = new TestServer();
    const list = (await s.request('GET', PC_URL)).body.items.map((pc: any) => [pc.metadata.name, pc.value, pc.preemptionPolicy]);
    assert.deepEqual(list, [
      ['system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
      ['system-node-critical', 2000001000, 'PreemptLowerPriority'],
    ]);
    await s.request('DELETE', `${PC_URL}/system-cluster-critical`);
    bootstrap(s.api.registry);
    bootstrap(s.api.registry);
    assert.equal((await s.request('GET', `${PC_URL}/system-cluster-critical`)).body.value, 2000000000);
  });

  it('preemptionPolicy is PreemptLowerPriority or Never, defaulting to PreemptLowerPriority', async () => {
    const s = new TestServer();
    assertInvalid(
      await s.request('POST', PC_URL, pcBody('bad-policy', { value: 1, preemptionPolicy: 'Sometimes' })),
      'preemptionPolicy',
      'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
    );
    assert.equal((await s.request('POST', PC_URL, pcBody('never', { value: 1, preemptionPolicy: 'Never' }))).body.preemptionPolicy, 'Never');
    assert.equal((await s.request('POST', PC_URL, pcBody('defaulted', { value: 1 }))).body.preemptionPolicy, 'PreemptLowerPriority');
  });

  it('value is immutable on update', async () => {
    const s = new TestServer();
    await priorityClass(s, 'batch', 10);
    const r = await s.request('PUT', `${PC_URL}/batch`, pcBody('batch', { value: 11 }));
    assertInvalid(r, 'value', 'Forbidden: may not be changed in an update.');
    assert.equal(r.body.message, 'PriorityClass.scheduling.k8s.io "batch" is invalid: value: Forbidden: may not be changed in an update.');
    const ok = await s.request('PUT', `${PC_URL}/batch`, pcBody('batch', { value: 10, description: 'batch jobs' }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.description, 'batch jobs');
  });

  it('preemptionPolicy is immutable on update (an omitted one defaults, and so changes a Never class)', async () => {
    const s = new TestServer();
    await priorityClass(s, 'polite', 10, { preemptionPolicy: 'Never' });
    assertInvalid(
      await s.request('PUT', `${PC_URL}/polite`, pcBody('polite', { value: 10, preemptionPolicy: 'PreemptLowerPriority' })),
      'preemptionPolicy',
      'Invalid value: "PreemptLowerPriority": field is immutable',
    );
    assertInvalid(await s.request('PUT', `${PC_URL}/polite`, pcBody('polite', { value: 10 })), 'preemptionPolicy', 'Invalid value: "PreemptLowerPriority": field is immutable');
    const patched = await s.request('PATCH', `${PC_URL}/polite`, { description: 'kept' }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.preemptionPolicy, 'Never');
  });

  it('only one globalDefault class: a second one is refused on create and on update (403 Forbidden)', async () => {
    const s = new TestServer();
    await priorityClass(s, 'default-a', 10, { globalDefault: true });
    const second = await s.request('POST', PC_URL, pcBody('default-b', { value: 20, globalDefault: true }));
    assert.equal(second.status, 403, JSON.stringify(second.body));
    assert.equal(second.body.reason, 'Forbidden');
    assert.equal(second.body.message, 'priorityclasses.scheduling.k8s.io "default-b" is forbidden: PriorityClass default-a is already marked as default. Only one default can exist');
    assert.deepEqual(second.body.details, { name: 'default-b', group: 'scheduling.k8s.io', kind: 'priorityclasses' });
    assert.equal((await s.request('GET', `${PC_URL}/default-b`)).status, 404);
    await priorityClass(s, 'other', 20);
    const promote = await s.request('PUT', `${PC_URL}/other`, pcBody('other', { value: 20, globalDefault: true }));
    assert.equal(promote.status, 403, JSON.stringify(promote.body));
    assert.match(promote.body.message, /PriorityClass default-a is already marked as default/);
    // The default itself may be updated, and once it is no longer default another may take over.
    const self = await s.request('PUT', `${PC_URL}/default-a`, pcBody('default-a', { value: 10, globalDefault: true, description: 'd' }));
    assert.equal(self.status, 200, JSON.stringify(self.body));
    assert.equal((await s.request('PUT', `${PC_URL}/default-a`, pcBody('default-a', { value: 10, globalDefault: false }))).status, 200);
    assert.equal((await s.request('PUT', `${PC_URL}/other`, pcBody('other', { value: 20, globalDefault: true }))).status, 200);
  });

  it('validation errors come before the globalDefault admission check', async () => {
    const s = new TestServer();
    await priorityClass(s, 'default-a', 10, { globalDefault: true });
    assertInvalid(await s.request('POST', PC_URL, pcBody('default-b', { value: 2_000_000_000, globalDefault: true })), 'value', 'Forbidden: maximum allowed value of a user defined priority is 1000000000');
  });
});
