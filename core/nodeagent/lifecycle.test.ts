import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingTransport, TestServer, pod } from '../apiserver/testing.ts';
import { Client } from '../client/client.ts';
import { SeededRng } from '../machinery/rng.ts';
import { defaultNodeAgentConfig, parseNodeAgentConfig } from './config.ts';
import { NodeAgent, type NodeAgentOptions } from './agent.ts';
import { SimulatedRuntime, constantSampler, type SimulatedRuntimeOptions } from './runtime.ts';

// Init containers, probes and Events of the node agent, on the TestServer's FakeClock.

const T0 = Date.UTC(2026, 0, 1);
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const iso = (ms: number) => new Date(T0 + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function setup(runtimeOpts: Partial<SimulatedRuntimeOptions> = {}, agentOpts: Partial<NodeAgentOptions> = {}, configText = '', RuntimeClass = SimulatedRuntime) {
  const s = new TestServer();
  const { transport, requests } = recordingTransport(s);
  const client = new Client({ transport, qps: -1 });
  const runtime = new RuntimeClass({
    clock: s.clock,
    rng: new SeededRng('rt'),
    pullLatency: constantSampler(0),
    startLatency: constantSampler(0),
    ...runtimeOpts,
  });
  const errors: unknown[] = [];
  const agent = new NodeAgent({
    client,
    clock: s.clock,
    rng: new SeededRng('agent'),
    nodeName: 'node-1',
    config: configText ? parseNodeAgentConfig(HEADER + configText) : defaultNodeAgentConfig(),
    capacity: { cpu: '4', memory: '8Gi' },
    runtime,
    nodeIP: '10.1.0.5',
    podCIDR: '10.244.1.0/24',
    onError: (e) => errors.push(e),
    ...agentOpts,
  });
  const settle = async () => {
    for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
  };
  /** Advances virtual time in 100 ms steps, letting async work settle after each. */
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) {
      s.clock.step(Math.min(100, ms - t));
      await settle();
    }
  };
  /** Advances to `ms` after T0. */
  const until = (ms: number) => advance(ms - (s.clock.now() - T0));
  const getPod = async (name: string) => (await s.request('GET', `/api/v1/namespaces/default/pods/${name}`)).body;
  const create = async (p: any) => {
    await s.request('POST', '/api/v1/namespaces/default/pods', p);
    await settle();
  };
  const events = async (ns = 'default') => {
    await agent.recorder?.flush();
    return (await s.request('GET', `/api/v1/namespaces/${ns}/events`)).body.items as any[];
  };
  const now = () => s.clock.now() - T0;
  return { s, requests, runtime, agent, settle, advance, until, getPod, create, events, now, errors };
}

function cond(obj: any, type: string): any {
  return obj.status.conditions.find((c: any) => c.type === type);
}

// ---- Events ------------------------------------------------------------------------------------

test('node events on start and pod events Pulling, Pulled, Created, Started with kubelet messages', async () => {
  const { agent, create, until, events } = setup({ pullLatency: constantSampler(2000), startLatency: constantSampler(500) });
  await agent.start();
  await create(pod('web', { nodeName: 'node-1' }));
  await until(3000);
  await create(pod('web2', { nodeName: 'node-1' }));
  await until(4000);
  const evs = await events();
  const node = evs.filter((e) => e.involvedObject.kind === 'Node');
  assert.deepEqual(node.map((e) => e.reason).sort(), ['NodeHasNoDiskPressure', 'NodeHasSufficientMemory', 'NodeHasSufficientPID', 'NodeReady', 'Starting']);
  assert.equal(node.find((e) => e.reason === 'NodeReady').message, 'Node node-1 status is now: NodeReady');
  assert.equal(node.find((e) => e.reason === 'Starting').message, 'Starting kubelet.');
  assert.deepEqual(node[0].involvedObject, { kind: 'Node', name: 'node-1', uid: 'node-1' });

  const web = evs.filter((e) => e.involvedObject.name === 'web');
  const by = (r: string) => web.find((e) => e.reason === r);
  assert.deepEqual(web.map((e) => e.reason).sort(), ['Created', 'Pulled', 'Pulling', 'Started']);
  assert.equal(by('Pulling').message, 'Pulling image "nginx:1.25"');
  assert.equal(by('Pulled').message, 'Successfully pulled image "nginx:1.25" in 2s (2s including waiting)');
  assert.equal(by('Pulled').firstTimestamp, iso(2000));
  assert.equal(by('Created').message, 'Created container c');
  assert.equal(by('Started').message, 'Started container c');
  assert.equal(by('Started').firstTimestamp, iso(2500));
  assert.equal(by('Started').involvedObject.fieldPath, 'spec.containers{c}');
  assert.equal(by('Started').involvedObject.kind, 'Pod');
  assert.deepEqual(by('Started').source, { component: 'kubelet', host: 'node-1' });
  for (const e of web) assert.equal(e.type, 'Normal');

  const pulled2 = evs.find((e) => e.involvedObject.name === 'web2' && e.reason === 'Pulled');
  assert.equal(pulled2.message, 'Container image "nginx:1.25" already present on machine');
  await agent.stop();
});

