import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { base64Error, checkFields, quantityError, strictDecodingMessage, timeError, typeErrorMessage, warningFor } from './fieldvalidation.ts';

const POD = 'k8s.io.api.core.v1.Pod';
const DEPLOYMENT = 'k8s.io.api.apps.v1.Deployment';

function pod(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = { name: 'p' }): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

const firstError = (message: string, obj: unknown, raw?: string) => checkFields(message, obj, raw).typeErrors[0]?.message;

test('a valid object has no errors, and null is accepted anywhere', () => {
  const body = pod({ nodeName: null, containers: [null, { name: 'c', image: 'nginx', ports: null, resources: { limits: { cpu: null } } }] }, { name: 'p', labels: { a: null } });
  assert.deepEqual(checkFields(POD, body), { typeErrors: [], unknownFields: [], duplicateFields: [], strictErrors: [] });
});

test('the Kubernetes round-trip fixtures of the served kinds validate cleanly', () => {
  const dir = new URL('./k8s-api/testdata-v1.27/', import.meta.url);
  const cases: [string, string][] = [
    ['core.v1.Pod.json', POD],
    ['core.v1.Node.json', 'k8s.io.api.core.v1.Node'],
    ['core.v1.Service.json', 'k8s.io.api.core.v1.Service'],
    ['core.v1.Secret.json', 'k8s.io.api.core.v1.Secret'],
    ['apps.v1.StatefulSet.json', 'k8s.io.api.apps.v1.StatefulSet'],
    ['batch.v1.CronJob.json', 'k8s.io.api.batch.v1.CronJob'],
    ['coordination.k8s.io.v1.Lease.json', 'k8s.io.api.coordination.v1.Lease'],
    ['authorization.k8s.io.v1.SubjectAccessReview.json', 'k8s.io.api.authorization.v1.SubjectAccessReview'],
    ['autoscaling.v2.HorizontalPodAutoscaler.json', 'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler'],
    ['discovery.k8s.io.v1.EndpointSlice.json', 'k8s.io.api.discovery.v1.EndpointSlice'],
  ];
  for (const [file, message] of cases) {
    const raw = readFileSync(new URL(file, dir), 'utf8');
    const r = checkFields(message, JSON.parse(raw), raw);
    assert.deepEqual(r.typeErrors, [], file);
    assert.deepEqual(r.unknownFields, [], file);
    assert.deepEqual(r.duplicateFields, [], file);
  }
});

