import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aggregateFieldErrors,
  fieldErrorString,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  goQuote,
  invalidError,
  validateLabelSelector,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldError,
} from './metavalidation.ts';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const namespaced = { namespaced: true, nameValidator: nameIsDNSSubdomain };
const strings = (errs: FieldError[]) => errs.map(fieldErrorString);

test('a valid ObjectMeta has no errors', () => {
  const meta = {
    name: 'web-1',
    namespace: 'default',
    generation: 3,
    labels: { app: 'web', 'app.kubernetes.io/name': 'web', empty: '' },
    annotations: { 'Example.COM/Note': 'anything at all: yes' },
    finalizers: ['kubernetes', 'example.com/cleanup', 'foregroundDeletion'],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u-1', controller: true }],
    managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1' }],
  };
  assert.deepEqual(validateObjectMeta(meta, namespaced), []);
});

test('name is required unless a generateName is given on create', () => {
  assert.deepEqual(strings(validateObjectMeta({ namespace: 'ns' }, namespaced)), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(validateObjectMeta({ generateName: 'web-', namespace: 'ns' }, { ...namespaced, isCreate: true }), []);
  assert.deepEqual(strings(validateObjectMeta({ generateName: 'web-', namespace: 'ns' }, namespaced)), [
    'metadata.name: Required value: name or generateName is required',
  ]);
  assert.deepEqual(strings(validateObjectMeta({ generateName: 'Web-', namespace: 'ns' }, { ...namespaced, isCreate: true })), [
    `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`,
    `metadata.name: Invalid value: "Web-bbbbb": ${SUBDOMAIN_MSG}`,
  ]);
});

test('a generateName passing the prefix check can still generate a bad name', () => {
  const errs = validateObjectMeta({ generateName: 'a.-', namespace: 'ns' }, { ...namespaced, isCreate: true });
  assert.deepEqual(strings(errs), [`metadata.name: Invalid value: "a.-bbbbb": ${SUBDOMAIN_MSG}`]);
});

test('generated names of DNS-label kinds fit in 63 characters', () => {
  const opts = { namespaced: false, nameValidator: nameIsDNSLabel, isCreate: true };
  assert.deepEqual(validateObjectMeta({ generateName: 'n'.repeat(62) }, opts), []);
  assert.deepEqual(strings(validateObjectMeta({ generateName: 'n'.repeat(64) }, opts)), [`metadata.generateName: Invalid value: "${'n'.repeat(64)}": must be no more than 63 characters`]);
});

test('63/64-character and uppercase names', () => {
  const label = { namespaced: false, nameValidator: nameIsDNSLabel };
  assert.deepEqual(validateObjectMeta({ name: 'a'.repeat(63) }, label), []);
  assert.deepEqual(strings(validateObjectMeta({ name: 'a'.repeat(64) }, label)), [`metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`]);
  assert.deepEqual(strings(validateObjectMeta({ name: 'Web', namespace: 'ns' }, namespaced)), [`metadata.name: Invalid value: "Web": ${SUBDOMAIN_MSG}`]);
});

test('namespace is required for namespaced kinds and forbidden otherwise', () => {
  assert.deepEqual(strings(validateObjectMeta({ name: 'a' }, namespaced)), ['metadata.namespace: Required value']);
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'my.ns' }, namespaced)), [`metadata.namespace: Invalid value: "my.ns": ${LABEL_MSG}`]);
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'ns' }, { namespaced: false, nameValidator: nameIsDNSSubdomain })), [
    'metadata.namespace: Forbidden: not allowed on this type',
  ]);
});

test('generation must not be negative', () => {
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'n', generation: -1 }, namespaced)), [
    'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
  ]);
});

test('label keys and values', () => {
  const errs = validateObjectMeta({ name: 'a', namespace: 'n', labels: { 'a b': 'ok', ok: 'x'.repeat(64) } }, namespaced);
  assert.deepEqual(
    errs.map((e) => [e.field, e.type]),
    [
      ['metadata.labels', 'FieldValueInvalid'],
      ['metadata.labels', 'FieldValueInvalid'],
    ],
  );
  assert.match(errs[0].message, /^Invalid value: "a b": name part must consist of/);
  assert.equal(errs[1].message, `Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`);
});

test('annotations: keys are case-insensitive qualified names, total size at most 256 KiB', () => {
  const key = 'k';
  const fits = { [key]: 'v'.repeat(256 * 1024 - key.length) };
  assert.deepEqual(validateObjectMeta({ name: 'a', namespace: 'n', annotations: fits }, namespaced), []);
  const tooBig = { [key]: 'v'.repeat(256 * 1024 - key.length + 1) };
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'n', annotations: tooBig }, namespaced)), [
    'metadata.annotations: Too long: must have at most 262144 bytes',
  ]);
  assert.match(strings(validateObjectMeta({ name: 'a', namespace: 'n', annotations: { 'x/y/z': '' } }, namespaced))[0], /^metadata\.annotations: Invalid value: "x\/y\/z": a qualified name/);
});