test('a crash-looping container records BackOff, correlated into one Event with a count', async () => {
  const { agent, create, until, events } = setup({ run: () => ({ durationMs: 1000, exitCode: 1 }) });
  await agent.start();
  await create(pod('crash', { nodeName: 'node-1' }));
  await until(40_000);
  const evs = (await events()).filter((e) => e.involvedObject.name === 'crash');
  const backoff = evs.filter((e) => e.reason === 'BackOff');
  assert.equal(backoff.length, 1);
  assert.equal(backoff[0].type, 'Warning');
  assert.match(backoff[0].message, /^Back-off restarting failed container c in pod crash_default\(.+\)$/);
  assert.ok(backoff[0].count >= 2, `count ${backoff[0].count}`);
  assert.equal(evs.find((e) => e.reason === 'Started').count, 3);
  await agent.stop();
});

test('deleting a running pod records Killing "Stopping container c"', async () => {
  const { agent, create, until, events, s, settle } = setup();
  await agent.start();
  await create(pod('web', { nodeName: 'node-1' }));
  await s.request('DELETE', '/api/v1/namespaces/default/pods/web');
  await settle();
  await until(1000);
  const killing = (await events()).find((e) => e.reason === 'Killing');
  assert.equal(killing.message, 'Stopping container c');
  assert.equal(killing.involvedObject.fieldPath, 'spec.containers{c}');
  await agent.stop();
});

class FailingPullRuntime extends SimulatedRuntime {
  override async pullImage(_image: string): Promise<void> {
    throw new Error('rpc error: code = NotFound desc = failed to resolve reference');
  }
}

test('a failed pull records Failed (pull error and "Error: ErrImagePull"), then BackOff and "Error: ImagePullBackOff"', async () => {
  const { agent, create, until, events, getPod } = setup({}, {}, '', FailingPullRuntime);
  await agent.start();
  await create(pod('bad', { nodeName: 'node-1', containers: [{ name: 'c', image: 'nope:1' }] }));
  await until(1000);
  assert.equal((await getPod('bad')).status.containerStatuses[0].state.waiting.reason, 'ImagePullBackOff');
  const evs = (await events()).filter((e) => e.involvedObject.name === 'bad');
  const msgs = (r: string) => evs.filter((e) => e.reason === r).map((e) => e.message).sort();
  assert.deepEqual(msgs('Pulling'), ['Pulling image "nope:1"']);
  assert.deepEqual(msgs('Failed'), ['Error: ErrImagePull', 'Error: ImagePullBackOff', 'Failed to pull image "nope:1": rpc error: code = NotFound desc = failed to resolve reference']);
  assert.deepEqual(msgs('BackOff'), ['Back-off pulling image "nope:1"']);
  for (const e of evs.filter((x) => x.reason === 'Failed')) assert.equal(e.type, 'Warning');
  await agent.stop();
});

test('pull policy Never without the image records ErrImageNeverPull and retries without a hot loop', async () => {
  const { agent, create, until, events, getPod } = setup();
  await agent.start();
  await create(pod('never', { nodeName: 'node-1', containers: [{ name: 'c', image: 'absent:1', imagePullPolicy: 'Never' }] }));
  await until(25_000);
  const cs = (await getPod('never')).status.containerStatuses[0];
  assert.equal(cs.state.waiting.reason, 'ErrImageNeverPull');
  const evs = (await events()).filter((e) => e.involvedObject.name === 'never');
  const never = evs.find((e) => e.reason === 'ErrImageNeverPull');
  assert.equal(never.message, 'Container image "absent:1" is not present with pull policy of Never');
  assert.equal(never.type, 'Warning');
  assert.ok(never.count >= 3 && never.count <= 5, `count ${never.count}`); // every sync: at 0 s (and its status update), 10 s, 20 s
  assert.equal(evs.find((e) => e.reason === 'Failed').message, 'Error: ErrImageNeverPull');
  await agent.stop();
});

