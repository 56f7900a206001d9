import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  NAME_VALIDATORS,
  nameIsDNSSubdomain,
  nameValidatorFor,
  regexError,
  validatePathSegmentName,
} from './names.ts';

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QNAME_REGEX_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** 253 characters: four dot-separated labels of 63, trimmed. */
function subdomainOf(length: number): string {
  let s = '';
  while (s.length < length) s += (s ? '.' : '') + 'a'.repeat(62);
  s = s.slice(0, length);
  return s.endsWith('.') ? `${s.slice(0, -1)}b` : s;
}

test('regexError lists examples with Kubernetes double spaces', () => {
  assert.equal(regexError('m', 'f'), "m (regex used for validation is 'f')");
  assert.equal(regexError('m', 'f', 'a'), "m (e.g. 'a', regex used for validation is 'f')");
  assert.equal(regexError('m', 'f', 'a', 'b', 'c'), "m (e.g. 'a',  or 'b',  or 'c', regex used for validation is 'f')");
});

test('DNS-1123 labels: 63 characters, lower case, no dots', () => {
  assert.deepEqual(isDNS1123Label('a'.repeat(63)), []);
  assert.deepEqual(isDNS1123Label('0-a'), []);
  assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
  assert.deepEqual(isDNS1123Label('My-name'), [LABEL_MSG]);
  assert.deepEqual(isDNS1123Label('a.b'), [LABEL_MSG]);
  assert.deepEqual(isDNS1123Label('-a'), [LABEL_MSG]);
  assert.deepEqual(isDNS1123Label(''), [LABEL_MSG]);
  assert.deepEqual(isDNS1123Label(`A${'a'.repeat(63)}`), ['must be no more than 63 characters', LABEL_MSG]);
});

test('DNS-1123 subdomains: 253 characters, dot-separated labels', () => {
  const s253 = subdomainOf(253);
  assert.equal(s253.length, 253);
  assert.deepEqual(isDNS1123Subdomain(s253), []);
  assert.deepEqual(isDNS1123Subdomain(`${s253}a`), ['must be no more than 253 characters']);
  assert.deepEqual(isDNS1123Subdomain('example.com'), []);
  assert.deepEqual(isDNS1123Subdomain('Example.com'), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain('a..b'), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain('a_b'), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain('a.'), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain('a\n'), [SUBDOMAIN_MSG]);
});

test('DNS-1035 labels must start with a letter', () => {
  assert.deepEqual(isDNS1035Label('web-1'), []);
  assert.deepEqual(isDNS1035Label('1web'), [DNS1035_MSG]);
  assert.deepEqual(isDNS1035Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('lengths are counted in UTF-8 bytes, as Go does', () => {
  assert.deepEqual(isValidLabelValue('é'.repeat(32)).includes('must be no more than 63 characters'), true);
  assert.deepEqual(isValidLabelValue('a'.repeat(32)), []);
});

test('qualified names: optional subdomain prefix, 63-character name part', () => {
  for (const ok of ['MyName', 'my.name', '123-abc', 'example.com/MyName', 'a', `${subdomainOf(253)}/${'a'.repeat(63)}`]) {
    assert.deepEqual(isQualifiedName(ok), [], ok);
  }
  assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/'), ['name part must be non-empty', `name part ${QNAME_REGEX_MSG}`]);
  assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', `name part ${QNAME_REGEX_MSG}`]);
  assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isQualifiedName('Example.com/x'), [`prefix part ${SUBDOMAIN_MSG}`]);
  assert.deepEqual(isQualifiedName('-x'), [`name part ${QNAME_REGEX_MSG}`]);
  assert.deepEqual(isQualifiedName('a/b/c'), [`a qualified name ${QNAME_REGEX_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]);
});

test('label values: empty or 63 alphanumerics with -_. inside', () => {
  const msg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('My_value.1-x'), []);
  assert.deepEqual(isValidLabelValue('a'.repeat(63)), []);
  assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
  assert.deepEqual(isValidLabelValue('a b'), [msg]);
  assert.deepEqual(isValidLabelValue('_a'), [msg]);
});

test('path segment names', () => {
  assert.deepEqual(isValidPathSegmentName('system:controller:x'), []);
  assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(validatePathSegmentName('.', true), []);
  assert.deepEqual(validatePathSegmentName('a%', true), ["may not contain '%'"]);
});

test('generateName prefixes may end with a dash', () => {
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN_MSG]);
  assert.deepEqual(nameIsDNSSubdomain('Web-', true), [SUBDOMAIN_MSG]);
});

test('each served kind has the name rule Kubernetes applies', () => {
  const accepts = (key: string, name: string) => NAME_VALIDATORS[key](name, false).length === 0;
  assert.equal(accepts('/services', 'web'), true);
  assert.equal(accepts('/services', '1web'), false);
  assert.equal(accepts('/namespaces', 'a.b'), false);
  assert.equal(accepts('/namespaces', 'kube-system'), true);
  assert.equal(accepts('/pods', 'a.b'), true);
  assert.equal(accepts('/pods', 'A'), false);
  assert.equal(accepts('/nodes', 'node-1.example.com'), true);
  assert.equal(accepts('rbac.authorization.k8s.io/clusterroles', 'system:aggregate-to-admin'), true);
  assert.equal(accepts('rbac.authorization.k8s.io/roles', 'a/b'), false);
  assert.equal(accepts('/events', 'web.17c8e2a1b4f5'), true);
  assert.equal(accepts('/events', 'Mixed_Case'), true);
  assert.equal(accepts('events.k8s.io/events', 'Mixed_Case'), false);
  assert.equal(accepts('batch/cronjobs', 'a'.repeat(52)), true);
  assert.deepEqual(NAME_VALIDATORS['batch/cronjobs']('a'.repeat(53), false), ['must be no more than 52 characters']);
  assert.equal(nameValidatorFor('apps', 'deployments'), NAME_VALIDATORS['apps/deployments']);
  assert.equal(nameValidatorFor('example.com', 'widgets'), nameIsDNSSubdomain);
  assert.equal(nameValidatorFor('', 'toString'), nameIsDNSSubdomain);
});
