import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRng } from '../machinery/rng.ts';
import { newPodInfo, NodeInfo, podRequests } from './nodeinfo.ts';
import { cloneCycleState, interPodAffinity, nodeAffinity, nodeResourcesBalancedAllocation, nodeResourcesFit, nodeUnschedulable, podTopologySpread, taintToleration, toleratesTaint, type CycleState } from './plugins.ts';

const mkNode = (name: string, labels: Record<string, string> = {}, spec: any = {}, alloc: any = { cpu: '4', memory: '8Gi', pods: '110' }) =>
  new NodeInfo(name, { metadata: { name, labels }, spec, status: { allocatable: alloc } });
const mkPod = (name: string, spec: any = {}, labels?: Record<string, string>) => ({ metadata: { namespace: 'default', name, labels }, spec: { containers: [{ name: 'c' }], ...spec } });
const stateFor = (pod: any): CycleState => new Map([['podInfo', newPodInfo(pod)]]);

test('pod requests: containers summed, init containers max, sidecars added, overhead added, limits as requests', () => {
  const r = podRequests({
    spec: {
      containers: [{ resources: { requests: { cpu: '500m', memory: '1Gi' } } }, { resources: { limits: { cpu: '250m' } } }],
      initContainers: [{ resources: { requests: { cpu: '2' } } }, { restartPolicy: 'Always', resources: { requests: { memory: '512Mi' } } }],
      overhead: { cpu: '10m' },
    },
  });
  assert.equal(r.milliCPU, 2010);
  assert.equal(r.memory, 1.5 * 1024 ** 3);
  const nz = podRequests({ spec: { containers: [{}, { resources: { requests: { cpu: '1' } } }] } }, true);
  assert.equal(nz.milliCPU, 1100);
  assert.equal(nz.memory, 2 * 200 * 1024 * 1024);
});

test('NodeResourcesFit reports every insufficient resource and the pod count', () => {
  const n = mkNode('n', {}, {}, { cpu: '1', memory: '1Gi', pods: '1', 'example.com/gpu': '1' });
  n.addPod(newPodInfo(mkPod('x')));
  const pod = mkPod('p', { containers: [{ name: 'c', resources: { requests: { cpu: '2', memory: '2Gi', 'example.com/gpu': '2' } } }] });
  assert.deepEqual(nodeResourcesFit().filter!(stateFor(pod), pod, n), ['Too many pods', 'Insufficient cpu', 'Insufficient memory', 'Insufficient example.com/gpu']);
  const small = mkPod('s', { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] });
  assert.equal(nodeResourcesFit().filter!(stateFor(small), small, mkNode('m')), undefined);
});

test('tolerations: Exists with empty key matches all; effect must match when set', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true);
  assert.equal(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v' }, taint), true);
  assert.equal(toleratesTaint({ key: 'k', value: 'w' }, taint), false);
  assert.equal(toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  const n = mkNode('n', {}, { taints: [{ key: 'soft', value: 'x', effect: 'PreferNoSchedule' }, taint] });
  const pod = mkPod('p', { tolerations: [{ key: 'k', operator: 'Exists' }] });
  assert.equal(taintToleration.filter!(new Map(), pod, n), undefined);
  assert.deepEqual(taintToleration.filter!(new Map(), mkPod('q'), n), ['node(s) had untolerated taint {k: v}']);
  const scores = [taintToleration.score!(new Map(), pod, n), taintToleration.score!(new Map(), pod, mkNode('clean'))];
  taintToleration.normalizeScore!(new Map(), pod, scores, []);
  assert.deepEqual(scores, [0, 100]);
});

test('NodeUnschedulable honours the unschedulable toleration', () => {
  const n = mkNode('n', {}, { unschedulable: true });
  assert.deepEqual(nodeUnschedulable.filter!(new Map(), mkPod('p'), n), ['node(s) were unschedulable']);
  const tol = mkPod('t', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] });
  assert.equal(nodeUnschedulable.filter!(new Map(), tol, n), undefined);
});

test('NodeAffinity: nodeSelector, OR of terms, Gt, matchFields, preferred weights', () => {
  const n = mkNode('n1', { zone: 'a', cores: '16' });
  const sel = mkPod('p', { nodeSelector: { zone: 'b' } });
  assert.deepEqual(nodeAffinity.filter!(new Map(), sel, n), ["node(s) didn't match Pod's node affinity/selector"]);
  const req = (terms: any[]) => mkPod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  assert.equal(nodeAffinity.filter!(new Map(), req([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['8'] }] }]), n), undefined);
  assert.ok(nodeAffinity.filter!(new Map(), req([{ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['8'] }] }]), n));
  assert.equal(nodeAffinity.filter!(new Map(), req([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]), n), undefined);
  assert.ok(nodeAffinity.filter!(new Map(), req([{}]), n), 'an empty term matches nothing');
  const pref = mkPod('p', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } }, { weight: 2, preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } }] } } });
  const scores = [nodeAffinity.score!(new Map(), pref, n), nodeAffinity.score!(new Map(), pref, mkNode('n2', { zone: 'c' }))];
  assert.deepEqual(scores, [7, 2]);
  nodeAffinity.normalizeScore!(new Map(), pref, scores, []);
  assert.deepEqual(scores, [100, 28]);
});

