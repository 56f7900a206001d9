import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Rng } from '../machinery/rng.ts';
import { SeededRng } from '../machinery/rng.ts';
import { Profile } from './framework.ts';
import { newPodInfo, NodeInfo } from './nodeinfo.ts';
import type { PluginContext } from './plugins.ts';
import {
  filterPodsWithPDBViolation,
  isUnresolvable,
  Nominator,
  numPreemptionCandidates,
  pickOneNodeForPreemption,
  preempt,
  selectVictimsOnNode,
  type PreemptArgs,
  type PreemptionOutcome,
} from './preemption.ts';

const NOW = Date.UTC(2026, 0, 1, 12);
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();

interface PodOpts {
  priority?: number;
  labels?: Record<string, string>;
  startTime?: string;
  ns?: string;
  terminating?: boolean;
  preemptionPolicy?: string;
  nominatedNodeName?: string;
  taintToleration?: boolean;
}

function pod(name: string, cpu: string, o: PodOpts = {}): any {
  return {
    metadata: { name, namespace: o.ns ?? 'default', uid: `uid-${name}`, labels: o.labels, ...(o.terminating ? { deletionTimestamp: at(0) } : {}) },
    spec: { priority: o.priority ?? 0, preemptionPolicy: o.preemptionPolicy ?? 'PreemptLowerPriority', containers: [{ name: 'c', image: 'i', resources: { requests: { cpu } } }] },
    status: { ...(o.startTime ? { startTime: o.startTime } : {}), ...(o.nominatedNodeName ? { nominatedNodeName: o.nominatedNodeName } : {}) },
  };
}

function node(name: string, cpu = '4', extra: { taints?: any[]; pods?: any[] } = {}): NodeInfo {
  const ni = new NodeInfo(name, { metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: { taints: extra.taints }, status: { allocatable: { cpu, memory: '8Gi', pods: '110' } } });
  for (const p of extra.pods ?? []) ni.addPod(newPodInfo({ ...p, spec: { ...p.spec, nodeName: name } }));
  return ni;
}

function pdb(name: string, selector: any, disruptionsAllowed: number, extra: any = {}): any {
  return { metadata: { name, namespace: extra.ns ?? 'default' }, spec: { selector }, status: { disruptionsAllowed, ...(extra.disruptedPods ? { disruptedPods: extra.disruptedPods } : {}) } };
}

function context(nodes: NodeInfo[], nominator?: Nominator): PluginContext {
  return { allNodes: nodes, namespaceLabels: () => undefined, nominatedPodsOn: nominator ? (n) => nominator.podsOn(n) : undefined };
}

function run(nodes: NodeInfo[], preemptor: any, extra: Partial<PreemptArgs> & { nominator?: Nominator } = {}): PreemptionOutcome {
  const profile = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1));
  const ctx = context(nodes, extra.nominator);
  const result = profile.schedule(preemptor, ctx);
  assert.equal(result.node, undefined, 'the preemptor must not fit without preemption');
  return preempt({ pod: preemptor, profile, ctx, nodeFailures: result.nodeFailures!, pdbs: [], now: NOW, ...extra });
}

function preempted(out: PreemptionOutcome): { node: string; victims: string[]; numPDBViolations: number } {
  assert.equal(out.status, 'Preempted', out.message);
  if (out.status !== 'Preempted') throw new Error('unreachable');
  return { node: out.candidate.node, victims: out.candidate.victims.map((v) => v.metadata.name), numPDBViolations: out.candidate.numPDBViolations };
}

const fixedRng = (v: number): Rng => ({ next: () => 0, int: () => v, uuid: () => '00000000-0000-4000-8000-000000000000' }) as unknown as Rng;

