import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { RESOURCES } from './resources.ts';
import { K8S_API_DIR, typeModel } from './typemodel.ts';
import { formatGoDuration, parseGoDuration } from './protobuf-json.ts';
import {
  decodeMessage,
  decodeObject,
  decodeWatchEventFrames,
  encodeMessage,
  encodeObject,
  encodeWatchEventFrame,
  NotProtobufKind,
  PROTOBUF_MEDIA_TYPE,
  protobufMessageName,
  ProtobufDecodeError,
  ProtobufEncodeError,
} from './protobuf.ts';

const FIXTURES = new URL('testdata-v1.27/', K8S_API_DIR);
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

function fixture(base: string): { pb: Buffer; json: any } {
  return {
    pb: readFileSync(new URL(`${base}.pb`, FIXTURES)),
    json: JSON.parse(readFileSync(new URL(`${base}.json`, FIXTURES), 'utf8')),
  };
}

/** Fixture base names (`GROUP.VERSION.KIND`, core group as `core`) of every kind the API server serves. */
function servedFixtures(): string[] {
  const names = new Set<string>();
  const add = (group: string, version: string, kind: string) => names.add(`${group || 'core'}.${version}.${kind}`);
  for (const r of RESOURCES) {
    add(r.group, r.version, r.kind);
    for (const s of r.subresources) add(s.group ?? r.group, s.version ?? r.version, s.kind);
  }
  add('', 'v1', 'Status');
  add('', 'v1', 'DeleteOptions');
  add('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview');
  add('authorization.k8s.io', 'v1', 'SubjectAccessReview');
  return [...names].sort();
}

/** The object's own message inside a fixture's envelope, read with protobufjs (independently of the codec). */
function envelope(pb: Buffer): { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array } {
  const unknown = typeModel().protoType('k8s.io.apimachinery.pkg.runtime.Unknown');
  return unknown.decode(pb.subarray(4)) as any;
}

function checkFixture(base: string): void {
  const { pb, json } = fixture(base);
  assert.deepEqual(decodeObject(pb), json, `${base}.pb decodes to ${base}.json`);
  const encoded = encodeObject(json);
  assert.equal(Buffer.compare(encoded, pb), 0, `${base}.json encodes to the bytes of ${base}.pb`);
  assert.deepEqual(decodeObject(encodeObject(json)), json, `${base}.json survives JSON → protobuf → JSON`);
}

describe('protobuf codec: Kubernetes 1.27 round-trip fixtures of served kinds', () => {
  const served = servedFixtures();
  const present = new Set(readdirSync(FIXTURES));

  it('has a fixture for every served kind', () => {
    assert.ok(served.length >= 30);
    for (const base of served) assert.ok(present.has(`${base}.pb`), `missing fixture ${base}.pb`);
  });

  for (const base of served) {
    it(`${base}.pb ⇄ ${base}.json`, () => checkFixture(base));
  }
});

describe('protobuf codec: fixtures of the other kinds of the release', () => {
  const served = new Set(servedFixtures());
  const others = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.pb'))
    .map((f) => f.slice(0, -3))
    .filter((b) => !served.has(b) && b !== 'core.v1.WatchEvent' && b !== 'internal.apiserver.k8s.io.v1alpha1.StorageVersion');
  for (const base of others) {
    it(`${base}.pb ⇄ ${base}.json`, () => checkFixture(base));
  }

  it('internal.apiserver.k8s.io.v1alpha1.StorageVersion.pb ⇄ .json (group whose package is apiserverinternal)', () =>
    checkFixture('internal.apiserver.k8s.io.v1alpha1.StorageVersion'));

  it('core.v1.WatchEvent: the raw message ⇄ JSON (WatchEvent has no TypeMeta of its own)', () => {
    const { pb, json } = fixture('core.v1.WatchEvent');
    const { raw } = envelope(pb);
    assert.deepEqual(decodeMessage(`${META}.WatchEvent`, raw), json);
    assert.equal(Buffer.compare(Buffer.from(encodeMessage(`${META}.WatchEvent`, json)), Buffer.from(raw)), 0);
  });
});