test('PodTopologySpread filter: skew against the global minimum, missing label', () => {
  const a = mkNode('a', { zone: 'a' });
  const b = mkNode('b', { zone: 'b' });
  const nolabel = mkNode('x');
  a.addPod(newPodInfo(mkPod('w1', {}, { app: 'w' })));
  const pod = mkPod('p', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'w' } } }] }, { app: 'w' });
  const st = stateFor(pod);
  podTopologySpread.preFilter!(st, pod, { allNodes: [a, b, nolabel], namespaceLabels: () => undefined });
  assert.deepEqual(podTopologySpread.filter!(st, pod, a), ["node(s) didn't match pod topology spread constraints"]);
  assert.equal(podTopologySpread.filter!(st, pod, b), undefined);
  assert.deepEqual(podTopologySpread.filter!(st, pod, nolabel), ["node(s) didn't match pod topology spread constraints (missing required label)"]);
});

test('InterPodAffinity: required affinity, first pod of a group, existing pods anti-affinity', () => {
  const a = mkNode('a', { zone: 'a' });
  const b = mkNode('b', { zone: 'b' });
  const ctx = { allNodes: [a, b], namespaceLabels: () => undefined };
  const affine = mkPod('p', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'cache' } } }] } } }, { app: 'cache' });
  let st = stateFor(affine);
  interPodAffinity.preFilter!(st, affine, ctx);
  assert.equal(interPodAffinity.filter!(st, affine, a), undefined, 'first pod of its own group may go anywhere');
  a.addPod(newPodInfo(mkPod('c1', {}, { app: 'cache' })));
  st = stateFor(affine);
  interPodAffinity.preFilter!(st, affine, ctx);
  assert.equal(interPodAffinity.filter!(st, affine, a), undefined);
  assert.deepEqual(interPodAffinity.filter!(st, affine, b), ["node(s) didn't match pod affinity rules"]);
  b.addPod(newPodInfo(mkPod('lonely', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'noisy' } } }] } } })));
  const noisy = mkPod('n', {}, { app: 'noisy' });
  st = stateFor(noisy);
  interPodAffinity.preFilter!(st, noisy, ctx);
  assert.deepEqual(interPodAffinity.filter!(st, noisy, b), ["node(s) didn't satisfy existing pods anti-affinity rules"]);
  assert.equal(interPodAffinity.filter!(st, noisy, a), undefined);
});

test('PreFilterExtensions: addPod then removePod on a cloned state restores the counts; the original never changes', () => {
  const a = mkNode('a', { zone: 'z1', 'kubernetes.io/hostname': 'a' });
  const b = mkNode('b', { zone: 'z2', 'kubernetes.io/hostname': 'b' });
  b.addPod(newPodInfo(mkPod('w0', {}, { app: 'web' })));
  const pod = mkPod('p', {
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'db' } } }] } },
  }, { app: 'web' });
  const ctx = { allNodes: [a, b], namespaceLabels: () => undefined };
  const st = stateFor(pod);
  podTopologySpread.preFilter!(st, pod, ctx);
  interPodAffinity.preFilter!(st, pod, ctx);
  const snapshot = (s: CycleState) => JSON.stringify([
    [...(s.get('PodTopologySpread/filter') as any).counts[0]],
    (s.get('PodTopologySpread/filter') as any).minMatch,
    [...(s.get('InterPodAffinity/filter') as any).antiAffinityCounts],
  ]);
  const before = snapshot(st);
  assert.equal(before, JSON.stringify([[['z1', 0], ['z2', 1]], [0], []]));
  const copy = cloneCycleState(st);
  const web = newPodInfo(mkPod('w1', {}, { app: 'web' }));
  const db = newPodInfo(mkPod('d1', {}, { app: 'db' }));
  const other = newPodInfo({ ...mkPod('x', {}, { app: 'web' }), metadata: { namespace: 'elsewhere', name: 'x', labels: { app: 'web' } } });
  for (const pi of [web, db, other]) {
    podTopologySpread.addPod!(copy, pod, pi, a);
    interPodAffinity.addPod!(copy, pod, pi, a);
  }
  assert.equal(snapshot(copy), JSON.stringify([[['z1', 1], ['z2', 1]], [1], [['zone\u0000z1', 1]]]));
  assert.deepEqual(interPodAffinity.filter!(copy, pod, a), ["node(s) didn't match pod anti-affinity rules"]);
  assert.equal(interPodAffinity.filter!(st, pod, a), undefined);
  for (const pi of [web, db, other]) {
    podTopologySpread.removePod!(copy, pod, pi, a);
    interPodAffinity.removePod!(copy, pod, pi, a);
  }
  assert.equal(snapshot(copy), before, 'zero counts leave the affinity maps, spread domains stay');
  assert.equal(snapshot(st), before);
});

