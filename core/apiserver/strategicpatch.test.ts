import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTwoWayMergePatch, jsonMergePatch, PatchError, strategicMergePatch } from './strategicpatch.ts';
import { SeededRng } from '../machinery/rng.ts';

const DEPLOYMENT = 'k8s.io.api.apps.v1.Deployment';
const POD = 'k8s.io.api.core.v1.Pod';

function liveDeployment(): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '7', labels: { app: 'web', tier: 'fe' }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: 'nginx:1.24', ports: [{ containerPort: 80, protocol: 'TCP' }], imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' },
            { name: 'sidecar', image: 'busybox', args: ['sleep', '3600'], imagePullPolicy: 'Always' },
          ],
          restartPolicy: 'Always',
          tolerations: [{ key: 'a', operator: 'Exists' }],
        },
      },
    },
    status: { replicas: 2 },
  };
}

test('the patch kubectl apply sends for a new image and a removed label', () => {
  const live = liveDeployment();
  const before = structuredClone(live);
  const patch = {
    metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":"config"}\n' }, labels: { tier: null } },
    spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }], containers: [{ image: 'nginx:1.25', name: 'web' }] } } },
  };
  const out = strategicMergePatch(live, patch, DEPLOYMENT);
  assert.deepEqual(live, before, 'original is not modified');
  assert.deepEqual(out.metadata.labels, { app: 'web' });
  assert.deepEqual(out.metadata.annotations, { 'deployment.kubernetes.io/revision': '1', 'kubectl.kubernetes.io/last-applied-configuration': '{"new":"config"}\n' });
  const expected = structuredClone(before.spec.template.spec.containers);
  expected[0].image = 'nginx:1.25';
  assert.deepEqual(out.spec.template.spec.containers, expected);
  assert.ok(!('$setElementOrder/containers' in out.spec.template.spec));
  assert.deepEqual(out.status, before.status);
  assert.equal(out.spec.replicas, 2);
});

test('kubectl apply reordering containers with $setElementOrder, server-only items keep their live position', () => {
  const live = { spec: { containers: [{ name: 'a', image: '1' }, { name: 's', image: 'server' }, { name: 'b', image: '2' }] } };
  const out = strategicMergePatch(live, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } }, POD);
  assert.deepEqual(out.spec.containers.map((c: any) => c.name), ['s', 'b', 'a']);
  const added = strategicMergePatch(live, { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'n' }, { name: 'b' }], containers: [{ name: 'n', image: 'new' }] } }, POD);
  assert.deepEqual(added.spec.containers.map((c: any) => c.name), ['a', 'n', 's', 'b']);
});

test('kubectl patch --type strategic: lists merge by key, new items go first, other lists are replaced', () => {
  const live = liveDeployment();
  const out = strategicMergePatch(live, {
    spec: {
      template: {
        spec: {
          containers: [{ name: 'sidecar', image: 'busybox:2', env: [{ name: 'A', value: '1' }] }, { name: 'extra', image: 'x' }],
          tolerations: [{ key: 'b', operator: 'Exists' }],
        },
      },
    },
  }, DEPLOYMENT);
  const names = out.spec.template.spec.containers.map((c: any) => c.name);
  assert.deepEqual(names, ['web', 'sidecar', 'extra']);
  const sidecar = out.spec.template.spec.containers.find((c: any) => c.name === 'sidecar');
  assert.deepEqual(sidecar, { name: 'sidecar', image: 'busybox:2', args: ['sleep', '3600'], imagePullPolicy: 'Always', env: [{ name: 'A', value: '1' }] });
  assert.deepEqual(out.spec.template.spec.tolerations, [{ key: 'b', operator: 'Exists' }]);

  const prepend = strategicMergePatch({ spec: { containers: [{ name: 'a' }, { name: 'b' }] } }, { spec: { containers: [{ name: 'c' }] } }, POD);
  assert.deepEqual(prepend.spec.containers, [{ name: 'c' }, { name: 'a' }, { name: 'b' }]);
  const args = strategicMergePatch({ spec: { containers: [{ name: 'a', args: ['x', 'y'] }] } }, { spec: { containers: [{ name: 'a', args: ['z'] }] } }, POD);
  assert.deepEqual(args.spec.containers[0].args, ['z']);
});

test('nested merge keys: container ports by containerPort, env by name, service ports by port', () => {
  const pod = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }], env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] }] } };
  const out = strategicMergePatch(pod, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'web' }], env: [{ name: 'Y', value: null, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] } }, POD);
  assert.deepEqual(out.spec.containers[0].ports, [{ containerPort: 80, name: 'web' }, { containerPort: 443 }]);
  assert.deepEqual(out.spec.containers[0].env, [{ name: 'X', value: '1' }, { name: 'Y', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }]);
  const svc = { spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP', name: 'http' }, { port: 443, targetPort: 8443 }] } };
  const s2 = strategicMergePatch(svc, { spec: { ports: [{ port: 443, targetPort: 9443 }] } }, 'k8s.io.api.core.v1.Service');
  assert.deepEqual(s2.spec.ports, [{ port: 80, targetPort: 8080, protocol: 'TCP', name: 'http' }, { port: 443, targetPort: 9443 }]);
});

