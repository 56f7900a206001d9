import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, pod } from '../apiserver/testing.ts';
import { Client } from '../client/client.ts';
import { InProcessTransport } from '../client/transport.ts';
import { SeededRng } from '../machinery/rng.ts';
import { Scheduler, type SchedulingDecision } from './scheduler.ts';

interface NodeSpec {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  taints?: any[];
  unschedulable?: boolean;
}

async function setup() {
  const srv = new TestServer();
  const client = new Client({ transport: new InProcessTransport((r) => srv.api.handle(r)), qps: -1 });
  const decisions: SchedulingDecision[] = [];
  const errors: unknown[] = [];
  const sched = new Scheduler({ client, clock: srv.clock, rng: new SeededRng(7), onDecision: (d) => decisions.push(d), onError: (e) => errors.push(e) });
  const addNode = async (name: string, s: NodeSpec = {}) => {
    const labels = { 'kubernetes.io/hostname': name, ...(s.labels ?? {}) };
    const spec: any = {};
    if (s.taints) spec.taints = s.taints;
    if (s.unschedulable) spec.unschedulable = true;
    const r = await srv.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const alloc = { cpu: s.cpu ?? '4', memory: s.memory ?? '8Gi', pods: s.pods ?? '110' };
    const st = await srv.request('PATCH', `/api/v1/nodes/${name}/status`, { status: { capacity: alloc, allocatable: alloc } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(st.status, 200, JSON.stringify(st.body));
  };
  const addPod = async (name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>) => {
    const body = pod(name, extra);
    if (labels) body.metadata.labels = labels;
    const r = await srv.request('POST', '/api/v1/namespaces/default/pods', body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  };
  const getPod = async (name: string) => (await srv.request('GET', `/api/v1/namespaces/default/pods/${name}`)).body;
  const nodeOf = async (name: string) => (await getPod(name)).spec.nodeName as string | undefined;
  const settle = async (until?: () => Promise<boolean>) => {
    for (let i = 0; i < 60; i++) {
      await srv.settle();
      await sched.bindingsSettled();
      if (until && (await until())) return;
    }
  };
  return { srv, client, sched, decisions, errors, addNode, addPod, getPod, nodeOf, settle };
}

const requests = (cpu: string, memory = '100Mi') => ({ containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu, memory } } }] });

test('pods are bound by resources, taints and node affinity; consecutive decisions see each other', async () => {
  const h = await setup();
  await h.addNode('small', { cpu: '1' });
  await h.addNode('big', { cpu: '3' });
  await h.addNode('tainted', { cpu: '16', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
  await h.sched.start();
  // 2 cpu fits only on big (tainted is excluded); the second 2-cpu pod fits nowhere once big is used.
  await h.addPod('a', requests('2'));
  await h.addPod('b', requests('2'));
  await h.settle(async () => h.decisions.length >= 2);
  assert.equal(await h.nodeOf('a'), 'big');
  assert.equal(await h.nodeOf('b'), undefined);
  const failed = h.decisions.find((d) => d.pod === 'default/b')!;
  assert.equal(failed.result, 'Unschedulable');
  assert.equal(failed.message, '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.');
  // tolerating the taint and requiring a label only the tainted node has
  await h.srv.request('PATCH', '/api/v1/nodes/tainted', { metadata: { labels: { accel: 'yes' } } }, { 'content-type': 'application/merge-patch+json' });
  await h.addPod('c', {
    ...requests('100m'),
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'accel', operator: 'In', values: ['yes'] }] }] } } },
  });
  await h.settle(async () => (await h.nodeOf('c')) !== undefined);
  assert.equal(await h.nodeOf('c'), 'tainted');
  await h.sched.stop();
});

