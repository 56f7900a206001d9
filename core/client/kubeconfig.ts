import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';

/** What a client needs to reach one API server, resolved from a kubeconfig context. */
export interface ClusterAccess {
  /** e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  ca?: Buffer;
  insecureSkipTLSVerify: boolean;
  /** Client certificate and key (PEM). */
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  username?: string;
  password?: string;
  /** The context's namespace (default `default`). */
  namespace: string;
}

/** A kubeconfig that cannot be used, naming the field at fault. */
export class KubeconfigInvalid extends Error {
  readonly code = 'KUBECONFIG_INVALID';
  constructor(
    readonly file: string,
    readonly field: string,
    message: string,
  ) {
    super(`${file}: ${field}: ${message}`);
    this.name = 'KubeconfigInvalid';
  }
}

function named<T>(list: unknown, name: string, file: string, field: string): T {
  if (!Array.isArray(list)) throw new KubeconfigInvalid(file, field, 'must be a list');
  const hit = list.find((e) => e && e.name === name);
  if (!hit) throw new KubeconfigInvalid(file, field, `no entry named "${name}"`);
  return hit as T;
}

/**
 * Reads a kubeconfig file and resolves a context (the current one by default) into ClusterAccess:
 * inline `*-data` fields and file paths (relative to the kubeconfig) are both honoured.
 */
export function loadKubeconfig(file: string, context?: string): ClusterAccess {
  let doc: any;
  try {
    doc = YAML.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new KubeconfigInvalid(file, '(file)', (e as Error).message);
  }
  if (!doc || typeof doc !== 'object') throw new KubeconfigInvalid(file, '(file)', 'not a kubeconfig document');
  const ctxName = context ?? doc['current-context'];
  if (!ctxName) throw new KubeconfigInvalid(file, 'current-context', 'not set and no context given');
  const ctx = named<any>(doc.contexts, ctxName, file, 'contexts')?.context ?? {};
  const cluster = named<any>(doc.clusters, ctx.cluster, file, 'clusters')?.cluster ?? {};
  const user = ctx.user ? (named<any>(doc.users, ctx.user, file, 'users')?.user ?? {}) : {};
  if (typeof cluster.server !== 'string' || !/^https?:\/\//.test(cluster.server)) {
    throw new KubeconfigInvalid(file, `clusters[${ctx.cluster}].cluster.server`, 'must be an http(s) URL');
  }
  const base = dirname(resolve(file));
  const pem = (data: unknown, path: unknown, field: string): Buffer | undefined => {
    if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
    if (typeof path === 'string' && path) {
      try {
        return readFileSync(isAbsolute(path) ? path : resolve(base, path));
      } catch (e) {
        throw new KubeconfigInvalid(file, field, (e as Error).message);
      }
    }
    return undefined;
  };
  return {
    server: cluster.server.replace(/\/+$/, ''),
    ca: pem(cluster['certificate-authority-data'], cluster['certificate-authority'], 'certificate-authority'),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    cert: pem(user['client-certificate-data'], user['client-certificate'], 'client-certificate'),
    key: pem(user['client-key-data'], user['client-key'], 'client-key'),
    token: typeof user.token === 'string' ? user.token : undefined,
    username: typeof user.username === 'string' ? user.username : undefined,
    password: typeof user.password === 'string' ? user.password : undefined,
    namespace: typeof ctx.namespace === 'string' && ctx.namespace ? ctx.namespace : 'default',
  };
}