test('null deletes a key; nulls inside values added by the patch are dropped', () => {
  const out = strategicMergePatch({ metadata: { labels: { a: '1', b: '2' } }, spec: { nodeName: 'n1' } }, { metadata: { labels: { a: null, c: null } }, spec: { nodeName: null, affinity: { nodeAffinity: null, podAffinity: {} } } }, POD);
  assert.deepEqual(out, { metadata: { labels: { b: '2' } }, spec: { affinity: { podAffinity: {} } } });
});

test('$patch directives in maps and in lists', () => {
  const live = liveDeployment();
  const repl = strategicMergePatch(live, { metadata: { labels: { $patch: 'replace', only: 'me' } } }, DEPLOYMENT);
  assert.deepEqual(repl.metadata.labels, { only: 'me' });
  const del = strategicMergePatch(live, { spec: { template: { metadata: { labels: { $patch: 'delete' } } } } }, DEPLOYMENT);
  assert.deepEqual(del.spec.template.metadata.labels, {});
  const delItem = strategicMergePatch(live, { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } }, DEPLOYMENT);
  assert.deepEqual(delItem.spec.template.spec.containers.map((c: any) => c.name), ['web']);
  const replList = strategicMergePatch(live, { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } } }, DEPLOYMENT);
  assert.deepEqual(replList.spec.template.spec.containers, [{ name: 'only', image: 'x' }]);
  const whole = strategicMergePatch(live, { $patch: 'replace', metadata: { name: 'x' } }, DEPLOYMENT);
  assert.deepEqual(whole, { metadata: { name: 'x' } });
});

test('primitive lists with strategy merge: union, $deleteFromPrimitiveList, $setElementOrder', () => {
  const live = { metadata: { finalizers: ['a', 'b'] } };
  const META = 'k8s.io.api.core.v1.ConfigMap';
  assert.deepEqual(strategicMergePatch(live, { metadata: { finalizers: ['b', 'c'] } }, META).metadata.finalizers, ['a', 'b', 'c']);
  assert.deepEqual(strategicMergePatch(live, { metadata: { finalizers: ['c'] } }, META).metadata.finalizers, ['c', 'a', 'b']);
  assert.deepEqual(strategicMergePatch({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } }, META).metadata.finalizers, ['a', 'c']);
  const applied = strategicMergePatch(live, { metadata: { '$setElementOrder/finalizers': ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'], finalizers: ['c'] } }, META);
  assert.deepEqual(applied.metadata.finalizers, ['c', 'a']);
  assert.deepEqual(strategicMergePatch({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }, META), { metadata: {} });
  const node = strategicMergePatch({ spec: { podCIDRs: ['10.0.0.0/24'] } }, { spec: { podCIDRs: ['10.0.1.0/24'] } }, 'k8s.io.api.core.v1.Node');
  assert.deepEqual(node.spec.podCIDRs, ['10.0.1.0/24', '10.0.0.0/24']);
});

test('$retainKeys clears fields the patch does not keep (Deployment strategy, volumes)', () => {
  const live = liveDeployment();
  const out = strategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, DEPLOYMENT);
  assert.deepEqual(out.spec.strategy, { type: 'Recreate' });
  const pod = { spec: { volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c' } }] } };
  const vol = strategicMergePatch(pod, { spec: { '$setElementOrder/volumes': [{ name: 'data' }, { name: 'cfg' }], volumes: [{ $retainKeys: ['hostPath', 'name'], hostPath: { path: '/x' }, name: 'data' }] } }, POD);
  assert.deepEqual(vol.spec.volumes, [{ name: 'data', hostPath: { path: '/x' } }, { name: 'cfg', configMap: { name: 'c' } }]);
  assert.throws(
    () => strategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }, DEPLOYMENT),
    (e: unknown) => e instanceof PatchError && e.status === 400 && e.message === 'invalid patch format of retainKeys',
  );
  assert.throws(() => strategicMergePatch(live, { spec: { strategy: { $retainKeys: 'type' } } }, DEPLOYMENT), (e: unknown) => e instanceof PatchError && e.status === 400);
});

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as any)[k]);
    Object.freeze(v);
  }
  return v;
}

