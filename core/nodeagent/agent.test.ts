import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingTransport, TestServer, pod } from '../apiserver/testing.ts';
import { Client } from '../client/client.ts';
import { SeededRng } from '../machinery/rng.ts';
import { parseQuantity } from '../machinery/quantity.ts';
import { defaultNodeAgentConfig, parseNodeAgentConfig } from './config.ts';
import { ImagePuller, NodeAgent, PodIPAllocator } from './agent.ts';
import { SimulatedRuntime, constantSampler, type SimulatedRuntimeOptions } from './runtime.ts';

const T0 = Date.UTC(2026, 0, 1);
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const iso = (ms: number) => new Date(T0 + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function setup(runtimeOpts: Partial<SimulatedRuntimeOptions> = {}, configText = '', capacity = { cpu: '4', memory: '8Gi' }) {
  const s = new TestServer();
  const { transport, requests } = recordingTransport(s);
  const client = new Client({
    transport,
    qps: -1,
  });
  const runtime = new SimulatedRuntime({
    clock: s.clock,
    rng: new SeededRng('rt'),
    pullLatency: constantSampler(0),
    startLatency: constantSampler(0),
    ...runtimeOpts,
  });
  const config = configText ? parseNodeAgentConfig(HEADER + configText) : defaultNodeAgentConfig();
  const errors: unknown[] = [];
  const agent = new NodeAgent({
    client,
    clock: s.clock,
    rng: new SeededRng('agent'),
    nodeName: 'node-1',
    config,
    capacity,
    labels: { zone: 'a' },
    runtime,
    nodeIP: '10.1.0.5',
    podCIDR: '10.244.1.0/24',
    onError: (e) => errors.push(e),
  });
  /** Advances virtual time in 100 ms steps, letting async work settle after each. */
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) {
      s.clock.step(Math.min(100, ms - t));
      for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
    }
  };
  const settle = async () => {
    for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
  };
  const getPod = async (name: string) => (await s.request('GET', `/api/v1/namespaces/default/pods/${name}`)).body;
  const elapsed = () => s.clock.now() - T0;
  return { s, client, requests, runtime, agent, advance, settle, getPod, elapsed, errors };
}

function cond(obj: any, type: string): any {
  return obj.status.conditions.find((c: any) => c.type === type);
}

test('registers the Node with capacity, allocatable, labels, taints, addresses and nodeInfo; renews its Lease every 10 s', async () => {
  const { s, agent, advance } = setup({}, 'registerWithTaints:\n- key: dedicated\n  value: infra\n  effect: NoSchedule\n');
  await agent.start();
  const node = (await s.request('GET', '/api/v1/nodes/node-1')).body;
  assert.equal(node.metadata.labels['kubernetes.io/hostname'], 'node-1');
  assert.equal(node.metadata.labels['kubernetes.io/os'], 'linux');
  assert.equal(node.metadata.labels['kubernetes.io/arch'], 'amd64');
  assert.equal(node.metadata.labels.zone, 'a');
  assert.deepEqual(node.spec.taints, [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }]);
  assert.equal(node.status.capacity.pods, '110');
  assert.equal(Number(parseQuantity(node.status.capacity.memory).valueInt()), 8 * 2 ** 30);
  assert.equal(Number(parseQuantity(node.status.allocatable.memory).valueInt()), 8 * 2 ** 30 - 100 * 2 ** 20);
  assert.equal(node.status.allocatable.cpu, '4');
  assert.equal(node.status.nodeInfo.kubeletVersion, 'v1.27.0');
  assert.deepEqual(node.status.addresses, [
    { type: 'InternalIP', address: '10.1.0.5' },
    { type: 'Hostname', address: 'node-1' },
  ]);
  assert.equal(cond(node, 'Ready').status, 'True');
  for (const t of ['MemoryPressure', 'DiskPressure', 'PIDPressure']) assert.equal(cond(node, t).status, 'False');

  const lease0 = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1')).body;
  assert.equal(lease0.spec.holderIdentity, 'node-1');
  assert.equal(lease0.spec.leaseDurationSeconds, 40);
  assert.equal(lease0.spec.renewTime, '2026-01-01T00:00:00.000000Z');
  assert.deepEqual(lease0.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: node.metadata.uid }]);

  await advance(9900);
  let lease = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1')).body;
  assert.equal(lease.spec.renewTime, '2026-01-01T00:00:00.000000Z');
  await advance(100);
  lease = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1')).body;
  assert.equal(lease.spec.renewTime, '2026-01-01T00:00:10.000000Z');
  await advance(10_000);
  lease = (await s.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1')).body;
  assert.equal(lease.spec.renewTime, '2026-01-01T00:00:20.000000Z');

  // Node status: unchanged, so only reported again once nodeStatusReportFrequency (5 min) has passed.
  await advance(60_000);
  let n = (await s.request('GET', '/api/v1/nodes/node-1')).body;
  assert.equal(cond(n, 'Ready').lastHeartbeatTime, '2026-01-01T00:00:00Z');
  await advance(220_000);
  n = (await s.request('GET', '/api/v1/nodes/node-1')).body;
  assert.equal(cond(n, 'Ready').lastHeartbeatTime, '2026-01-01T00:05:00Z');
  assert.equal(cond(n, 'Ready').lastTransitionTime, '2026-01-01T00:00:00Z');
  await agent.stop();
});