test('wrong JSON types give Go decoding messages naming struct, field path and Go type', () => {
  const err = checkFields(POD, pod({ containers: [{ name: 'c', image: 1 }] })).typeErrors[0];
  assert.deepEqual(err, { path: 'spec.containers[0].image', message: 'json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string' });
  assert.equal(
    typeErrorMessage('Pod', 'v1', err),
    'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string',
  );
  assert.equal(firstError(POD, pod({ containers: {} })), 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container');
  assert.equal(firstError(POD, { spec: 'x' }), 'json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec');
  assert.equal(firstError(POD, pod({}, { name: 'p', labels: { a: 1 } })), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  assert.equal(firstError(POD, pod({ restartPolicy: 5 })), 'json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy');
  assert.equal(firstError(POD, pod({ hostNetwork: 'true' })), 'json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool');
  assert.equal(firstError(POD, pod({ containers: ['c'] })), 'json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container');
  assert.equal(firstError(POD, pod({ volumes: [{ name: 'v', emptyDir: { sizeLimit: '1Gi', medium: [] } }] })), 'json: cannot unmarshal array into Go struct field EmptyDirVolumeSource.spec.volumes.emptyDir.medium of type v1.StorageMedium');
  assert.equal(firstError(POD, [1]), 'json: cannot unmarshal array into Go value of type v1.Pod');
  assert.equal(firstError(POD, { kind: 3 }), 'json: cannot unmarshal number into Go struct field Pod.kind of type string');
  assert.equal(firstError('k8s.io.api.authorization.v1.SubjectAccessReview', { spec: { extra: { scopes: ['a', 2] } } }), 'json: cannot unmarshal number into Go struct field SubjectAccessReviewSpec.spec.extra of type string');
});

test('integers must be integral and in range; 1.0 is caught from the raw text', () => {
  const d = (replicas: unknown) => ({ spec: { replicas, selector: {}, template: {} } });
  assert.equal(firstError(DEPLOYMENT, d('3')), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(firstError(DEPLOYMENT, d(1.5)), 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(firstError(DEPLOYMENT, d(3000000000)), 'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(firstError(DEPLOYMENT, d(-1)), undefined);
  const raw = '{"spec": {"replicas": 1.0, "template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 8e1}]}]}}}}';
  const r = checkFields(DEPLOYMENT, JSON.parse(raw), raw);
  assert.deepEqual(r.typeErrors.map((e) => e.message), [
    'json: cannot unmarshal number 1.0 into Go struct field DeploymentSpec.spec.replicas of type int32',
    'json: cannot unmarshal number 8e1 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
  ]);
  const big = '{"spec": {"activeDeadlineSeconds": 9223372036854775808, "terminationGracePeriodSeconds": 9223372036854775807}}';
  assert.deepEqual(checkFields(POD, JSON.parse(big), big).typeErrors.map((e) => e.path), ['spec.activeDeadlineSeconds']);
  const floats = '{"status": {"conditions": [{"type": "Ready", "status": "True"}]}, "metadata": {"annotations": {"x": "1.0"}}}';
  assert.deepEqual(checkFields(POD, JSON.parse(floats), floats).typeErrors, []);
});

test('quantities: string or number, malformed syntax is a decode error', () => {
  for (const ok of ['100m', '1Gi', '0.5', '1e3', '1E-2', '+1', '-2Ki', ' 2 ', '1.', '.5']) assert.equal(quantityError(ok.trim()), undefined, ok);
  const format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  assert.equal(quantityError(''), format);
  assert.equal(quantityError('1x'), format);
  assert.equal(quantityError('one'), format);
  assert.equal(quantityError('1ii'), "unable to parse quantity's suffix");
  assert.equal(quantityError('1e'), "unable to parse quantity's suffix");
  const withCpu = (cpu: unknown) => pod({ containers: [{ name: 'c', resources: { requests: { cpu } } }] });
  assert.equal(firstError(POD, withCpu(0.5)), undefined);
  assert.equal(firstError(POD, withCpu('2x')), format);
  assert.equal(firstError(POD, withCpu(true)), format);
  assert.equal(checkFields(POD, withCpu({})).typeErrors[0].path, 'spec.containers[0].resources.requests.cpu');
});

test('timestamps parse as RFC 3339 (MicroTime with six fractional digits), with Go messages', () => {
  assert.equal(timeError('2023-01-02T03:04:05Z'), undefined);
  assert.equal(timeError('2023-01-02T03:04:05.123+02:00'), undefined);
  assert.equal(timeError('2024-02-29T00:00:00Z'), undefined);
  assert.equal(timeError('yesterday'), 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  assert.equal(timeError('2023-01-02 03:04:05Z'), 'parsing time "2023-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T"');
  assert.equal(timeError('2023-01-02T03:04:05'), 'parsing time "2023-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
  assert.equal(timeError('2023-13-01T00:00:00Z'), 'parsing time "2023-13-01T00:00:00Z": month out of range');
  assert.equal(timeError('2023-02-29T00:00:00Z'), 'parsing time "2023-02-29T00:00:00Z": day out of range');
  assert.equal(timeError('2023-01-02T03:04:05Zabc'), 'parsing time "2023-01-02T03:04:05Zabc": extra text: "abc"');
  assert.equal(timeError('2023-01-02T03:04:05.000000Z', true), undefined);
  assert.equal(timeError('2023-01-02T03:04:05Z', true), 'parsing time "2023-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"');
  assert.equal(
    firstError(POD, pod({}, { name: 'p', creationTimestamp: 5 })),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
  );
  assert.match(firstError('k8s.io.api.coordination.v1.Lease', { spec: { renewTime: '2023-01-02T03:04:05Z' } }) ?? '', /cannot parse "Z" as "\.000000"/);
});

test('timestamps in the canonical UTC form: every field is range-checked, leap years by the Gregorian rule', () => {
  for (const ok of ['2000-02-29T23:59:59Z', '2024-02-29T00:00:00Z', '1999-12-31T00:00:00Z', '0000-01-01T00:00:00Z']) {
    assert.equal(timeError(ok), undefined, ok);
    assert.equal(timeError(ok.replace('Z', '.999999Z'), true), undefined, ok);
  }
  const bad: [string, RegExp][] = [
    ['1900-02-29T00:00:00Z', /day out of range/],
    ['2023-04-31T00:00:00Z', /day out of range/],
    ['2023-01-00T00:00:00Z', /day out of range/],
    ['2023-00-10T00:00:00Z', /month out of range/],
    ['2023-01-10T24:00:00Z', /hour out of range/],
    ['2023-01-10T23:60:00Z', /minute out of range/],
    ['2023-01-10T23:59:60Z', /second out of range/],
    ['2023-0a-10T23:59:59Z', /cannot parse/],
    ['2023-01-10T23:59:5xZ', /cannot parse/],
  ];
  for (const [value, message] of bad) {
    assert.match(timeError(value) ?? 'accepted', message, value);
    assert.match(timeError(value.replace('Z', '.000000Z'), true) ?? 'accepted', message, `${value} as MicroTime`);
  }
  assert.match(timeError('2023-01-10T23:59:59.00000xZ', true) ?? 'accepted', /cannot parse/);
});

test('IntOrString and bytes', () => {
  const svc = (targetPort: unknown) => ({ spec: { ports: [{ port: 80, targetPort }] } });
  assert.equal(firstError('k8s.io.api.core.v1.Service', svc('http')), undefined);
  assert.equal(firstError('k8s.io.api.core.v1.Service', svc(8080)), undefined);
  assert.equal(firstError('k8s.io.api.core.v1.Service', svc(true)), 'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32');
  assert.equal(firstError('k8s.io.api.core.v1.Service', svc(1.5)), 'json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.targetPort of type int32');
  assert.equal(base64Error('YWJj'), undefined);
  assert.equal(base64Error('YQ=='), undefined);
  assert.equal(base64Error('YWI=\n'), undefined);
  assert.equal(base64Error('!!'), 'illegal base64 data at input byte 0');
  assert.equal(base64Error('abc'), 'illegal base64 data at input byte 0');
  assert.equal(base64Error('YWJjZ'), 'illegal base64 data at input byte 4');
  assert.equal(base64Error('YQ='), 'illegal base64 data at input byte 3');
  assert.equal(base64Error('YQ==YQ=='), 'illegal base64 data at input byte 4');
  const secret = (v: unknown) => ({ data: { k: v } });
  assert.equal(firstError('k8s.io.api.core.v1.Secret', secret('c2VjcmV0')), undefined);
  assert.equal(firstError('k8s.io.api.core.v1.Secret', secret('secret!')), 'illegal base64 data at input byte 6');
  assert.equal(firstError('k8s.io.api.core.v1.Secret', { stringData: { k: 'plain text' } }), undefined);
});

test('unknown fields are reported by path, not descended into, and can be pruned', () => {
  const body = pod({ foo: { bar: 1 }, containers: [{ name: 'c', image: 'i', imagePullPolicyy: 'Always' }], volumes: [{ name: 'v', configMap: { name: 'cm', bogus: 1 } }] });
  (body as any).status = { phase: 'Running', extra: true };
  const r = checkFields(POD, body);
  assert.deepEqual(r.unknownFields, ['spec.containers[0].imagePullPolicyy', 'spec.foo', 'spec.volumes[0].configMap.bogus', 'status.extra']);
  assert.equal(strictDecodingMessage(['spec.foo'], ['metadata.name']), 'strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"');
  assert.equal(warningFor('spec.foo'), '299 - "unknown field \\"spec.foo\\""');
  assert.equal(warningFor('metadata.name', 'duplicate'), '299 - "duplicate field \\"metadata.name\\""');
  assert.equal(warningFor('spec.é'), '299 - "unknown field \\"spec.\\u00e9\\""');
  const tmpl = checkFields(DEPLOYMENT, { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { apiVersion: 'v1', spec: {} } } });
  assert.deepEqual(tmpl.unknownFields, ['spec.template.apiVersion']);
  const list = checkFields('k8s.io.api.core.v1.PodList', { apiVersion: 'v1', kind: 'PodList', items: [{ apiVersion: 'v1', kind: 'Pod', Spec: {} }] });
  assert.deepEqual(list.unknownFields, ['items[0].Spec']);
  const pruned = pod({ foo: 1 }, { name: 'p', nope: 2 });
  checkFields(POD, pruned, undefined, { prune: true });
  assert.deepEqual(pruned, pod({}, { name: 'p' }));
});

test('unchanged: members identical to the stored object are not walked; copied or new ones are', () => {
  // A stored object is clean, so a member shared with it is skipped without a look (the bogus
  // field planted in the "stored" object shows that it was not walked).
  const stored = pod({ volumes: [{ name: 'v', configMap: { name: 'cm', planted: 1 } }] });
  (stored as any).status = { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] };
  const spec = (stored as any).spec;
  const patched = { ...stored, status: { ...(stored as any).status, phase: 7, hostIP: '10.0.0.1', extra: true } };
  const r = checkFields(POD, patched, undefined, { unchanged: stored });
  assert.deepEqual(r.unknownFields, ['status.extra']);
  assert.deepEqual(r.typeErrors.map((e) => e.path), ['status.phase']);
  // Without the stored object (or with a copy of a member instead of the member itself), everything is walked.
  assert.deepEqual(checkFields(POD, patched).unknownFields, ['spec.volumes[0].configMap.planted', 'status.extra']);
  const copied = { ...patched, spec: { ...spec, volumes: [{ ...spec.volumes[0], configMap: { ...spec.volumes[0].configMap } }] } };
  assert.deepEqual(checkFields(POD, copied, undefined, { unchanged: stored }).unknownFields, ['spec.volumes[0].configMap.planted', 'status.extra']);
  // List items and map values are compared one by one.
  const oneNew = { ...stored, spec: { ...spec, containers: [...spec.containers, { name: 'd', image: 'i', bad: 1 }] }, metadata: { name: 'p', labels: { a: 'b' }, annotations: { x: 1 } } };
  assert.deepEqual(checkFields(POD, oneNew, undefined, { unchanged: stored }).unknownFields, ['spec.containers[1].bad']);
  assert.deepEqual(checkFields(POD, oneNew, undefined, { unchanged: stored }).typeErrors.map((e) => e.path), ['metadata.annotations.x']);
});

test('duplicate fields come from the raw text, in document order together with unknown ones', () => {
  const raw = `{
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "dupename", "name": "dupename", "labels": {"app": "nginx"}},
    "spec": {
      "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
      "paused": true, "paused": false,
      "selector": {"matchLabels": {"app": "nginx"}},
      "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{
        "name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
        "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}
    }
  }`;
  const r = checkFields(DEPLOYMENT, JSON.parse(raw), raw);
  assert.deepEqual(r.typeErrors, []);
  assert.deepEqual(r.unknownFields, ['spec.unknown1', 'spec.unknownDupe', 'spec.template.spec.containers[0].unknownNested']);
  assert.deepEqual(r.duplicateFields, ['metadata.name', 'spec.paused', 'spec.template.spec.containers[0].imagePullPolicy']);
  assert.equal(
    strictDecodingMessage(r),
    'strict decoding error: duplicate field "metadata.name", unknown field "spec.unknown1", unknown field "spec.unknownDupe", duplicate field "spec.paused", ' +
      'unknown field "spec.template.spec.containers[0].unknownNested", duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
  );
  const labels = '{"metadata": {"labels": {"a": "1", "b": "2", "a": "3"}, "annotations": {"x\\"y": "1", "x\\"y": "2"}}, "spec": {"overhead": {"cpu": "1", "cpu": "2"}}}';
  assert.deepEqual(checkFields(POD, JSON.parse(labels), labels).duplicateFields, ['metadata.labels.a', 'metadata.annotations.x"y', 'spec.overhead.cpu']);
  const opaque = '{"metadata": {"managedFields": [{"fieldsV1": {"f:a": {}, "f:a": {}}}]}, "spec": {"bogus": {"x": 1, "x": 2}}}';
  assert.deepEqual(checkFields(POD, JSON.parse(opaque), opaque).duplicateFields, []);
  assert.deepEqual(checkFields(POD, JSON.parse(labels)).duplicateFields, []);
});


test('the raw scan is not skipped when a string mimics a key or a number hides in compact JSON', () => {
  // A string holding `\":` adds a key-like sequence while a real key repeats: the counts balance only if the scan is skipped.
  const dup = '{"metadata":{"name":"a","annotations":{"x":"say \\":\\" here"},"name":"b"}}';
  assert.deepEqual(checkFields(POD, JSON.parse(dup), dup).duplicateFields, ['metadata.name']);
  const compact = '{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80.0}]}]}}';
  assert.equal(checkFields(POD, JSON.parse(compact), compact).typeErrors.length, 1);
  const longInt = '{"spec":{"containers":[{"name":"c","ports":[{"containerPort":12345678901234567}]}]}}';
  assert.equal(checkFields(POD, JSON.parse(longInt), longInt).typeErrors.length, 1);
});