test('shareUnchanged: same result, the frozen original untouched, only what the patch touches copied', () => {
  const patches: any[] = [
    { metadata: { labels: { tier: null, extra: 'x' } } },
    { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } },
    { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }], tolerations: [{ key: 'b', operator: 'Exists' }] } } } },
    { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }], containers: [{ name: 'sidecar', args: ['sleep', '1'] }] } } } },
    { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['z'] } },
    { status: { replicas: 3, readyReplicas: 3 } },
    { $patch: 'replace', metadata: { name: 'x' } },
  ];
  for (const patch of patches) {
    const live = deepFreeze({ ...liveDeployment(), metadata: { ...liveDeployment().metadata, finalizers: ['a', 'b'] } });
    const copied = strategicMergePatch(live, structuredClone(patch), DEPLOYMENT);
    const shared = strategicMergePatch(live, structuredClone(patch), DEPLOYMENT, { shareUnchanged: true });
    assert.deepEqual(shared, copied, JSON.stringify(patch));
    assert.equal(JSON.stringify(shared), JSON.stringify(copied), 'same key order');
  }
  const live = deepFreeze(liveDeployment());
  const out = strategicMergePatch(live, { status: { replicas: 3 } }, DEPLOYMENT, { shareUnchanged: true });
  assert.equal(out.spec, live.spec, 'untouched: shared');
  assert.equal(out.metadata, live.metadata);
  assert.notEqual(out.status, live.status, 'touched: copied');
  const img = strategicMergePatch(live, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } }, DEPLOYMENT, { shareUnchanged: true });
  assert.equal(img.spec.template.metadata, live.spec.template.metadata);
  assert.equal(img.spec.template.spec.containers.find((c: any) => c.name === 'sidecar'), live.spec.template.spec.containers[1], 'an item the patch does not name stays shared');
  assert.equal(img.spec.template.spec.containers.find((c: any) => c.name === 'web').ports, live.spec.template.spec.containers[0].ports);
  assert.equal(live.spec.template.spec.containers[0].image, 'nginx:1.24');
  // Without the option nothing is shared.
  assert.notEqual(strategicMergePatch(live, { status: { replicas: 3 } }, DEPLOYMENT).spec, live.spec);
});

test('malformed patches throw PatchError with the status Kubernetes uses', () => {
  const live = liveDeployment();
  const expectError = (patch: unknown, status: number, message: string | RegExp) =>
    assert.throws(() => strategicMergePatch(live, patch, DEPLOYMENT), (e: unknown) => {
      assert.ok(e instanceof PatchError, String(e));
      assert.equal(e.status, status);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    });
  expectError([{ op: 'add' }], 400, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  expectError({ metadata: { labels: { $patch: 'bogus' } } }, 500, 'unknown patch type: bogus in map: map[$patch:bogus]');
  expectError({ spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, 500, 'map: map[image:x] does not contain declared merge key: name');
  expectError({ spec: { template: { spec: { containers: [{ name: 'web', $patch: 'merge' }] } } } }, 500, 'merging lists cannot yet be specified in the patch');
  expectError({ metadata: { '$deleteFromPrimitiveList': ['a'] } }, 400, 'invalid patch format of primitive list');
  expectError({ spec: { template: { spec: { $setElementOrder: [] } } } }, 400, 'invalid patch format of setElementOrder list');
  expectError({ spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }], containers: [{ name: 'web' }] } } } }, 500, /doesn't match \$setElementOrder list/);
  assert.throws(
    () => strategicMergePatch({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['a']] } }, DEPLOYMENT),
    (e: unknown) => e instanceof PatchError && e.status === 422 && e.message === 'lists of lists are not supported',
  );
  assert.throws(
    () => strategicMergePatch({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }, DEPLOYMENT),
    (e: unknown) => e instanceof PatchError && /^list element types are not identical/.test(e.message),
  );
});

test('fields tagged replace take the patch value whole', () => {
  const pdb = { spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] } } };
  const out = strategicMergePatch(pdb, { spec: { selector: { matchLabels: { app: 'b' } } } }, 'k8s.io.api.policy.v1.PodDisruptionBudget');
  assert.deepEqual(out.spec, { minAvailable: 1, selector: { matchLabels: { app: 'b' } } });
});

test('inlined structs and unknown fields', () => {
  const eph = { spec: { ephemeralContainers: [{ name: 'dbg', env: [{ name: 'A', value: '1' }] }] } };
  const out = strategicMergePatch(eph, { spec: { ephemeralContainers: [{ name: 'dbg', env: [{ name: 'B', value: '2' }] }] } }, POD);
  assert.deepEqual(out.spec.ephemeralContainers[0].env, [{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
  const unknown = strategicMergePatch({ spec: { custom: { a: 1, list: [1, 2] } } }, { spec: { custom: { b: 2, list: [3] } } }, POD);
  assert.deepEqual(unknown.spec.custom, { a: 1, b: 2, list: [3] });
});

test('JSON merge patch follows RFC 7386', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, expected] of cases) {
    const before = structuredClone(target);
    assert.deepEqual(jsonMergePatch(target, patch), expected, JSON.stringify([target, patch]));
    assert.deepEqual(target, before);
  }
  assert.throws(() => jsonMergePatch({}, ['a']), (e: unknown) => e instanceof PatchError && e.status === 400);
});