test('the cpu-and-memory score paths agree with the general per-resource ones (same resources, other order)', () => {
  const fast = [nodeResourcesFit([{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 3 }]), nodeResourcesBalancedAllocation()];
  const general = [nodeResourcesFit([{ name: 'memory', weight: 3 }, { name: 'cpu', weight: 1 }]), nodeResourcesBalancedAllocation([{ name: 'memory', weight: 1 }, { name: 'cpu', weight: 1 }])];
  const rng = new SeededRng(7);
  const next = (n: number) => rng.int(n);
  const seen = [new Set<number>(), new Set<number>()];
  for (let i = 0; i < 300; i++) {
    // Zero, small and overcommitted allocatable, so every branch is taken.
    const alloc = { cpu: `${next(4) === 0 ? 0 : next(8000)}m`, memory: `${next(4) === 0 ? 0 : next(16)}Gi`, pods: '110' };
    const node = mkNode(`n${i}`, {}, {}, alloc);
    for (let j = next(4); j > 0; j--) node.addPod(newPodInfo(mkPod(`e${j}`, { nodeName: node.name, containers: [{ name: 'c', resources: { requests: { cpu: `${next(3000)}m`, memory: `${next(4000)}Mi` } } }] })));
    const pod = mkPod('p', { containers: [{ name: 'c', resources: next(3) === 0 ? {} : { requests: { cpu: `${next(2000)}m`, memory: `${next(3000)}Mi` } } }] });
    for (let k = 0; k < 2; k++) {
      const a = fast[k].score!(stateFor(pod), pod, node);
      const b = general[k].score!(stateFor(pod), pod, node);
      assert.equal(a, b, `${fast[k].name} on ${JSON.stringify(alloc)}`);
      seen[k].add(a);
    }
  }
  assert.ok(seen.every((v) => v.size > 20), `the inputs vary the scores (${seen.map((v) => v.size)} distinct)`);
});

test('a NodeInfo keeps its flat copies equal to its resource sums, taints and unschedulable through adds, removals, node updates and clones', () => {
  const rng = new SeededRng(11);
  const node = mkNode('n', {}, {}, { cpu: '8', memory: '16Gi', pods: '110', 'ephemeral-storage': '50Gi' });
  const check = (ni: NodeInfo, when: string) => {
    assert.deepEqual(
      [ni.podCount, ni.allocMilliCPU, ni.allocMemory, ni.allocEphemeralStorage, ni.allocPods, ni.reqMilliCPU, ni.reqMemory, ni.reqEphemeralStorage, ni.nonZeroMilliCPU, ni.nonZeroMemory],
      [ni.pods.size, ni.allocatable.milliCPU, ni.allocatable.memory, ni.allocatable.ephemeralStorage, ni.allocatable.allowedPodNumber, ni.requested.milliCPU, ni.requested.memory, ni.requested.ephemeralStorage, ni.nonZeroRequested.milliCPU, ni.nonZeroRequested.memory],
      when,
    );
    const taints = ni.node?.spec?.taints;
    assert.equal(ni.taints, taints?.length ? taints : undefined, `${when}: taints`);
    assert.equal(ni.unschedulable, !!ni.node?.spec?.unschedulable, `${when}: unschedulable`);
  };
  for (let i = 0; i < 200; i++) {
    const op = rng.int(10);
    if (op < 6) node.addPod(newPodInfo(mkPod(`p${rng.int(20)}`, { nodeName: 'n', containers: [{ name: 'c', resources: rng.int(3) === 0 ? {} : { requests: { cpu: `${rng.int(500)}m`, memory: `${rng.int(500)}Mi`, 'ephemeral-storage': `${rng.int(5)}Gi` } } }] })));
    else if (op < 9) node.removePod(`default/p${rng.int(20)}`);
    else node.setNode({ metadata: { name: 'n' }, spec: rng.int(2) ? { taints: [{ key: 'k', effect: 'NoSchedule' }], unschedulable: true } : {}, status: { allocatable: { cpu: `${1 + rng.int(16)}`, memory: '16Gi', pods: `${10 + rng.int(100)}` } } });
    check(node, `step ${i}`);
    if (i % 50 === 0) check(node.clone(), `clone at step ${i}`);
  }
  assert.ok(node.podCount > 0);
});
