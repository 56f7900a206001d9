import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRng } from '../machinery/rng.ts';
import { fitErrorMessage, numFeasibleNodesToFind, Profile } from './framework.ts';
import { newPodInfo, NodeInfo, SchedulerCache } from './nodeinfo.ts';
import { defaultPluginRegistry, type Plugin, type PluginContext } from './plugins.ts';

test('numFeasibleNodesToFind follows Kubernetes: all below 100, adaptive 50 - n/125 %, min 5 %, at least 100', () => {
  assert.equal(numFeasibleNodesToFind(0, 99), 99);
  assert.equal(numFeasibleNodesToFind(0, 100), 100); // 49 % of 100 = 49 → raised to 100
  assert.equal(numFeasibleNodesToFind(0, 1000), 420); // 50 - 8 = 42 %
  assert.equal(numFeasibleNodesToFind(0, 5000), 500); // 50 - 40 = 10 %
  assert.equal(numFeasibleNodesToFind(0, 6000), 300); // 50 - 48 = 2 % → 5 %
  assert.equal(numFeasibleNodesToFind(30, 1000), 300);
  assert.equal(numFeasibleNodesToFind(100, 1000), 1000);
  assert.equal(numFeasibleNodesToFind(1, 1000), 100);
});

test('fitErrorMessage sorts "count reason" strings', () => {
  assert.equal(fitErrorMessage(5, new Map([['Insufficient cpu', 3], ['node(s) were unschedulable', 2]])), '0/5 nodes are available: 2 node(s) were unschedulable, 3 Insufficient cpu.');
  assert.equal(fitErrorMessage(0, new Map()), 'no nodes available to schedule pods');
});

function node(name: string, cpu: string, mem = '10Gi'): NodeInfo {
  return new NodeInfo(name, { metadata: { name, labels: {} }, status: { allocatable: { cpu, memory: mem, pods: '110' } } });
}

test('the profile searches round-robin and stops after enough feasible nodes', () => {
  const nodes = Array.from({ length: 1000 }, (_, i) => node(`n${String(i).padStart(4, '0')}`, '4'));
  const prof = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1));
  const pod = { metadata: { namespace: 'd', name: 'p' }, spec: { containers: [{ name: 'c' }] } };
  const r1 = prof.schedule(pod, { allNodes: nodes, namespaceLabels: () => undefined });
  assert.equal(r1.evaluatedNodes, 420);
  assert.equal(r1.feasibleNodes, 420);
  const idx = Number(r1.node!.slice(1));
  assert.ok(idx < 420);
  const r2 = prof.schedule(pod, { allNodes: nodes, namespaceLabels: () => undefined });
  const idx2 = Number(r2.node!.slice(1));
  assert.ok(idx2 >= 420 && idx2 < 840, `second search starts where the first stopped (${idx2})`);
});

test('scores: LeastAllocated and BalancedAllocation prefer the emptier, balanced node; weights apply', () => {
  const busy = node('busy', '4', '8Gi');
  busy.addPod({ pod: {}, key: 'x/y', requests: { milliCPU: 3000, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: {} }, nonZeroRequests: { milliCPU: 3000, memory: 200 * 1024 * 1024, ephemeralStorage: 0, allowedPodNumber: 0, scalar: {} }, ports: [], hasAffinity: false, hasRequiredAntiAffinity: false });
  const idle = node('idle', '4', '8Gi');
  const prof = new Profile({ schedulerName: 's' }, new SeededRng(1));
  const pod = { metadata: { namespace: 'd', name: 'p' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '2Gi' } } }] } };
  const r = prof.schedule(pod, { allNodes: [busy, idle], namespaceLabels: () => undefined });
  assert.equal(r.node, 'idle');
  // idle: cpu (4000-1000)*100/4000 = 75, memory (8Gi-2Gi)*100/8Gi = 75 → 75
  assert.equal(r.scores!.NodeResourcesFit, 75);
  // fractions 0.25 and 0.25 → std 0 → 100
  assert.equal(r.scores!.NodeResourcesBalancedAllocation, 100);
  // no PreferNoSchedule taints anywhere → TaintToleration gives 100 × weight 3
  assert.equal(r.scores!.TaintToleration, 300);
});

