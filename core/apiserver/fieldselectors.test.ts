import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFieldSelector, fieldSelectorAttributes, fieldSelectorMatcher } from './fieldselectors.ts';
import { parseFieldSelector } from '../machinery/fields.ts';
import { StatusError } from '../machinery/status.ts';

function rejects(group: string, resource: string, selector: string, message: string): void {
  assert.throws(
    () => checkFieldSelector(group, resource, parseFieldSelector(selector)),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === message,
    `${group}/${resource} ${selector}`,
  );
}

const pod = (name: string, extra: { spec?: object; status?: object } = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'default', ...extra.spec },
  status: { phase: 'Pending', ...extra.status },
});

test('pods accept the fields Kubernetes 1.27 registers', () => {
  assert.deepEqual(Object.keys(fieldSelectorAttributes('', 'pods')).sort(), [
    'metadata.name',
    'metadata.namespace',
    'spec.host',
    'spec.hostNetwork',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.nominatedNodeName',
    'status.phase',
    'status.podIP',
    'status.podIPs',
  ]);
  const f = fieldSelectorAttributes('', 'pods');
  const p = pod('web', { spec: { nodeName: 'n1', hostNetwork: true }, status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.7' }] } });
  assert.equal(f['metadata.name'](p), 'web');
  assert.equal(f['metadata.namespace'](p), 'default');
  assert.equal(f['spec.nodeName'](p), 'n1');
  assert.equal(f['spec.hostNetwork'](p), 'true');
  assert.equal(f['spec.hostNetwork'](pod('x')), 'false');
  assert.equal(f['status.podIP'](p), '10.0.0.7');
  assert.equal(f['status.podIP'](pod('x', { status: { podIP: '10.1.1.1' } })), '10.1.1.1');
  assert.equal(f['status.podIP'](pod('x')), '');
  assert.equal(f['status.nominatedNodeName'](pod('x')), '');
  assert.equal(f['spec.restartPolicy'](p), 'Always');
});

test('unsupported pod fields are a 400 worded as Kubernetes', () => {
  rejects('', 'pods', 'foo=bar', 'field label not supported: foo');
  rejects('', 'pods', 'spec.nodeName=a,status.hostIP=b', 'field label not supported: status.hostIP');
  assert.doesNotThrow(() => checkFieldSelector('', 'pods', parseFieldSelector('spec.nodeName=n1,status.phase!=Running')));
});

test('spec.host is rewritten to spec.nodeName', () => {
  const sel = checkFieldSelector('', 'pods', parseFieldSelector('spec.host=n1'));
  assert.equal(sel.toString(), 'spec.nodeName=n1');
});

test('kinds without registered fields accept only metadata.name and metadata.namespace', () => {
  rejects('', 'configmaps', 'data.x=1', '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  rejects('apps', 'replicasets', 'status.replicas=1', '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
  rejects('', 'services', 'spec.type=ClusterIP', '"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"');
  assert.doesNotThrow(() => checkFieldSelector('apps', 'deployments', parseFieldSelector('metadata.name=web,metadata.namespace=default')));
  assert.doesNotThrow(() => checkFieldSelector('scheduling.k8s.io', 'priorityclasses', parseFieldSelector('metadata.namespace=')));
  assert.deepEqual(Object.keys(fieldSelectorAttributes('coordination.k8s.io', 'leases')).sort(), ['metadata.name', 'metadata.namespace']);
});

test('nodes, namespaces, secrets, replication controllers and jobs', () => {
  rejects('', 'nodes', 'metadata.namespace=x', 'field label not supported: metadata.namespace');
  assert.equal(fieldSelectorAttributes('', 'nodes')['spec.unschedulable']({ spec: { unschedulable: true } }), 'true');
  assert.equal(fieldSelectorAttributes('', 'nodes')['spec.unschedulable']({}), 'false');
  rejects('', 'namespaces', 'metadata.namespace=x', 'field label not supported: metadata.namespace');
  assert.equal(fieldSelectorAttributes('', 'namespaces')['status.phase']({ status: { phase: 'Terminating' } }), 'Terminating');
  assert.equal(fieldSelectorAttributes('', 'secrets').type({ type: 'kubernetes.io/tls' }), 'kubernetes.io/tls');
  rejects('', 'secrets', 'data=1', 'field label not supported: data');
  assert.equal(fieldSelectorAttributes('', 'replicationcontrollers')['status.replicas']({ status: { replicas: 3 } }), '3');
  assert.equal(fieldSelectorAttributes('', 'replicationcontrollers')['status.replicas']({}), '0');
  assert.equal(fieldSelectorAttributes('batch', 'jobs')['status.successful']({ status: { succeeded: 2 } }), '2');
  assert.equal(fieldSelectorAttributes('batch', 'jobs')['status.successful']({ status: {} }), '0');
  rejects('batch', 'jobs', 'status.failed=1', 'field label "status.failed" not supported for batchv1.Job');
});

test('core events and events.k8s.io events', () => {
  const core = fieldSelectorAttributes('', 'events');
  const ev = {
    metadata: { name: 'web.1', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
    reason: 'Scheduled',
    type: 'Normal',
    source: {},
    reportingComponent: 'default-scheduler',
  };
  assert.equal(core['involvedObject.name'](ev), 'web');
  assert.equal(core['involvedObject.fieldPath'](ev), 'spec.containers{c}');
  assert.equal(core.source(ev), 'default-scheduler');
  assert.equal(core.source({ ...ev, source: { component: 'kubelet' } }), 'kubelet');
  assert.equal(core.reportingComponent(ev), 'default-scheduler');
  rejects('', 'events', 'message=x', 'field label not supported: message');
  rejects('', 'events', 'regarding.name=x', 'field label not supported: regarding.name');

  const v1 = fieldSelectorAttributes('events.k8s.io', 'events');
  const newEv = { metadata: { name: 'e', namespace: 'default' }, regarding: { kind: 'Node', name: 'n1' }, reportingController: 'kubelet', reason: 'Ready', type: 'Normal' };
  assert.equal(v1['regarding.kind'](newEv), 'Node');
  assert.equal(v1.reportingController(newEv), 'kubelet');
  rejects('events.k8s.io', 'events', 'involvedObject.name=x', 'field label not supported: involvedObject.name');
  rejects('events.k8s.io', 'events', 'source=x', 'field label not supported: source');
});

test('the matcher filters objects by their selectable fields', () => {
  const pods = [
    pod('a', { spec: { nodeName: 'n1' }, status: { phase: 'Running' } }),
    pod('b', { spec: { nodeName: 'n1' }, status: { phase: 'Pending' } }),
    pod('c', { spec: { nodeName: 'n2' }, status: { phase: 'Pending' } }),
    pod('d', { status: { phase: 'Pending' } }),
  ];
  const match = (s: string) => pods.filter(fieldSelectorMatcher('', 'pods', checkFieldSelector('', 'pods', parseFieldSelector(s)))).map((p) => p.metadata.name);
  assert.deepEqual(match('spec.nodeName=n1,status.phase!=Running'), ['b']);
  assert.deepEqual(match('spec.host=n2'), ['c']);
  assert.deepEqual(match('spec.nodeName='), ['d']);
  assert.deepEqual(match('spec.nodeName!='), ['a', 'b', 'c']);
  assert.deepEqual(match(''), ['a', 'b', 'c', 'd']);
  assert.deepEqual(match('status.podIPs='), ['a', 'b', 'c', 'd']);
  assert.deepEqual(match('metadata.name=c'), ['c']);
});
