import { createHash } from 'node:crypto';
import { RESOURCES, groupVersion, type ResourceInfo } from './resources.ts';

/**
 * The discovery documents, all generated from the resource table: `/version`, `/api`, `/apis`,
 * `/apis/{group}`, `/api/v1` and `/apis/{group}/{version}` (legacy discovery), and the aggregated
 * discovery document (`apidiscovery.k8s.io` `APIGroupDiscoveryList`) that kubectl asks for first.
 *
 * Which aggregated version is served: Kubernetes 1.27 serves only `v2beta1`; `v2` arrived in 1.30.
 * kubectl 1.27–1.29 ask for `v2beta1` only, kubectl ≥ 1.30 ask for `v2` first and `v2beta1` second.
 * orrery answers the first aggregated version the client lists, as a ≥ 1.30 server does: the two
 * versions have the same shape, every kubectl we support parses the one it asked for first, and no
 * client is pushed onto the plain per-group-version fallback (one request per group version).
 */

/** The body of `GET /version`. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** `{groupVersion, version}` as listed in an APIGroup. */
export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** One entry of `serverAddressByClientCIDRs`. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** The body of `GET /api` (legacy core group). Like Kubernetes, it carries no `apiVersion`. */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

/** One named API group, as in `GET /apis/{group}` and the items of `GET /apis`. */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

/** The body of `GET /apis`. */
export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

/** One resource (or `resource/subresource`) in an APIResourceList. */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** The body of `GET /api/v1` and `GET /apis/{group}/{version}`. */
export interface APIResourceList {
  kind: 'APIResourceList';
  /** Absent for the core group, as Kubernetes serves it. */
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** A group/version/kind as aggregated discovery writes it (group is `""` for core). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A subresource in aggregated discovery. */
export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

/** A resource in aggregated discovery. */
export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Cluster' | 'Namespaced';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

/** One version of a group in aggregated discovery. */
export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

/** One group in aggregated discovery; the core group has no `metadata.name`. */
export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

/** The aggregated discovery document of `/api` or `/apis`. */
export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

/** The versions of `apidiscovery.k8s.io` orrery serves. */
export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

/** Which aggregated document: `/api` (core group) or `/apis` (named groups). */
export type DiscoveryScope = 'api' | 'apis';

/** The Content-Type of an aggregated discovery response, `apidiscovery.k8s.io/v2`. */
export const AGGREGATED_DISCOVERY_V2_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** The Content-Type of an aggregated discovery response, `apidiscovery.k8s.io/v2beta1`. */
export const AGGREGATED_DISCOVERY_V2BETA1_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** The exact Content-Type to send with an aggregated discovery document of `version`. */
export function aggregatedDiscoveryContentType(version: AggregatedDiscoveryVersion): string {
  return version === 'v2' ? AGGREGATED_DISCOVERY_V2_CONTENT_TYPE : AGGREGATED_DISCOVERY_V2BETA1_CONTENT_TYPE;
}

/** The Kubernetes release orrery reports at `/version`: v1.27.0 as its release build reports it. */
export const KUBERNETES_VERSION: Readonly<VersionInfo> = Object.freeze({
  major: '1',
  minor: '27',
  gitVersion: 'v1.27.0',
  gitCommit: '1b4df30b3cdfeaba6024e81e559a6cd09a089d65',
  gitTreeState: 'clean',
  buildDate: '2023-04-11T17:04:24Z',
  goVersion: 'go1.20.3',
  compiler: 'gc',
  platform: 'linux/amd64',
});

/**
 * The order in which kube-apiserver lists its named groups at `/apis` (its group priorities).
 * Groups not listed here follow, in the order of the resource table.
 */
const GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

/** Resources whose storage kind lives in another group version than the one served. */
const STORAGE_KIND: Record<string, GroupVersionKind> = {
  'events.k8s.io/events': { group: '', version: 'v1', kind: 'Event' },
};

/**
 * Kubernetes' storage version hash of a group/version/kind: the standard base64 of the first 8
 * bytes of sha256(`group/version/kind`). It changes exactly when the storage version changes.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * Compares two version strings the way Kubernetes orders versions of a group: GA before beta before
 * alpha, higher major first, then higher beta/alpha number first; unrecognised strings come last,
 * alphabetically. Negative when `a` is preferred.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | null => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return null;
    const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stability, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
    return 0;
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Options of a {@link DiscoveryDocuments}. */
export interface DiscoveryOptions {
  /** `host:port` clients should use; listed in `/api` for clientCIDR 0.0.0.0/0 when given. */
  serverAddress?: string;
}

/**
 * The discovery documents of one resource table. Documents are rebuilt on every call (callers may
 * mutate them); their serialized JSON is built once and memoized, since the table never changes
 * while the server runs.
 */
export class DiscoveryDocuments {
  private readonly resources: readonly ResourceInfo[];
  private readonly serverAddress?: string;
  private readonly memo = new Map<string, string | undefined>();