describe('protobuf codec: bodies sent by kubectl 1.33', () => {
  // Each: the request body kubectl 1.33 sent (`Content-Type: application/vnd.kubernetes.protobuf`)
  // for a `kubectl create …` command, and the JSON the same kubectl prints for that command
  // with `--dry-run=client -o json` (the Go object's JSON, written by Go).
  const vectors: { command: string; hex: string; json: any }[] = [
    {
      command: 'create deployment web --image=nginx:1.25 --replicas=0 --port=80',
      hex:
        '6b3873000a150a07617070732f7631120a4465706c6f796d656e7412bd010a1f0a0377656212001a0022002a003200380042005a0a0a036170701203776562128b0108' +
        '00120c0a0a0a0361707012037765621a710a1c0a0012001a0022002a003200380042005a0a0a036170701203776562125112330a056e67696e78120a6e67696e783a31' +
        '2e32352a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00' +
        '280038001a0c0800100018002000280038001a002200',
      json: {
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { creationTimestamp: null, labels: { app: 'web' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }], resources: {} }] },
          },
          strategy: {},
        },
        status: {},
      },
    },
    {
      command: 'create secret generic s1 --from-literal=pw=secret --type=Opaque',
      hex: '6b3873000a0c0a0276311206536563726574122a0a120a02733112001a0022002a00320038004200120c0a02707712067365637265741a064f70617175651a002200',
      json: { kind: 'Secret', apiVersion: 'v1', metadata: { name: 's1', creationTimestamp: null }, data: { pw: 'c2VjcmV0' }, type: 'Opaque' },
    },
    {
      command: 'create service clusterip svc1 --tcp=80:8080',
      hex:
        '6b3873000a0d0a027631120753657276696365126c0a210a047376633112001a0022002a003200380042005a0b0a0361707012047376633112430a1b0a0738302d3830' +
        '3830120354435018502207080010903f1a002800120b0a036170701204737663311a002209436c757374657249503a00420052005a00600068001a020a001a002200',
      json: {
        kind: 'Service',
        apiVersion: 'v1',
        metadata: { name: 'svc1', creationTimestamp: null, labels: { app: 'svc1' } },
        spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc1' }, type: 'ClusterIP' },
        status: { loadBalancer: {} },
      },
    },
    {
      command: 'create priorityclass pc1 --value=0 --description=zero --preemption-policy=Never',
      hex:
        '6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c61737312260a130a0370633112001a0022002a00320038004200' +
        '1000180022047a65726f2a054e657665721a002200',
      json: {
        kind: 'PriorityClass',
        apiVersion: 'scheduling.k8s.io/v1',
        metadata: { name: 'pc1', creationTimestamp: null },
        value: 0,
        description: 'zero',
        preemptionPolicy: 'Never',
      },
    },
  ];
  for (const v of vectors) {
    it(`kubectl ${v.command}: decodes to kubectl's own JSON, and encodes back to kubectl's bytes`, () => {
      const bytes = Buffer.from(v.hex, 'hex');
      const decoded = decodeObject(bytes);
      assert.deepEqual(decoded, v.json);
      assert.deepEqual(Object.keys(decoded), Object.keys(v.json), 'keys in Go order');
      assert.equal(encodeObject(v.json).toString('hex'), v.hex);
    });
  }
});