test('createTwoWayMergePatch: the status patch a kubelet sends when its container starts', () => {
  const cond = (type: string, status: string, t: string) => ({ type, status, lastProbeTime: 'x', lastTransitionTime: t });
  const pending = {
    phase: 'Pending',
    conditions: [cond('Initialized', 'True', 't0'), cond('Ready', 'False', 't0'), cond('ContainersReady', 'False', 't0'), cond('PodScheduled', 'True', 't0')],
    hostIP: '10.0.0.1',
    containerStatuses: [{ name: 'c', ready: false, state: { waiting: { reason: 'ContainerCreating' } } }],
    qosClass: 'BestEffort',
  };
  const running = {
    ...pending,
    phase: 'Running',
    conditions: [pending.conditions[0], cond('Ready', 'True', 't1'), cond('ContainersReady', 'True', 't1'), pending.conditions[3]],
    podIP: '10.1.0.5',
    podIPs: [{ ip: '10.1.0.5' }],
    containerStatuses: [{ name: 'c', ready: true, state: { running: { startedAt: 't1' } } }],
  };
  const patch = createTwoWayMergePatch(pending, running, 'k8s.io.api.core.v1.PodStatus');
  assert.deepEqual(patch, {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: 't1' },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: 't1' },
    ],
    '$setElementOrder/conditions': [{ type: 'Initialized' }, { type: 'Ready' }, { type: 'ContainersReady' }, { type: 'PodScheduled' }],
    // containerStatuses has no merge strategy: it goes whole.
    containerStatuses: running.containerStatuses,
    podIP: '10.1.0.5',
    podIPs: [{ ip: '10.1.0.5' }],
  });
  assert.deepEqual(strategicMergePatch(pending, patch, 'k8s.io.api.core.v1.PodStatus'), running);
  assert.deepEqual(createTwoWayMergePatch(running, running, 'k8s.io.api.core.v1.PodStatus'), {});
});

test('createTwoWayMergePatch: removed members become null, removed keyed items $patch: delete, removed scalars $deleteFromPrimitiveList', () => {
  const before = { metadata: { labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] }, spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'j' }] } };
  const after = { metadata: { labels: { a: '1' }, finalizers: ['y', 'z'] }, spec: { containers: [{ name: 'b', image: 'j2' }] } };
  const patch = createTwoWayMergePatch(before, after, 'k8s.io.api.core.v1.Pod');
  assert.deepEqual(patch, {
    metadata: { labels: { b: null }, finalizers: ['z'], '$deleteFromPrimitiveList/finalizers': ['x'], '$setElementOrder/finalizers': ['y', 'z'] },
    spec: { containers: [{ name: 'b', image: 'j2' }, { name: 'a', $patch: 'delete' }], '$setElementOrder/containers': [{ name: 'b' }] },
  });
  assert.deepEqual(strategicMergePatch(before, patch, 'k8s.io.api.core.v1.Pod'), after);
});

test('createTwoWayMergePatch: applying the patch to the original gives the modified object, for random node statuses', () => {
  const rng = new SeededRng('two-way');
  const pick = <T>(xs: T[]): T => xs[Math.floor(rng.next() * xs.length)];
  const status = () => {
    const types = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable'].filter(() => rng.next() < 0.7);
    const s: any = {
      conditions: types.map((type) => ({ type, status: pick(['True', 'False']), lastHeartbeatTime: pick(['t1', 't2', 't3']), reason: pick(['A', 'B']) })),
      addresses: [{ type: 'InternalIP', address: pick(['10.0.0.1', '10.0.0.2']) }, ...(rng.next() < 0.5 ? [{ type: 'Hostname', address: 'n' }] : [])],
      capacity: { cpu: pick(['4', '8']), memory: '16Gi', ...(rng.next() < 0.5 ? { pods: '110' } : {}) },
      images: [{ names: [pick(['a:1', 'b:1'])], sizeBytes: pick([1, 2]) }],
    };
    if (rng.next() < 0.5) s.phase = 'Running';
    if (rng.next() < 0.3) delete s.images;
    return s;
  };
  for (let i = 0; i < 300; i++) {
    const a = status();
    const b = status();
    const patch = createTwoWayMergePatch(a, b, 'k8s.io.api.core.v1.NodeStatus');
    const merged = strategicMergePatch(a, patch, 'k8s.io.api.core.v1.NodeStatus');
    assert.deepEqual(merged, b, JSON.stringify({ a, b, patch }));
  }
});