describe('victim selection on a node', () => {
  test('removes lower-priority pods, then reprieves the most important first; higher-priority pods are never victims', () => {
    const n1 = node('n1', '4', {
      pods: [pod('low-2cpu', '2', { priority: 1 }), pod('mid', '1', { priority: 2 }), pod('high', '1', { priority: 3 }), pod('vip', '0', { priority: 100 })],
    });
    // needs 2 cpu: with everything lower removed 4 are free; reprieving high (1) and mid (1) still
    // leaves 2, reprieving low-2cpu would not.
    assert.deepEqual(preempted(run([n1], pod('p', '2', { priority: 10 }))), { node: 'n1', victims: ['low-2cpu'], numPDBViolations: 0 });
  });

  test('PDB-violating victims are reprieved first, so a lower-priority protected pod survives', () => {
    const n1 = node('n1', '4', { pods: [pod('protected', '2', { priority: 1, labels: { app: 'db' } }), pod('plain', '2', { priority: 2, labels: { app: 'web' } })] });
    const pdbs = [pdb('db', { matchLabels: { app: 'db' } }, 0)];
    // without the PDB, the higher-priority "plain" would be reprieved and "protected" evicted
    assert.deepEqual(preempted(run([n1], pod('p', '2', { priority: 10 }))).victims, ['protected']);
    assert.deepEqual(preempted(run([n1], pod('p', '2', { priority: 10 }), { pdbs })), { node: 'n1', victims: ['plain'], numPDBViolations: 0 });
    // when both must go, the violation is counted
    assert.deepEqual(preempted(run([n1], pod('p', '4', { priority: 10 }), { pdbs })), { node: 'n1', victims: ['plain', 'protected'], numPDBViolations: 1 });
  });

  test('a node that does not fit even without every lower-priority pod is no candidate', () => {
    const n1 = node('n1', '4', { pods: [pod('vip', '3', { priority: 100 }), pod('low', '1', { priority: 1 })] });
    const out = run([n1], pod('p', '2', { priority: 10 }));
    assert.deepEqual(out, { status: 'NoCandidates', message: 'preemption: 0/1 nodes are available: 1 Insufficient cpu.' });
  });
});

describe('filterPodsWithPDBViolation', () => {
  test('budgets are spent per matching pod in the namespace; disrupted pods and empty selectors do not count', () => {
    const pis = [
      pod('a', '1', { labels: { app: 'x' } }),
      pod('b', '1', { labels: { app: 'x' } }),
      pod('c', '1', { labels: { app: 'x' }, ns: 'other' }),
      pod('d', '1', { labels: { app: 'x' } }),
      pod('e', '1'),
    ].map(newPodInfo);
    const pdbs = [pdb('x', { matchLabels: { app: 'x' } }, 1, { disruptedPods: { d: at(1) } }), pdb('empty', {}, 0)];
    const { violating, nonViolating } = filterPodsWithPDBViolation(pis, pdbs);
    assert.deepEqual(violating.map((p) => p.pod.metadata.name), ['b']);
    assert.deepEqual(nonViolating.map((p) => p.pod.metadata.name), ['a', 'c', 'd', 'e']);
  });
});