test('finalizers: qualified names, standard names unprefixed, not orphan and foreground together', () => {
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'n', finalizers: ['foo'] }, namespaced)), [
    'metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  assert.deepEqual(validateObjectMeta({ name: 'a', namespace: 'n', finalizers: ['foo'] }, { ...namespaced, kubeFinalizers: false }), []);
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'n', finalizers: ['orphan', 'foregroundDeletion'] }, namespaced)), [
    'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
  ]);
  const bad = strings(validateObjectMeta({ name: 'a', namespace: 'n', finalizers: ['a b'] }, namespaced));
  assert.equal(bad.length, 2);
  assert.match(bad[0], /^metadata\.finalizers: Invalid value: "a b": name part must consist/);
  assert.match(bad[1], /^metadata\.finalizers\[0\]: Invalid value: "a b": name part must consist/);
});

test('ownerReferences: required parts, no core Event owner, one controller', () => {
  assert.deepEqual(strings(validateObjectMeta({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'apps/', kind: '', name: '', uid: '' }] }, namespaced)), [
    'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
  ]);
  const two = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
    { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'b', uid: '2', controller: true },
  ];
  const errs = validateObjectMeta({ name: 'a', namespace: 'n', ownerReferences: two }, namespaced);
  assert.equal(errs.length, 1);
  assert.equal(errs[0].field, 'metadata.ownerReferences');
  assert.equal(errs[0].detail, 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and StatefulSet/b');
  const event = validateObjectMeta({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }] }, namespaced);
  assert.deepEqual(
    event.map((e) => e.detail),
    ['/v1, Kind=Event is disallowed from being an owner'],
  );
  assert.deepEqual(validateObjectMeta({ name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'e', uid: '1' }] }, namespaced), []);
});

test('managedFields entries', () => {
  const errs = validateObjectMeta({ name: 'a', namespace: 'n', managedFields: [{ manager: 'm', operation: 'Patch', fieldsType: 'FieldsV2' }] }, namespaced);
  assert.deepEqual(strings(errs), [
    'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
    'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
  ]);
});

test('a field manager name must be printable: each control character is reported with its byte position', () => {
  const errs = validateObjectMeta({ name: 'a', namespace: 'n', managedFields: [{ manager: 'kübe\tctl\u0007', operation: 'Update' }] }, namespaced);
  assert.deepEqual(errs.map((e) => e.message.replace(/^.*invalid character /, '')), ['U+0009 (at position 5)', 'U+0007 (at position 9)']);
  const ok = validateObjectMeta({ name: 'a', namespace: 'n', managedFields: [{ manager: 'kübe ctl ✓', operation: 'Update' }] }, namespaced);
  assert.deepEqual(ok, []);
});

test('a custom field path prefixes every error', () => {
  const errs = validateObjectMeta({ labels: { '-': '' } }, { namespaced: false, nameValidator: nameIsDNSSubdomain, fieldPath: 'spec.template.metadata' });
  assert.ok(errs.every((e) => e.field.startsWith('spec.template.metadata.')));
});

const stored = {
  name: 'web',
  namespace: 'default',
  uid: 'u-1',
  resourceVersion: '10',
  generation: 2,
  creationTimestamp: '2024-03-01T10:00:00Z',
};

test('update: identity fields are immutable', () => {
  assert.deepEqual(validateObjectMetaUpdate({ ...stored, creationTimestamp: '2024-03-01T10:00:00.000Z' }, stored), []);
  const errs = validateObjectMetaUpdate({ ...stored, name: 'api', namespace: 'other', uid: 'u-2', creationTimestamp: '2024-03-02T10:00:00Z' }, stored);
  assert.deepEqual(strings(errs), [
    'metadata.name: Invalid value: "api": field is immutable',
    'metadata.namespace: Invalid value: "other": field is immutable',
    'metadata.uid: Invalid value: "u-2": field is immutable',
    'metadata.creationTimestamp: Invalid value: 2024-03-02 10:00:00 +0000 UTC: field is immutable',
  ]);
  assert.deepEqual(strings(validateObjectMetaUpdate({ ...stored, deletionTimestamp: '2024-03-02T10:00:00Z', deletionGracePeriodSeconds: 30 }, stored)), [
    'metadata.deletionTimestamp: Invalid value: 2024-03-02 10:00:00 +0000 UTC: field is immutable',
    'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
  ]);
});

test('update: resourceVersion required, generation never decremented', () => {
  assert.deepEqual(strings(validateObjectMetaUpdate({ ...stored, resourceVersion: '', generation: 1 }, stored)), [
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    'metadata.generation: Invalid value: 1: must not be decremented',
  ]);
});

test('update: no new finalizers once deletion started', () => {
  const deleting = { ...stored, deletionTimestamp: '2024-03-02T10:00:00Z', finalizers: ['a.io/x'] };
  assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
  assert.deepEqual(strings(validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'c.io/z', 'b.io/y'] }, deleting)), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y", "c.io/z"}',
  ]);
  assert.deepEqual(validateObjectMetaUpdate({ ...stored, finalizers: ['a.io/x'] }, stored), []);
});