test('a failed container start records Created and Failed "Error: …"', async () => {
  const { agent, create, until, events } = setup({ startFailureProbability: 1 });
  await agent.start();
  await create(pod('nostart', { nodeName: 'node-1' }));
  await until(500);
  const evs = (await events()).filter((e) => e.involvedObject.name === 'nostart');
  const failed = evs.find((e) => e.reason === 'Failed');
  assert.equal(failed.message, 'Error: failed to create containerd task: simulated start failure');
  assert.ok(evs.some((e) => e.reason === 'Created'));
  assert.ok(!evs.some((e) => e.reason === 'Started'));
  await agent.stop();
});

test('eviction records Evicted on the pod and EvictionThresholdMet on the node', async () => {
  const { agent, create, until, events } = setup({ memoryUsage: () => 8 * 2 ** 30 });
  await agent.start();
  await create(pod('hog', { nodeName: 'node-1' }));
  await until(10_000);
  const evs = await events();
  const evicted = evs.find((e) => e.reason === 'Evicted');
  assert.equal(evicted.type, 'Warning');
  assert.equal(evicted.involvedObject.name, 'hog');
  assert.match(evicted.message, /^The node was low on resource: memory\./);
  assert.ok(evs.some((e) => e.reason === 'EvictionThresholdMet' && e.involvedObject.kind === 'Node'));
  assert.ok(evs.some((e) => e.reason === 'NodeHasInsufficientMemory'));
  await agent.stop();
});

test('events: false records nothing; eventRecordQPS/eventBurst limit the default recorder', async () => {
  const off = setup({}, { events: false });
  await off.agent.start();
  await off.create(pod('web', { nodeName: 'node-1' }));
  await off.until(1000);
  assert.equal(off.requests.filter((r) => r.path.includes('/events')).length, 0);
  assert.equal(off.agent.recorder, undefined);
  await off.agent.stop();

  const limited = setup({}, {}, 'eventRecordQPS: 1\neventBurst: 2\n');
  await limited.agent.start();
  await limited.create(pod('web', { nodeName: 'node-1' }));
  await limited.settle();
  assert.equal((await limited.events()).length, 2);
  assert.ok(limited.agent.recorder!.stats.dropped >= 5);
  await limited.agent.stop();
});

// ---- init containers ---------------------------------------------------------------------------

const initPod = (name: string, extra: Record<string, unknown> = {}) =>
  pod(name, {
    nodeName: 'node-1',
    initContainers: [
      { name: 'init-a', image: 'busybox:1.36' },
      { name: 'init-b', image: 'busybox:1.36' },
    ],
    containers: [{ name: 'app', image: 'nginx:1.25' }],
    ...extra,
  });