describe('protobuf codec: Go JSON semantics', () => {
  it('keeps zero values of pointer fields, drops them for omitempty value fields, writes value structs as {}', () => {
    // DeploymentSpec with only replicas = 0 on the wire (field 1, varint 0).
    const spec = decodeMessage('k8s.io.api.apps.v1.DeploymentSpec', Uint8Array.of(0x08, 0x00));
    assert.equal(spec.replicas, 0);
    assert.equal(spec.selector, null, 'selector is a pointer without omitempty: null');
    assert.deepEqual(spec.strategy, {}, 'strategy is a value struct: always written');
    assert.equal(spec.template.metadata.creationTimestamp, null, 'zero Time is null');
    assert.equal(spec.template.spec.containers, null, 'containers has no omitempty: null');
    assert.ok(!('minReadySeconds' in spec) && !('paused' in spec) && !('revisionHistoryLimit' in spec));

    // ObjectMeta with name "" and generation 0 written (Go writes value fields always).
    const meta = decodeMessage(`${META}.ObjectMeta`, Uint8Array.of(0x0a, 0x00, 0x38, 0x00));
    assert.deepEqual(meta, { creationTimestamp: null });
  });

  it('writes value fields even when absent from JSON, pointer fields only when set', () => {
    const bytes = Buffer.from(encodeMessage('k8s.io.api.apps.v1.DeploymentSpec', {}));
    const decoded = typeModel().protoType('k8s.io.api.apps.v1.DeploymentSpec').decode(bytes) as any;
    assert.equal(decoded.hasOwnProperty('replicas'), false, 'replicas (pointer) not written');
    assert.equal(decoded.hasOwnProperty('minReadySeconds'), true, 'minReadySeconds (value) written');
    assert.equal(decoded.hasOwnProperty('strategy'), true, 'strategy (value struct) written');
    const withZero = typeModel().protoType('k8s.io.api.apps.v1.DeploymentSpec').decode(encodeMessage('k8s.io.api.apps.v1.DeploymentSpec', { replicas: 0 })) as any;
    assert.equal(withZero.hasOwnProperty('replicas'), true);
    assert.equal(withZero.replicas, 0);
  });

  it('round-trips pointer booleans set to false and pointer ints set to 0', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', creationTimestamp: '2024-05-01T10:00:00Z' },
      spec: {
        containers: [{ name: 'c', image: 'i', resources: {}, securityContext: { allowPrivilegeEscalation: false, runAsUser: 0 } }],
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 0,
        enableServiceLinks: false,
      },
      status: {},
    };
    assert.deepEqual(decodeObject(encodeObject(pod)), pod);
  });

  it('converts Time (whole seconds in JSON, any offset accepted) and MicroTime (microseconds)', () => {
    const t = typeModel().protoType(`${META}.Time`);
    const bytes = encodeMessage(`${META}.Time`, '2008-01-01T01:01:01.5+01:00');
    const parts = t.decode(bytes) as any;
    assert.equal(Number(parts.seconds), Date.UTC(2008, 0, 1, 0, 1, 1) / 1000);
    assert.equal(parts.nanos, 500_000_000);
    assert.equal(decodeMessage(`${META}.Time`, bytes), '2008-01-01T00:01:01Z');
    assert.equal(decodeMessage(`${META}.Time`, t.encode({ seconds: 0, nanos: 0 }).finish()), '1970-01-01T00:00:00Z');
    assert.equal(decodeMessage(`${META}.Time`, new Uint8Array(0)), null);

    const mt = typeModel().protoType(`${META}.MicroTime`);
    const micro = mt.encode({ seconds: Date.UTC(2006, 0, 2, 15, 4, 5) / 1000, nanos: 123_456_789 }).finish();
    assert.equal(decodeMessage(`${META}.MicroTime`, micro), '2006-01-02T15:04:05.123456Z');
    const back = mt.decode(encodeMessage(`${META}.MicroTime`, '2006-01-02T15:04:05.123456Z')) as any;
    assert.equal(back.nanos, 123_456_000);
    assert.throws(() => encodeMessage(`${META}.Time`, 'yesterday'), ProtobufEncodeError);
  });

  it('formats and parses Go durations like time.Duration', () => {
    const cases: [bigint, string][] = [
      [0n, '0s'],
      [1n, '1ns'],
      [1100n, '1.1µs'],
      [1_500_000n, '1.5ms'],
      [3_723_500_000_000n, '1h2m3.5s'],
      [3_600_000_000_000n, '1h0m0s'],
      [-90_000_000_000n, '-1m30s'],
    ];
    for (const [ns, s] of cases) {
      assert.equal(formatGoDuration(ns), s);
      assert.equal(parseGoDuration(s), ns);
    }
    assert.equal(parseGoDuration('1.5h'), 5_400_000_000_000n);
    assert.equal(parseGoDuration('2us'), 2000n);
    assert.equal(parseGoDuration('1x'), undefined);
    const d = typeModel().protoType(`${META}.Duration`);
    assert.equal(Number((d.decode(encodeMessage(`${META}.Duration`, '1m30s')) as any).duration), 90e9);
    assert.equal(decodeMessage(`${META}.Duration`, d.encode({ duration: 1_500_000 }).finish()), '1.5ms');
  });

  it('converts IntOrString, Quantity, bytes and map keys', () => {
    const port = (targetPort: unknown) => ({ name: 'p', port: 80, targetPort });
    const sp = 'k8s.io.api.core.v1.ServicePort';
    assert.equal(decodeMessage(sp, encodeMessage(sp, port(8080))).targetPort, 8080);
    assert.equal(decodeMessage(sp, encodeMessage(sp, port('http'))).targetPort, 'http');
    assert.equal(decodeMessage(sp, encodeMessage(sp, { port: 80 })).targetPort, 0, 'absent value IntOrString is 0');
    const ios = typeModel().protoType('k8s.io.apimachinery.pkg.util.intstr.IntOrString').decode(encodeMessage('k8s.io.apimachinery.pkg.util.intstr.IntOrString', 'http')) as any;
    assert.deepEqual({ type: Number(ios.type), strVal: ios.strVal }, { type: 1, strVal: 'http' });

    const rr = 'k8s.io.api.core.v1.ResourceRequirements';
    const req = { limits: { memory: '1Gi', cpu: '500m' }, requests: { cpu: '0' } };
    assert.deepEqual(decodeMessage(rr, encodeMessage(rr, req)), req);

    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', creationTimestamp: null }, data: { zeta: 'AAEC/w==', alpha: '' }, type: 'Opaque' };
    const raw = envelope(encodeObject(secret)).raw;
    const viaProtobufjs = typeModel().protoType('k8s.io.api.core.v1.Secret').decode(raw) as any;
    assert.deepEqual([...viaProtobufjs.data.zeta], [0, 1, 2, 255]);
    assert.equal(viaProtobufjs.data.alpha.length, 0);
    const rawHex = Buffer.from(raw).toString('hex');
    assert.ok(rawHex.indexOf(Buffer.from('alpha').toString('hex')) < rawHex.indexOf(Buffer.from('zeta').toString('hex')), 'map keys sorted on the wire');
    const decoded = decodeObject(encodeObject(secret));
    assert.deepEqual(decoded.data, { alpha: '', zeta: 'AAEC/w==' });
    assert.deepEqual(Object.keys(decoded.data), ['alpha', 'zeta'], 'map keys sorted in JSON');
  });

  it('handles negative int32, large int64, unicode and long strings', () => {
    const cp = 'k8s.io.api.core.v1.ContainerPort';
    const neg = encodeMessage(cp, { containerPort: 80, hostPort: -1 });
    assert.equal((typeModel().protoType(cp).decode(neg) as any).hostPort, -1);
    assert.equal(decodeMessage(cp, neg).hostPort, -1);
    const long = 'x'.repeat(70_000);
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'é-名前-😀', generation: 2 ** 40 + 7, creationTimestamp: null, labels: { 'ünï': 'çödé', k: 'a'.repeat(200) } },
      data: { big: long, emoji: '😀'.repeat(30) },
    };
    const bytes = encodeObject(cm);
    assert.deepEqual(decodeObject(bytes), cm);
    const viaProtobufjs = typeModel().protoType('k8s.io.api.core.v1.ConfigMap').decode(envelope(bytes).raw) as any;
    assert.equal(viaProtobufjs.data.big.length, 70_000);
    assert.equal(viaProtobufjs.metadata.name, 'é-名前-😀');
    assert.equal(Number(viaProtobufjs.metadata.generation), 2 ** 40 + 7);
  });

  it('rejects JSON values that do not fit the Go type', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 5 } };
    assert.throws(() => encodeObject(ns), ProtobufEncodeError);
    assert.throws(() => encodeObject({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 'two' } }), ProtobufEncodeError);
    assert.throws(() => encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { labels: ['a'] } }), ProtobufEncodeError);
  });
});