  constructor(resources: readonly ResourceInfo[] = RESOURCES, opts: DiscoveryOptions = {}) {
    this.resources = resources;
    this.serverAddress = opts.serverAddress;
  }

  /** The `/version` body. */
  versionInfo(): VersionInfo {
    return { ...KUBERNETES_VERSION };
  }

  /** The `/api` body: the core group's versions. */
  apiVersions(): APIVersions {
    const versions = this.versionsOf('');
    const addresses = this.serverAddress ? [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress }] : [];
    return { kind: 'APIVersions', versions, serverAddressByClientCIDRs: addresses };
  }

  /** The `/apis` body: every named group with its versions, preferred version first. */
  apiGroupList(): APIGroupList {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.namedGroups().map((g) => this.groupEntry(g)) };
  }

  /** The `/apis/{group}` body, or undefined when the group is not served. */
  apiGroup(group: string): APIGroup | undefined {
    if (group === '' || !this.namedGroups().includes(group)) return undefined;
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.groupEntry(group) };
  }

  /** The `/api/v1` or `/apis/{group}/{version}` body, or undefined when not served. */
  apiResourceList(group: string, version: string): APIResourceList | undefined {
    const rows = this.rowsOf(group, version);
    if (rows.length === 0) return undefined;
    const resources: APIResource[] = [];
    for (const r of rows) {
      const entry: APIResource = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs] };
      if (r.shortNames.length > 0) entry.shortNames = [...r.shortNames];
      if (r.categories.length > 0) entry.categories = [...r.categories];
      const hash = this.storageHashOf(r);
      if (hash) entry.storageVersionHash = hash;
      resources.push(entry);
      for (const s of r.subresources) {
        const sub: APIResource = { name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: [...s.verbs] };
        if (s.group !== undefined || s.version !== undefined) {
          sub.group = s.group ?? r.group;
          sub.version = s.version ?? r.version;
        }
        resources.push(sub);
      }
    }
    resources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const list: APIResourceList = { kind: 'APIResourceList', groupVersion: groupVersion(group, version), resources };
    return group === '' ? list : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: list.groupVersion, resources };
  }

  /** The aggregated discovery document of `/api` (core group only) or `/apis` (named groups). */
  aggregatedDiscovery(scope: DiscoveryScope, version: AggregatedDiscoveryVersion): APIGroupDiscoveryList {
    const groups = scope === 'api' ? (this.versionsOf('').length > 0 ? [''] : []) : this.namedGroups();
    const items: APIGroupDiscovery[] = groups.map((group) => ({
      metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
      versions: this.versionsOf(group).map((v) => ({ version: v, resources: this.resourceDiscovery(group, v), freshness: 'Current' as const })),
    }));
    return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
  }

  /** Memoized JSON of {@link versionInfo}. */
  versionInfoJSON(): string {
    return this.cached('version', () => this.versionInfo()) as string;
  }

  /** Memoized JSON of {@link apiVersions}. */
  apiVersionsJSON(): string {
    return this.cached('api', () => this.apiVersions()) as string;
  }

  /** Memoized JSON of {@link apiGroupList}. */
  apiGroupListJSON(): string {
    return this.cached('apis', () => this.apiGroupList()) as string;
  }

  /** Memoized JSON of {@link apiGroup}, or undefined when the group is not served. */
  apiGroupJSON(group: string): string | undefined {
    return this.cached(`group:${group}`, () => this.apiGroup(group));
  }

  /** Memoized JSON of {@link apiResourceList}, or undefined when the group version is not served. */
  apiResourceListJSON(group: string, version: string): string | undefined {
    return this.cached(`resources:${group}/${version}`, () => this.apiResourceList(group, version));
  }

  /** Memoized JSON of {@link aggregatedDiscovery}. */
  aggregatedDiscoveryJSON(scope: DiscoveryScope, version: AggregatedDiscoveryVersion): string {
    return this.cached(`aggregated:${scope}:${version}`, () => this.aggregatedDiscovery(scope, version)) as string;
  }

  /**
   * A strong ETag (quoted hex sha256 prefix) of the aggregated document, for `If-None-Match`
   * (kube-apiserver answers 304 when it matches). Memoized.
   */
  aggregatedDiscoveryETag(scope: DiscoveryScope, version: AggregatedDiscoveryVersion): string {
    const key = `etag:${scope}:${version}`;
    let tag = this.memo.get(key);
    if (tag === undefined) {
      tag = `"${createHash('sha256').update(this.aggregatedDiscoveryJSON(scope, version)).digest('hex').slice(0, 32).toUpperCase()}"`;
      this.memo.set(key, tag);
    }
    return tag;
  }

  private cached(key: string, build: () => object | undefined): string | undefined {
    if (this.memo.has(key)) return this.memo.get(key);
    const doc = build();
    const json = doc === undefined ? undefined : JSON.stringify(doc);
    this.memo.set(key, json);
    return json;
  }

  private rowsOf(group: string, version: string): ResourceInfo[] {
    return this.resources.filter((r) => r.group === group && r.version === version).sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  /** The served versions of a group, preferred first. */
  private versionsOf(group: string): string[] {
    const versions = [...new Set(this.resources.filter((r) => r.group === group).map((r) => r.version))];
    return versions.sort(compareKubeAwareVersions);
  }

  /** The served named groups in kube-apiserver's order. */
  private namedGroups(): string[] {
    const groups = [...new Set(this.resources.map((r) => r.group).filter((g) => g !== ''))];
    const pos = (g: string): number => {
      const i = GROUP_ORDER.indexOf(g);
      return i < 0 ? GROUP_ORDER.length : i;
    };
    return groups.map((g, i) => ({ g, i })).sort((a, b) => pos(a.g) - pos(b.g) || a.i - b.i).map((x) => x.g);
  }

  private groupEntry(group: string): APIGroup {
    const versions = this.versionsOf(group).map((v) => ({ groupVersion: groupVersion(group, v), version: v }));
    return { name: group, versions, preferredVersion: { ...versions[0] } };
  }

  private storageHashOf(r: ResourceInfo): string | undefined {
    if (!r.verbs.includes('get')) return undefined;
    const storage = STORAGE_KIND[`${r.group}/${r.resource}`] ?? { group: r.group, version: r.version, kind: r.kind };
    return storageVersionHash(storage.group, storage.version, storage.kind);
  }

  private resourceDiscovery(group: string, version: string): APIResourceDiscovery[] {
    return this.rowsOf(group, version).map((r) => {
      const entry: APIResourceDiscovery = {
        resource: r.resource,
        responseKind: { group: r.group, version: r.version, kind: r.kind },
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.singular,
        verbs: [...r.verbs],
      };
      if (r.shortNames.length > 0) entry.shortNames = [...r.shortNames];
      if (r.categories.length > 0) entry.categories = [...r.categories];
      if (r.subresources.length > 0) {
        entry.subresources = [...r.subresources]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((s) => ({
            subresource: s.name,
            responseKind: { group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind },
            verbs: [...s.verbs],
          }));
      }
      return entry;
    });
  }
}