describe('choosing the node', () => {
  // Each case is built so that the rules after the one under test would choose the other node.
  test('fewest PDB violations first', () => {
    const pdbs = [pdb('db', { matchLabels: { app: 'db' } }, 0)];
    const n1 = node('n1', '2', { pods: [pod('protected', '2', { priority: 1, labels: { app: 'db' } })] });
    const n2 = node('n2', '2', { pods: [pod('plain', '2', { priority: 5 })] });
    assert.equal(preempted(run([n1, n2], pod('p', '2', { priority: 10 }), { pdbs })).node, 'n2');
    assert.equal(preempted(run([n1, n2], pod('p', '2', { priority: 10 }))).node, 'n1');
  });

  test('then the lowest priority of the highest-priority victim', () => {
    const n1 = node('n1', '2', { pods: [pod('five', '2', { priority: 5 })] });
    const n2 = node('n2', '2', { pods: [pod('three-a', '1', { priority: 3 }), pod('three-b', '1', { priority: 3 })] });
    assert.deepEqual(preempted(run([n1, n2], pod('p', '2', { priority: 10 }))), { node: 'n2', victims: ['three-a', 'three-b'], numPDBViolations: 0 });
  });

  test('then the smallest sum of victim priorities', () => {
    const n1 = node('n1', '2', { pods: [pod('a5', '1', { priority: 5, startTime: at(30) }), pod('a4', '1', { priority: 4, startTime: at(30) })] });
    const n2 = node('n2', '2', { pods: [pod('b5', '1', { priority: 5, startTime: at(0) }), pod('b1', '1', { priority: 1, startTime: at(0) })] });
    // the start-time rule alone would take n1 (its victims started later)
    assert.equal(preempted(run([n1, n2], pod('p', '2', { priority: 10 }))).node, 'n2');
  });

  test('then the fewest victims (sums are offset by 2^31 per victim, so they can tie)', () => {
    const min = -2147483648;
    const n1 = node('n1', '2', { pods: [pod('a5', '1', { priority: 5, startTime: at(30) }), pod('amin', '1', { priority: min, startTime: at(30) })] });
    const n2 = node('n2', '2', { pods: [pod('b5', '2', { priority: 5, startTime: at(0) })] });
    assert.deepEqual(preempted(run([n1, n2], pod('p', '2', { priority: 10 }))), { node: 'n2', victims: ['b5'], numPDBViolations: 0 });
  });

  test('then the latest start of the highest-priority victims, then the first candidate', () => {
    const mk = (t1: string, t2: string) => [node('n1', '2', { pods: [pod('a', '2', { priority: 5, startTime: t1 })] }), node('n2', '2', { pods: [pod('b', '2', { priority: 5, startTime: t2 })] })];
    assert.equal(preempted(run(mk(at(0), at(30)), pod('p', '2', { priority: 10 }))).node, 'n2');
    assert.equal(preempted(run(mk(at(30), at(0)), pod('p', '2', { priority: 10 }))).node, 'n1');
    // a tie goes to the first candidate in search order, which starts at the RNG's offset
    assert.equal(preempted(run(mk(at(0), at(0)), pod('p', '2', { priority: 10 }))).node, 'n1');
    assert.equal(preempted(run(mk(at(0), at(0)), pod('p', '2', { priority: 10 }), { rng: fixedRng(1) })).node, 'n2');
  });

  test('pickOneNodeForPreemption on plain candidates', () => {
    const v = (name: string, priority: number, startTime?: string) => pod(name, '1', { priority, startTime });
    assert.equal(pickOneNodeForPreemption([], NOW), undefined);
    const c = pickOneNodeForPreemption(
      [
        { node: 'a', victims: [v('x', 1)], numPDBViolations: 1 },
        { node: 'b', victims: [v('y', 7), v('z', 1)], numPDBViolations: 0 },
        { node: 'c', victims: [v('w', 7, at(5))], numPDBViolations: 0 },
      ],
      NOW,
    );
    assert.equal(c!.node, 'c');
  });

  test('minCandidateNodesPercentage / Absolute bound the search', () => {
    assert.equal(numPreemptionCandidates(50), 50);
    assert.equal(numPreemptionCandidates(500), 100);
    assert.equal(numPreemptionCandidates(5000), 500);
    assert.equal(numPreemptionCandidates(5000, { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 10 }), 10);
    assert.equal(numPreemptionCandidates(40, { minCandidateNodesPercentage: 50, minCandidateNodesAbsolute: 1 }), 20);
    // n3 is the best node, but with 2 candidates wanted the search stops after n1 and n2
    const nodes = [
      node('n1', '2', { pods: [pod('a', '2', { priority: 5 })] }),
      node('n2', '2', { pods: [pod('b', '2', { priority: 4 })] }),
      node('n3', '2', { pods: [pod('c', '2', { priority: 1 })] }),
    ];
    const p = pod('p', '2', { priority: 10 });
    assert.equal(preempted(run(nodes, p)).node, 'n3');
    const out = run(nodes, p, { config: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 2 } });
    assert.equal(preempted(out).node, 'n2');
    assert.equal(out.status === 'Preempted' && out.candidates, 2);
  });
});