test('init containers run one at a time, in order, before the app containers; status shows them', async () => {
  const starts: [string, number][] = [];
  const { agent, create, until, getPod, now, events } = setup({
    run: (_p, c) => {
      starts.push([c.name, now()]);
      return c.name === 'init-b' ? { durationMs: 2000, exitCode: 0 } : undefined;
    },
  });
  await agent.start();
  await create(initPod('init'));
  let p = await getPod('init');
  assert.equal(p.status.phase, 'Pending');
  assert.ok(p.status.initContainerStatuses[0].state.running);
  assert.deepEqual(p.status.initContainerStatuses[1].state, { waiting: { reason: 'PodInitializing' } });
  assert.deepEqual(p.status.containerStatuses[0].state, { waiting: { reason: 'PodInitializing' } });
  assert.equal(cond(p, 'Initialized').status, 'False');
  assert.equal(cond(p, 'Initialized').reason, 'ContainersNotInitialized');
  assert.equal(cond(p, 'Initialized').message, 'containers with incomplete status: [init-a init-b]');
  assert.equal(cond(p, 'Ready').status, 'False');

  await until(1500); // init-a (default 1 s run) done at 1 s, init-b running
  p = await getPod('init');
  assert.equal(p.status.phase, 'Pending');
  const a = p.status.initContainerStatuses[0];
  assert.equal(a.state.terminated.exitCode, 0);
  assert.equal(a.state.terminated.reason, 'Completed');
  assert.equal(a.state.terminated.finishedAt, iso(1000));
  assert.equal(a.ready, true);
  assert.equal(a.started, false);
  assert.ok(p.status.initContainerStatuses[1].state.running);
  assert.equal(cond(p, 'Initialized').message, 'containers with incomplete status: [init-b]');

  await until(3500); // init-b done at 3 s, app started at 3 s
  p = await getPod('init');
  assert.equal(p.status.phase, 'Running');
  assert.deepEqual(p.status.containerStatuses[0].state, { running: { startedAt: iso(3000) } });
  assert.equal(cond(p, 'Initialized').status, 'True');
  assert.equal(cond(p, 'Initialized').lastTransitionTime, iso(3000));
  assert.equal(cond(p, 'Ready').status, 'True');
  assert.deepEqual(starts, [
    ['init-a', 0],
    ['init-b', 1000],
    ['app', 3000],
  ]);
  const started = (await events()).filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath).sort();
  assert.deepEqual(started, ['spec.containers{app}', 'spec.initContainers{init-a}', 'spec.initContainers{init-b}']);
  await agent.stop();
});

test('a failing init container under restartPolicy Never fails the pod; app containers never start', async () => {
  const { agent, create, until, getPod } = setup({ run: (_p, c) => (c.name === 'init-a' ? { durationMs: 500, exitCode: 2 } : undefined) });
  await agent.start();
  await create(initPod('never', { restartPolicy: 'Never' }));
  await until(20_000);
  const p = await getPod('never');
  assert.equal(p.status.phase, 'Failed');
  assert.equal(p.status.initContainerStatuses[0].state.terminated.exitCode, 2);
  assert.equal(p.status.initContainerStatuses[0].state.terminated.reason, 'Error');
  assert.equal(p.status.initContainerStatuses[0].restartCount, 0);
  assert.equal(p.status.initContainerStatuses[0].ready, false);
  assert.deepEqual(p.status.initContainerStatuses[1].state, { waiting: { reason: 'PodInitializing' } });
  assert.deepEqual(p.status.containerStatuses[0].state, { waiting: { reason: 'PodInitializing' } });
  assert.equal(cond(p, 'Initialized').status, 'False');
  await agent.stop();
});

test('a failing init container under restartPolicy OnFailure restarts with backoff, then the pod initializes', async () => {
  const { agent, create, until, getPod } = setup({
    run: (_p, c, attempt) => (c.name === 'init-a' ? { durationMs: 500, exitCode: attempt === 0 ? 1 : 0 } : undefined),
  });
  await agent.start();
  await create(initPod('onfail', { restartPolicy: 'OnFailure' }));
  await until(5000);
  let p = await getPod('onfail');
  assert.equal(p.status.phase, 'Pending');
  const a = p.status.initContainerStatuses[0];
  assert.equal(a.state.waiting.reason, 'CrashLoopBackOff');
  assert.equal(a.lastState.terminated.exitCode, 1);
  assert.equal(a.restartCount, 0);
  // Restarted at 0.5 s + 10 s, completes at 11 s; init-b 11 → 12 s; app at 12 s.
  await until(12_100);
  p = await getPod('onfail');
  assert.equal(p.status.initContainerStatuses[0].restartCount, 1);
  assert.equal(p.status.initContainerStatuses[0].state.terminated.exitCode, 0);
  assert.equal(p.status.phase, 'Running');
  assert.deepEqual(p.status.containerStatuses[0].state, { running: { startedAt: iso(12_000) } });
  await agent.stop();
});

test('initContainerRunDuration decides how long an init container runs', async () => {
  const { agent, create, until, getPod } = setup({ initContainerRunDuration: constantSampler(4000) });
  await agent.start();
  await create(initPod('slow'));
  await until(7900);
  assert.equal((await getPod('slow')).status.phase, 'Pending');
  await until(8100);
  assert.equal((await getPod('slow')).status.phase, 'Running');
  await agent.stop();
});