let defaultDocuments: DiscoveryDocuments | undefined;

/** The documents of the built-in {@link RESOURCES} table (created on first use). */
export function defaultDiscovery(): DiscoveryDocuments {
  defaultDocuments ??= new DiscoveryDocuments();
  return defaultDocuments;
}

/** The `/version` body (Kubernetes v1.27.0). */
export function versionInfo(): VersionInfo {
  return defaultDiscovery().versionInfo();
}

/** The `/api` body of the built-in resource table. */
export function apiVersions(): APIVersions {
  return defaultDiscovery().apiVersions();
}

/** The `/apis` body of the built-in resource table. */
export function apiGroupList(): APIGroupList {
  return defaultDiscovery().apiGroupList();
}

/** The `/apis/{group}` body of the built-in resource table, or undefined when not served. */
export function apiGroup(group: string): APIGroup | undefined {
  return defaultDiscovery().apiGroup(group);
}

/** The `/api/v1` or `/apis/{group}/{version}` body of the built-in resource table, or undefined. */
export function apiResourceList(group: string, version: string): APIResourceList | undefined {
  return defaultDiscovery().apiResourceList(group, version);
}

/** The aggregated discovery document of the built-in resource table. */
export function aggregatedDiscovery(scope: DiscoveryScope, version: AggregatedDiscoveryVersion): APIGroupDiscoveryList {
  return defaultDiscovery().aggregatedDiscovery(scope, version);
}