test('an unschedulable pod gets PodScheduled=False and an event, and is retried when a node is added', async () => {
  const h = await setup();
  await h.addNode('n1', { cpu: '1' });
  await h.sched.start();
  await h.addPod('big', requests('2'));
  await h.settle(async () => {
    const p = await h.getPod('big');
    return (p.status?.conditions ?? []).some((c: any) => c.type === 'PodScheduled');
  });
  const p = await h.getPod('big');
  const cond = p.status.conditions.find((c: any) => c.type === 'PodScheduled');
  assert.equal(cond.status, 'False');
  assert.equal(cond.reason, 'Unschedulable');
  assert.equal(cond.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
  const evs = (await h.srv.request('GET', '/api/v1/namespaces/default/events')).body.items;
  const ev = evs.find((e: any) => e.reason === 'FailedScheduling');
  assert.ok(ev, 'FailedScheduling event');
  assert.equal(ev.involvedObject.name, 'big');
  assert.equal(ev.type, 'Warning');
  assert.equal(h.sched.queue.lengths().unschedulable, 1);
  await h.addNode('n2', { cpu: '4' });
  // the NodeAdd event moves it to backoffQ (attempt 1 → 1 s backoff); the 1 s flush makes it active
  await h.settle();
  h.srv.clock.step(1000);
  await h.settle(async () => (await h.nodeOf('big')) !== undefined);
  assert.equal(await h.nodeOf('big'), 'n2');
  const ok = await h.getPod('big');
  assert.equal(ok.status.conditions.find((c: any) => c.type === 'PodScheduled').status, 'True');
  assert.equal(h.decisions.at(-1)!.result, 'Scheduled');
  assert.equal(h.decisions.at(-1)!.attempt, 2);
  await h.sched.stop();
});

test('host port conflicts and pods for other schedulers', async () => {
  const h = await setup();
  await h.addNode('n1');
  await h.addNode('n2');
  await h.sched.start();
  const withPort = { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }] };
  await h.addPod('p1', withPort);
  await h.addPod('p2', withPort);
  await h.addPod('p3', withPort);
  await h.addPod('other', { schedulerName: 'someone-else' });
  await h.settle(async () => h.decisions.length >= 3);
  const nodes = [await h.nodeOf('p1'), await h.nodeOf('p2')].sort();
  assert.deepEqual(nodes, ['n1', 'n2']);
  assert.equal(await h.nodeOf('p3'), undefined);
  assert.match(h.decisions.find((d) => d.pod === 'default/p3')!.message!, /^0\/2 nodes are available: 2 node\(s\) didn't have free ports for the requested pod ports\. preemption: 0\/2 nodes are available: 2 No preemption victims found for incoming pod\.$/);
  assert.equal(await h.nodeOf('other'), undefined);
  assert.equal(h.decisions.filter((d) => d.pod === 'default/other').length, 0);
  await h.sched.stop();
});

test('topology spread across zones and required anti-affinity', async () => {
  const h = await setup();
  for (const [n, z] of [['a1', 'a'], ['a2', 'a'], ['b1', 'b'], ['c1', 'c']]) await h.addNode(n, { labels: { 'topology.kubernetes.io/zone': z } });
  await h.sched.start();
  const spread = {
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
  };
  for (let i = 0; i < 6; i++) {
    await h.addPod(`web-${i}`, spread, { app: 'web' });
    await h.settle(async () => (await h.nodeOf(`web-${i}`)) !== undefined);
  }
  const zoneOf: Record<string, string> = { a1: 'a', a2: 'a', b1: 'b', c1: 'c' };
  const perZone: Record<string, number> = {};
  for (let i = 0; i < 6; i++) {
    const z = zoneOf[(await h.nodeOf(`web-${i}`))!];
    perZone[z] = (perZone[z] ?? 0) + 1;
  }
  assert.deepEqual(perZone, { a: 2, b: 2, c: 2 });

  const anti = {
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } } }] } },
  };
  for (let i = 0; i < 5; i++) await h.addPod(`db-${i}`, anti, { app: 'db' });
  await h.settle(async () => h.decisions.filter((d) => d.pod.startsWith('default/db-')).length >= 5);
  const placed = [];
  for (let i = 0; i < 5; i++) placed.push(await h.nodeOf(`db-${i}`));
  const bound = placed.filter(Boolean);
  assert.equal(bound.length, 4);
  assert.equal(new Set(bound).size, 4);
  const fail = h.decisions.find((d) => d.result === 'Unschedulable' && d.pod.startsWith('default/db-'))!;
  assert.equal(fail.message, "0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.");
  await h.sched.stop();
});

