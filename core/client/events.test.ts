import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingTransport, TestServer, pod } from '../apiserver/testing.ts';
import { Client } from './client.ts';
import { EventRecorder, referenceTo, type EventRecorderOptions } from './events.ts';

async function setup(opts: Partial<EventRecorderOptions> = {}) {
  const s = new TestServer();
  const { transport, requests } = recordingTransport(s);
  const client = new Client({ transport, qps: -1 });
  const created = (await s.request('POST', '/api/v1/namespaces/default/pods', pod('web'))).body;
  const errors: unknown[] = [];
  const rec = new EventRecorder({ client, clock: s.clock, component: 'kubelet', host: 'node-1', onError: (e) => errors.push(e), ...opts });
  const list = async () => (await s.request('GET', '/api/v1/namespaces/default/events')).body.items;
  return { s, rec, requests, created, list, errors };
}

test('an event becomes a core/v1 Event with involvedObject, source, reporting fields and timestamps', async () => {
  const { s, rec, created, list, errors } = await setup();
  rec.event(created, 'Normal', 'Pulling', 'Pulling image "nginx:1.25"');
  await rec.flush();
  const [ev, ...rest] = await list();
  assert.equal(rest.length, 0);
  assert.deepEqual(errors, []);
  assert.deepEqual(ev.involvedObject, {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: 'default',
    name: 'web',
    uid: created.metadata.uid,
    resourceVersion: created.metadata.resourceVersion,
  });
  assert.deepEqual(ev.source, { component: 'kubelet', host: 'node-1' });
  assert.equal(ev.reportingComponent, 'kubelet');
  assert.equal(ev.reportingInstance, 'kubelet-node-1');
  assert.equal(ev.type, 'Normal');
  assert.equal(ev.reason, 'Pulling');
  assert.equal(ev.message, 'Pulling image "nginx:1.25"');
  assert.equal(ev.count, 1);
  assert.equal(ev.firstTimestamp, '2026-01-01T00:00:00Z');
  assert.equal(ev.lastTimestamp, '2026-01-01T00:00:00Z');
  assert.match(ev.metadata.name, /^web\.[0-9a-f]+$/);
  assert.equal(rec.stats.created, 1);
  void s;
});

test('a repeated event is correlated: PATCH count and lastTimestamp of the first Event', async () => {
  const { s, rec, created, list, requests } = await setup();
  rec.event(created, 'Warning', 'BackOff', 'Back-off restarting failed container');
  await rec.flush();
  s.clock.step(5000);
  rec.event(created, 'Warning', 'BackOff', 'Back-off restarting failed container');
  await rec.flush();
  s.clock.step(5000);
  rec.event(created, 'Warning', 'BackOff', 'Back-off restarting failed container');
  rec.event(created, 'Warning', 'BackOff', 'another message');
  await rec.flush();
  const items = await list();
  assert.equal(items.length, 2);
  const backoff = items.find((e: any) => e.message === 'Back-off restarting failed container');
  assert.equal(backoff.count, 3);
  assert.equal(backoff.firstTimestamp, '2026-01-01T00:00:00Z');
  assert.equal(backoff.lastTimestamp, '2026-01-01T00:00:10Z');
  assert.equal(requests.filter((r) => r.method === 'PATCH').length, 2);
  assert.deepEqual(rec.stats, { recorded: 4, created: 2, patched: 2, dropped: 0, failed: 0 });
});

