import type { ResourceInfo } from './resources.ts';
import { formatTime } from '../machinery/time.ts';

/**
 * Server-side printing: conversion of objects to a `meta.k8s.io` `Table`, which is what
 * `kubectl get` prints. Columns and cells follow Kubernetes 1.27's printers (the same columns, cell
 * types and texts such as `Init:0/1`, `2 (5m ago)`, `Ready,SchedulingDisabled`, `<none>`), always
 * generated "wide" as kube-apiserver does; kubectl hides priority-1 columns unless `-o wide`.
 * Kinds without a printer get the default table: `Name` and `Created At`.
 */

/** One column of a Table. All five fields are always present, as Kubernetes serializes them. */
export interface TableColumnDefinition {
  readonly name: string;
  /** An OpenAPI type: `string`, `integer`, `number`, `boolean`, `date`. */
  readonly type: string;
  /** An OpenAPI format hint, e.g. `name`; empty when none. */
  readonly format: string;
  readonly description: string;
  /** 0 for the default view, 1 for `-o wide` only. */
  readonly priority: number;
}

/** A condition on a row (Kubernetes marks completed pods with `Completed`). */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** One row: the cells, in column order, and the object it shows (null for includeObject=None). */
export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object: unknown;
}

/** The `metadata` of a Table: the list's resourceVersion, continue token and remaining count. */
export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** A `meta.k8s.io` Table. */
export interface Table {
  kind: 'Table';
  apiVersion: TableAPIVersion;
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** The group versions a Table (and its PartialObjectMetadata rows) can be served in. */
export type TableAPIVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

/** What each row carries in `object` (the `includeObject` query parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Options of {@link toTable}. */
export interface ToTableOptions {
  /** The current time in ms since the epoch, from the injected Clock; ages are measured from it. */
  now: number;
  /** Default `Metadata`: rows carry a PartialObjectMetadata. */
  includeObject?: IncludeObject;
  /** The list's metadata (for a single object, its resourceVersion). */
  listMeta?: TableListMeta;
  /** Leave `columnDefinitions` empty (later events of a watch). */
  noHeaders?: boolean;
  /** Default `meta.k8s.io/v1`. */
  apiVersion?: TableAPIVersion;
}

type Obj = Record<string, any>;
type Cells = { cells: unknown[]; conditions?: TableRowCondition[] };
type Printer = (obj: Obj, now: number) => Cells;

function col(name: string, type: string, description: string, extra: { format?: string; priority?: number } = {}): TableColumnDefinition {
  return Object.freeze({ name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 });
}

const NAME = col('Name', 'string', 'Name of the object, unique within its namespace (or the cluster, for cluster-scoped kinds).', { format: 'name' });
const AGE = col('Age', 'string', 'Time since the object was created (metadata.creationTimestamp).');
const WIDE_CONTAINERS = col('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
const WIDE_IMAGES = col('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });
const wideSelector = (what: string): TableColumnDefinition => col('Selector', 'string', `Label selector of the ${what}.`, { priority: 1 });

/** The default table of kinds without their own printer: `Name` and `Created At` (RFC 3339). */
export const DEFAULT_TABLE_COLUMNS: readonly TableColumnDefinition[] = Object.freeze([
  NAME,
  col('Created At', 'date', 'The time the object was created (metadata.creationTimestamp).'),
]);

/**
 * Per-kind columns, keyed by `group/resource` (`/pods` for the core group), exactly as Kubernetes
 * 1.27 declares them (names, types, formats, priorities). Descriptions are orrery's own.
 */
export const COLUMN_DEFINITIONS: Readonly<Record<string, readonly TableColumnDefinition[]>> = Object.freeze({
  '/pods': [
    NAME,
    col('Ready', 'string', 'Ready containers out of all containers of the pod.'),
    col('Status', 'string', 'The aggregate status of the pod and its containers.'),
    col('Restarts', 'string', 'Container restarts of the pod, and how long ago the last one happened.'),
    AGE,
    col('IP', 'string', 'The pod IP (status.podIPs[0]).', { priority: 1 }),
    col('Node', 'string', 'The node the pod is bound to (spec.nodeName).', { priority: 1 }),
    col('Nominated Node', 'string', 'The node the scheduler nominated by preemption (status.nominatedNodeName).', { priority: 1 }),
    col('Readiness Gates', 'string', 'Readiness gates that are true, out of all readiness gates.', { priority: 1 }),
  ],
  '/nodes': [
    NAME,
    col('Status', 'string', 'Ready, NotReady or Unknown, and SchedulingDisabled for cordoned nodes.'),
    col('Roles', 'string', 'Roles from node-role.kubernetes.io/<role> labels.'),
    AGE,
    col('Version', 'string', 'The kubelet version (status.nodeInfo.kubeletVersion).'),
    col('Internal-IP', 'string', 'The first InternalIP address.', { priority: 1 }),
    col('External-IP', 'string', 'The first ExternalIP address.', { priority: 1 }),
    col('OS-Image', 'string', 'The OS image (status.nodeInfo.osImage).', { priority: 1 }),
    col('Kernel-Version', 'string', 'The kernel version (status.nodeInfo.kernelVersion).', { priority: 1 }),
    col('Container-Runtime', 'string', 'The container runtime (status.nodeInfo.containerRuntimeVersion).', { priority: 1 }),
  ],
  '/namespaces': [NAME, col('Status', 'string', 'The phase of the namespace.'), AGE],
  '/services': [
    NAME,
    col('Type', 'string', 'The service type.'),
    col('Cluster-IP', 'string', 'The first cluster IP.'),
    col('External-IP', 'string', 'External IPs and load-balancer ingress points.'),
    col('Port(s)', 'string', 'Ports, with node ports, and protocols.'),
    AGE,
    col('Selector', 'string', 'The pod selector of the service.', { priority: 1 }),
  ],
  '/endpoints': [NAME, col('Endpoints', 'string', 'Up to three address:port pairs.'), AGE],
  '/configmaps': [NAME, col('Data', 'string', 'Number of data and binaryData entries.'), AGE],
  '/secrets': [NAME, col('Type', 'string', 'The secret type.'), col('Data', 'string', 'Number of data entries.'), AGE],
  '/serviceaccounts': [NAME, col('Secrets', 'string', 'Number of referenced secrets.'), AGE],
  '/events': eventColumns(),
  'events.k8s.io/events': eventColumns(),
  'coordination.k8s.io/leases': [NAME, col('Holder', 'string', 'The current holder of the lease (spec.holderIdentity).'), AGE],
  'apps/deployments': [
    NAME,
    col('Ready', 'string', 'Ready pods out of desired replicas.'),
    col('Up-to-date', 'string', 'Replicas updated to the current template (status.updatedReplicas).'),
    col('Available', 'string', 'Available replicas (status.availableReplicas).'),
    AGE,
    WIDE_CONTAINERS,
    WIDE_IMAGES,
    wideSelector('deployment'),
  ],
  'apps/replicasets': [
    NAME,
    col('Desired', 'integer', 'Desired replicas (spec.replicas).'),
    col('Current', 'integer', 'Current replicas (status.replicas).'),
    col('Ready', 'integer', 'Ready replicas (status.readyReplicas).'),
    AGE,
    WIDE_CONTAINERS,
    WIDE_IMAGES,
    wideSelector('replica set'),
  ],
  'apps/statefulsets': [NAME, col('Ready', 'string', 'Ready pods out of desired replicas.'), AGE, WIDE_CONTAINERS, WIDE_IMAGES],
  'apps/daemonsets': [
    NAME,
    col('Desired', 'integer', 'Nodes that should run the daemon pod.'),
    col('Current', 'integer', 'Nodes running at least one daemon pod.'),
    col('Ready', 'integer', 'Nodes whose daemon pod is ready.'),
    col('Up-to-date', 'integer', 'Nodes running the updated daemon pod.'),
    col('Available', 'integer', 'Nodes whose daemon pod is available.'),
    col('Node Selector', 'string', 'The node selector of the pod template.'),
    AGE,
    WIDE_CONTAINERS,
    WIDE_IMAGES,
    wideSelector('daemon set'),
  ],
  'batch/jobs': [
    NAME,
    col('Completions', 'string', 'Succeeded pods out of required completions.'),
    col('Duration', 'string', 'Time the job took, or has taken so far.'),
    AGE,
    WIDE_CONTAINERS,
    WIDE_IMAGES,
    wideSelector('job'),
  ],
  'batch/cronjobs': [
    NAME,
    col('Schedule', 'string', 'The cron schedule.'),
    col('Suspend', 'boolean', 'Whether later executions are suspended.'),
    col('Active', 'integer', 'Number of running jobs.'),
    col('Last Schedule', 'string', 'Time since a job was last scheduled.'),
    AGE,
    WIDE_CONTAINERS,
    WIDE_IMAGES,
    wideSelector('job template'),
  ],
  'discovery.k8s.io/endpointslices': [
    NAME,
    col('AddressType', 'string', 'The address type of the slice.'),
    col('Ports', 'string', 'Up to three ports.'),
    col('Endpoints', 'string', 'Up to three addresses.'),
    AGE,
  ],
  'scheduling.k8s.io/priorityclasses': [
    NAME,
    col('Value', 'integer', 'The priority value.'),
    col('Global-Default', 'boolean', 'Whether this is the default priority class.'),
    AGE,
  ],
  'policy/poddisruptionbudgets': [
    NAME,
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Pods that may be disrupted now.'),
    AGE,
  ],
  'autoscaling/horizontalpodautoscalers': [
    NAME,
    col('Reference', 'string', 'The scale target (kind/name).'),
    col('Targets', 'string', 'Current and target metric values.'),
    col('MinPods', 'string', 'The minimum replica count.'),
    col('MaxPods', 'string', 'The maximum replica count.'),
    col('Replicas', 'string', 'The current replica count.'),
    AGE,
  ],
  'rbac.authorization.k8s.io/rolebindings': bindingColumns('role binding'),
  'rbac.authorization.k8s.io/clusterrolebindings': bindingColumns('cluster role binding'),
});

function eventColumns(): readonly TableColumnDefinition[] {
  return [
    col('Last Seen', 'string', 'Time since the event was last observed.'),
    col('Type', 'string', 'Normal or Warning.'),
    col('Reason', 'string', 'Why the event happened, in UpperCamelCase.'),
    col('Object', 'string', 'The object the event is about (kind/name).'),
    col('Subobject', 'string', 'The part of the object (fieldPath).', { priority: 1 }),
    col('Source', 'string', 'The component (and host) that reported the event.', { priority: 1 }),
    col('Message', 'string', 'The human-readable message.'),
    col('First Seen', 'string', 'Time since the event was first observed.', { priority: 1 }),
    col('Count', 'string', 'How often the event was observed.', { priority: 1 }),
    col('Name', 'string', 'Name of the event object.', { priority: 1, format: 'name' }),
  ];
}

function bindingColumns(what: string): readonly TableColumnDefinition[] {
  return [
    NAME,
    col('Role', 'string', 'The bound role (kind/name).'),
    AGE,
    col('Users', 'string', `Users in the ${what}.`, { priority: 1 }),
    col('Groups', 'string', `Groups in the ${what}.`, { priority: 1 }),
    col('ServiceAccounts', 'string', `Service accounts (namespace/name) in the ${what}.`, { priority: 1 }),
  ];
}

/** The columns {@link toTable} produces for a resource. */
export function columnDefinitionsFor(resource: ResourceInfo): readonly TableColumnDefinition[] {
  return COLUMN_DEFINITIONS[`${resource.group}/${resource.resource}`] ?? DEFAULT_TABLE_COLUMNS;
}

/**
 * Kubernetes' human-readable duration (`duration.HumanDuration`): about 2–3 significant figures,
 * e.g. `59s`, `119s`, `2m`, `9m59s`, `10m`, `179m`, `3h`, `7h59m`, `8h`, `47h`, `2d`, `7d23h`,
 * `8d`, `729d`, `2y`, `7y364d`, `8y`. Up to 2 s in the future counts as now (`0s`); further
 * in the future is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24);
    const dy = days % 365;
    const years = Math.trunc(days / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** 0001-01-01T00:00:00Z, Go's zero time, which Kubernetes treats as unset. */
const GO_ZERO_TIME_MS = -62_135_596_800_000;

function parseTime(t: unknown): number | undefined {
  if (typeof t !== 'string' || t === '') return undefined;
  const ms = Date.parse(t);
  if (Number.isNaN(ms) || ms <= GO_ZERO_TIME_MS) return undefined;
  return ms;
}

/** `translateTimestampSince`: the age of a timestamp, `<unknown>` when unset. */
function since(t: unknown, now: number): string {
  const ms = parseTime(t);
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}

function age(obj: Obj, now: number): string {
  return since(obj.metadata?.creationTimestamp, now);
}

function nameOf(obj: Obj): string {
  return obj.metadata?.name ?? '';
}

function arr(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** `labels.FormatLabels`: `k=v` sorted by key, comma-separated; `<none>` when empty. */
function formatLabels(m: unknown): string {
  if (!m || typeof m !== 'object') return '<none>';
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${(m as Record<string, unknown>)[k]}`).join(',');
}

/** A label selector as `labels.Selector.String()` writes it; null when the selector is invalid. */
function selectorString(sel: unknown): string | null {
  if (!sel || typeof sel !== 'object') return '';
  const s = sel as Obj;
  const reqs: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(s.matchLabels ?? {})) reqs.push({ key, text: `${key}=${value}` });
  for (const e of arr(s.matchExpressions)) {
    const key = str(e?.key);
    const values = arr(e?.values).map(str).sort();
    switch (e?.operator) {
      case 'In':
        if (values.length === 0) return null;
        reqs.push({ key, text: `${key} in (${values.join(',')})` });
        break;
      case 'NotIn':
        if (values.length === 0) return null;
        reqs.push({ key, text: `${key} notin (${values.join(',')})` });
        break;
      case 'Exists':
        reqs.push({ key, text: key });
        break;
      case 'DoesNotExist':
        reqs.push({ key, text: `!${key}` });
        break;
      default:
        return null;
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/** `metav1.FormatLabelSelector`: `<none>` when empty, `<error>` when invalid. */
function formatLabelSelector(sel: unknown): string {
  const s = selectorString(sel);
  if (s === null) return '<error>';
  return s === '' ? '<none>' : s;
}

/** Container names and images of a pod template, comma-separated. */
function containerCells(podSpec: Obj | undefined): [string, string] {
  const containers = arr(podSpec?.containers);
  return [containers.map((c) => str(c?.name)).join(','), containers.map((c) => str(c?.image)).join(',')];
}

function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function listWithMore(list: string[], count: number, max: number, empty: string): string {
  const shown = list.join(',');
  if (count > max) return `${shown} + ${count - max} more...`;
  return shown === '' ? empty : shown;
}

const POD_SUCCEEDED: TableRowCondition = { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' };
const POD_FAILED: TableRowCondition = { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' };

/** The STATUS, READY and RESTARTS of a pod as `kubectl get pods` shows them. */
function printPod(pod: Obj, now: number): Cells {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const conditions = arr(status.conditions);
  let restarts = 0;
  let readyContainers = 0;
  let lastRestart: number | undefined;
  const noteRestart = (cs: Obj): void => {
    const finished = parseTime(cs?.lastState?.terminated?.finishedAt);
    if (finished !== undefined && (lastRestart === undefined || finished > lastRestart)) lastRestart = finished;
  };

  let reason = str(status.reason) || str(status.phase);
  if (conditions.some((c) => c?.type === 'PodScheduled' && c?.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  let rowConditions: TableRowCondition[] | undefined;
  if (status.phase === 'Succeeded') rowConditions = [{ ...POD_SUCCEEDED }];
  else if (status.phase === 'Failed') rowConditions = [{ ...POD_FAILED }];

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  const initCount = arr(spec.initContainers).length;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i] ?? {};
    restarts += int(cs.restartCount);
    noteRestart(cs);
    const terminated = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (terminated) {
      if (!terminated.reason) {
        reason = int(terminated.signal) !== 0 ? `Init:Signal:${int(terminated.signal)}` : `Init:ExitCode:${int(terminated.exitCode)}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
    } else if (waiting && waiting.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    initializing = true;
    break;
  }

  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] ?? {};
      restarts += int(cs.restartCount);
      noteRestart(cs);
      const waiting = cs.state?.waiting;
      const terminated = cs.state?.terminated;
      if (waiting && waiting.reason) {
        reason = waiting.reason;
      } else if (terminated && terminated.reason) {
        reason = terminated.reason;
      } else if (terminated) {
        reason = int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      } else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditions.some((c) => c?.type === 'Ready' && c?.status === 'True') ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';

  const restartsCell = lastRestart === undefined ? String(restarts) : `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  const podIP = str(arr(status.podIPs)[0]?.ip) || '<none>';
  const gates = arr(spec.readinessGates);
  let readinessGates = '<none>';
  if (gates.length > 0) {
    let trueGates = 0;
    for (const gate of gates) {
      const cond = conditions.find((c) => c?.type === gate?.conditionType);
      if (cond?.status === 'True') trueGates++;
    }
    readinessGates = `${trueGates}/${gates.length}`;
  }
  const cells = [
    nameOf(pod),
    `${readyContainers}/${arr(spec.containers).length}`,
    reason,
    restartsCell,
    age(pod, now),
    podIP,
    str(spec.nodeName) || '<none>',
    str(status.nominatedNodeName) || '<none>',
    readinessGates,
  ];
  return rowConditions ? { cells, conditions: rowConditions } : { cells };
}

/** Node roles from `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels, sorted. */
function nodeRoles(labels: Record<string, unknown> | undefined): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) {
      roles.add(String(v));
    }
  }
  return [...roles].sort();
}

