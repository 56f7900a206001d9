import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CredentialProviderConfigInvalid,
  matchImage,
  mergeProviderAuth,
  parseCredentialProviderConfig,
  providersForImage,
} from './credentialprovider.ts';

test('matchImages follows Kubernetes: per-segment domain globs, exact ports, path prefixes', () => {
  const cases: [string, string, boolean][] = [
    ['*.registry.io', 'abc.registry.io/app:v1', true],
    ['*.registry.io', 'registry.io/app', false],
    ['*.registry.io', 'a.b.registry.io/app', false],
    ['*.*.registry.io', 'a.b.registry.io/app', true],
    ['registry.io', 'registry.io/team/app:v1', true],
    ['registry.io', 'other.io/team/app', false],
    ['*.io', 'registry.io/x', true],
    ['registry.io:8080', 'registry.io:8080/app', true],
    ['registry.io:8080', 'registry.io/app', false],
    ['registry.io', 'registry.io:8080/app', false],
    ['registry.io/team', 'registry.io/team/app', true],
    ['registry.io/team', 'registry.io/other/app', false],
    ['registry.io/team', 'registry.io/teammate/app', true],
    ['123456789.dkr.ecr.*.amazonaws.com', '123456789.dkr.ecr.us-east-1.amazonaws.com/app', true],
    ['*-docker.pkg.dev', 'europe-docker.pkg.dev/p/r/i', true],
    // '?' starts a URL query, so Kubernetes' URL parsing never lets it act as a glob.
    ['reg?.io', 'reg1.io/x', false],
    ['reg[0-9].io', 'reg1.io/x', true],
    ['reg[0-9].io', 'regx.io/x', false],
  ];
  for (const [pattern, image, want] of cases) assert.equal(matchImage(pattern, image), want, `${pattern} vs ${image}`);
});

const VALID = `
apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
- name: ecr-credential-provider
  matchImages: ["*.dkr.ecr.*.amazonaws.com"]
  defaultCacheDuration: 12h
  apiVersion: credentialprovider.kubelet.k8s.io/v1
  args: [get-credentials]
  env:
  - name: AWS_PROFILE
    value: example
- name: catch-all
  matchImages: ["*.dkr.ecr.*.amazonaws.com", "registry.io"]
  defaultCacheDuration: 1m30s
  apiVersion: credentialprovider.node.k8s.io/v1beta1
`;

test('parses a valid configuration and selects providers in order', () => {
  const c = parseCredentialProviderConfig(VALID);
  assert.equal(c.providers.length, 2);
  assert.equal(c.providers[0]!.defaultCacheDuration, 12 * 3_600_000);
  assert.deepEqual(c.providers[0]!.env, [{ name: 'AWS_PROFILE', value: 'example' }]);
  assert.deepEqual(
    providersForImage(c, '1.dkr.ecr.eu-west-1.amazonaws.com/app').map((p) => p.name),
    ['ecr-credential-provider', 'catch-all'],
  );
  assert.deepEqual(providersForImage(c, 'registry.io/app').map((p) => p.name), ['catch-all']);
  assert.deepEqual(mergeProviderAuth([{ a: 1, b: 2 }, { b: 3, c: 4 }]), { a: 1, b: 2, c: 4 });
  // The seed's own configuration group is accepted too.
  assert.equal(parseCredentialProviderConfig(VALID.replace('kubelet.config.k8s.io/v1', 'node.config.k8s.io/v1beta1')).apiVersion, 'node.config.k8s.io/v1beta1');
});

test('every rule of the CredentialProvider table fails with the field named', () => {
  const rows: [string, string, string][] = [
    ['providers required', 'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders: []\n', 'providers'],
    ['apiVersion of the config', VALID.replace('kubelet.config.k8s.io/v1', 'v1'), 'apiVersion'],
    ['kind', VALID.replace('kind: CredentialProviderConfig', 'kind: Config'), 'kind'],
    ['name required', VALID.replace('name: ecr-credential-provider', 'name: ""'), 'providers[0].name'],
    ['name is an executable name', VALID.replace('name: ecr-credential-provider', 'name: ../bin/sh'), 'providers[0].name'],
    ['name unique', VALID.replace('name: catch-all', 'name: ecr-credential-provider'), 'providers[1].name'],
    ['matchImages required', VALID.replace('matchImages: ["*.dkr.ecr.*.amazonaws.com"]', 'matchImages: []'), 'providers[0].matchImages'],
    ['matchImages valid', VALID.replace('"registry.io"]', '"registry.io:port"]'), 'providers[1].matchImages[1]'],
    ['defaultCacheDuration required', VALID.replace('  defaultCacheDuration: 12h\n', ''), 'providers[0].defaultCacheDuration'],
    ['defaultCacheDuration a duration', VALID.replace('12h', 'twelve hours'), 'providers[0].defaultCacheDuration'],
    ['defaultCacheDuration not negative', VALID.replace('12h', '-1h'), 'providers[0].defaultCacheDuration'],
    ['apiVersion required', VALID.replace('  apiVersion: credentialprovider.kubelet.k8s.io/v1\n', ''), 'providers[0].apiVersion'],
    ['apiVersion supported', VALID.replace('credentialprovider.kubelet.k8s.io/v1\n', 'credentialprovider.kubelet.k8s.io/v9\n'), 'providers[0].apiVersion'],
    ['env name required', VALID.replace('name: AWS_PROFILE', 'name: ""'), 'providers[0].env[0].name'],
    ['env value required', VALID.replace('    value: example\n', ''), 'providers[0].env[0].value'],
    ['unknown field', VALID.replace('  args:', '  argv: [x]\n  args:'), 'providers[0].argv'],
  ];
  for (const [rule, text, field] of rows) {
    try {
      parseCredentialProviderConfig(text);
      assert.fail(`${rule}: accepted`);
    } catch (e) {
      assert.ok(e instanceof CredentialProviderConfigInvalid, `${rule}: ${e}`);
      assert.ok(e.errors.some((x) => x.field === field), `${rule}: expected ${field}, got ${JSON.stringify(e.errors)}`);
    }
  }
});