test('a high-priority pod preempts lower-priority pods, holds the room against a later low pod, and is bound there', async () => {
  const h = await setup();
  await h.addNode('n1', { cpu: '2' });
  await h.addNode('n2', { cpu: '2' });
  for (const [name, value] of [['low', 10], ['high', 1000]] as const) {
    const r = await h.srv.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await h.sched.start();
  for (let i = 0; i < 4; i++) await h.addPod(`low-${i}`, { ...requests('1'), priorityClassName: 'low' });
  await h.settle(async () => h.decisions.filter((d) => d.result === 'Scheduled').length >= 4);
  const before: Record<string, string> = {};
  for (let i = 0; i < 4; i++) before[`low-${i}`] = (await h.nodeOf(`low-${i}`))!;

  await h.addPod('vip', { ...requests('2'), priorityClassName: 'high' });
  await h.settle(async () => !!(await h.getPod('vip')).status?.nominatedNodeName);
  const vip = await h.getPod('vip');
  assert.equal(vip.spec.priority, 1000);
  const target = vip.status.nominatedNodeName;
  assert.ok(target === 'n1' || target === 'n2');
  const expectedVictims = Object.keys(before).filter((n) => before[n] === target).sort();
  assert.equal(expectedVictims.length, 2);
  const decision = h.decisions.find((d) => d.pod === 'default/vip')!;
  assert.equal(decision.result, 'Unschedulable');
  assert.deepEqual({ ...decision.preemption!, victims: [...decision.preemption!.victims].sort() }, { node: target, victims: expectedVictims.map((n) => `default/${n}`), numPDBViolations: 0 });
  assert.equal(h.sched.stats.preemptions, 1);
  for (const name of Object.keys(before)) {
    const p = await h.getPod(name);
    if (expectedVictims.includes(name)) {
      assert.ok(p.metadata.deletionTimestamp, `${name} is being deleted`);
      assert.equal(p.metadata.deletionGracePeriodSeconds, 30, 'victims get their own grace period');
      const dt = p.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
      assert.equal(dt?.reason, 'PreemptionByScheduler');
    } else assert.equal(p.metadata.deletionTimestamp, undefined);
  }
  const events = (await h.srv.request('GET', '/api/v1/namespaces/default/events')).body.items.filter((e: any) => e.reason === 'Preempted');
  assert.deepEqual(events.map((e: any) => e.involvedObject.name).sort(), expectedVictims);
  assert.equal(events[0].message, `Preempted by pod ${vip.metadata.uid} on node ${target}`);

  // the node agent finishes the victims' termination
  for (const name of expectedVictims) {
    const r = await h.srv.request('DELETE', `/api/v1/namespaces/default/pods/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  await h.settle();
  // a low-priority pod arriving now must not take the room the preemptor waits for
  await h.addPod('late', { ...requests('1'), priorityClassName: 'low' });
  await h.settle(async () => h.decisions.some((d) => d.pod === 'default/late'));
  assert.equal(await h.nodeOf('late'), undefined);
  assert.match(h.decisions.find((d) => d.pod === 'default/late')!.message!, /^0\/2 nodes are available: 2 Insufficient cpu\. preemption: /);
  for (let i = 0; i < 5 && !(await h.nodeOf('vip')); i++) {
    h.srv.clock.step(1000);
    await h.settle(async () => (await h.nodeOf('vip')) !== undefined);
  }
  assert.equal(await h.nodeOf('vip'), target);
  assert.equal(h.decisions.filter((d) => d.pod === 'default/vip').at(-1)!.result, 'Scheduled');
  assert.equal(h.sched.nominator.size, 0);
  assert.equal(await h.nodeOf('late'), undefined);
  assert.deepEqual(h.errors, []);
  await h.sched.stop();
});

test('a higher-priority preemptor takes over the node: the lower nominated pod loses its nomination', async () => {
  const h = await setup();
  await h.addNode('n1', { cpu: '2' });
  for (const [name, value] of [['low', 10], ['mid', 100], ['high', 1000]] as const) {
    await h.srv.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
  }
  await h.sched.start();
  await h.addPod('low', { ...requests('2'), priorityClassName: 'low' });
  await h.settle(async () => (await h.nodeOf('low')) === 'n1');
  await h.addPod('mid', { ...requests('2'), priorityClassName: 'mid' });
  await h.settle(async () => (await h.getPod('mid')).status?.nominatedNodeName === 'n1');
  assert.equal(h.sched.nominator.nodeOf(await h.getPod('mid')), 'n1');
  await h.addPod('high', { ...requests('2'), priorityClassName: 'high' });
  await h.settle(async () => (await h.getPod('high')).status?.nominatedNodeName === 'n1' && !(await h.getPod('mid')).status?.nominatedNodeName);
  assert.equal((await h.getPod('high')).status.nominatedNodeName, 'n1');
  assert.equal((await h.getPod('mid')).status.nominatedNodeName, undefined);
  assert.deepEqual(h.sched.nominator.podsOn('n1').map((pi) => pi.key), ['default/high']);
  assert.deepEqual(h.decisions.filter((d) => d.preemption).map((d) => [d.pod, d.preemption!.victims]), [
    ['default/mid', ['default/low']],
    ['default/high', ['default/low']],
  ]);
  await h.sched.stop();
});
