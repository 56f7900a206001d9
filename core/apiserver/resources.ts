/**
 * The table of built-in kinds orrery serves: group, version, kind, list kind, resource, scope,
 * short names, categories, verbs and subresources. Adding a kind is a row here plus (if it has
 * behaviour of its own) a strategy; discovery, OpenAPI, routing and storage all read this table.
 */

/** A subresource of a resource, e.g. `pods/status`. */
export interface SubresourceInfo {
  /** e.g. `status`, `scale`, `binding`, `eviction`. */
  readonly name: string;
  /** The kind the subresource's body has. */
  readonly kind: string;
  /** The group/version of that kind when it differs from the parent's (e.g. Scale is autoscaling/v1). */
  readonly group?: string;
  readonly version?: string;
  readonly verbs: readonly string[];
}

/** One served resource. */
export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  /** The plural, lower-case name used in URLs. */
  readonly resource: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  readonly subresources: readonly SubresourceInfo[];
}

/** The verbs of an ordinary object resource type. */
export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

const STATUS: SubresourceInfo = { name: 'status', kind: '', verbs: ['get', 'patch', 'update'] };
const SCALE: SubresourceInfo = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] };

function row(
  group: string,
  version: string,
  kind: string,
  resource: string,
  namespaced: boolean,
  opts: { shortNames?: string[]; categories?: string[]; verbs?: readonly string[]; subresources?: SubresourceInfo[] } = {},
): ResourceInfo {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    resource,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: opts.shortNames ?? [],
    categories: opts.categories ?? [],
    verbs: opts.verbs ?? STANDARD_VERBS,
    subresources: (opts.subresources ?? []).map((s) => (s.kind === '' ? { ...s, kind } : s)),
  };
}

const ALL = ['all'];

/** Every resource orrery serves, in discovery order within each group version. */
export const RESOURCES: readonly ResourceInfo[] = [
  row('', 'v1', 'Namespace', 'namespaces', false, {
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [STATUS, { name: 'finalize', kind: 'Namespace', verbs: ['update'] }],
  }),
  row('', 'v1', 'Node', 'nodes', false, { shortNames: ['no'], subresources: [STATUS] }),
  row('', 'v1', 'Pod', 'pods', true, {
    shortNames: ['po'],
    categories: ALL,
    subresources: [
      STATUS,
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
    ],
  }),
  row('', 'v1', 'Service', 'services', true, { shortNames: ['svc'], categories: ALL, verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], subresources: [STATUS] }),
  row('', 'v1', 'Endpoints', 'endpoints', true, { shortNames: ['ep'] }),
  row('', 'v1', 'ConfigMap', 'configmaps', true, { shortNames: ['cm'] }),
  row('', 'v1', 'Secret', 'secrets', true),
  row('', 'v1', 'ServiceAccount', 'serviceaccounts', true, { shortNames: ['sa'] }),
  row('', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  row('events.k8s.io', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  row('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  row('apps', 'v1', 'Deployment', 'deployments', true, { shortNames: ['deploy'], categories: ALL, subresources: [STATUS, SCALE] }),
  row('apps', 'v1', 'ReplicaSet', 'replicasets', true, { shortNames: ['rs'], categories: ALL, subresources: [STATUS, SCALE] }),
  row('apps', 'v1', 'StatefulSet', 'statefulsets', true, { shortNames: ['sts'], categories: ALL, subresources: [STATUS, SCALE] }),
  row('apps', 'v1', 'DaemonSet', 'daemonsets', true, { shortNames: ['ds'], categories: ALL, subresources: [STATUS] }),
  row('batch', 'v1', 'Job', 'jobs', true, { categories: ALL, subresources: [STATUS] }),
  row('batch', 'v1', 'CronJob', 'cronjobs', true, { shortNames: ['cj'], categories: ALL, subresources: [STATUS] }),
  row('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true),
  row('scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', false, { shortNames: ['pc'] }),
  row('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, { shortNames: ['pdb'], subresources: [STATUS] }),
  row('autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, { shortNames: ['hpa'], categories: ALL, subresources: [STATUS] }),
  row('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true),
  row('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false),
  row('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true),
  row('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  row('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false, { verbs: ['create'] }),
  row('authorization.k8s.io', 'v1', 'SubjectAccessReview', 'subjectaccessreviews', false, { verbs: ['create'] }),
];

/** `group/version`, or `version` for the core group. */
export function groupVersion(group: string, version: string): string {
  if (!group) return version;
  // NOTE: every write sets apiVersion: one string per group version, not one per object.
  let byVersion = groupVersions.get(group);
  if (byVersion === undefined) {
    if (groupVersions.size >= 1024) groupVersions.clear();
    groupVersions.set(group, (byVersion = new Map()));
  }
  let gv = byVersion.get(version);
  if (gv === undefined) byVersion.set(version, (gv = `${group}/${version}`));
  return gv;
}

const groupVersions = new Map<string, Map<string, string>>();

/** The group versions served, core first, in the order of {@link RESOURCES}. */
export function servedGroupVersions(): { group: string; version: string }[] {
  const seen = new Set<string>();
  const out: { group: string; version: string }[] = [];
  for (const r of RESOURCES) {
    const gv = groupVersion(r.group, r.version);
    if (!seen.has(gv)) {
      seen.add(gv);
      out.push({ group: r.group, version: r.version });
    }
  }
  return out;
}