describe('protobuf codec: envelope and kinds', () => {
  it('writes the prefix and an Unknown naming apiVersion and kind', () => {
    const bytes = encodeObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } });
    assert.deepEqual([...bytes.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
    const env = envelope(bytes);
    assert.deepEqual({ apiVersion: env.typeMeta.apiVersion, kind: env.typeMeta.kind }, { apiVersion: 'v1', kind: 'Namespace' });
    assert.equal(PROTOBUF_MEDIA_TYPE, 'application/vnd.kubernetes.protobuf');
  });

  it('resolves meta kinds served under any group version, and lists', () => {
    assert.equal(protobufMessageName('v1', 'Status'), `${META}.Status`);
    assert.equal(protobufMessageName('apps/v1', 'DeleteOptions'), `${META}.DeleteOptions`);
    assert.equal(protobufMessageName('v1', 'APIVersions'), `${META}.APIVersions`);
    assert.equal(protobufMessageName('v1', 'APIGroupList'), `${META}.APIGroupList`);
    assert.equal(protobufMessageName('apps/v1', 'APIResourceList'), `${META}.APIResourceList`);
    assert.equal(protobufMessageName('autoscaling/v1', 'Scale'), 'k8s.io.api.autoscaling.v1.Scale');
    assert.equal(protobufMessageName('policy/v1', 'Eviction'), 'k8s.io.api.policy.v1.Eviction');
    assert.equal(protobufMessageName('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'), 'k8s.io.api.rbac.v1.ClusterRoleBinding');
    for (const r of RESOURCES) {
      const gv = r.group ? `${r.group}/${r.version}` : r.version;
      assert.ok(protobufMessageName(gv, r.kind));
      if (r.verbs.includes('list')) assert.ok(protobufMessageName(gv, r.listKind), `${gv} ${r.listKind}`);
    }
  });

  it('encodes lists with items that carry no kind, and Status with its metadata', () => {
    const list = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '42', continue: 'abc' },
      items: [
        { metadata: { name: 'a', namespace: 'default', creationTimestamp: '2024-05-01T10:00:00Z' }, spec: { containers: [{ name: 'c', image: 'i', resources: {} }] }, status: { phase: 'Running' } },
        { metadata: { name: 'b', namespace: 'default', creationTimestamp: '2024-05-01T10:00:01Z' }, spec: { containers: [{ name: 'c', image: 'i', resources: {} }] }, status: {} },
      ],
    };
    const bytes = encodeObject(list);
    assert.deepEqual(decodeObject(bytes), list);
    const viaProtobufjs = typeModel().protoType('k8s.io.api.core.v1.PodList').decode(envelope(bytes).raw) as any;
    assert.equal(viaProtobufjs.items.length, 2);
    assert.equal(viaProtobufjs.items[1].metadata.name, 'b');
    assert.deepEqual(decodeObject(encodeObject({ kind: 'PodList', apiVersion: 'v1' })), { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: null });

    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'pods "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'pods' }, code: 404 };
    assert.deepEqual(decodeObject(encodeObject(status)), { ...status, metadata: {} });
  });

  it('throws NotProtobufKind for kinds without a message', () => {
    assert.throws(() => encodeObject({ apiVersion: 'meta.k8s.io/v1', kind: 'Table', rows: [] }), NotProtobufKind);
    assert.throws(() => encodeObject({ apiVersion: 'example.com/v1', kind: 'Widget' }), NotProtobufKind);
    assert.throws(() => encodeObject({ kind: 'Pod' }), NotProtobufKind);
    assert.throws(() => encodeWatchEventFrame('ADDED', { apiVersion: 'meta.k8s.io/v1', kind: 'Table' }), NotProtobufKind);
  });
});

