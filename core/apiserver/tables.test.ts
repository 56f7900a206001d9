import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COLUMN_DEFINITIONS, DEFAULT_TABLE_COLUMNS, columnDefinitionsFor, humanDuration, toTable } from './tables.ts';
import { RESOURCES, type ResourceInfo } from './resources.ts';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const ago = (ms: number): string => new Date(NOW - ms).toISOString().replace('.000Z', 'Z');

function resource(group: string, name: string): ResourceInfo {
  const r = RESOURCES.find((x) => x.group === group && x.resource === name);
  assert.ok(r, `${group}/${name}`);
  return r;
}

const PODS = resource('', 'pods');
const NODES = resource('', 'nodes');

function cellsOf(r: ResourceInfo, obj: object): unknown[] {
  return toTable(r, [obj], { now: NOW }).rows[0].cells;
}

function cell(r: ResourceInfo, obj: object, column: string): unknown {
  const i = columnDefinitionsFor(r).findIndex((c) => c.name === column);
  assert.ok(i >= 0, column);
  return cellsOf(r, obj)[i];
}

describe('humanDuration', () => {
  // Kubernetes' own boundary cases (apimachinery util/duration TestHumanDurationBoundaries).
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [S, '1s'],
    [70 * S, '70s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [2 * M + S, '2m1s'],
    [190 * S, '3m10s'],
    [10 * M - 1, '9m59s'],
    [10 * M, '10m'],
    [10 * M + S, '10m'],
    [70 * M, '70m'],
    [3 * H - 1, '179m'],
    [3 * H, '3h'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 59 * M, '8h'],
    [2 * D - 1, '47h'],
    [2 * D, '2d'],
    [2 * D + H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 23 * H, '8d'],
    [367 * D, '367d'],
    [2 * 365 * D - 1, '729d'],
    [2 * 365 * D, '2y'],
    [2 * 365 * D + 24 * H - 1, '2y'],
    [2 * 365 * D + 24 * H, '2y1d'],
    [8 * 365 * D - 1, '7y364d'],
    [8 * 365 * D, '8y'],
    [9 * 365 * D, '9y'],
  ];
  for (const [ms, want] of cases) {
    it(`${ms} ms → ${want}`, () => assert.equal(humanDuration(ms), want));
  }
});

const container = (name: string, image = `${name}:1`) => ({ name, image });

function pod(status: object, extra: { spec?: object; metadata?: object } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', creationTimestamp: ago(5 * M), resourceVersion: '7', ...extra.metadata },
    spec: { containers: [container('app')], ...extra.spec },
    status,
  };
}

const running = { running: { startedAt: ago(4 * M) } };