test('re-registering an existing Node patches it instead of failing', async () => {
  const { s, agent } = setup();
  await s.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { old: 'x' } } });
  await agent.start();
  const node = (await s.request('GET', '/api/v1/nodes/node-1')).body;
  assert.equal(node.metadata.labels.old, 'x');
  assert.equal(node.metadata.labels['kubernetes.io/hostname'], 'node-1');
  assert.equal(cond(node, 'Ready').status, 'True');
  assert.ok(node.status.allocatable.pods);
  await agent.stop();
});

test('a pod bound to the node goes Pending → Running at the sampled virtual times', async () => {
  const { s, agent, advance, settle, getPod } = setup({ pullLatency: constantSampler(2000), startLatency: constantSampler(500) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('web', { nodeName: 'node-1' }));
  await settle();
  let p = await getPod('web');
  assert.equal(p.status.phase, 'Pending');
  assert.equal(p.status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
  assert.equal(p.status.hostIP, '10.1.0.5');
  assert.equal(cond(p, 'Ready').status, 'False');
  await advance(2400);
  assert.equal((await getPod('web')).status.phase, 'Pending');
  await advance(100);
  p = await getPod('web');
  assert.equal(p.status.phase, 'Running');
  assert.deepEqual(p.status.containerStatuses[0].state, { running: { startedAt: iso(2500) } });
  assert.equal(p.status.containerStatuses[0].ready, true);
  assert.equal(p.status.containerStatuses[0].restartCount, 0);
  assert.match(p.status.containerStatuses[0].containerID, /^containerd:\/\/[0-9a-f]{64}$/);
  assert.match(p.status.podIP, /^10\.244\.1\.\d+$/);
  assert.deepEqual(p.status.podIPs, [{ ip: p.status.podIP }]);
  for (const t of ['Initialized', 'ContainersReady', 'Ready', 'PodScheduled']) assert.equal(cond(p, t).status, 'True', t);
  assert.equal(cond(p, 'Ready').lastTransitionTime, iso(2000));
  // Ready again: the reason and message of the unready condition are gone, as the kubelet's
  // two-way status patch removes them (a patch of the whole status would have kept them).
  assert.equal(cond(p, 'Ready').reason, undefined);
  assert.equal(cond(p, 'ContainersReady').message, undefined);

  // The image is cached now: a second pod skips the pull and runs after the start latency only.
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('web2', { nodeName: 'node-1' }));
  await settle();
  await advance(500);
  const p2 = await getPod('web2');
  assert.equal(p2.status.phase, 'Running');
  assert.notEqual(p2.status.podIP, p.status.podIP);
  await agent.stop();
});

test('status patches are two-way strategic merge patches from the status last sent, as the kubelet sends them', async () => {
  const { s, agent, advance, settle, requests } = setup({ pullLatency: constantSampler(2000), startLatency: constantSampler(500) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('web', { nodeName: 'node-1' }));
  await settle();
  await advance(2600);
  const patches = requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/pods/web/status')).map((r) => (r.object ?? JSON.parse(r.body!.toString())) as any);
  assert.ok(patches.length >= 2, `${patches.length} status patches`);
  assert.ok(Array.isArray(patches[0].status.conditions) && patches[0].status.phase === 'Pending', 'the first sends the whole status');
  const running = patches.at(-1).status;
  assert.equal(running.phase, 'Running');
  assert.equal(running.hostIP, undefined, 'unchanged members are not sent');
  assert.deepEqual(running['$setElementOrder/conditions'].map((c: any) => c.type), ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);
  const ready = running.conditions.find((c: any) => c.type === 'Ready');
  assert.deepEqual([ready.status, ready.reason, ready.message], ['True', null, null]);
  assert.ok(!running.conditions.some((c: any) => c.type === 'Initialized'), 'unchanged conditions are not sent');
  await agent.stop();
});

test('pods of other nodes are ignored', async () => {
  const { s, agent, advance, getPod } = setup();
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('elsewhere', { nodeName: 'node-2' }));
  await advance(1000);
  assert.equal((await getPod('elsewhere')).status.containerStatuses, undefined);
  await agent.stop();
});

test('a failing container under restartPolicy Always restarts with backoff 10 s, then 20 s', async () => {
  const { s, agent, advance, settle, getPod } = setup({ run: () => ({ durationMs: 1000, exitCode: 1 }) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('crash', { nodeName: 'node-1' }));
  await settle();
  let cs = (await getPod('crash')).status.containerStatuses[0];
  assert.ok(cs.state.running);
  await advance(5000);
  const p = await getPod('crash');
  cs = p.status.containerStatuses[0];
  assert.equal(p.status.phase, 'Running');
  assert.equal(cs.state.waiting.reason, 'CrashLoopBackOff');
  assert.equal(cs.lastState.terminated.exitCode, 1);
  assert.equal(cs.lastState.terminated.reason, 'Error');
  assert.equal(cs.lastState.terminated.finishedAt, iso(1000));
  assert.equal(cs.restartCount, 0);
  assert.equal(cond(p, 'Ready').status, 'False');
  await advance(5900); // t = 10.9 s
  assert.equal((await getPod('crash')).status.containerStatuses[0].restartCount, 0);
  await advance(200); // t = 11.1 s: restarted at 11 s
  cs = (await getPod('crash')).status.containerStatuses[0];
  assert.equal(cs.restartCount, 1);
  assert.deepEqual(cs.state, { running: { startedAt: iso(11_000) } });
  // Exits at 12 s; the next restart waits 20 s: at 32 s.
  await advance(20_700); // t = 31.8 s
  cs = (await getPod('crash')).status.containerStatuses[0];
  assert.equal(cs.restartCount, 1);
  assert.equal(cs.state.waiting.reason, 'CrashLoopBackOff');
  await advance(300); // t = 32.1 s
  cs = (await getPod('crash')).status.containerStatuses[0];
  assert.equal(cs.restartCount, 2);
  assert.deepEqual(cs.state, { running: { startedAt: iso(32_000) } });
  await agent.stop();
});

test('a deleted pod is stopped, confirmed with grace 0 and a uid precondition, and disappears', async () => {
  const { s, agent, advance, settle, getPod, requests } = setup({ stopLatency: constantSampler(3000) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('doomed', { nodeName: 'node-1' }));
  await settle();
  const uid = (await getPod('doomed')).metadata.uid;
  assert.equal((await getPod('doomed')).status.phase, 'Running');
  const del = await s.request('DELETE', '/api/v1/namespaces/default/pods/doomed');
  assert.equal(del.status, 200);
  await settle();
  await advance(2900);
  const p = await getPod('doomed');
  assert.ok(p.metadata.deletionTimestamp);
  assert.equal(p.status.phase, 'Running');
  await advance(200);
  assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/doomed')).status, 404);
  const confirm = requests.find((r) => r.method === 'DELETE' && r.path.endsWith('/pods/doomed'));
  assert.ok(confirm);
  // NOTE: the in-process transport sends bodies decoded.
  const body: any = confirm.object ?? JSON.parse(String(confirm.body));
  assert.equal(body.gracePeriodSeconds, 0);
  assert.deepEqual(body.preconditions, { uid });
  await agent.stop();
});

test('the grace period caps a slow stop', async () => {
  const { s, agent, advance, settle, getPod } = setup({ stopLatency: constantSampler(60_000) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('slow', { nodeName: 'node-1', terminationGracePeriodSeconds: 5 }));
  await settle();
  await s.request('DELETE', '/api/v1/namespaces/default/pods/slow');
  await settle();
  await advance(4900);
  assert.equal((await getPod('slow')).kind, 'Pod');
  await advance(200);
  assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/slow')).status, 404);
  await agent.stop();
});

test('a run-to-completion pod Succeeds', async () => {
  const { s, agent, advance, settle, getPod } = setup({ run: () => ({ durationMs: 5000, exitCode: 0 }) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('job', { nodeName: 'node-1', restartPolicy: 'OnFailure' }));
  await settle();
  assert.equal((await getPod('job')).status.phase, 'Running');
  await advance(4900);
  assert.equal((await getPod('job')).status.phase, 'Running');
  await advance(200);
  const p = await getPod('job');
  assert.equal(p.status.phase, 'Succeeded');
  const t = p.status.containerStatuses[0].state.terminated;
  assert.equal(t.exitCode, 0);
  assert.equal(t.reason, 'Completed');
  assert.equal(t.startedAt, iso(0));
  assert.equal(t.finishedAt, iso(5000));
  assert.equal(cond(p, 'Ready').status, 'False');
  assert.equal(cond(p, 'Ready').reason, 'PodCompleted');
  await advance(30_000);
  assert.equal((await getPod('job')).status.containerStatuses[0].restartCount, 0);
  await agent.stop();
});

test('a failing pod with restartPolicy Never ends Failed', async () => {
  const { s, agent, advance, settle, getPod } = setup({ run: () => ({ durationMs: 1000, exitCode: 3 }) });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('once', { nodeName: 'node-1', restartPolicy: 'Never' }));
  await settle();
  await advance(1100);
  const p = await getPod('once');
  assert.equal(p.status.phase, 'Failed');
  assert.equal(p.status.containerStatuses[0].state.terminated.exitCode, 3);
  await agent.stop();
});

test('memory pressure evicts the BestEffort pod first and reports MemoryPressure', async () => {
  const usage: Record<string, number> = { hog: 600 * 2 ** 20, steady: 400 * 2 ** 20 };
  const { s, agent, advance, settle, getPod } = setup({ memoryUsage: (p) => usage[p.metadata.name] ?? 0 }, '', { cpu: '4', memory: '1Gi' });
  await agent.start();
  await s.request('POST', '/api/v1/namespaces/default/pods', pod('hog', { nodeName: 'node-1' }));
  await s.request(
    'POST',
    '/api/v1/namespaces/default/pods',
    pod('steady', { nodeName: 'node-1', priority: 0, containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { memory: '400Mi', cpu: '100m' }, limits: { memory: '400Mi', cpu: '100m' } } }] }),
  );
  await settle();
  assert.equal((await getPod('hog')).status.phase, 'Running');
  await advance(10_000);
  const hog = await getPod('hog');
  assert.equal(hog.status.phase, 'Failed');
  assert.equal(hog.status.reason, 'Evicted');
  assert.match(hog.status.message, /^The node was low on resource: memory\. Threshold quantity: 100Mi, available: 24576Ki\./);
  assert.equal(cond(hog, 'DisruptionTarget').status, 'True');
  assert.equal((await getPod('steady')).status.phase, 'Running');
  const node = (await s.request('GET', '/api/v1/nodes/node-1')).body;
  assert.equal(cond(node, 'MemoryPressure').status, 'True');
  // With the hog gone, usage is below the threshold: nothing else is evicted.
  await advance(20_000);
  assert.equal((await getPod('steady')).status.phase, 'Running');
  assert.deepEqual(agent.evictions, ['default/hog']);
  await agent.stop();
});

test('static pods from staticPodPath become mirror pods and run', async () => {
  const s0 = setup({}, 'staticPodPath: /etc/kubernetes/manifests\n');
  const files: Record<string, string> = {
    '/etc/kubernetes/manifests/etcd.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: etcd\n  namespace: kube-system\nspec:\n  containers:\n  - name: etcd\n    image: etcd:3.5\n',
  };
  const agent = new NodeAgent({
    client: s0.client,
    clock: s0.s.clock,
    rng: new SeededRng('a'),
    nodeName: 'node-1',
    config: parseNodeAgentConfig(HEADER + 'staticPodPath: /etc/kubernetes/manifests\n'),
    capacity: { cpu: '2', memory: '4Gi' },
    runtime: s0.runtime,
    podCIDR: '10.244.2.0/24',
    fs: {
      readdir: () => Object.keys(files).map((f) => f.split('/').pop()!),
      readFile: (p) => files[p]!,
    },
  });
  await agent.start();
  await s0.settle();
  await s0.advance(100);
  const p = (await s0.s.request('GET', '/api/v1/namespaces/kube-system/pods/etcd-node-1')).body;
  assert.equal(p.kind, 'Pod');
  assert.ok(p.metadata.annotations['kubernetes.io/config.mirror']);
  assert.equal(p.metadata.annotations['kubernetes.io/config.source'], 'file');
  assert.equal(p.metadata.ownerReferences[0].kind, 'Node');
  assert.equal(p.status.phase, 'Running');
  delete files['/etc/kubernetes/manifests/etcd.yaml'];
  await s0.advance(20_000);
  assert.equal((await s0.s.request('GET', '/api/v1/namespaces/kube-system/pods/etcd-node-1')).status, 404);
  await agent.stop();
});

test('image pulls are serialized and limited by registryPullQPS', async () => {
  const s = new TestServer();
  const runtime = new SimulatedRuntime({ clock: s.clock, rng: new SeededRng(1), pullLatency: constantSampler(1000), startLatency: constantSampler(0) });
  const done: [string, number][] = [];
  const serial = new ImagePuller(runtime, s.clock, { serializeImagePulls: true, maxParallelImagePulls: undefined, registryPullQPS: 0, registryBurst: 10 });
  for (const img of ['a:1', 'b:1', 'a:1']) void serial.pull(img).then(() => done.push([img, s.clock.now() - T0]));
  for (let i = 0; i < 25; i++) {
    s.clock.step(100);
    for (let j = 0; j < 5; j++) await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(done, [
    ['a:1', 1000],
    ['a:1', 1000],
    ['b:1', 2000],
  ]);
  assert.deepEqual(runtime.pulls, ['a:1', 'b:1']);

  const limited = new ImagePuller(runtime, s.clock, { serializeImagePulls: false, maxParallelImagePulls: undefined, registryPullQPS: 1, registryBurst: 1 });
  const r1 = limited.pull('c:1');
  const r2 = limited.pull('d:1');
  await assert.rejects(r2, /pull QPS exceeded/);
  s.clock.step(1000);
  await r1;
});

test('PodIPAllocator hands out addresses of its range and reuses released ones', () => {
  const a = new PodIPAllocator('10.0.0.0/29');
  const ips = [a.allocate(), a.allocate(), a.allocate(), a.allocate(), a.allocate()];
  assert.deepEqual(ips, ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
  assert.equal(a.allocate(), undefined);
  a.release('10.0.0.4');
  assert.equal(a.allocate(), '10.0.0.4');
});
