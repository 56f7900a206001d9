import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSchedulerConfig, SchedulerConfigInvalid } from './config.ts';

test('profiles with plugin enable/disable and weights', () => {
  const c = parseSchedulerConfig(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 20
podMaxBackoffSeconds: 30
profiles:
- schedulerName: default-scheduler
- schedulerName: no-spread
  percentageOfNodesToScore: 50
  plugins:
    filter:
      disabled: [{name: PodTopologySpread}]
    score:
      disabled: [{name: '*'}]
      enabled: [{name: NodeResourcesBalancedAllocation, weight: 5}]
`);
  assert.equal(c.profiles.length, 2);
  assert.equal(c.profiles[0].percentageOfNodesToScore, 20);
  assert.equal(c.profiles[0].score!.find((s) => s.name === 'TaintToleration')!.weight, 3);
  assert.equal(c.profiles[1].filter!.includes('PodTopologySpread'), false);
  assert.equal(c.profiles[1].filter!.includes('NodeResourcesFit'), true);
  assert.deepEqual(c.profiles[1].score, [{ name: 'NodeResourcesBalancedAllocation', weight: 5 }]);
  assert.equal(c.profiles[1].percentageOfNodesToScore, 50);
  assert.equal(c.podInitialBackoffMs, 1000);
  assert.equal(c.podMaxBackoffMs, 30_000);
});

test('invalid configurations are rejected', () => {
  assert.throws(() => parseSchedulerConfig('kind: Foo'), SchedulerConfigInvalid);
  assert.throws(() => parseSchedulerConfig('apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: a}, {schedulerName: a}]'), /Duplicate value: "a"/);
});

test('DefaultPreemption: enabled by default, pluginConfig arguments, disabled in postFilter', () => {
  const head = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';
  const c = parseSchedulerConfig(`${head}profiles:
- schedulerName: default-scheduler
- schedulerName: tuned
  pluginConfig:
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 5}
- schedulerName: never
  plugins:
    postFilter:
      disabled: [{name: DefaultPreemption}]
`);
  assert.deepEqual(c.profiles.map((p) => p.preemption), [{}, { minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 5 }, false]);
  const bad = (args: string) => `${head}profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args: ${args}\n`;
  assert.throws(() => parseSchedulerConfig(bad('{minCandidateNodesPercentage: 101}')), /profiles\[0\]\.pluginConfig\[0\]\.args\.minCandidateNodesPercentage: Invalid value: 101: not in valid range \[0, 100\]/);
  assert.throws(() => parseSchedulerConfig(bad('{minCandidateNodesAbsolute: -1}')), /minCandidateNodesAbsolute: Invalid value: -1/);
  assert.throws(() => parseSchedulerConfig(bad('{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}')), /cannot be zero at the same time as minCandidateNodesAbsolute/);
});