// ---- probes ------------------------------------------------------------------------------------

const probed = (name: string, probes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  pod(name, { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx:1.25', ...probes }], ...extra });
const httpGet = { httpGet: { path: '/healthz', port: 8080 } };

test('a readiness probe runs at startedAt + initialDelaySeconds, then every periodSeconds; ready follows it', async () => {
  const calls: [string, number][] = [];
  const { agent, create, until, getPod, now } = setup({
    startLatency: constantSampler(1000),
    probe: (_p, _c, kind) => {
      calls.push([kind, now()]);
      return undefined;
    },
  });
  await agent.start();
  await create(probed('ready', { readinessProbe: { ...httpGet, initialDelaySeconds: 5, periodSeconds: 10 } }));
  await until(5900);
  let p = await getPod('ready');
  assert.equal(p.status.phase, 'Running');
  assert.equal(p.status.containerStatuses[0].ready, false);
  assert.equal(p.status.containerStatuses[0].started, true);
  assert.equal(cond(p, 'Ready').status, 'False');
  assert.equal(cond(p, 'ContainersReady').status, 'False');
  await until(6000);
  p = await getPod('ready');
  assert.equal(p.status.containerStatuses[0].ready, true);
  assert.equal(cond(p, 'Ready').status, 'True');
  assert.equal(cond(p, 'Ready').lastTransitionTime, iso(6000));
  assert.equal(cond(p, 'ContainersReady').status, 'True');
  await until(36_000);
  assert.deepEqual(calls, [
    ['readiness', 6000],
    ['readiness', 16_000],
    ['readiness', 26_000],
    ['readiness', 36_000],
  ]);
  await agent.stop();
});

test('readiness flip-flops with failureThreshold and successThreshold; failures record Unhealthy', async () => {
  // Probes every 1 s from 0 s; failing in [3 s, 6 s], succeeding otherwise.
  const { agent, create, until, getPod, now, events } = setup({
    probe: () => (now() >= 3000 && now() <= 6000 ? { ok: false, output: 'HTTP probe failed with statuscode: 503' } : undefined),
  });
  await agent.start();
  await create(probed('flip', { readinessProbe: { ...httpGet, periodSeconds: 1, failureThreshold: 2, successThreshold: 2 } }));
  const readyAt = async (t: number) => {
    await until(t);
    return (await getPod('flip')).status.containerStatuses[0].ready;
  };
  assert.equal(await readyAt(0), false); // 1 success of 2
  assert.equal(await readyAt(1000), true); // 2 successes
  assert.equal(await readyAt(3000), true); // 1 failure of 2
  assert.equal(await readyAt(4000), false); // 2 failures
  assert.equal(await readyAt(7000), false); // 1 success of 2
  assert.equal(await readyAt(8000), true);
  const p = await getPod('flip');
  assert.equal(cond(p, 'Ready').status, 'True');
  assert.equal(cond(p, 'Ready').lastTransitionTime, iso(8000));
  assert.equal(p.status.containerStatuses[0].restartCount, 0);
  const unhealthy = (await events()).filter((e) => e.reason === 'Unhealthy');
  assert.equal(unhealthy.length, 1);
  assert.equal(unhealthy[0].message, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
  assert.equal(unhealthy[0].count, 4);
  assert.equal(unhealthy[0].type, 'Warning');
  await agent.stop();
});

test('a liveness probe failing failureThreshold times kills the container; it restarts after backoff', async () => {
  const { agent, create, until, getPod, events, now } = setup({
    stopLatency: constantSampler(2000),
    probe: (_p, _c, kind, attempt) => (kind === 'liveness' && attempt === 0 && now() >= 20_000 ? { ok: false } : undefined),
  });
  await agent.start();
  await create(probed('live', { livenessProbe: { exec: { command: ['true'] }, periodSeconds: 10, failureThreshold: 3 } }));
  // Probes at 0, 10, 20 (fail 1), 30 (fail 2), 40 (fail 3 → kill), stop takes 2 s: exits at 42 s.
  await until(41_900);
  let p = await getPod('live');
  assert.ok(p.status.containerStatuses[0].state.running);
  assert.equal(p.status.containerStatuses[0].ready, false);
  await until(42_000);
  p = await getPod('live');
  const cs = p.status.containerStatuses[0];
  assert.equal(cs.state.terminated?.exitCode ?? cs.lastState.terminated.exitCode, 143);
  // Backoff 10 s from the exit: running again at 52 s with restartCount 1.
  await until(51_900);
  assert.equal((await getPod('live')).status.containerStatuses[0].restartCount, 0);
  await until(52_100);
  p = await getPod('live');
  assert.equal(p.status.containerStatuses[0].restartCount, 1);
  assert.deepEqual(p.status.containerStatuses[0].state, { running: { startedAt: iso(52_000) } });
  assert.equal(p.status.containerStatuses[0].lastState.terminated.reason, 'Error');
  const evs = await events();
  assert.equal(evs.find((e) => e.reason === 'Killing').message, 'Container c failed liveness probe, will be restarted');
  const unhealthy = evs.find((e) => e.reason === 'Unhealthy');
  assert.equal(unhealthy.message, 'Liveness probe failed: command failed with exit code 1');
  assert.equal(unhealthy.count, 3);
  // The new run's probes succeed: no more kills.
  await until(120_000);
  assert.equal((await getPod('live')).status.containerStatuses[0].restartCount, 1);
  await agent.stop();
});

test('a startup probe gates liveness and readiness; started flips when it passes', async () => {
  const calls: [string, number][] = [];
  const { agent, create, until, getPod, now } = setup({
    probe: (_p, _c, kind) => {
      calls.push([kind, now()]);
      return kind === 'startup' && now() < 10_000 ? { ok: false } : undefined;
    },
  });
  await agent.start();
  await create(
    probed('gated', {
      startupProbe: { ...httpGet, periodSeconds: 5, failureThreshold: 5 },
      livenessProbe: { ...httpGet, periodSeconds: 10 },
      readinessProbe: { ...httpGet, periodSeconds: 10 },
    }),
  );
  await until(9900);
  let cs = (await getPod('gated')).status.containerStatuses[0];
  assert.equal(cs.started, false);
  assert.equal(cs.ready, false);
  await until(10_000);
  cs = (await getPod('gated')).status.containerStatuses[0];
  assert.equal(cs.started, true);
  assert.equal(cs.ready, true);
  await until(20_000);
  assert.deepEqual(calls, [
    ['startup', 0],
    ['startup', 5000],
    ['startup', 10_000],
    ['liveness', 10_000],
    ['readiness', 10_000],
    ['liveness', 20_000],
    ['readiness', 20_000],
  ]);
  await agent.stop();
});

test('a startup probe that keeps failing kills the container', async () => {
  const { agent, create, until, getPod, events } = setup({ probe: (_p, _c, kind) => (kind === 'startup' ? { ok: false, output: 'boom' } : undefined) });
  await agent.start();
  await create(probed('nostartup', { startupProbe: { ...httpGet, periodSeconds: 2, failureThreshold: 3 }, livenessProbe: httpGet }));
  await until(4100);
  const cs = (await getPod('nostartup')).status.containerStatuses[0];
  assert.equal(cs.lastState.terminated?.exitCode ?? cs.state.terminated?.exitCode, 143);
  const evs = await events();
  assert.equal(evs.find((e) => e.reason === 'Killing').message, 'Container c failed startup probe, will be restarted');
  assert.equal(evs.find((e) => e.reason === 'Unhealthy').message, 'Startup probe failed: boom');
  await agent.stop();
});

test('a probe slower than timeoutSeconds fails at the timeout', async () => {
  const { agent, create, until, getPod, events } = setup({ probe: () => ({ ok: true, latencyMs: 5000 }) });
  await agent.start();
  await create(probed('slowprobe', { readinessProbe: { ...httpGet, timeoutSeconds: 2, periodSeconds: 10, failureThreshold: 1 } }));
  await until(1900);
  assert.equal((await events()).filter((e) => e.reason === 'Unhealthy').length, 0);
  await until(2000);
  const unhealthy = (await events()).find((e) => e.reason === 'Unhealthy');
  assert.equal(unhealthy.message, 'Readiness probe failed: probe timed out after 2s');
  assert.equal(unhealthy.firstTimestamp, iso(2000));
  assert.equal((await getPod('slowprobe')).status.containerStatuses[0].ready, false);
  await agent.stop();
});

test('probeFailureProbability draws probe failures from the runtime Rng', async () => {
  const { agent, create, until, getPod } = setup({ probeFailureProbability: 1 });
  await agent.start();
  await create(probed('flaky', { readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 1, failureThreshold: 1 } }));
  await until(3000);
  assert.equal((await getPod('flaky')).status.containerStatuses[0].ready, false);
  await agent.stop();
});

test('a pod without probes schedules no probe timers; probe timers stop with the pod', async () => {
  const { agent, create, until, s, settle } = setup({}, { events: false });
  await agent.start();
  await settle();
  const base = s.clock.pending();
  await create(pod('plain', { nodeName: 'node-1' }));
  await until(1000);
  assert.equal(s.clock.pending(), base);
  await create(probed('probed', { livenessProbe: httpGet, readinessProbe: httpGet }));
  await until(1500);
  assert.equal(s.clock.pending(), base + 2);
  await s.request('DELETE', '/api/v1/namespaces/default/pods/probed');
  await until(2500);
  assert.equal(s.clock.pending(), base);
  await agent.stop();
});

test('stop() returns after the Events already recorded are written', async () => {
  const { agent, s, requests } = setup({}, {}, '', SimulatedRuntime);
  await agent.start();
  await agent.stop();
  const stats = { ...agent.recorder!.stats };
  const written = (await s.request('GET', '/api/v1/namespaces/default/events')).body.items as any[];
  assert.ok(stats.recorded > 0);
  assert.equal(stats.created, stats.recorded, 'every recorded Event was created before stop() returned');
  assert.equal(written.length, stats.recorded);
  assert.equal(requests.filter((r) => r.method === 'POST' && r.path.endsWith('/events')).length, written.length);
});

test('readiness gates: Ready waits for every gate condition to be True (set by another component), ContainersReady does not', async () => {
  const { agent, create, until, s, getPod, settle } = setup();
  await agent.start();
  const p = pod('gated', { nodeName: 'node-1' });
  p.spec.readinessGates = [{ conditionType: 'example.com/lb-ready' }];
  await create(p);
  await until(2000);
  let got = await getPod('gated');
  assert.equal(got.status.phase, 'Running');
  assert.equal(cond(got, 'ContainersReady').status, 'True');
  assert.equal(cond(got, 'Ready').status, 'False');
  assert.equal(cond(got, 'Ready').reason, 'ReadinessGatesNotReady');
  assert.equal(cond(got, 'Ready').message, 'corresponding condition of pod readiness gate "example.com/lb-ready" does not exist.');

  const setGate = async (status: string) => {
    const r = await s.request('PATCH', '/api/v1/namespaces/default/pods/gated/status', { status: { conditions: [{ type: 'example.com/lb-ready', status }] } }, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.equal(r.status, 200);
    await settle();
    return getPod('gated');
  };
  got = await setGate('False');
  assert.equal(cond(got, 'Ready').message, 'the status of pod readiness gate "example.com/lb-ready" is not "True", but False');
  got = await setGate('True');
  assert.equal(cond(got, 'Ready').status, 'True');
  assert.equal(cond(got, 'example.com/lb-ready').status, 'True', "the agent's status patches keep the other component's condition");
  await agent.stop();
});

test("a liveness kill uses the probe's terminationGracePeriodSeconds over the pod's", async () => {
  const { agent, create, until, getPod, now } = setup({
    stopLatency: constantSampler(5000),
    probe: (_p, _c, kind, attempt) => (kind === 'liveness' && attempt === 0 && now() >= 10_000 ? { ok: false } : undefined),
  });
  await agent.start();
  const p = probed('short', { livenessProbe: { exec: { command: ['true'] }, periodSeconds: 10, failureThreshold: 1, terminationGracePeriodSeconds: 1 } });
  p.spec.terminationGracePeriodSeconds = 60;
  await create(p);
  // Fails at 10 s; the container would take 5 s to stop, the probe allows 1 s: killed (137) at 11 s.
  await until(10_900);
  assert.ok((await getPod('short')).status.containerStatuses[0].state.running);
  await until(11_000);
  const cs = (await getPod('short')).status.containerStatuses[0];
  assert.equal(cs.state.terminated?.exitCode ?? cs.lastState.terminated.exitCode, 137);
  await agent.stop();
});