describe('protobuf codec: malformed input', () => {
  const { pb } = fixture('core.v1.Pod');

  it('rejects a wrong prefix, JSON, empty input and non-bytes', () => {
    const wrong = Buffer.from(pb);
    wrong[3] = 0x01;
    for (const bad of [wrong, Buffer.from('{"kind":"Pod"}'), Buffer.alloc(0), Buffer.from([0x6b, 0x38])]) {
      assert.throws(() => decodeObject(bad), (e: unknown) => e instanceof ProtobufDecodeError && /6b 38 73 00/.test(e.message));
    }
    assert.throws(() => decodeObject('k8s' as any), ProtobufDecodeError);
  });

  it('rejects an envelope naming a kind without a message', () => {
    const unknown = typeModel().protoType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const body = unknown.encode({ typeMeta: { apiVersion: 'example.com/v1', kind: 'Widget' }, raw: new Uint8Array(0) }).finish();
    assert.throws(() => decodeObject(Buffer.concat([pb.subarray(0, 4), body])), (e: unknown) => e instanceof ProtobufDecodeError && /Widget/.test(e.message));
  });

  it('rejects every truncation inside the object, and throws nothing but ProtobufDecodeError for any truncation', () => {
    const env = envelope(pb);
    const rawEnd = pb.indexOf(Buffer.from(env.raw)) + env.raw.length;
    const typeMetaEnd = 4 + 2 + pb[5];
    assert.equal(pb[typeMetaEnd], 0x12, 'raw follows typeMeta');
    for (let cut = 0; cut < pb.length; cut++) {
      const part = pb.subarray(0, cut);
      let error: unknown;
      try {
        decodeObject(part);
      } catch (e) {
        error = e;
      }
      if (cut === typeMetaEnd) {
        // A whole envelope without raw: Go decodes it into an empty Pod.
        assert.equal(error, undefined);
        assert.deepEqual(decodeObject(part), { kind: 'Pod', apiVersion: 'v1', metadata: { creationTimestamp: null }, spec: { containers: null }, status: {} });
      } else if (cut < rawEnd) assert.ok(error instanceof ProtobufDecodeError, `cut at ${cut} must be rejected`);
      else assert.ok(error === undefined || error instanceof ProtobufDecodeError, `cut at ${cut}: ${String(error)}`);
    }
  });

  it('throws nothing but ProtobufDecodeError for corrupted bytes', () => {
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 400; i++) {
      const bytes = Buffer.from(pb);
      const flips = 1 + (next() % 4);
      for (let j = 0; j < flips; j++) bytes[4 + (next() % (bytes.length - 4))] = next() & 0xff;
      try {
        decodeObject(bytes);
      } catch (e) {
        assert.ok(e instanceof ProtobufDecodeError, `flip run ${i}: ${String(e)}`);
      }
    }
    for (let i = 0; i < 300; i++) {
      const garbage = Buffer.alloc(4 + (next() % 200));
      garbage.set([0x6b, 0x38, 0x73, 0x00]);
      for (let j = 4; j < garbage.length; j++) garbage[j] = next() & 0xff;
      try {
        decodeObject(garbage);
      } catch (e) {
        assert.ok(e instanceof ProtobufDecodeError, `garbage run ${i}: ${String(e)}`);
      }
    }
  });

  it('decodeMessage throws only ProtobufDecodeError', () => {
    assert.throws(() => decodeMessage('k8s.io.api.core.v1.Pod', Uint8Array.of(0x0a, 0x05, 0x01)), ProtobufDecodeError);
    assert.throws(() => decodeMessage('k8s.io.api.core.v1.Pod', Uint8Array.of(0x0f)), ProtobufDecodeError);
    assert.throws(() => decodeMessage('k8s.io.api.core.v1.Pod', Uint8Array.of(0x08, 0x01)), ProtobufDecodeError, 'wrong wire type for metadata');
    assert.throws(() => decodeMessage('no.such.Message', Uint8Array.of()), ProtobufDecodeError);
  });
});

