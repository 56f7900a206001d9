import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer } from '../apiserver/testing.ts';
import { Client } from './client.ts';
import { LeaderElectionConfigInvalid, LeaderElector, formatMicroTime, validateLeaderElectionConfig, type LeaderElectionConfig } from './leaderelection.ts';
import { InProcessTransport, type Transport } from './transport.ts';

function candidate(s: TestServer, identity: string, transport: Transport, log: string[], extra: Partial<LeaderElectionConfig> = {}) {
  const client = new Client({ transport, qps: -1 });
  return new LeaderElector(client, {
    lockNamespace: 'kube-system',
    lockName: 'kube-scheduler',
    identity,
    clock: s.clock,
    callbacks: {
      onStartedLeading: () => log.push(`${identity} started`),
      onStoppedLeading: () => log.push(`${identity} stopped`),
      onNewLeader: (id) => log.push(`${identity} sees ${id}`),
    },
    ...extra,
  });
}

async function stepSeconds(s: TestServer, seconds: number) {
  for (let i = 0; i < seconds * 2; i++) {
    s.clock.step(500);
    await s.settle();
  }
}

test('exactly one of two candidates leads; the other takes over a lease not renewed for its duration', async () => {
  const s = new TestServer();
  const log: string[] = [];
  let aDown = false;
  const direct = new InProcessTransport((r) => s.api.handle(r));
  const aTransport: Transport = { request: (r) => (aDown ? new Promise(() => {}) : direct.request(r)) };
  const a = candidate(s, 'a', aTransport, log);
  const b = candidate(s, 'b', direct, log);
  void a.run();
  await s.settle();
  void b.run();
  await stepSeconds(s, 10);
  assert.equal(a.isLeader(), true);
  assert.equal(b.isLeader(), false);
  assert.deepEqual(log, ['a sees a', 'a started', 'b sees a']);
  const lease = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler')).body;
  assert.equal(lease.spec.holderIdentity, 'a');
  assert.equal(lease.spec.leaseDurationSeconds, 15);
  assert.equal(lease.spec.leaseTransitions, 0);
  assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(lease.spec.acquireTime, formatMicroTime(Date.UTC(2026, 0, 1)));

  // a can no longer reach the server: it stops renewing.
  aDown = true;
  const cutAt = s.clock.now();
  await stepSeconds(s, 14);
  assert.equal(b.isLeader(), false, 'b must wait a whole lease duration');
  await stepSeconds(s, 4);
  assert.equal(b.isLeader(), true);
  const took = s.clock.now() - cutAt;
  assert.ok(took >= 15_000 && took <= 15_000 + 2_000 + 2_000, `took ${took} ms`);
  assert.ok(log.includes('b started') && log.includes('b sees b'));
  const after = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler')).body;
  assert.equal(after.spec.holderIdentity, 'b');
  assert.equal(after.spec.leaseTransitions, 1);
  await b.stop();
});

test('a leader that cannot renew within the renew deadline stops leading', async () => {
  const s = new TestServer();
  const log: string[] = [];
  let down = false;
  const direct = new InProcessTransport((r) => s.api.handle(r));
  const a = candidate(s, 'a', { request: (r) => (down ? Promise.reject(new Error('connection refused')) : direct.request(r)) }, log);
  const done = a.run();
  await stepSeconds(s, 3);
  assert.equal(a.isLeader(), true);
  down = true;
  await stepSeconds(s, 9);
  assert.equal(a.isLeader(), true);
  await stepSeconds(s, 3);
  await done;
  assert.equal(a.isLeader(), false);
  assert.deepEqual(log, ['a sees a', 'a started', 'a stopped']);
});

test('graceful stop releases the lease and the other candidate takes over at its next retry', async () => {
  const s = new TestServer();
  const log: string[] = [];
  const direct = new InProcessTransport((r) => s.api.handle(r));
  const a = candidate(s, 'a', direct, log);
  const b = candidate(s, 'b', direct, log);
  void a.run();
  await s.settle();
  void b.run();
  await stepSeconds(s, 4);
  assert.equal(a.isLeader(), true);
  await a.stop();
  assert.equal(a.isLeader(), false);
  const released = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler')).body;
  assert.equal(released.spec.holderIdentity ?? '', '');
  const stopAt = s.clock.now();
  while (!b.isLeader() && s.clock.now() - stopAt < 10_000) await stepSeconds(s, 0.5);
  assert.ok(s.clock.now() - stopAt <= 2_000, 'b takes over within one retry period');
  assert.ok(log.indexOf('a stopped') < log.indexOf('b started'));
  await b.stop();
});

test('config validation names the option', () => {
  const base = { lockNamespace: 'kube-system', lockName: 'x', identity: 'me' };
  assert.deepEqual(validateLeaderElectionConfig(base), { leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2, resourceLock: 'leases' });
  const bad = (cfg: Partial<LeaderElectionConfig>, option: string) =>
    assert.throws(() => validateLeaderElectionConfig({ ...base, ...cfg }), (e) => e instanceof LeaderElectionConfigInvalid && e.option === option && e.message.includes(option));
  bad({ renewDeadlineSeconds: 15 }, 'leader-elect-renew-deadline');
  bad({ leaseDurationSeconds: 0 }, 'leader-elect-lease-duration');
  bad({ retryPeriodSeconds: 9 }, 'leader-elect-renew-deadline');
  bad({ retryPeriodSeconds: -1 }, 'leader-elect-retry-period');
  bad({ resourceLock: 'endpoints' }, 'leader-elect-resource-lock');
  bad({ lockName: '' }, 'leader-elect-resource-name');
  bad({ identity: '' }, 'identity');
  assert.equal(formatMicroTime(Date.UTC(2006, 0, 2, 15, 4, 5, 120)), '2006-01-02T15:04:05.120000Z');
});
