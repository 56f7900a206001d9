import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  AGGREGATED_DISCOVERY_V2BETA1_CONTENT_TYPE,
  AGGREGATED_DISCOVERY_V2_CONTENT_TYPE,
  DiscoveryDocuments,
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  compareKubeAwareVersions,
  defaultDiscovery,
  negotiateDiscovery,
  storageVersionHash,
  versionInfo,
} from './discovery.ts';
import { RESOURCES, groupVersion, type ResourceInfo } from './resources.ts';

const KUBECTL_OLD_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const KUBECTL_NEW_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const KUBECTL_TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('versionInfo', () => {
  it('reports Kubernetes v1.27.0 so the kubectl dispatcher picks kubectl 1.27', () => {
    const v = versionInfo();
    assert.equal(v.major, '1');
    assert.equal(v.minor, '27');
    assert.equal(v.gitVersion, 'v1.27.0');
    assert.equal(v.gitTreeState, 'clean');
    assert.equal(v.compiler, 'gc');
    assert.match(v.buildDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(v.goVersion, /^go1\.\d+/);
    assert.match(v.platform, /^[a-z]+\/[a-z0-9]+$/);
    assert.equal(v.gitCommit.length, 40);
  });
});

describe('legacy discovery', () => {
  it('/api lists the core version v1', () => {
    const doc = apiVersions();
    assert.equal(doc.kind, 'APIVersions');
    assert.deepEqual(doc.versions, ['v1']);
    assert.ok(Array.isArray(doc.serverAddressByClientCIDRs));
  });

  it('/api names the server address when one is configured', () => {
    const d = new DiscoveryDocuments(RESOURCES, { serverAddress: '10.0.0.1:6443' });
    assert.deepEqual(d.apiVersions().serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }]);
  });

  it('/apis lists every named group once, with its preferred version, and not the core group', () => {
    const doc = apiGroupList();
    assert.equal(doc.kind, 'APIGroupList');
    assert.equal(doc.apiVersion, 'v1');
    const names = doc.groups.map((g) => g.name);
    const expected = new Set(RESOURCES.map((r) => r.group).filter((g) => g !== ''));
    assert.equal(names.length, expected.size);
    assert.deepEqual(new Set(names), expected);
    for (const g of doc.groups) {
      assert.deepEqual(g.preferredVersion, g.versions[0]);
      for (const v of g.versions) assert.equal(v.groupVersion, `${g.name}/${v.version}`);
    }
  });

  it('/apis lists groups in kube-apiserver priority order (apps before events.k8s.io before batch)', () => {
    const names = apiGroupList().groups.map((g) => g.name);
    assert.ok(names.indexOf('apps') < names.indexOf('events.k8s.io'));
    assert.ok(names.indexOf('events.k8s.io') < names.indexOf('authorization.k8s.io'));
    assert.ok(names.indexOf('autoscaling') < names.indexOf('batch'));
    assert.ok(names.indexOf('scheduling.k8s.io') < names.indexOf('coordination.k8s.io'));
  });

  it('/apis/{group} answers served groups only', () => {
    const apps = apiGroup('apps');
    assert.ok(apps);
    assert.equal(apps.kind, 'APIGroup');
    assert.equal(apps.name, 'apps');
    assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
    assert.equal(apiGroup('no.such.group'), undefined);
    assert.equal(apiGroup(''), undefined);
  });

  it('every resource row appears exactly once in its group version, with its subresources', () => {
    const seen = new Map<string, number>();
    const gvs = new Set(RESOURCES.map((r) => `${r.group}|${r.version}`));
    for (const gv of gvs) {
      const [group, version] = gv.split('|');
      const list = apiResourceList(group, version);
      assert.ok(list, gv);
      assert.equal(list.groupVersion, groupVersion(group, version));
      for (const r of list.resources) seen.set(`${group}|${version}|${r.name}`, (seen.get(`${group}|${version}|${r.name}`) ?? 0) + 1);
    }
    let expectedEntries = 0;
    for (const r of RESOURCES) {
      const list = apiResourceList(r.group, r.version)!;
      const entry = list.resources.find((x) => x.name === r.resource)!;
      assert.equal(seen.get(`${r.group}|${r.version}|${r.resource}`), 1, r.resource);
      assert.equal(entry.kind, r.kind);
      assert.equal(entry.namespaced, r.namespaced);
      assert.equal(entry.singularName, r.singular);
      assert.deepEqual(entry.verbs, [...r.verbs]);
      assert.deepEqual(entry.shortNames ?? [], [...r.shortNames]);
      assert.deepEqual(entry.categories ?? [], [...r.categories]);
      expectedEntries += 1 + r.subresources.length;
      for (const s of r.subresources) {
        const sub = list.resources.find((x) => x.name === `${r.resource}/${s.name}`);
        assert.ok(sub, `${r.resource}/${s.name}`);
        assert.equal(sub.kind, s.kind);
        assert.equal(sub.namespaced, r.namespaced);
        assert.deepEqual(sub.verbs, [...s.verbs]);
        assert.equal(sub.storageVersionHash, undefined);
      }
    }
    assert.equal([...seen.values()].reduce((a, b) => a + b, 0), expectedEntries);
    assert.ok([...seen.values()].every((n) => n === 1));
  });

  it('subresources whose kind lives elsewhere carry group and version', () => {
    const apps = apiResourceList('apps', 'v1')!;
    const scale = apps.resources.find((r) => r.name === 'deployments/scale')!;
    assert.deepEqual({ group: scale.group, version: scale.version, kind: scale.kind }, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const core = apiResourceList('', 'v1')!;
    const eviction = core.resources.find((r) => r.name === 'pods/eviction')!;
    assert.deepEqual({ group: eviction.group, version: eviction.version, kind: eviction.kind }, { group: 'policy', version: 'v1', kind: 'Eviction' });
    const status = core.resources.find((r) => r.name === 'pods/status')!;
    assert.equal(status.kind, 'Pod');
    assert.equal('group' in status, false);
    assert.equal('version' in status, false);
  });

  it('lists resources sorted by name, each subresource right after its resource', () => {
    const names = apiResourceList('', 'v1')!.resources.map((r) => r.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.indexOf('pods') < names.indexOf('pods/binding'));
    assert.ok(names.indexOf('pods/status') < names.indexOf('secrets'));
  });

  it('the core list has no apiVersion; named groups have apiVersion v1 (as kube-apiserver serves them)', () => {
    assert.equal(apiResourceList('', 'v1')!.apiVersion, undefined);
    assert.equal(apiResourceList('apps', 'v1')!.apiVersion, 'v1');
    assert.equal(apiResourceList('apps', 'v1beta1'), undefined);
    assert.equal(apiResourceList('nope', 'v1'), undefined);
  });

  it('storageVersionHash matches the values Kubernetes publishes', () => {
    // From kubernetes pkg/controlplane/storageversionhashdata (GVRToStorageVersionHash).
    const published: Record<string, string> = {
      'v1/configmaps': 'qFsyl6wFWjQ=',
      'v1/endpoints': 'fWeeMqaN/OA=',
      'v1/events': 'r2yiGXH7wu8=',
      'v1/namespaces': 'Q3oi5N2YM8M=',
      'v1/nodes': 'XwShjMxG9Fs=',
      'v1/pods': 'xPOwRZ+Yhw8=',
      'v1/secrets': 'S6u1pOWzb84=',
      'v1/serviceaccounts': 'pbx9ZvyFpBE=',
      'v1/services': '0/CO1lhkEBI=',
      'autoscaling/v2/horizontalpodautoscalers': 'qwQve8ut294=',
      'batch/v1/jobs': 'mudhfqk/qZY=',
      'batch/v1/cronjobs': 'sd5LIXh4Fjs=',
      'coordination.k8s.io/v1/leases': 'gqkMMb/YqFM=',
      'discovery.k8s.io/v1/endpointslices': 'qgS0xkrxYAI=',
      'policy/v1/poddisruptionbudgets': 'EVWiDmWqyJw=',
      'rbac.authorization.k8s.io/v1/clusterrolebindings': '48tpQ8gZHFc=',
      'rbac.authorization.k8s.io/v1/clusterroles': 'bYE5ZWDrJ44=',
      'rbac.authorization.k8s.io/v1/rolebindings': 'eGsCzGH6b1g=',
      'rbac.authorization.k8s.io/v1/roles': '7FuwZcIIItM=',
      'scheduling.k8s.io/v1/priorityclasses': '1QwjyaZjj3Y=',
      'apps/v1/daemonsets': 'dd7pWHUlMKQ=',
      'apps/v1/deployments': '8aSe+NMegvE=',
      'apps/v1/replicasets': 'P1RzHs8/mWQ=',
      'apps/v1/statefulsets': 'H+vl74LkKdo=',
      'events.k8s.io/v1/events': 'r2yiGXH7wu8=',
    };
    for (const [gvr, hash] of Object.entries(published)) {
      const parts = gvr.split('/');
      const resource = parts.pop()!;
      const version = parts.pop()!;
      const group = parts.join('/');
      const entry = apiResourceList(group, version)?.resources.find((r) => r.name === resource);
      assert.ok(entry, gvr);
      assert.equal(entry.storageVersionHash, hash, gvr);
    }
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
  });

  it('review resources (create-only, not stored) have no storageVersionHash', () => {
    const authz = apiResourceList('authorization.k8s.io', 'v1')!;
    for (const r of authz.resources) assert.equal(r.storageVersionHash, undefined, r.name);
    assert.ok(authz.resources.some((r) => r.name === 'selfsubjectaccessreviews'));
  });
});