describe('nominated pods in PreFilter state (AddPod on a cloned CycleState)', () => {
  const zoneNode = (name: string, zone: string) =>
    new NodeInfo(name, { metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
  const web = (name: string, priority: number, extra: any = {}) => ({
    metadata: { namespace: 'd', name, uid: `uid-${name}`, labels: { app: 'web' } },
    spec: { priority, containers: [{ name: 'c' }], ...extra },
  });
  const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }] };
  const ctxWith = (nodes: NodeInfo[], nominated: Record<string, any[]>): PluginContext => ({
    allNodes: nodes,
    namespaceLabels: () => undefined,
    nominatedPodsOn: (n) => (nominated[n] ?? []).map(newPodInfo),
  });

  test('a pod whose topology spread is violated only by a higher-priority nominated pod is rejected from that node', () => {
    const a = zoneNode('a1', 'a');
    const b = zoneNode('b1', 'b');
    const prof = new Profile({ schedulerName: 's' }, new SeededRng(1));
    const p = web('p', 0, spread);
    const ctx = ctxWith([a, b], { a1: [web('preemptor', 100)] });
    const state = prof.newCycleState(p, ctx);
    assert.deepEqual(prof.filterWithNominatedPods(state, p, a, ctx), { plugin: 'PodTopologySpread', reasons: ["node(s) didn't match pod topology spread constraints"] });
    assert.equal(prof.filterWithNominatedPods(state, p, b, ctx), undefined);
    // The original state is untouched: without the nomination zone a is still fine.
    assert.equal(prof.runFilters(state, p, a), undefined);
    assert.equal(prof.schedule(p, ctx).node, 'b1');
  });

  test('a lower-priority nominated pod does not count against the pod', () => {
    const a = zoneNode('a1', 'a');
    const b = zoneNode('b1', 'b');
    const prof = new Profile({ schedulerName: 's' }, new SeededRng(1));
    const p = web('p', 50, spread);
    const ctx = ctxWith([a, b], { a1: [web('lesser', 10)] });
    assert.equal(prof.filterWithNominatedPods(prof.newCycleState(p, ctx), p, a, ctx), undefined);
  });

  test('a nominated pod’s required anti-affinity and the pod’s own anti-affinity terms see nominated pods', () => {
    const a = zoneNode('a1', 'a');
    const prof = new Profile({ schedulerName: 's' }, new SeededRng(1));
    const antiWeb = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } };
    const p = web('p', 0);
    const ctx = ctxWith([a], { a1: [web('loner', 100, { affinity: antiWeb })] });
    assert.deepEqual(prof.filterWithNominatedPods(prof.newCycleState(p, ctx), p, a, ctx), { plugin: 'InterPodAffinity', reasons: ["node(s) didn't satisfy existing pods anti-affinity rules"] });
    const q = web('q', 0, { affinity: antiWeb });
    const ctx2 = ctxWith([a], { a1: [web('neighbour', 100)] });
    assert.deepEqual(prof.filterWithNominatedPods(prof.newCycleState(q, ctx2), q, a, ctx2), { plugin: 'InterPodAffinity', reasons: ["node(s) didn't match pod anti-affinity rules"] });
  });

  test('without nominated pods no state is cloned and no AddPod runs', () => {
    let adds = 0;
    const spy: Plugin = {
      name: 'Spy',
      preFilter: (state) => void state.set('Spy', { clone: () => assert.fail('state cloned') }),
      addPod: () => void adds++,
    };
    const prof = new Profile({ schedulerName: 's', filter: ['Spy'], score: [] }, new SeededRng(1), new Map([['Spy', spy]]));
    const n = zoneNode('a1', 'a');
    const p = web('p', 0);
    assert.equal(prof.schedule(p, { allNodes: [n], namespaceLabels: () => undefined }).node, 'a1');
    assert.equal(prof.schedule(p, ctxWith([n], {})).node, 'a1');
    assert.equal(adds, 0);
  });
});

/** The default plugins, each call of one extension point counted by plugin name. */
function countedPlugins(point: 'filter' | 'score'): { registry: Map<string, Plugin>; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const registry = new Map<string, Plugin>();
  for (const [name, p] of defaultPluginRegistry()) {
    const fn = p[point] as ((...args: unknown[]) => unknown) | undefined;
    registry.set(name, fn ? { ...p, [point]: (...args: unknown[]) => (calls.set(name, (calls.get(name) ?? 0) + 1), fn.apply(p, args)) } : p);
  }
  return { registry, calls };
}