describe('protobuf codec: watch stream frames', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', resourceVersion: '7', creationTimestamp: '2024-05-01T10:00:00Z' }, spec: { containers: null }, status: {} };

  it('frames a WatchEvent with a 4-byte big-endian length; object.raw is the full wire form of the object', () => {
    const frame = encodeWatchEventFrame('ADDED', pod);
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const ev = typeModel().protoType(`${META}.WatchEvent`).decode(frame.subarray(4)) as any;
    assert.equal(ev.type, 'ADDED');
    assert.equal(Buffer.compare(Buffer.from(ev.object.raw), encodeObject(pod)), 0);
  });

  it('decodes a stream of frames back to events', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 };
    const bookmark = { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '9', creationTimestamp: null, annotations: { 'k8s.io/initial-events-end': 'true' } }, spec: { containers: null }, status: {} };
    const stream = Buffer.concat([
      encodeWatchEventFrame('ADDED', pod),
      encodeWatchEventFrame('MODIFIED', { ...pod, metadata: { ...pod.metadata, resourceVersion: '8' } }),
      encodeWatchEventFrame('BOOKMARK', bookmark),
      encodeWatchEventFrame('ERROR', status),
    ]);
    const events = decodeWatchEventFrames(stream);
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'BOOKMARK', 'ERROR'],
    );
    assert.deepEqual(events[0].object, pod);
    assert.equal(events[1].object.metadata.resourceVersion, '8');
    assert.deepEqual(events[2].object, bookmark);
    assert.deepEqual(events[3].object, status);
    assert.throws(() => decodeWatchEventFrames(stream.subarray(0, stream.length - 3)), ProtobufDecodeError);
    assert.throws(() => decodeWatchEventFrames(stream.subarray(0, 2)), ProtobufDecodeError);
  });
});