describe('eligibility and unresolvable nodes', () => {
  test('preemptionPolicy Never does not preempt', () => {
    const n1 = node('n1', '2', { pods: [pod('low', '2', { priority: 1 })] });
    assert.deepEqual(run([n1], pod('p', '2', { priority: 10, preemptionPolicy: 'Never' })), { status: 'NotEligible', message: 'preemption: not eligible due to preemptionPolicy=Never.' });
  });

  test('a pod nominated where a lower-priority victim is still terminating waits', () => {
    const n1 = node('n1', '2', { pods: [pod('dying', '2', { priority: 1, terminating: true })] });
    const p = pod('p', '2', { priority: 10, nominatedNodeName: 'n1' });
    assert.deepEqual(run([n1], p, { nominatedNode: 'n1' }), { status: 'NotEligible', message: 'preemption: not eligible due to a terminating pod on the nominated node.' });
  });

  test('taints, node names and node affinity are not resolved by removing pods', () => {
    const tainted = node('tainted', '2', { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }], pods: [pod('low1', '2', { priority: 1 })] });
    const full = node('full', '2', { pods: [pod('peer', '2', { priority: 10 })] });
    const out = run([tainted, full], pod('p', '2', { priority: 10 }));
    assert.deepEqual(out, { status: 'NoCandidates', message: 'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.' });
    assert.equal(isUnresolvable({ plugin: 'NodeAffinity', reasons: ["node(s) didn't match Pod's node affinity/selector"] }), true);
    assert.equal(isUnresolvable({ plugin: 'InterPodAffinity', reasons: ["node(s) didn't match pod anti-affinity rules"] }), false);
    assert.equal(isUnresolvable({ plugin: 'PodTopologySpread', reasons: ["node(s) didn't match pod topology spread constraints (missing required label)"] }), true);
    assert.equal(isUnresolvable({ plugin: 'NodeResourcesFit', reasons: ['Insufficient cpu'] }), false);
  });

  test('required anti-affinity is resolved by preempting the matching lower-priority pod', () => {
    const n1 = node('n1', '8', { pods: [pod('rival', '1', { priority: 1, labels: { app: 'db' } }), pod('bystander', '1', { priority: 1 })] });
    const p = pod('p', '1', { priority: 10, labels: { app: 'db' } });
    p.spec.affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } } }] } };
    assert.deepEqual(preempted(run([n1], p)), { node: 'n1', victims: ['rival'], numPDBViolations: 0 });
  });
});

describe('nominated pods', () => {
  test('hold their room against pods of lower or equal priority, not against higher ones or themselves', () => {
    const n1 = node('n1', '4');
    const nominator = new Nominator();
    const waiting = pod('waiting', '3', { priority: 10, nominatedNodeName: 'n1' });
    nominator.add(waiting, 'n1');
    const profile = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1));
    const ctx = context([n1], nominator);
    const low = profile.schedule(pod('low', '2', { priority: 1 }), ctx);
    assert.equal(low.node, undefined);
    assert.equal(low.message, '0/1 nodes are available: 1 Insufficient cpu.');
    assert.equal(profile.schedule(pod('equal', '2', { priority: 10 }), ctx).node, undefined);
    assert.equal(profile.schedule(pod('higher', '2', { priority: 11 }), ctx).node, 'n1');
    assert.equal(profile.schedule(waiting, ctx).node, 'n1');
    // the same low pod fits when nobody is nominated
    assert.equal(profile.schedule(pod('low', '2', { priority: 1 }), context([n1], new Nominator())).node, 'n1');
  });

  test('a pod with status.nominatedNodeName goes there when it fits, without a search', () => {
    const nodes = [node('busy', '4', { pods: [pod('x', '3')] }), node('empty', '4')];
    const profile = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1));
    const r = profile.schedule(pod('p', '1', { nominatedNodeName: 'busy' }), context(nodes));
    assert.deepEqual([r.node, r.evaluatedNodes], ['busy', 1]);
    assert.equal(profile.schedule(pod('p', '1'), context(nodes)).node, 'empty');
  });

  test('the Nominator follows informer updates and keeps in-memory nominations the status has not caught up with', () => {
    const n = new Nominator();
    const p = pod('p', '1', { priority: 5 });
    n.add(p, 'n1');
    n.update(p, { ...p, metadata: { ...p.metadata, resourceVersion: '2' } });
    assert.equal(n.nodeOf(p), 'n1');
    const withStatus = { ...p, status: { nominatedNodeName: 'n2' } };
    n.update(p, withStatus);
    assert.deepEqual([n.nodeOf(p), n.podsOn('n1').length, n.podsOn('n2').length], ['n2', 0, 1]);
    n.update(withStatus, p);
    assert.equal(n.nodeOf(p), undefined);
    assert.equal(n.size, 0);
  });
});