test('repeats while a write is pending are coalesced into one write with the final count', async () => {
  const { rec, created, list, requests } = await setup();
  for (let i = 0; i < 5; i++) rec.event(created, 'Warning', 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 500');
  await rec.flush();
  const [ev] = await list();
  assert.equal(ev.count, 5);
  assert.equal(requests.filter((r) => r.method === 'POST' && r.path.endsWith('/events')).length, 1);
  assert.ok(requests.filter((r) => r.method === 'PATCH').length <= 1);
});

test('a correlated PATCH that finds the Event gone re-creates it', async () => {
  const { s, rec, created, list } = await setup();
  rec.event(created, 'Normal', 'Started', 'Started container c');
  await rec.flush();
  const [ev] = await list();
  await s.request('DELETE', `/api/v1/namespaces/default/events/${ev.metadata.name}`);
  rec.event(created, 'Normal', 'Started', 'Started container c');
  await rec.flush();
  const items = await list();
  assert.equal(items.length, 1);
  assert.equal(items[0].count, 2);
});

test('the token bucket drops events over qps/burst and counts them; tokens refill on the clock', async () => {
  const { s, rec, created, list } = await setup({ qps: 1, burst: 2 });
  for (let i = 0; i < 5; i++) rec.event(created, 'Normal', 'Reason', `message ${i}`);
  await rec.flush();
  assert.equal((await list()).length, 2);
  assert.equal(rec.stats.dropped, 3);
  s.clock.step(1000);
  rec.event(created, 'Normal', 'Reason', 'after refill');
  rec.event(created, 'Normal', 'Reason', 'no token');
  await rec.flush();
  assert.deepEqual(
    (await list()).map((e: any) => e.message).sort(),
    ['after refill', 'message 0', 'message 1'],
  );
  assert.equal(rec.stats.dropped, 4);
});

test('qps 0 means unlimited', async () => {
  const { rec, created, list } = await setup({ qps: 0, burst: 1 });
  for (let i = 0; i < 30; i++) rec.event(created, 'Normal', 'Reason', `message ${i}`);
  await rec.flush();
  assert.equal((await list()).length, 30);
  assert.equal(rec.stats.dropped, 0);
});

test('a full pending queue drops new events instead of growing', async () => {
  const { rec, created, list } = await setup({ maxPending: 3 });
  for (let i = 0; i < 10; i++) rec.event(created, 'Normal', 'Reason', `message ${i}`);
  await rec.flush();
  assert.equal((await list()).length, 3);
  assert.equal(rec.stats.dropped, 7);
});

test('record: false writes nothing', async () => {
  const { rec, created, list, requests } = await setup({ record: false });
  const before = requests.length;
  rec.event(created, 'Normal', 'Pulling', 'x');
  await rec.flush();
  assert.equal(requests.length, before);
  assert.equal((await list()).length, 0);
  assert.equal(rec.enabled, false);
});

test('write failures never reach the caller; they are counted and reported', async () => {
  const { rec, errors } = await setup();
  rec.event({ kind: 'Pod', namespace: 'no-such-ns!', name: 'x' }, 'Normal', 'Reason', 'm');
  await rec.flush();
  assert.equal(rec.stats.failed, 1);
  assert.equal(errors.length, 1);
});

test('names are deterministic: same clock and sequence, same names; cluster-scoped objects go to default', async () => {
  const names: string[][] = [];
  for (let run = 0; run < 2; run++) {
    const { s, rec, created, list } = await setup();
    rec.event(created, 'Normal', 'A', 'a');
    rec.event(created, 'Normal', 'B', 'b');
    s.clock.step(1500);
    rec.event({ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'node-1' }, 'Normal', 'NodeReady', 'Node node-1 status is now: NodeReady');
    await rec.flush();
    names.push((await list()).map((e: any) => e.metadata.name).sort());
  }
  assert.deepEqual(names[0], names[1]);
  assert.equal(names[0]!.length, 3);
  assert.equal(new Set(names[0]).size, 3);
  assert.ok(names[0]!.some((n) => n.startsWith('node-1.')));
});

test('referenceTo fills kind/apiVersion defaults and fieldPath', () => {
  const ref = referenceTo({ metadata: { name: 'p', namespace: 'ns', uid: 'u' } }, 'spec.containers{app}', { apiVersion: 'v1', kind: 'Pod' });
  assert.deepEqual(ref, { kind: 'Pod', name: 'p', apiVersion: 'v1', namespace: 'ns', uid: 'u', fieldPath: 'spec.containers{app}' });
});
