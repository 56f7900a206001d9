import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRng } from '../machinery/rng.ts';
import { fitErrorMessage, numFeasibleNodesToFind, Profile } from './framework.ts';
import { NodeInfo } from './nodeinfo.ts';

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