describe('pod STATUS', () => {
  const cases: { name: string; pod: object; want: string }[] = [
    { name: 'Pending without statuses', pod: pod({ phase: 'Pending' }), want: 'Pending' },
    {
      name: 'Pending, image pulling',
      pod: pod({ phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] }),
      want: 'ContainerCreating',
    },
    {
      name: 'Running',
      pod: pod({ phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }] }),
      want: 'Running',
    },
    {
      name: 'CrashLoopBackOff waiting reason',
      pod: pod({
        phase: 'Running',
        containerStatuses: [{ name: 'app', ready: false, restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } } }],
      }),
      want: 'CrashLoopBackOff',
    },
    {
      name: 'Completed',
      pod: pod({ phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }),
      want: 'Completed',
    },
    {
      name: 'Error',
      pod: pod({ phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] }),
      want: 'Error',
    },
    {
      name: 'terminated without reason: exit code',
      pod: pod({ phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137 } } }] }),
      want: 'ExitCode:137',
    },
    {
      name: 'terminated without reason: signal',
      pod: pod({ phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, signal: 9 } } }] }),
      want: 'Signal:9',
    },
    {
      name: 'Terminating',
      pod: pod({ phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }] }, { metadata: { deletionTimestamp: ago(10 * S) } }),
      want: 'Terminating',
    },
    {
      name: 'Unknown: deleted on a lost node',
      pod: pod({ phase: 'Running', reason: 'NodeLost' }, { metadata: { deletionTimestamp: ago(10 * S) } }),
      want: 'Unknown',
    },
    { name: 'status.reason wins over the phase', pod: pod({ phase: 'Failed', reason: 'Evicted' }), want: 'Evicted' },
    {
      name: 'SchedulingGated',
      pod: pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      want: 'SchedulingGated',
    },
    {
      name: 'Init:0/1 while the init container starts',
      pod: pod(
        {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
          containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
        },
        { spec: { initContainers: [container('init')] } },
      ),
      want: 'Init:0/1',
    },
    {
      name: 'Init:1/2 after the first init container succeeded',
      pod: pod(
        {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
            { name: 'b', ready: false, restartCount: 0, state: running },
          ],
        },
        { spec: { initContainers: [container('a'), container('b')] } },
      ),
      want: 'Init:1/2',
    },
    {
      name: 'Init:CrashLoopBackOff',
      pod: pod(
        { phase: 'Pending', initContainerStatuses: [{ name: 'init', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
        { spec: { initContainers: [container('init')] } },
      ),
      want: 'Init:CrashLoopBackOff',
    },
    {
      name: 'Init:Error',
      pod: pod(
        { phase: 'Pending', initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { terminated: { exitCode: 2, reason: 'Error' } } }] },
        { spec: { initContainers: [container('init')] } },
      ),
      want: 'Init:Error',
    },
    {
      name: 'Init:ExitCode:2',
      pod: pod(
        { phase: 'Pending', initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } }] },
        { spec: { initContainers: [container('init')] } },
      ),
      want: 'Init:ExitCode:2',
    },
    {
      name: 'Completed container next to a running one, pod Ready: Running',
      pod: pod(
        {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: [
            { name: 'app', ready: true, restartCount: 0, state: running },
            { name: 'job', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          ],
        },
        { spec: { containers: [container('app'), container('job')] } },
      ),
      want: 'Running',
    },
    {
      name: 'Completed container next to a running one, pod not Ready: NotReady',
      pod: pod(
        {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False' }],
          containerStatuses: [
            { name: 'app', ready: true, restartCount: 0, state: running },
            { name: 'job', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          ],
        },
        { spec: { containers: [container('app'), container('job')] } },
      ),
      want: 'NotReady',
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(cell(PODS, c.pod, 'Status'), c.want));
  }

  it('marks succeeded and failed pods with a Completed row condition', () => {
    const t = toTable(PODS, [pod({ phase: 'Succeeded' }), pod({ phase: 'Failed' }), pod({ phase: 'Running' })], { now: NOW });
    assert.deepEqual(
      t.rows.map((r) => r.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`)),
      [['Completed=True/Succeeded'], ['Completed=True/Failed'], undefined],
    );
  });
});

describe('pod READY, RESTARTS and wide columns', () => {
  it('counts ready running containers out of all spec containers', () => {
    const p = pod(
      {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 0, state: running },
          { name: 'b', ready: false, restartCount: 0, state: running },
        ],
      },
      { spec: { containers: [container('a'), container('b')] } },
    );
    assert.equal(cell(PODS, p, 'Ready'), '1/2');
    assert.equal(cell(PODS, pod({ phase: 'Pending' }, { spec: { containers: [container('a'), container('b'), container('c')] } }), 'Ready'), '0/3');
  });

  it('sums restarts and says how long ago the last one was', () => {
    const p = pod(
      {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(20 * M) } } },
          { name: 'b', ready: true, restartCount: 3, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * M) } } },
        ],
      },
      { spec: { containers: [container('a'), container('b')] } },
    );
    assert.equal(cell(PODS, p, 'Restarts'), '5 (5m ago)');
    assert.equal(cell(PODS, pod({ phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }] }), 'Restarts'), '0');
  });

  it('counts init container restarts only while initializing', () => {
    const init = { name: 'init', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } };
    const initializing = pod({ phase: 'Pending', initContainerStatuses: [init] }, { spec: { initContainers: [container('init')] } });
    assert.equal(cell(PODS, initializing, 'Restarts'), '4');
    const done = pod(
      {
        phase: 'Running',
        initContainerStatuses: [{ ...init, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 1, state: running }],
      },
      { spec: { initContainers: [container('init')] } },
    );
    assert.equal(cell(PODS, done, 'Restarts'), '1');
  });

  it('fills the wide columns with <none> when unset', () => {
    const cells = cellsOf(PODS, pod({ phase: 'Pending' }));
    assert.deepEqual(cells, ['p', '0/1', 'Pending', '0', '5m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('shows IP, node, nominated node and readiness gates', () => {
    const p = pod(
      {
        phase: 'Running',
        podIP: '10.0.0.9',
        podIPs: [{ ip: '10.0.0.9' }],
        nominatedNodeName: 'n2',
        conditions: [
          { type: 'example.com/a', status: 'True' },
          { type: 'example.com/b', status: 'False' },
        ],
      },
      { spec: { nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/a' }, { conditionType: 'example.com/b' }] } },
    );
    assert.deepEqual(cellsOf(PODS, p).slice(5), ['10.0.0.9', 'n1', 'n2', '1/2']);
  });

  it('declares pod columns as Kubernetes does, the wide ones at priority 1', () => {
    const cols = columnDefinitionsFor(PODS);
    assert.deepEqual(
      cols.map((c) => c.name),
      ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'],
    );
    assert.deepEqual(
      cols.filter((c) => c.priority === 1).map((c) => c.name),
      ['IP', 'Node', 'Nominated Node', 'Readiness Gates'],
    );
    assert.equal(cols[0].format, 'name');
  });
});

function node(opts: { ready?: string; unschedulable?: boolean; labels?: Record<string, string>; conditions?: object[] }) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', creationTimestamp: ago(3 * D), labels: opts.labels ?? {} },
    spec: opts.unschedulable ? { unschedulable: true } : {},
    status: {
      conditions: opts.conditions ?? (opts.ready ? [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: opts.ready }] : []),
      nodeInfo: { kubeletVersion: 'v1.27.0', osImage: 'Ubuntu 22.04', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
      addresses: [
        { type: 'Hostname', address: 'n1' },
        { type: 'InternalIP', address: '192.168.0.10' },
      ],
    },
  };
}

describe('nodes', () => {
  const statuses: [string, object, string][] = [
    ['Ready', node({ ready: 'True' }), 'Ready'],
    ['NotReady (False)', node({ ready: 'False' }), 'NotReady'],
    ['NotReady (Unknown)', node({ ready: 'Unknown' }), 'NotReady'],
    ['no Ready condition', node({}), 'Unknown'],
    ['cordoned', node({ ready: 'True', unschedulable: true }), 'Ready,SchedulingDisabled'],
    ['cordoned without condition', node({ unschedulable: true }), 'Unknown,SchedulingDisabled'],
  ];
  for (const [name, n, want] of statuses) it(`STATUS ${name} → ${want}`, () => assert.equal(cell(NODES, n, 'Status'), want));

  it('ROLES come from node-role.kubernetes.io/* and kubernetes.io/role labels, sorted', () => {
    assert.equal(cell(NODES, node({ labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '' } }), 'Roles'), 'control-plane,worker');
    assert.equal(cell(NODES, node({ labels: { 'kubernetes.io/role': 'infra', 'node-role.kubernetes.io/': '' } }), 'Roles'), 'infra');
    assert.equal(cell(NODES, node({ labels: { 'kubernetes.io/hostname': 'n1' } }), 'Roles'), '<none>');
  });

  it('shows age, version and the wide columns', () => {
    const cells = cellsOf(NODES, node({ ready: 'True' }));
    assert.deepEqual(cells, ['n1', 'Ready', '<none>', '3d', 'v1.27.0', '192.168.0.10', '<none>', 'Ubuntu 22.04', '6.1.0', 'containerd://1.7.0']);
    const bare = { metadata: { name: 'n2' }, status: {} };
    assert.deepEqual(cellsOf(NODES, bare), ['n2', 'Unknown', '<none>', '<unknown>', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  });
});

describe('default table', () => {
  it('has Name and Created At columns', () => {
    assert.deepEqual(
      DEFAULT_TABLE_COLUMNS.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Created At', 'date', '', 0],
      ],
    );
  });

  it('serves kinds without a printer (roles) with the name and RFC 3339 creation time', () => {
    const roles = resource('rbac.authorization.k8s.io', 'roles');
    assert.equal(columnDefinitionsFor(roles), DEFAULT_TABLE_COLUMNS);
    const t = toTable(roles, [{ metadata: { name: 'reader', creationTimestamp: '2024-04-30T08:09:10Z' } }], { now: NOW });
    assert.deepEqual(t.rows[0].cells, ['reader', '2024-04-30T08:09:10Z']);
    assert.deepEqual(
      t.columnDefinitions.map((c) => c.name),
      ['Name', 'Created At'],
    );
  });
});

describe('Table envelope', () => {
  const objects = [pod({ phase: 'Pending' }, { metadata: { name: 'a', labels: { app: 'x' } } }), pod({ phase: 'Pending' }, { metadata: { name: 'b' } })];

  it('is a meta.k8s.io/v1 Table with list metadata and PartialObjectMetadata rows by default', () => {
    const t = toTable(PODS, objects, { now: NOW, listMeta: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 } });
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(t.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
    assert.equal(t.rows.length, 2);
    assert.deepEqual(t.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: objects[0].metadata });
    for (const c of t.columnDefinitions) assert.deepEqual(Object.keys(c).sort(), ['description', 'format', 'name', 'priority', 'type']);
  });

  it('omits empty list metadata fields', () => {
    assert.deepEqual(toTable(PODS, objects, { now: NOW }).metadata, {});
    assert.deepEqual(toTable(PODS, objects, { now: NOW, listMeta: { resourceVersion: '5', continue: '' } }).metadata, { resourceVersion: '5' });
  });

  it('carries the whole object or nothing, per includeObject', () => {
    assert.equal(toTable(PODS, objects, { now: NOW, includeObject: 'Object' }).rows[1].object, objects[1]);
    assert.equal(toTable(PODS, objects, { now: NOW, includeObject: 'None' }).rows[1].object, null);
  });

  it('serves v1beta1 and header-less tables on request', () => {
    const t = toTable(PODS, objects, { now: NOW, apiVersion: 'meta.k8s.io/v1beta1', noHeaders: true });
    assert.equal(t.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal((t.rows[0].object as { apiVersion: string }).apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(t.columnDefinitions, []);
    assert.equal(t.rows[0].cells.length, 9);
  });

  it('gives every printed kind one cell per column, even for empty objects', () => {
    for (const r of RESOURCES) {
      const t = toTable(r, [{ metadata: { name: 'x' } }], { now: NOW });
      assert.equal(t.rows[0].cells.length, t.columnDefinitions.length, `${r.group}/${r.resource}`);
      assert.equal(t.rows[0].cells[t.columnDefinitions.findIndex((c) => c.name === 'Name')], 'x', `${r.group}/${r.resource}`);
    }
    for (const key of Object.keys(COLUMN_DEFINITIONS)) {
      assert.ok(
        RESOURCES.some((r) => `${r.group}/${r.resource}` === key),
        key,
      );
    }
  });
});

describe('workload and config kinds', () => {
  it('namespaces show their phase', () => {
    assert.deepEqual(cellsOf(resource('', 'namespaces'), { metadata: { name: 'default', creationTimestamp: ago(4 * H) }, status: { phase: 'Active' } }), ['default', 'Active', '4h']);
  });

  it('deployments show READY, UP-TO-DATE, AVAILABLE and the wide columns', () => {
    const d = {
      metadata: { name: 'web', creationTimestamp: ago(90 * S) },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
        template: { spec: { containers: [container('nginx', 'nginx:1.25'), container('sidecar', 'envoy:1')] } },
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    assert.deepEqual(cellsOf(resource('apps', 'deployments'), d), ['web', '2/3', 3, 2, '90s', 'nginx,sidecar', 'nginx:1.25,envoy:1', 'app=web,tier in (a,b)']);
  });

  it('replicasets show DESIRED, CURRENT, READY as integers', () => {
    const rs = { metadata: { name: 'web-1', creationTimestamp: ago(M) }, spec: { replicas: 2, selector: { matchLabels: { b: '2', a: '1' } } }, status: { replicas: 2, readyReplicas: 1 } };
    const cells = cellsOf(resource('apps', 'replicasets'), rs);
    assert.deepEqual(cells.slice(0, 5), ['web-1', 2, 2, 1, '60s']);
    assert.equal(cells[7], 'a=1,b=2');
  });

  it('services show type, cluster IP, external IP and ports', () => {
    const svc = resource('', 'services');
    const nodePort = {
      metadata: { name: 'web', creationTimestamp: ago(M) },
      spec: { type: 'NodePort', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { app: 'web' } },
    };
    assert.deepEqual(cellsOf(svc, nodePort), ['web', 'NodePort', '10.96.0.10', '<none>', '80:30080/TCP,53/UDP', '60s', 'app=web']);
    const lb = { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', clusterIPs: ['10.96.0.11'], ports: [] } };
    assert.deepEqual(cellsOf(svc, lb).slice(1, 5), ['LoadBalancer', '10.96.0.11', '<pending>', '<none>']);
    const lbReady = { ...lb, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } };
    assert.equal(cellsOf(svc, lbReady)[3], '1.2.3.4');
    assert.equal(cellsOf(svc, { metadata: { name: 'x' }, spec: { type: 'ExternalName', externalName: 'example.com' } })[3], 'example.com');
  });

  it('configmaps, secrets and service accounts count their entries', () => {
    assert.deepEqual(cellsOf(resource('', 'configmaps'), { metadata: { name: 'c', creationTimestamp: ago(S) }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), ['c', 3, '1s']);
    assert.deepEqual(cellsOf(resource('', 'secrets'), { metadata: { name: 's', creationTimestamp: ago(S) }, type: 'Opaque', data: { a: 'MQ==' } }), ['s', 'Opaque', 1, '1s']);
    assert.deepEqual(cellsOf(resource('', 'serviceaccounts'), { metadata: { name: 'default', creationTimestamp: ago(S) } }), ['default', 0, '1s']);
  });

  it('leases show their holder', () => {
    assert.deepEqual(
      cellsOf(resource('coordination.k8s.io', 'leases'), { metadata: { name: 'kube-scheduler', creationTimestamp: ago(D) }, spec: { holderIdentity: 'sched-1_abc' } }),
      ['kube-scheduler', 'sched-1_abc', '24h'],
    );
  });

  it('jobs show completions and duration', () => {
    const job = {
      metadata: { name: 'j', creationTimestamp: ago(10 * M) },
      spec: { completions: 3, parallelism: 3, template: { spec: { containers: [container('w')] } } },
      status: { succeeded: 1, startTime: ago(5 * M) },
    };
    const jobs = resource('batch', 'jobs');
    assert.deepEqual(cellsOf(jobs, job).slice(0, 4), ['j', '1/3', '5m', '10m']);
    const done = { ...job, status: { succeeded: 3, startTime: ago(5 * M), completionTime: ago(4 * M) } };
    assert.equal(cell(jobs, done, 'Duration'), '60s');
    assert.equal(cell(jobs, { metadata: { name: 'w' }, spec: { parallelism: 4 } }, 'Completions'), '0/1 of 4');
  });

  it('statefulsets and daemonsets', () => {
    assert.deepEqual(cellsOf(resource('apps', 'statefulsets'), { metadata: { name: 'db' }, spec: { replicas: 3 }, status: { readyReplicas: 1 } }).slice(0, 2), ['db', '1/3']);
    const ds = { metadata: { name: 'agent' }, spec: { template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' } } } }, status: { desiredNumberScheduled: 5, currentNumberScheduled: 5, numberReady: 4, updatedNumberScheduled: 5, numberAvailable: 4 } };
    assert.deepEqual(cellsOf(resource('apps', 'daemonsets'), ds).slice(0, 7), ['agent', 5, 5, 4, 5, 4, 'kubernetes.io/os=linux']);
  });

  it('pod disruption budgets and priority classes', () => {
    assert.deepEqual(cellsOf(resource('policy', 'poddisruptionbudgets'), { metadata: { name: 'pdb' }, spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }).slice(0, 4), ['pdb', '50%', 'N/A', 1]);
    assert.deepEqual(cellsOf(resource('scheduling.k8s.io', 'priorityclasses'), { metadata: { name: 'high' }, value: 1000 }).slice(0, 3), ['high', 1000, false]);
  });

  it('role bindings show the role and, wide, the subjects', () => {
    const rb = {
      metadata: { name: 'rb' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' },
        { kind: 'User', name: 'bob' },
      ],
    };
    assert.deepEqual(cellsOf(resource('rbac.authorization.k8s.io', 'rolebindings'), rb), ['rb', 'ClusterRole/view', '<unknown>', 'alice, bob', 'devs', 'ns/sa']);
  });
});

describe('events', () => {
  const EVENTS = resource('', 'events');

  it('core/v1 events show LAST SEEN, TYPE, REASON, OBJECT, MESSAGE and the wide columns', () => {
    const e = {
      metadata: { name: 'p.17a', creationTimestamp: ago(M) },
      involvedObject: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      message: ' pulled image \n',
      type: 'Normal',
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: ago(10 * M),
      lastTimestamp: ago(30 * S),
      count: 4,
    };
    assert.deepEqual(cellsOf(EVENTS, e), ['30s', 'Normal', 'Pulled', 'pod/p', 'spec.containers{app}', 'kubelet, n1', 'pulled image', '10m', 4, 'p.17a']);
    assert.deepEqual(
      columnDefinitionsFor(EVENTS).map((c) => c.name),
      ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name'],
    );
  });

  it('new-style events fall back to eventTime, series and count 1', () => {
    const single = { metadata: { name: 'e1' }, involvedObject: { kind: 'Node' }, eventTime: ago(2 * M), reportingComponent: 'scheduler', type: 'Warning', reason: 'X', message: 'm' };
    assert.deepEqual(cellsOf(EVENTS, single), ['2m', 'Warning', 'X', 'node', '', 'scheduler', 'm', '2m', 1, 'e1']);
    const series = { ...single, series: { count: 7, lastObservedTime: ago(5 * S) } };
    const cells = cellsOf(EVENTS, series);
    assert.equal(cells[0], '5s');
    assert.equal(cells[8], 7);
  });

  it('events.k8s.io/v1 events print the same columns from their own field names', () => {
    const e = {
      metadata: { name: 'e2' },
      regarding: { kind: 'Pod', name: 'p' },
      note: 'Scheduled to n1',
      reason: 'Scheduled',
      type: 'Normal',
      eventTime: ago(3 * M),
      reportingController: 'default-scheduler',
      reportingInstance: 'sched-1',
    };
    assert.deepEqual(cellsOf(resource('events.k8s.io', 'events'), e), ['3m', 'Normal', 'Scheduled', 'pod/p', '', 'default-scheduler, sched-1', 'Scheduled to n1', '3m', 1, 'e2']);
  });
});