function printNode(node: Obj, now: number): Cells {
  const ready = arr(node.status?.conditions).filter((c) => c?.type === 'Ready').pop();
  const status: string[] = [];
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  const roles = nodeRoles(node.metadata?.labels).join(',') || '<none>';
  const info = node.status?.nodeInfo ?? {};
  const address = (type: string): string => str(arr(node.status?.addresses).find((a) => a?.type === type)?.address) || '<none>';
  return {
    cells: [
      nameOf(node),
      status.join(','),
      roles,
      age(node, now),
      str(info.kubeletVersion),
      address('InternalIP'),
      address('ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ],
  };
}

function printNamespace(ns: Obj, now: number): Cells {
  return { cells: [nameOf(ns), str(ns.status?.phase), age(ns, now)] };
}

function serviceExternalIP(svc: Obj): string {
  const externalIPs = arr(svc.spec?.externalIPs).map(str);
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [...new Set(arr(svc.status?.loadBalancer?.ingress).map((i) => str(i?.ip) || str(i?.hostname)).filter((s) => s !== ''))].sort();
      if (externalIPs.length > 0) return [...lb, ...externalIPs].join(',');
      return lb.length > 0 ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(svc.spec?.externalName);
    default:
      return '<unknown>';
  }
}

function printService(svc: Obj, now: number): Cells {
  const spec = svc.spec ?? {};
  const clusterIP = str(arr(spec.clusterIPs)[0]) || str(spec.clusterIP) || '<none>';
  const ports = arr(spec.ports)
    .map((p) => (int(p?.nodePort) > 0 ? `${int(p?.port)}:${int(p?.nodePort)}/${str(p?.protocol)}` : `${int(p?.port)}/${str(p?.protocol)}`))
    .join(',');
  return { cells: [nameOf(svc), str(spec.type), clusterIP, serviceExternalIP(svc), ports || '<none>', age(svc, now), formatLabels(spec.selector)] };
}

function printEndpoints(ep: Obj, now: number): Cells {
  const max = 3;
  const list: string[] = [];
  let count = 0;
  const add = (s: string): void => {
    if (list.length < max) list.push(s);
    count++;
  };
  for (const ss of arr(ep.subsets)) {
    const addresses = arr(ss?.addresses);
    const ports = arr(ss?.ports);
    if (ports.length === 0) {
      for (const a of addresses) add(str(a?.ip));
    } else {
      for (const p of ports) for (const a of addresses) add(joinHostPort(str(a?.ip), int(p?.port)));
    }
  }
  const text = arr(ep.subsets).length === 0 ? '<none>' : count > max ? `${list.join(',')} + ${count - max} more...` : list.join(',');
  return { cells: [nameOf(ep), text, age(ep, now)] };
}

function printConfigMap(cm: Obj, now: number): Cells {
  return { cells: [nameOf(cm), Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, age(cm, now)] };
}

function printSecret(secret: Obj, now: number): Cells {
  return { cells: [nameOf(secret), str(secret.type), Object.keys(secret.data ?? {}).length, age(secret, now)] };
}

function printServiceAccount(sa: Obj, now: number): Cells {
  return { cells: [nameOf(sa), arr(sa.secrets).length, age(sa, now)] };
}

/** A core/v1 or events.k8s.io/v1 Event, normalized to the core field names. */
interface EventView {
  name: string;
  type: string;
  reason: string;
  message: string;
  kind: string;
  objectName: string;
  fieldPath: string;
  component: string;
  host: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  series?: { count: number; lastObservedTime: unknown };
}

function coreEventView(e: Obj): EventView {
  return {
    name: nameOf(e),
    type: str(e.type),
    reason: str(e.reason),
    message: str(e.message),
    kind: str(e.involvedObject?.kind),
    objectName: str(e.involvedObject?.name),
    fieldPath: str(e.involvedObject?.fieldPath),
    component: str(e.source?.component) || str(e.reportingComponent),
    host: str(e.source?.host) || str(e.reportingInstance),
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
    count: int(e.count),
    series: e.series ? { count: int(e.series.count), lastObservedTime: e.series.lastObservedTime } : undefined,
  };
}

function eventsV1View(e: Obj): EventView {
  return {
    name: nameOf(e),
    type: str(e.type),
    reason: str(e.reason),
    message: str(e.note),
    kind: str(e.regarding?.kind),
    objectName: str(e.regarding?.name),
    fieldPath: str(e.regarding?.fieldPath),
    component: str(e.deprecatedSource?.component) || str(e.reportingController),
    host: str(e.deprecatedSource?.host) || str(e.reportingInstance),
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    eventTime: e.eventTime,
    count: int(e.deprecatedCount),
    series: e.series ? { count: int(e.series.count), lastObservedTime: e.series.lastObservedTime } : undefined,
  };
}

function printEventView(e: EventView, now: number): Cells {
  const first = parseTime(e.firstTimestamp) === undefined ? since(e.eventTime, now) : since(e.firstTimestamp, now);
  let last = parseTime(e.lastTimestamp) === undefined ? first : since(e.lastTimestamp, now);
  let count = e.count;
  if (e.series) {
    last = since(e.series.lastObservedTime, now);
    count = e.series.count;
  } else if (count === 0) {
    count = 1;
  }
  const target = e.objectName ? `${e.kind.toLowerCase()}/${e.objectName}` : e.kind.toLowerCase();
  const source = e.host ? `${e.component}, ${e.host}` : e.component;
  return { cells: [last, e.type, e.reason, target, e.fieldPath, source, e.message.trim(), first, count, e.name] };
}

function printLease(lease: Obj, now: number): Cells {
  return { cells: [nameOf(lease), str(lease.spec?.holderIdentity), age(lease, now)] };
}

function printDeployment(d: Obj, now: number): Cells {
  const [containers, images] = containerCells(d.spec?.template?.spec);
  const selector = selectorString(d.spec?.selector);
  return {
    cells: [
      nameOf(d),
      `${int(d.status?.readyReplicas)}/${int(d.spec?.replicas ?? 1)}`,
      int(d.status?.updatedReplicas),
      int(d.status?.availableReplicas),
      age(d, now),
      containers,
      images,
      selector === null ? '<invalid>' : selector,
    ],
  };
}

function printReplicaSet(rs: Obj, now: number): Cells {
  const [containers, images] = containerCells(rs.spec?.template?.spec);
  return {
    cells: [
      nameOf(rs),
      int(rs.spec?.replicas ?? 1),
      int(rs.status?.replicas),
      int(rs.status?.readyReplicas),
      age(rs, now),
      containers,
      images,
      formatLabelSelector(rs.spec?.selector),
    ],
  };
}

function printStatefulSet(sts: Obj, now: number): Cells {
  const [containers, images] = containerCells(sts.spec?.template?.spec);
  return { cells: [nameOf(sts), `${int(sts.status?.readyReplicas)}/${int(sts.spec?.replicas ?? 1)}`, age(sts, now), containers, images] };
}

function printDaemonSet(ds: Obj, now: number): Cells {
  const s = ds.status ?? {};
  const [containers, images] = containerCells(ds.spec?.template?.spec);
  return {
    cells: [
      nameOf(ds),
      int(s.desiredNumberScheduled),
      int(s.currentNumberScheduled),
      int(s.numberReady),
      int(s.updatedNumberScheduled),
      int(s.numberAvailable),
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      age(ds, now),
      containers,
      images,
      formatLabelSelector(ds.spec?.selector),
    ],
  };
}

function printJob(job: Obj, now: number): Cells {
  const spec = job.spec ?? {};
  const succeeded = int(job.status?.succeeded);
  let completions: string;
  if (typeof spec.completions === 'number') {
    completions = `${succeeded}/${int(spec.completions)}`;
  } else {
    const parallelism = int(spec.parallelism);
    completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
  }
  const start = parseTime(job.status?.startTime);
  const completion = parseTime(job.status?.completionTime);
  const duration = start === undefined ? '' : humanDuration((completion ?? now) - start);
  const [containers, images] = containerCells(spec.template?.spec);
  return { cells: [nameOf(job), completions, duration, age(job, now), containers, images, formatLabelSelector(spec.selector)] };
}

function printCronJob(cj: Obj, now: number): Cells {
  const spec = cj.spec ?? {};
  const suspend = typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>';
  const last = parseTime(cj.status?.lastScheduleTime) === undefined ? '<none>' : since(cj.status.lastScheduleTime, now);
  const jobSpec = spec.jobTemplate?.spec;
  const [containers, images] = containerCells(jobSpec?.template?.spec);
  return {
    cells: [nameOf(cj), str(spec.schedule), suspend, arr(cj.status?.active).length, last, age(cj, now), containers, images, formatLabelSelector(jobSpec?.selector)],
  };
}

function printEndpointSlice(slice: Obj, now: number): Cells {
  const max = 3;
  const ports = arr(slice.ports);
  const portList = ports.slice(0, max).map((p) => (typeof p?.port === 'number' ? String(p.port) : typeof p?.name === 'string' ? p.name : '*'));
  const addresses: string[] = [];
  for (const e of arr(slice.endpoints)) for (const a of arr(e?.addresses)) addresses.push(str(a));
  return {
    cells: [
      nameOf(slice),
      str(slice.addressType),
      listWithMore(portList, ports.length, max, '<unset>'),
      listWithMore(addresses.slice(0, max), addresses.length, max, '<unset>'),
      age(slice, now),
    ],
  };
}

function printPriorityClass(pc: Obj, now: number): Cells {
  return { cells: [nameOf(pc), int(pc.value), pc.globalDefault === true, age(pc, now)] };
}

function printPodDisruptionBudget(pdb: Obj, now: number): Cells {
  const spec = pdb.spec ?? {};
  const min = spec.minAvailable === undefined || spec.minAvailable === null ? 'N/A' : intOrString(spec.minAvailable);
  const max = spec.maxUnavailable === undefined || spec.maxUnavailable === null ? 'N/A' : intOrString(spec.maxUnavailable);
  return { cells: [nameOf(pdb), min, max, int(pdb.status?.disruptionsAllowed), age(pdb, now)] };
}

function quantity(v: unknown): string {
  return v === undefined || v === null ? '0' : String(v);
}

/** The Targets column of an autoscaling/v2 HorizontalPodAutoscaler. */
function hpaTargets(specs: any[], statuses: any[]): string {
  if (specs.length === 0) return '<none>';
  const unknown = '<unknown>';
  const list = specs.map((spec, i) => {
    const st = statuses[i];
    const pair = (source: string): string => {
      const target = spec?.[source]?.target ?? {};
      const current = st?.[source]?.current;
      if (target.averageValue !== undefined) {
        const avg = source === 'external' || source === 'object' ? ' (avg)' : '';
        const cur = st?.[source] && current?.averageValue !== undefined ? quantity(current.averageValue) : unknown;
        return `${cur}/${quantity(target.averageValue)}${avg}`;
      }
      if (source === 'resource' || source === 'containerResource') {
        const cur = st?.[source] && typeof current?.averageUtilization === 'number' ? `${current.averageUtilization}%` : unknown;
        const tgt = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
        return `${cur}/${tgt}`;
      }
      const cur = st?.[source] ? quantity(current?.value) : unknown;
      return `${cur}/${quantity(target.value)}`;
    };
    switch (spec?.type) {
      case 'External':
        return pair('external');
      case 'Pods': {
        const cur = st?.pods ? quantity(st.pods.current?.averageValue) : unknown;
        return `${cur}/${quantity(spec.pods?.target?.averageValue)}`;
      }
      case 'Object':
        return pair('object');
      case 'Resource':
        return pair('resource');
      case 'ContainerResource':
        return pair('containerResource');
      default:
        return '<unknown type>';
    }
  });
  const max = 2;
  return list.length > max ? `${list.slice(0, max).join(', ')} + ${list.length - max} more...` : list.join(', ');
}

function printHorizontalPodAutoscaler(hpa: Obj, now: number): Cells {
  const spec = hpa.spec ?? {};
  const reference = `${str(spec.scaleTargetRef?.kind)}/${str(spec.scaleTargetRef?.name)}`;
  const minPods = typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>';
  return {
    cells: [nameOf(hpa), reference, hpaTargets(arr(spec.metrics), arr(hpa.status?.currentMetrics)), minPods, int(spec.maxReplicas), int(hpa.status?.currentReplicas), age(hpa, now)],
  };
}

function printBinding(b: Obj, now: number): Cells {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of arr(b.subjects)) {
    if (s?.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (s?.kind === 'User') users.push(str(s.name));
    else if (s?.kind === 'Group') groups.push(str(s.name));
  }
  return { cells: [nameOf(b), `${str(b.roleRef?.kind)}/${str(b.roleRef?.name)}`, age(b, now), users.join(', '), groups.join(', '), sas.join(', ')] };
}

const PRINTERS: Record<string, Printer> = {
  '/pods': printPod,
  '/nodes': printNode,
  '/namespaces': printNamespace,
  '/services': printService,
  '/endpoints': printEndpoints,
  '/configmaps': printConfigMap,
  '/secrets': printSecret,
  '/serviceaccounts': printServiceAccount,
  '/events': (e, now) => printEventView(coreEventView(e), now),
  'events.k8s.io/events': (e, now) => printEventView(eventsV1View(e), now),
  'coordination.k8s.io/leases': printLease,
  'apps/deployments': printDeployment,
  'apps/replicasets': printReplicaSet,
  'apps/statefulsets': printStatefulSet,
  'apps/daemonsets': printDaemonSet,
  'batch/jobs': printJob,
  'batch/cronjobs': printCronJob,
  'discovery.k8s.io/endpointslices': printEndpointSlice,
  'scheduling.k8s.io/priorityclasses': printPriorityClass,
  'policy/poddisruptionbudgets': printPodDisruptionBudget,
  'autoscaling/horizontalpodautoscalers': printHorizontalPodAutoscaler,
  'rbac.authorization.k8s.io/rolebindings': printBinding,
  'rbac.authorization.k8s.io/clusterrolebindings': printBinding,
};

/** The default table's `Created At` cell: the creation time in UTC, RFC 3339 to the second. */
function createdAt(obj: Obj): string {
  const ms = parseTime(obj.metadata?.creationTimestamp);
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return formatTime(ms);
}

function printDefault(obj: Obj): Cells {
  return { cells: [nameOf(obj), createdAt(obj)] };
}

/**
 * Converts objects of one resource to a Table (the body for `Accept: application/json;as=Table;
 * g=meta.k8s.io;v=v1`). One row per object, in the given order, with cells matching
 * {@link columnDefinitionsFor}. Each row's `object` is, per `includeObject`: a
 * `PartialObjectMetadata` (default; same apiVersion as the Table, the object's whole metadata),
 * the object itself, or null. Ages are measured from `opts.now`; the function reads no clock.
 */
export function toTable(resource: ResourceInfo, objects: any[], opts: ToTableOptions): Table {
  const key = `${resource.group}/${resource.resource}`;
  const printer = PRINTERS[key];
  const apiVersion = opts.apiVersion ?? 'meta.k8s.io/v1';
  const include = opts.includeObject ?? 'Metadata';
  const rows: TableRow[] = objects.map((obj) => {
    const o: Obj = obj ?? {};
    const { cells, conditions } = printer ? printer(o, opts.now) : printDefault(o);
    let object: unknown = null;
    if (include === 'Object') object = obj;
    else if (include === 'Metadata') object = { kind: 'PartialObjectMetadata', apiVersion, metadata: o.metadata ?? {} };
    return conditions ? { cells, conditions, object } : { cells, object };
  });
  const metadata: TableListMeta = {};
  const lm = opts.listMeta ?? {};
  if (lm.resourceVersion) metadata.resourceVersion = lm.resourceVersion;
  if (lm.continue) metadata.continue = lm.continue;
  if (lm.remainingItemCount !== undefined && lm.remainingItemCount !== null) metadata.remainingItemCount = lm.remainingItemCount;
  const columnDefinitions = opts.noHeaders ? [] : columnDefinitionsFor(resource).map((c) => ({ ...c }));
  return { kind: 'Table', apiVersion, metadata, columnDefinitions, rows };
}