describe('PreFilter Skip', () => {
  const counted = () => countedPlugins('filter');
  const ctx = (nodes: NodeInfo[]): PluginContext => ({ allNodes: nodes, namespaceLabels: () => ({}) });
  const plain = { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };

  test('a pod without selectors, host ports, spread constraints or pod (anti-)affinity skips those filters, with the same outcome', () => {
    const nodes = [node('a', '4'), node('b', '4')];
    const { registry, calls } = counted();
    const prof = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1), registry);
    const out = prof.schedule(plain, ctx(nodes));
    assert.ok(out.node);
    for (const skipped of ['NodeAffinity', 'NodePorts', 'PodTopologySpread', 'InterPodAffinity']) assert.equal(calls.get(skipped) ?? 0, 0, skipped);
    assert.equal(calls.get('NodeResourcesFit'), 2);
  });

  test('a pod that uses them runs them, and they still reject', () => {
    const nodes = [node('a', '4'), node('b', '4')];
    nodes[0].node.metadata.labels = { disk: 'ssd' };
    const { registry, calls } = counted();
    const prof = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1), registry);
    const pod = { ...plain, spec: { ...plain.spec, nodeSelector: { disk: 'ssd' }, containers: [{ ...plain.spec.containers[0], ports: [{ containerPort: 80, hostPort: 8080 }] }] } };
    const out = prof.schedule(pod, ctx(nodes));
    assert.equal(out.node, 'a');
    assert.equal(calls.get('NodeAffinity'), 2);
    assert.equal(calls.get('NodePorts'), 1, 'the node the selector rejected never reaches NodePorts');
  });
});

describe('PreScore Skip', () => {
  const counted = () => countedPlugins('score');
  const zoned = (name: string) =>
    new NodeInfo(name, { metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': name, disk: name === 'b' ? 'ssd' : 'hdd' } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
  const ctx = (nodes: NodeInfo[]): PluginContext => ({ allNodes: nodes, namespaceLabels: () => ({}) });
  const plain = { metadata: { name: 'p', namespace: 'default', uid: 'u1', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };

  test('a pod without preferred node affinity, soft spread constraints or preferred pod affinity scores only with the rest; those record 0', () => {
    const nodes = [zoned('a'), zoned('b'), zoned('c')];
    const { registry, calls } = counted();
    const out = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1), registry).schedule(plain, ctx(nodes));
    for (const skipped of ['NodeAffinity', 'PodTopologySpread', 'InterPodAffinity']) {
      assert.equal(calls.get(skipped) ?? 0, 0, skipped);
      assert.equal(out.scores![skipped], 0, skipped);
    }
    assert.equal(calls.get('NodeResourcesFit'), 3);
    assert.equal(calls.get('TaintToleration'), 3);
  });

  test('a pod with them scores with them, and the preference decides', () => {
    const nodes = [zoned('a'), zoned('b'), zoned('c')];
    const { registry, calls } = counted();
    const pod = {
      ...plain,
      spec: {
        ...plain.spec,
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'x' } } }],
      },
    };
    const out = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1), registry).schedule(pod, ctx(nodes));
    assert.equal(out.node, 'b');
    assert.equal(calls.get('NodeAffinity'), 3);
    assert.equal(calls.get('PodTopologySpread'), 3);
    assert.equal(out.scores!.NodeAffinity, 200, 'the normalized 100 × weight 2');
  });
});

test('the cache counts pods with required anti-affinity across adds, updates, moves and removals', () => {
  const cache = new SchedulerCache();
  for (const n of ['a', 'b']) cache.addOrUpdateNode({ metadata: { name: n }, status: { allocatable: { cpu: '4', pods: '110' } } });
  const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } }] } };
  const pod = (name: string, nodeName: string, affinity?: object) => ({ metadata: { name, namespace: 'd' }, spec: { nodeName, affinity, containers: [{ name: 'c' }] } });
  cache.addOrUpdatePod(pod('p1', 'a', anti));
  cache.addOrUpdatePod(pod('p2', 'a'));
  assert.equal(cache.podsWithRequiredAntiAffinity, 1);
  cache.addOrUpdatePod(pod('p1', 'a', anti)); // an update replaces, it does not add
  assert.equal(cache.podsWithRequiredAntiAffinity, 1);
  cache.addOrUpdatePod(pod('p1', 'b', anti)); // moved
  assert.equal(cache.podsWithRequiredAntiAffinity, 1);
  cache.assumePod(pod('p3', '', anti), 'b');
  assert.equal(cache.podsWithRequiredAntiAffinity, 2);
  cache.forgetPod(pod('p3', '', anti));
  cache.addOrUpdatePod(pod('p1', 'b')); // the term was dropped
  assert.equal(cache.podsWithRequiredAntiAffinity, 0);
  cache.addOrUpdatePod(pod('p2', 'a', anti));
  cache.removePod(pod('p2', 'a'));
  assert.equal(cache.podsWithRequiredAntiAffinity, 0);
});
