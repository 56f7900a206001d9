import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRng } from '../machinery/rng.ts';
import { TestServer, configMap, pod } from './testing.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';

/** Every response to a malformed request is a Status with a 4xx code, never a 500. */
function assertClientError(r: { status: number; body: any }, what: string): void {
  assert.ok(r.status >= 400 && r.status < 500, `${what}: got ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  assert.equal(r.body?.kind, 'Status', what);
  assert.equal(r.body.code, r.status, what);
  assert.ok(r.body.reason, `${what}: a reason`);
}

describe('malformed requests get a 4xx Status, never a 500', () => {
  const bodies: [string, unknown][] = [
    ['array', [1, 2]],
    ['string', '"hello"'],
    ['null', 'null'],
    ['metadata is a string', { metadata: 'x' }],
    ['metadata is an array', { metadata: [] }],
    ['name is a number', { metadata: { name: 5 } }],
    ['labels is a list', { metadata: { name: 'a', labels: ['x'] } }],
    ['label value is a number', { metadata: { name: 'a', labels: { a: 1 } } }],
    ['finalizers is a string', { metadata: { name: 'a', finalizers: 'x' } }],
    ['ownerReferences malformed', { metadata: { name: 'a', ownerReferences: [{}] } }],
    ['data is a string', { metadata: { name: 'a' }, data: 'x' }],
    ['creationTimestamp garbage', { metadata: { name: 'a', creationTimestamp: 'yesterday' } }],
    ['binaryData not base64', { metadata: { name: 'a' }, binaryData: { k: '!!!' } }],
    ['wrong kind', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } }],
    ['wrong apiVersion', { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'a' } }],
    ['name too long', { metadata: { name: 'a'.repeat(300) } }],
    ['no name', { metadata: {} }],
    ['deep nesting', JSON.parse('{"metadata":{"name":"deep"},"data":' + '{"a":'.repeat(200) + '1' + '}'.repeat(200) + '}')],
  ];
  for (const [what, body] of bodies) {
    it(`POST configmap: ${what}`, async () => {
      const s = new TestServer();
      assertClientError(await s.request('POST', CM, typeof body === 'string' ? body : JSON.stringify(body)), what);
    });
  }

  const podBodies: [string, unknown][] = [
    ['spec is a string', { metadata: { name: 'p' }, spec: 'x' }],
    ['containers is an object', { metadata: { name: 'p' }, spec: { containers: { a: 1 } } }],
    ['container without image', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } }],
    ['quantity garbage', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: 'lots' } } }] } }],
    ['port is a string', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 'eighty' }] }] } }],
    ['no spec', { metadata: { name: 'p' } }],
  ];
  for (const [what, body] of podBodies) {
    it(`POST pod: ${what}`, async () => {
      const s = new TestServer();
      assertClientError(await s.request('POST', PODS, body), what);
    });
  }

  it('patches that do not apply', async () => {
    const s = new TestServer();
    await s.request('POST', CM, configMap('a'));
    await s.request('POST', PODS, pod('p'));
    const cases: [string, string, unknown, string][] = [
      ['json patch not a list', `${CM}/a`, { op: 'add' }, 'application/json-patch+json'],
      ['json patch bad op', `${CM}/a`, [{ op: 'explode', path: '/data' }], 'application/json-patch+json'],
      ['json patch missing path', `${CM}/a`, [{ op: 'remove', path: '/nope/deeper' }], 'application/json-patch+json'],
      ['json patch failed test', `${CM}/a`, [{ op: 'test', path: '/data/k', value: 'other' }], 'application/json-patch+json'],
      ['json patch replaces metadata with a string', `${CM}/a`, [{ op: 'replace', path: '/metadata', value: 'x' }], 'application/json-patch+json'],
      ['merge patch is a list', `${CM}/a`, [1], 'application/merge-patch+json'],
      ['merge patch wrong type', `${CM}/a`, { data: { k: 5 } }, 'application/merge-patch+json'],
      ['merge patch renames', `${CM}/a`, { metadata: { name: 'b' } }, 'application/merge-patch+json'],
      ['strategic patch bad directive', `${PODS}/p`, { spec: { containers: [{ $patch: 'explode', name: 'c' }] } }, 'application/strategic-merge-patch+json'],
      ['strategic patch item without merge key', `${PODS}/p`, { spec: { containers: [{ image: 'x' }] } }, 'application/strategic-merge-patch+json'],
      ['strategic patch changes immutable pod field', `${PODS}/p`, { spec: { restartPolicy: 'Never' } }, 'application/strategic-merge-patch+json'],
      ['patch of a missing object', `${CM}/missing`, { data: {} }, 'application/merge-patch+json'],
      ['unknown patch type', `${CM}/a`, {}, 'application/json'],
      ['not JSON', `${CM}/a`, '{{', 'application/merge-patch+json'],
    ];
    for (const [what, url, body, ct] of cases) {
      assertClientError(await s.request('PATCH', url, typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': ct }), what);
    }
  });

  it('bad query parameters', async () => {
    const s = new TestServer();
    const urls = [
      `${CM}?limit=abc`,
      `${CM}?limit=-1`,
      `${CM}?resourceVersion=abc&limit=1`,
      `${CM}?resourceVersion=-5`,
      `${CM}?continue=%%%`,
      `${CM}?labelSelector=${encodeURIComponent('a=(b')}`,
      `${CM}?fieldSelector=${encodeURIComponent('nonsense')}`,
      `${CM}?watch=1&resourceVersion=abc`,
      `${CM}?watch=1&timeoutSeconds=abc`,
      `${CM}?watch=1&allowWatchBookmarks=maybe`,
    ];
    for (const u of urls) assertClientError(await s.request('GET', u), u);
    assertClientError(await s.request('POST', `${CM}?fieldValidation=Loud`, configMap('x')), 'fieldValidation');
    assertClientError(await s.request('POST', `${CM}?dryRun=Some`, configMap('x')), 'dryRun');
    assertClientError(await s.request('DELETE', `${CM}/x?gracePeriodSeconds=soon`), 'gracePeriodSeconds');
    await s.request('POST', CM, configMap('y'));
    assertClientError(await s.request('DELETE', `${CM}/y?propagationPolicy=Sideways`), 'propagationPolicy');
    assertClientError(await s.request('DELETE', `${CM}/y`, '[1]'), 'DeleteOptions body');
  });

  it('malformed percent-escapes in the path', async () => {
    const s = new TestServer();
    for (const u of ['/api/v1/namespaces/%E0%A4%A/configmaps', `${CM}/%ZZ`]) {
      const r = await s.request('GET', u);
      assertClientError(r, u);
      assert.equal(r.status, 400);
    }
  });

  it('garbage protobuf bodies', async () => {
    const s = new TestServer();
    const rng = new SeededRng(7);
    for (let i = 0; i < 30; i++) {
      const len = 1 + rng.int(64);
      const buf = Buffer.alloc(len);
      for (let j = 0; j < len; j++) buf[j] = rng.int(256);
      if (i % 2 === 0) Buffer.from([0x6b, 0x38, 0x73, 0x00]).copy(buf);
      assertClientError(await s.request('POST', CM, buf, { 'content-type': 'application/vnd.kubernetes.protobuf' }), `protobuf #${i}`);
    }
  });

  it('random JSON documents of random shapes', async () => {
    const s = new TestServer();
    const rng = new SeededRng(11);
    const leaf = () => [null, true, 1, -1.5, 'x', '', 2 ** 60][rng.int(7)];
    const value = (depth: number): unknown => {
      if (depth > 3 || rng.next() < 0.3) return leaf();
      if (rng.next() < 0.5) return Array.from({ length: rng.int(3) }, () => value(depth + 1));
      const keys = ['metadata', 'name', 'labels', 'spec', 'containers', 'data', 'finalizers', 'items', 'status', 'image'];
      return Object.fromEntries(Array.from({ length: 1 + rng.int(4) }, () => [keys[rng.int(keys.length)], value(depth + 1)]));
    };
    for (let i = 0; i < 60; i++) {
      const body = { metadata: { name: `r${i}`, ...(value(1) as object) }, ...(value(0) as object) };
      const url = [CM, PODS, '/apis/apps/v1/namespaces/default/deployments', '/api/v1/namespaces/default/services'][i % 4];
      const r = await s.request('POST', url, body);
      assert.ok(r.status < 500, `#${i} ${url} ${JSON.stringify(body)} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  });
});
