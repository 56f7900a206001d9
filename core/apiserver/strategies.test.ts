import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, pod } from './testing.ts';

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
    await priorityClass(s, 'default-high', 50, { globalDefault: true });
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
