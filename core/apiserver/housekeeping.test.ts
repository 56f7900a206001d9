import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, configMap, pod } from './testing.ts';
import { bootstrap, Housekeeping } from './housekeeping.ts';

describe('housekeeping', () => {
  it('a deleted namespace loses its contents, then goes away', async () => {
    const s = new TestServer();
    const hk = new Housekeeping(s.api.registry, s.clock, { eventTTLMs: 3600_000, intervalMs: 1000 });
    await s.request('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
    await s.request('POST', '/api/v1/namespaces/team/configmaps', configMap('a'));
    await s.request('POST', '/api/v1/namespaces/team/pods', pod('p'));
    await s.request('POST', '/api/v1/namespaces/default/configmaps', configMap('keep'));
    await s.request('DELETE', '/api/v1/namespaces/team');
    hk.runOnce();
    assert.equal((await s.request('GET', '/api/v1/namespaces/team/configmaps/a')).status, 404);
    assert.equal((await s.request('GET', '/api/v1/namespaces/team/pods/p')).status, 404);
    assert.equal((await s.request('GET', '/api/v1/namespaces/team')).status, 404);
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/configmaps/keep')).status, 200);
  });

  it('a namespace waits while a bound pod is still terminating', async () => {
    const s = new TestServer();
    const hk = new Housekeeping(s.api.registry, s.clock, { eventTTLMs: 3600_000, intervalMs: 1000 });
    await s.request('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
    await s.request('POST', '/api/v1/namespaces/team/pods', pod('p', { nodeName: 'n1' }));
    await s.request('DELETE', '/api/v1/namespaces/team');
    hk.runOnce();
    const p = await s.request('GET', '/api/v1/namespaces/team/pods/p');
    assert.ok(p.body.metadata.deletionTimestamp, 'the pod is terminating, waiting for its node agent');
    assert.equal((await s.request('GET', '/api/v1/namespaces/team')).body.status.phase, 'Terminating');
    await s.request('DELETE', '/api/v1/namespaces/team/pods/p?gracePeriodSeconds=0');
    hk.runOnce();
    assert.equal((await s.request('GET', '/api/v1/namespaces/team')).status, 404);
  });

  it('events expire after the TTL, on the injected clock', async () => {
    const s = new TestServer();
    const hk = new Housekeeping(s.api.registry, s.clock, { eventTTLMs: 3600_000, intervalMs: 1000 });
    const ev = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Test', message: 'm', type: 'Normal' });
    await s.request('POST', '/api/v1/namespaces/default/events', ev('old'));
    s.clock.step(30 * 60_000);
    await s.request('POST', '/api/v1/namespaces/default/events', ev('young'));
    s.clock.step(31 * 60_000);
    hk.runOnce();
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/events/old')).status, 404);
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/events/young')).status, 200);
    const v1 = await s.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/young');
    assert.equal(v1.body.apiVersion, 'events.k8s.io/v1');
    assert.equal(v1.body.note, 'm');
    assert.equal(v1.body.regarding.name, 'p');
  });

  it('bootstrap creates the built-in PriorityClasses, once', async () => {
    const s = new TestServer();
    bootstrap(s.api.registry);
    const list = (await s.request('GET', '/apis/scheduling.k8s.io/v1/priorityclasses')).body.items;
    assert.deepEqual(
      list.map((pc: any) => [pc.metadata.name, pc.value, pc.globalDefault, pc.preemptionPolicy]),
      [
        ['system-cluster-critical', 2000000000, false, 'PreemptLowerPriority'],
        ['system-node-critical', 2000001000, false, 'PreemptLowerPriority'],
      ],
    );
  });
});