interface AcceptEntry {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
}

function parseAccept(accept: string): AcceptEntry[] {
  const entries: AcceptEntry[] = [];
  for (const part of accept.split(',')) {
    const [range, ...rawParams] = part.split(';').map((s) => s.trim());
    const slash = range.indexOf('/');
    if (slash <= 0) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq <= 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? n : 0;
      } else {
        params.set(key, value);
      }
    }
    entries.push({ type: range.slice(0, slash).toLowerCase(), subtype: range.slice(slash + 1).toLowerCase(), params, q });
  }
  return entries;
}

const PLAIN_TYPES = new Set(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/*', '*/*']);

/**
 * Decides from an Accept header whether `/api` or `/apis` is answered with the aggregated
 * discovery document, and in which version. Media ranges are tried by quality (`q`, default 1;
 * `q=0` means not acceptable), ties in the order listed; the first one orrery can serve wins:
 * `application/json;g=apidiscovery.k8s.io;v=v2|v2beta1;as=APIGroupDiscoveryList` (parameters in
 * any order) gives `{version}`; a plain type (`application/json`, yaml, protobuf, wildcards) gives
 * null, meaning the plain APIVersions/APIGroupList. Other conversions (`as=Table`, unknown
 * versions) are skipped. No header, or nothing servable, also gives null.
 */
export function negotiateDiscovery(accept: string | undefined): { version: AggregatedDiscoveryVersion } | null {
  if (!accept) return null;
  const entries = parseAccept(accept)
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.q > 0)
    .sort((a, b) => b.e.q - a.e.q || a.i - b.i)
    .map(({ e }) => e);
  for (const e of entries) {
    const mediaType = `${e.type}/${e.subtype}`;
    const as = e.params.get('as');
    const g = e.params.get('g');
    const v = e.params.get('v');
    if (as !== undefined || g !== undefined || v !== undefined) {
      if (mediaType === 'application/json' && g === 'apidiscovery.k8s.io' && as === 'APIGroupDiscoveryList' && (v === 'v2' || v === 'v2beta1')) {
        return { version: v };
      }
      continue;
    }
    if (PLAIN_TYPES.has(mediaType)) return null;
  }
  return null;
}