describe('aggregated discovery', () => {
  for (const version of ['v2', 'v2beta1'] as const) {
    it(`/api (${version}) holds one unnamed group with v1 and every core resource`, () => {
      const doc = aggregatedDiscovery('api', version);
      assert.equal(doc.kind, 'APIGroupDiscoveryList');
      assert.equal(doc.apiVersion, `apidiscovery.k8s.io/${version}`);
      assert.equal(doc.items.length, 1);
      assert.equal(doc.items[0].metadata.name, undefined);
      assert.equal(doc.items[0].versions.length, 1);
      const v1 = doc.items[0].versions[0];
      assert.equal(v1.version, 'v1');
      assert.equal(v1.freshness, 'Current');
      const core = RESOURCES.filter((r) => r.group === '');
      assert.deepEqual(v1.resources.map((r) => r.resource).sort(), core.map((r) => r.resource).sort());
    });

    it(`/apis (${version}) holds each named group once, in /apis order`, () => {
      const doc = aggregatedDiscovery('apis', version);
      assert.equal(doc.apiVersion, `apidiscovery.k8s.io/${version}`);
      assert.deepEqual(
        doc.items.map((i) => i.metadata.name),
        apiGroupList().groups.map((g) => g.name),
      );
      for (const item of doc.items) for (const v of item.versions) assert.equal(v.freshness, 'Current');
    });
  }

  it('describes resources with responseKind, scope, singularResource, verbs and subresources', () => {
    const doc = aggregatedDiscovery('api', 'v2');
    const pods = doc.items[0].versions[0].resources.find((r) => r.resource === 'pods')!;
    assert.deepEqual(pods.responseKind, { group: '', version: 'v1', kind: 'Pod' });
    assert.equal(pods.scope, 'Namespaced');
    assert.equal(pods.singularResource, 'pod');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.deepEqual(pods.categories, ['all']);
    assert.ok(pods.verbs.includes('watch'));
    const status = pods.subresources!.find((s) => s.subresource === 'status')!;
    assert.deepEqual(status.responseKind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(status.verbs, ['get', 'patch', 'update']);
    const eviction = pods.subresources!.find((s) => s.subresource === 'eviction')!;
    assert.deepEqual(eviction.responseKind, { group: 'policy', version: 'v1', kind: 'Eviction' });

    const nodes = doc.items[0].versions[0].resources.find((r) => r.resource === 'nodes')!;
    assert.equal(nodes.scope, 'Cluster');
    const secrets = doc.items[0].versions[0].resources.find((r) => r.resource === 'secrets')!;
    assert.equal('shortNames' in secrets, false);
    assert.equal('subresources' in secrets, false);

    const apps = aggregatedDiscovery('apis', 'v2').items.find((i) => i.metadata.name === 'apps')!;
    const deployments = apps.versions[0].resources.find((r) => r.resource === 'deployments')!;
    assert.deepEqual(deployments.responseKind, { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.deepEqual(deployments.subresources!.find((s) => s.subresource === 'scale')!.responseKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  });

  it('every resource and subresource of the table appears once across /api and /apis', () => {
    const found: string[] = [];
    for (const scope of ['api', 'apis'] as const) {
      for (const item of aggregatedDiscovery(scope, 'v2beta1').items) {
        for (const v of item.versions) {
          for (const r of v.resources) {
            found.push(`${item.metadata.name ?? ''}/${v.version}/${r.resource}`);
            for (const s of r.subresources ?? []) found.push(`${item.metadata.name ?? ''}/${v.version}/${r.resource}/${s.subresource}`);
          }
        }
      }
    }
    const expected = RESOURCES.flatMap((r) => [`${r.group}/${r.version}/${r.resource}`, ...r.subresources.map((s) => `${r.group}/${r.version}/${r.resource}/${s.name}`)]);
    assert.deepEqual([...found].sort(), [...expected].sort());
  });

  it('content types carry g, v and as', () => {
    assert.equal(aggregatedDiscoveryContentType('v2'), AGGREGATED_DISCOVERY_V2_CONTENT_TYPE);
    assert.equal(aggregatedDiscoveryContentType('v2beta1'), AGGREGATED_DISCOVERY_V2BETA1_CONTENT_TYPE);
    for (const [ct, v] of [
      [AGGREGATED_DISCOVERY_V2_CONTENT_TYPE, 'v2'],
      [AGGREGATED_DISCOVERY_V2BETA1_CONTENT_TYPE, 'v2beta1'],
    ]) {
      const [base, ...params] = ct.split(';');
      assert.equal(base, 'application/json');
      assert.deepEqual(Object.fromEntries(params.map((p) => p.split('='))), { g: 'apidiscovery.k8s.io', v, as: 'APIGroupDiscoveryList' });
    }
  });
});

describe('memoized JSON', () => {
  it('serializes each document once and returns the same string', () => {
    const d = new DiscoveryDocuments();
    const a = d.aggregatedDiscoveryJSON('apis', 'v2');
    assert.equal(d.aggregatedDiscoveryJSON('apis', 'v2'), a);
    assert.deepEqual(JSON.parse(a), d.aggregatedDiscovery('apis', 'v2'));
    assert.deepEqual(JSON.parse(d.apiResourceListJSON('', 'v1')!), apiResourceList('', 'v1'));
    assert.deepEqual(JSON.parse(d.apiGroupListJSON()), apiGroupList());
    assert.deepEqual(JSON.parse(d.apiVersionsJSON()), apiVersions());
    assert.deepEqual(JSON.parse(d.versionInfoJSON()), versionInfo());
    assert.deepEqual(JSON.parse(d.apiGroupJSON('batch')!), apiGroup('batch'));
    assert.equal(d.apiGroupJSON('nope'), undefined);
    assert.equal(d.apiResourceListJSON('nope', 'v1'), undefined);
    assert.equal(defaultDiscovery(), defaultDiscovery());
  });

  it('documents handed out are copies: mutating one does not change the served JSON', () => {
    const d = new DiscoveryDocuments();
    const before = d.apiResourceListJSON('apps', 'v1');
    const doc = d.apiResourceList('apps', 'v1')!;
    doc.resources[0].verbs.push('escalate');
    assert.deepEqual(JSON.parse(d.apiResourceListJSON('apps', 'v1')!), JSON.parse(before!));
    assert.ok(!d.apiResourceList('apps', 'v1')!.resources[0].verbs.includes('escalate'));
  });

  it('ETags are quoted, stable, and differ between versions', () => {
    const d = new DiscoveryDocuments();
    const e1 = d.aggregatedDiscoveryETag('apis', 'v2');
    assert.match(e1, /^"[0-9A-F]+"$/);
    assert.equal(d.aggregatedDiscoveryETag('apis', 'v2'), e1);
    assert.equal(new DiscoveryDocuments().aggregatedDiscoveryETag('apis', 'v2'), e1);
    assert.notEqual(d.aggregatedDiscoveryETag('apis', 'v2beta1'), e1);
    assert.notEqual(d.aggregatedDiscoveryETag('api', 'v2'), e1);
  });
});

describe('multiple versions of a group', () => {
  const row = (version: string): ResourceInfo => ({
    group: 'example.io',
    version,
    kind: 'Widget',
    listKind: 'WidgetList',
    resource: 'widgets',
    singular: 'widget',
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ['get', 'list'],
    subresources: [],
  });

  it('lists the preferred (most stable, newest) version first', () => {
    const d = new DiscoveryDocuments([row('v1beta1'), row('v1'), row('v2alpha1')]);
    const g = d.apiGroup('example.io')!;
    assert.deepEqual(
      g.versions.map((v) => v.version),
      ['v1', 'v1beta1', 'v2alpha1'],
    );
    assert.equal(g.preferredVersion.version, 'v1');
    assert.deepEqual(
      d.aggregatedDiscovery('apis', 'v2').items[0].versions.map((v) => v.version),
      ['v1', 'v1beta1', 'v2alpha1'],
    );
  });

  it('orders versions as Kubernetes documents for CRD version priority', () => {
    const expected = ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10'];
    const shuffled = ['foo10', 'v3beta1', 'v1', 'v12alpha1', 'foo1', 'v10beta3', 'v2', 'v11alpha2', 'v10', 'v11beta2'];
    assert.deepEqual(shuffled.sort(compareKubeAwareVersions), expected);
  });
});

describe('negotiateDiscovery', () => {
  it('answers v2beta1 to kubectl 1.27–1.29', () => {
    assert.deepEqual(negotiateDiscovery(KUBECTL_OLD_ACCEPT), { version: 'v2beta1' });
  });

  it('answers v2 to kubectl ≥ 1.30, which lists v2 first', () => {
    assert.deepEqual(negotiateDiscovery(KUBECTL_NEW_ACCEPT), { version: 'v2' });
  });

  it('answers plain discovery to plain JSON, wildcards, no header and Table requests', () => {
    assert.equal(negotiateDiscovery('application/json'), null);
    assert.equal(negotiateDiscovery('*/*'), null);
    assert.equal(negotiateDiscovery(undefined), null);
    assert.equal(negotiateDiscovery(''), null);
    assert.equal(negotiateDiscovery(KUBECTL_TABLE_ACCEPT), null);
    assert.equal(negotiateDiscovery('application/vnd.kubernetes.protobuf,application/json'), null);
  });

  it('does not depend on parameter order or spacing', () => {
    assert.deepEqual(negotiateDiscovery('application/json; as=APIGroupDiscoveryList; v=v2beta1; g=apidiscovery.k8s.io'), { version: 'v2beta1' });
  });

  it('follows the order of preference: plain JSON listed first wins', () => {
    assert.equal(negotiateDiscovery(`application/json,${AGGREGATED_DISCOVERY_V2_CONTENT_TYPE}`), null);
  });

  it('honours q-values and ignores q=0', () => {
    assert.deepEqual(negotiateDiscovery(`application/json;q=0.5,${AGGREGATED_DISCOVERY_V2_CONTENT_TYPE}`), { version: 'v2' });
    assert.equal(negotiateDiscovery(`${AGGREGATED_DISCOVERY_V2_CONTENT_TYPE};q=0,application/json`), null);
  });

  it('skips aggregated versions and encodings it cannot serve', () => {
    assert.equal(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json'), null);
    assert.deepEqual(
      negotiateDiscovery(`application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${AGGREGATED_DISCOVERY_V2BETA1_CONTENT_TYPE}`),
      { version: 'v2beta1' },
    );
    assert.equal(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscovery,application/json'), null);
  });
});