describe('PreFilter state during victim selection (RemovePod / AddPod on a cloned CycleState)', () => {
  const zoneNode = (name: string, zone: string, cpu: string, pods: any[]) => {
    const ni = new NodeInfo(name, { metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } }, spec: {}, status: { allocatable: { cpu, memory: '8Gi', pods: '110' } } });
    for (const p of pods) ni.addPod(newPodInfo({ ...p, spec: { ...p.spec, nodeName: name } }));
    return ni;
  };
  const zoneSpread = { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } };

  test('removing a victim that matches the preemptor’s anti-affinity term (zone topology) makes the node feasible', () => {
    const n1 = zoneNode('n1', 'a', '8', [pod('rival', '1', { priority: 1, labels: { app: 'db' }, startTime: at(1) }), pod('bystander', '1', { priority: 1, labels: { app: 'cache' }, startTime: at(0) })]);
    const p = pod('p', '1', { priority: 10 });
    p.spec.affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: 'db' } } }] } };
    assert.deepEqual(preempted(run([n1], p)), { node: 'n1', victims: ['rival'], numPDBViolations: 0 });
  });

  test('removing a victim whose own required anti-affinity matches the preemptor makes the node feasible', () => {
    const loner = pod('loner', '1', { priority: 1, labels: { app: 'loner' } });
    loner.spec.affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } };
    const n1 = node('n1', '8', { pods: [loner, pod('bystander', '1', { priority: 1 })] });
    const p = pod('p', '1', { priority: 10, labels: { app: 'web' } });
    const profile = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1));
    const r = profile.schedule(p, context([n1]));
    assert.deepEqual(r.nodeFailures!.get('n1'), { plugin: 'InterPodAffinity', reasons: ["node(s) didn't satisfy existing pods anti-affinity rules"] });
    assert.deepEqual(preempted(run([n1], p)), { node: 'n1', victims: ['loner'], numPDBViolations: 0 });
  });

  test('spread counts follow removed and reprieved victims: only as many matching pods go as the skew needs', () => {
    // Zone a holds 3 matching pods, zone b 1 (on a full node of higher priority): the minimum is 1,
    // so the preemptor fits in zone a once at most 1 matching pod is left there.
    const n1 = zoneNode('n1', 'a', '8', [
      pod('other', '1', { priority: 1, startTime: at(0) }),
      pod('w1', '1', { priority: 1, labels: { app: 'web' }, startTime: at(1) }),
      pod('w2', '1', { priority: 1, labels: { app: 'web' }, startTime: at(2) }),
      pod('w3', '1', { priority: 1, labels: { app: 'web' }, startTime: at(3) }),
    ]);
    const n2 = zoneNode('n2', 'b', '4', [pod('vip', '4', { priority: 100, labels: { app: 'web' } })]);
    const p = pod('p', '1', { priority: 10, labels: { app: 'web' } });
    p.spec.topologySpreadConstraints = [zoneSpread];
    assert.deepEqual(preempted(run([n1, n2], p)), { node: 'n1', victims: ['w2', 'w3'], numPDBViolations: 0 });
  });

  test('the state handed to selectVictimsOnNode is not changed', () => {
    const n1 = zoneNode('n1', 'a', '8', [pod('w1', '1', { priority: 1, labels: { app: 'web' } }), pod('w2', '1', { priority: 1, labels: { app: 'web' } })]);
    const n2 = zoneNode('n2', 'b', '8', []);
    const p = pod('p', '1', { priority: 10, labels: { app: 'web' } });
    p.spec.topologySpreadConstraints = [zoneSpread];
    const profile = new Profile({ schedulerName: 'default-scheduler' }, new SeededRng(1));
    const ctx = context([n1, n2]);
    const state = profile.newCycleState(p, ctx);
    const before = structuredClone([...(state.get('PodTopologySpread/filter') as any).counts]);
    const sel = selectVictimsOnNode(p, n1, profile, ctx, [], NOW, state);
    assert.equal(sel.failure, undefined);
    assert.deepEqual(sel.victims!.map((v: any) => v.metadata.name).sort(), ['w1', 'w2']);
    assert.deepEqual([...(state.get('PodTopologySpread/filter') as any).counts], before);
    assert.equal(n1.pods.size, 2);
  });
});