test('update: labels of the new object are validated', () => {
  const errs = validateObjectMetaUpdate({ ...stored, labels: { ok: 'not ok' } }, stored);
  assert.equal(errs.length, 1);
  assert.equal(errs[0].field, 'metadata.labels');
});

test('goQuote matches Go strconv.Quote', () => {
  assert.equal(goQuote('plain'), '"plain"');
  assert.equal(goQuote('say "hi"\\'), '"say \\"hi\\"\\\\"');
  assert.equal(goQuote('a\nb\tc\u0001\u007f'), '"a\\nb\\tc\\x01\\x7f"');
  assert.equal(goQuote('héllo €'), '"héllo €"');
  assert.equal(goQuote('\u00a0'), '"\\u00a0"');
});

test('error formatting, aggregation and the 422 Status', () => {
  assert.equal(fieldErrorString(fieldNotSupported('spec.x', 'c', ['a', 'b'])), 'spec.x: Unsupported value: "c": supported values: "a", "b"');
  assert.equal(fieldErrorString(fieldRequired('spec.y')), 'spec.y: Required value');
  assert.equal(fieldErrorString(fieldInvalid('', 'v', 'd')), '<nil>: Invalid value: "v": d');
  assert.equal(fieldErrorString(fieldInvalid('f', null, 'd')), 'f: Invalid value: null: d');
  const a = fieldInvalid('a', 1, 'x');
  const b = fieldInvalid('b', true, 'y');
  assert.equal(aggregateFieldErrors([a]), 'a: Invalid value: 1: x');
  assert.equal(aggregateFieldErrors([a, b, a]), '[a: Invalid value: 1: x, b: Invalid value: true: y]');

  const errs = validateObjectMeta({ name: 'Web', namespace: 'default' }, namespaced);
  const status = invalidError('Pod', '', 'Web', errs).toStatus();
  assert.equal(status.code, 422);
  assert.equal(status.reason, 'Invalid');
  assert.equal(status.message, `Pod "Web" is invalid: metadata.name: Invalid value: "Web": ${SUBDOMAIN_MSG}`);
  assert.deepEqual(status.details?.causes, [{ reason: 'FieldValueInvalid', message: `Invalid value: "Web": ${SUBDOMAIN_MSG}`, field: 'metadata.name' }]);
  const two = invalidError('Deployment', 'apps', 'x', [a, b, a]);
  assert.equal(two.message, 'Deployment.apps "x" is invalid: [a: Invalid value: 1: x, b: Invalid value: true: y]');
});

test('validateLabelSelector follows metav1 validation', () => {
  const p = 'spec.selector';
  assert.deepEqual(validateLabelSelector(null, p), []);
  assert.deepEqual(validateLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, p), []);
  assert.deepEqual(
    strings(
      validateLabelSelector(
        {
          matchExpressions: [
            { key: 'a', operator: 'In', values: [] },
            { key: 'b', operator: 'Exists', values: ['x'] },
            { key: 'c', operator: 'Gt', values: ['1'] },
            { key: 'd', operator: 'NotIn', values: ['ok', 'not ok'] },
          ],
        },
        p,
      ),
    ),
    [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator',
      "spec.selector.matchExpressions[3].values[1]: Invalid value: \"not ok\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ],
  );
  assert.deepEqual(validateLabelSelector({ matchExpressions: [{ key: 'd', operator: 'In', values: ['not ok'] }] }, p, { allowInvalidLabelValueInSelector: true }), []);
  assert.match(strings(validateLabelSelector({ matchLabels: { 'a/b/c': 'x' } }, p))[0], /^spec\.selector\.matchLabels: Invalid value: "a\/b\/c"/);
});

test('an update does not check again the members it keeps from the stored metadata (the very same values)', () => {
  const labels = { 'bad key!': 'v' };
  const ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'n' }];
  const old = { name: 'a', namespace: 'n', labels, ownerReferences };
  assert.deepEqual(validateObjectMeta({ ...old }, { ...namespaced, unchanged: old }), []);
  // Equal but not the same values are checked as ever.
  const fresh = strings(validateObjectMeta({ ...old, labels: { ...labels }, ownerReferences: [...ownerReferences] }, { ...namespaced, unchanged: old }));
  assert.ok(fresh.some((e) => e.startsWith('metadata.labels: Invalid value: "bad key!"')), fresh.join('\n'));
  assert.ok(fresh.some((e) => e.startsWith('metadata.ownerReferences.uid: Invalid value: "": uid must not be empty')), fresh.join('\n'));
  assert.deepEqual(fresh, strings(validateObjectMeta({ ...old }, namespaced)));
  // With contentChecked, the update checks leave the content to validateObjectMeta.
  assert.deepEqual(validateObjectMetaUpdate({ ...old, resourceVersion: '1' }, { ...old, resourceVersion: '1' }, { contentChecked: true }), []);
  assert.ok(validateObjectMetaUpdate({ ...old, resourceVersion: '1' }, { ...old, resourceVersion: '1' }).length > 0);
});
