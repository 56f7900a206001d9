/**
 * The node agent's credential provider configuration (`CredentialProviderConfig`): which exec
 * plugins supply registry credentials for which images, and Kubernetes' `matchImages` rules.
 */
import YAML from 'yaml';
import { DurationParseError, parseDuration } from './duration.ts';

/** One field error: the field path (`providers[0].matchImages[1]`) and what is wrong with it. */
export interface ConfigFieldError {
  field: string;
  message: string;
}

/** A credential provider configuration that cannot be used; lists every error at once. */
export class CredentialProviderConfigInvalid extends Error {
  readonly code = 'CREDENTIAL_PROVIDER_CONFIG_INVALID';
  constructor(readonly errors: ConfigFieldError[]) {
    super(`invalid credential provider configuration: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
    this.name = 'CredentialProviderConfigInvalid';
  }
}

/** An exec plugin and the images it serves. */
export interface CredentialProvider {
  /** The executable's name in the plugin directory. */
  name: string;
  /** Patterns: registry domain (globs per segment), optional port, optional path prefix. */
  matchImages: string[];
  /** Milliseconds; used when the plugin's response carries no cache duration. */
  defaultCacheDuration: number;
  /** The CredentialProviderRequest/Response version the plugin speaks. */
  apiVersion: string;
  args: string[];
  env: { name: string; value: string }[];
}

/** A parsed, validated `CredentialProviderConfig`. */
export interface CredentialProviderConfig {
  apiVersion: string;
  kind: 'CredentialProviderConfig';
  providers: CredentialProvider[];
}

/** The configuration apiVersions accepted (Kubernetes' and the seed's `node.config.k8s.io/v1beta1`). */
export const CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS = [
  'kubelet.config.k8s.io/v1',
  'kubelet.config.k8s.io/v1beta1',
  'kubelet.config.k8s.io/v1alpha1',
  'node.config.k8s.io/v1beta1',
];

/** The plugin protocol versions accepted in `providers[].apiVersion`. */
export const CREDENTIAL_PROVIDER_API_VERSIONS = [
  'credentialprovider.kubelet.k8s.io/v1',
  'credentialprovider.kubelet.k8s.io/v1beta1',
  'credentialprovider.kubelet.k8s.io/v1alpha1',
  'credentialprovider.node.k8s.io/v1beta1',
];

interface ParsedImageURL {
  host: string;
  port: string;
  path: string;
}

/**
 * Splits a scheme-less image reference or pattern (`registry.io:5000/team/app:v1`) as Kubernetes
 * does (`https://` + it, parsed as a URL): host, port and path. Returns undefined if unparseable.
 */
function parseSchemeless(s: string): ParsedImageURL | undefined {
  const slash = s.indexOf('/');
  const authority = slash < 0 ? s : s.slice(0, slash);
  const path = slash < 0 ? '' : s.slice(slash);
  if (authority === '' || /[\s@?#]/.test(authority) || /\s/.test(path)) return undefined;
  const colon = authority.lastIndexOf(':');
  if (colon < 0) return { host: authority, port: '', path };
  const port = authority.slice(colon + 1);
  if (!/^[0-9]*$/.test(port)) return undefined;
  return { host: authority.slice(0, colon), port, path };
}

/** Go's `path.Match` for one host segment (no separators inside a segment): `*`, `?`, `[a-z]`, `[^x]`, `\` escapes. */
function globMatch(pattern: string, name: string): boolean {
  const match = (p: number, n: number): boolean => {
    while (p < pattern.length) {
      const c = pattern[p]!;
      if (c === '*') {
        for (let k = n; k <= name.length; k++) if (match(p + 1, k)) return true;
        return false;
      }
      if (n >= name.length) return false;
      if (c === '?') {
        p++;
        n++;
      } else if (c === '[') {
        const end = pattern.indexOf(']', p + 1);
        if (end < 0) return false;
        let body = pattern.slice(p + 1, end);
        const negate = body.startsWith('^');
        if (negate) body = body.slice(1);
        const ch = name[n]!;
        let hit = false;
        for (let i = 0; i < body.length; i++) {
          if (body[i + 1] === '-' && i + 2 < body.length) {
            if (ch >= body[i]! && ch <= body[i + 2]!) hit = true;
            i += 2;
          } else if (body[i] === ch) hit = true;
        }
        if (hit === negate) return false;
        p = end + 1;
        n++;
      } else {
        const lit = c === '\\' && p + 1 < pattern.length ? pattern[++p]! : c;
        if (lit !== name[n]) return false;
        p++;
        n++;
      }
    }
    return n === name.length;
  };
  return match(0, 0);
}

/**
 * Whether `image` matches a `matchImages` pattern, by Kubernetes' rules: the registry hosts have
 * the same number of dot-separated segments and each segment matches its glob (`*.registry.io`
 * matches `a.registry.io`, not `registry.io` nor `a.b.registry.io`); the ports are equal (a pattern
 * without a port matches only images without one); and the image path starts with the pattern's
 * path as a plain string prefix. The image is compared as written (e.g. `registry.io/team/app:v1`).
 */
export function matchImage(pattern: string, image: string): boolean {
  const glob = parseSchemeless(pattern);
  const target = parseSchemeless(image);
  if (!glob || !target) return false;
  const globParts = glob.host.split('.');
  const targetParts = target.host.split('.');
  if (globParts.length !== targetParts.length) return false;
  for (let i = 0; i < globParts.length; i++) if (!globMatch(globParts[i]!, targetParts[i]!)) return false;
  if (glob.port !== target.port) return false;
  return target.path.startsWith(glob.path);
}

/** The providers whose `matchImages` match `image`, in configuration order (earlier wins on merge). */
export function providersForImage(config: CredentialProviderConfig, image: string): CredentialProvider[] {
  return config.providers.filter((p) => p.matchImages.some((m) => matchImage(m, image)));
}

/**
 * Merges the auth maps of the matching providers' responses, given in configuration order: for a
 * key present in several, the earlier provider's entry wins.
 */
export function mergeProviderAuth<T>(responses: Record<string, T>[]): Record<string, T> {
  const merged: Record<string, T> = {};
  for (const r of responses) for (const [k, v] of Object.entries(r)) if (!(k in merged)) merged[k] = v;
  return merged;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(v: unknown, field: string, errors: ConfigFieldError[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    errors.push({ field, message: 'must be a list of strings' });
    return [];
  }
  return v as string[];
}

function unknownFields(o: Record<string, unknown>, known: string[], prefix: string, errors: ConfigFieldError[]): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) errors.push({ field: `${prefix}${k}`, message: `unknown field "${prefix}${k}"` });
}

/**
 * Parses and validates a `CredentialProviderConfig` (YAML or JSON): apiVersion one of
 * {@link CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS}, kind `CredentialProviderConfig`, a non-empty
 * `providers` list; each provider needs a unique `name` that is a plain executable name, a
 * non-empty `matchImages` list of parseable patterns, a non-negative `defaultCacheDuration`, an
 * `apiVersion` of {@link CREDENTIAL_PROVIDER_API_VERSIONS}, and `env` entries with name and value.
 * Unknown fields are rejected. Throws {@link CredentialProviderConfigInvalid} listing all errors.
 */
export function parseCredentialProviderConfig(text: string): CredentialProviderConfig {
  const errors: ConfigFieldError[] = [];
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw new CredentialProviderConfigInvalid([{ field: '(document)', message: (e as Error).message }]);
  }
  if (!isObject(doc)) throw new CredentialProviderConfigInvalid([{ field: '(document)', message: 'must be an object' }]);
  unknownFields(doc, ['apiVersion', 'kind', 'providers'], '', errors);
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  if (!CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS.includes(apiVersion)) {
    errors.push({ field: 'apiVersion', message: `unsupported value ${JSON.stringify(doc.apiVersion ?? '')}: supported values: ${CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS.join(', ')}` });
  }
  if (doc.kind !== 'CredentialProviderConfig') {
    errors.push({ field: 'kind', message: `must be "CredentialProviderConfig", got ${JSON.stringify(doc.kind ?? '')}` });
  }
  const providers: CredentialProvider[] = [];
  if (!Array.isArray(doc.providers) || doc.providers.length === 0) {
    errors.push({ field: 'providers', message: 'Required value: at least 1 item in providers is required' });
  } else {
    const seen = new Set<string>();
    doc.providers.forEach((raw: unknown, i: number) => {
      const at = `providers[${i}]`;
      if (!isObject(raw)) {
        errors.push({ field: at, message: 'must be an object' });
        return;
      }
      unknownFields(raw, ['name', 'matchImages', 'defaultCacheDuration', 'apiVersion', 'args', 'env'], `${at}.`, errors);
      const name = typeof raw.name === 'string' ? raw.name : '';
      if (name === '') errors.push({ field: `${at}.name`, message: 'Required value' });
      else if (name === '.' || name === '..' || /[/\\]/.test(name) || name.includes('..')) {
        errors.push({ field: `${at}.name`, message: `Invalid value: ${JSON.stringify(name)}: provider name must be a plain executable name, without path separators or ".."` });
      } else if (seen.has(name)) errors.push({ field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(name)}` });
      seen.add(name);

      const matchImages = stringList(raw.matchImages, `${at}.matchImages`, errors);
      if (matchImages.length === 0 && Array.isArray(raw.matchImages ?? [])) {
        errors.push({ field: `${at}.matchImages`, message: 'Required value: at least 1 item in matchImages is required' });
      }
      matchImages.forEach((m, j) => {
        if (!parseSchemeless(m) || m.includes('://')) {
          errors.push({ field: `${at}.matchImages[${j}]`, message: `Invalid value: ${JSON.stringify(m)}: match image is invalid` });
        }
      });

      let defaultCacheDuration = 0;
      if (raw.defaultCacheDuration === undefined || raw.defaultCacheDuration === null) {
        errors.push({ field: `${at}.defaultCacheDuration`, message: 'Required value' });
      } else if (typeof raw.defaultCacheDuration !== 'string') {
        errors.push({ field: `${at}.defaultCacheDuration`, message: 'must be a duration string such as "10m"' });
      } else {
        try {
          defaultCacheDuration = parseDuration(raw.defaultCacheDuration);
          if (defaultCacheDuration < 0) errors.push({ field: `${at}.defaultCacheDuration`, message: 'Invalid value: must be greater than or equal to 0' });
        } catch (e) {
          if (!(e instanceof DurationParseError)) throw e;
          errors.push({ field: `${at}.defaultCacheDuration`, message: e.message });
        }
      }

      const pluginVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
      if (pluginVersion === '') errors.push({ field: `${at}.apiVersion`, message: 'Required value' });
      else if (!CREDENTIAL_PROVIDER_API_VERSIONS.includes(pluginVersion)) {
        errors.push({ field: `${at}.apiVersion`, message: `Unsupported value: ${JSON.stringify(pluginVersion)}: supported values: ${CREDENTIAL_PROVIDER_API_VERSIONS.join(', ')}` });
      }

      const args = stringList(raw.args, `${at}.args`, errors);
      const env: { name: string; value: string }[] = [];
      if (raw.env !== undefined && raw.env !== null) {
        if (!Array.isArray(raw.env)) errors.push({ field: `${at}.env`, message: 'must be a list' });
        else {
          raw.env.forEach((e: unknown, j: number) => {
            const ef = `${at}.env[${j}]`;
            if (!isObject(e)) {
              errors.push({ field: ef, message: 'must be an object' });
              return;
            }
            unknownFields(e, ['name', 'value'], `${ef}.`, errors);
            if (typeof e.name !== 'string' || e.name === '') errors.push({ field: `${ef}.name`, message: 'Required value' });
            if (typeof e.value !== 'string') errors.push({ field: `${ef}.value`, message: 'Required value' });
            env.push({ name: String(e.name ?? ''), value: String(e.value ?? '') });
          });
        }
      }
      providers.push({ name, matchImages, defaultCacheDuration, apiVersion: pluginVersion, args, env });
    });
  }
  if (errors.length > 0) throw new CredentialProviderConfigInvalid(errors);
  return { apiVersion, kind: 'CredentialProviderConfig', providers };
}
