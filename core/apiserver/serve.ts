import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { X509Certificate } from 'node:crypto';
import type http from 'node:http';
import { generate } from 'selfsigned';
import YAML from 'yaml';
import { realClock, type Clock } from '../machinery/clock.ts';
import { CryptoRng, type Rng } from '../machinery/rng.ts';
import { SqliteStorage } from '../storage/sqlite.ts';
import { WatchCache } from '../storage/watchcache.ts';
import { startCompactor } from '../storage/compactor.ts';
import { ApiServer } from './handler.ts';
import { bootstrap, Housekeeping } from './housekeeping.ts';
import { createHttpServer, listen } from './http.ts';
import { buildOpenAPIv3Index, openAPIv2Protobuf } from './openapi.ts';

/** Options of `orrery serve`, named after kube-apiserver's flags. */
export interface ServeOptions {
  /** `--data-dir`: the SQLite store, generated TLS pair and kubeconfig live here. */
  dataDir: string;
  /** `--secure-port` (default 6443; 0 picks a free port). */
  securePort?: number;
  /** `--bind-address` (default 0.0.0.0). */
  bindAddress?: string;
  /** `--tls-cert-file` / `--tls-private-key-file`; a self-signed pair is generated into dataDir without them. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** `--service-cluster-ip-range` (default 10.0.0.0/24). */
  serviceClusterIPRange?: string;
  /** `--service-node-port-range` (default 30000-32767). */
  serviceNodePortRange?: string;
  /** `--event-ttl` in seconds (default 3600). */
  eventTTLSeconds?: number;
  /** `--watch-history-window` in seconds: history kept for watches, continue tokens and Exact lists (default 300). */
  watchHistoryWindowSeconds?: number;
  /** `--min-request-timeout` in seconds (default 1800). */
  minRequestTimeoutSeconds?: number;
  clock?: Clock;
  rng?: Rng;
  /** Called with each line orrery logs (default: stderr). */
  log?: (line: string) => void;
}

/** A running server. */
export interface RunningServer {
  readonly port: number;
  readonly url: string;
  readonly kubeconfigPath: string;
  readonly api: ApiServer;
  readonly http: http.Server;
  /** Graceful stop: readyz fails, listeners close, watches end, storage closes. */
  stop(): Promise<void>;
}

/** The first usable address of the service range, which the `kubernetes` Service takes (10.0.0.1 for 10.0.0.0/24). */
export function firstServiceIP(cidr: string): string {
  const [ip, bits] = cidr.split('/');
  const n = ip.split('.').reduce((a, b) => a * 256 + Number(b), 0);
  const size = 2 ** (32 - Number(bits));
  const first = Math.floor(n / size) * size + 1;
  return [24, 16, 8, 0].map((sh) => Math.floor(first / 2 ** sh) % 256).join('.');
}

function parsePortRange(s: string): [number, number] {
  const m = /^(\d+)-(\d+)$/.exec(s.trim());
  if (!m || Number(m[1]) > Number(m[2]) || Number(m[2]) > 65535) throw new Error(`--service-node-port-range: invalid value "${s}": want MIN-MAX, e.g. 30000-32767`);
  return [Number(m[1]), Number(m[2])];
}

async function tlsPair(opts: ServeOptions, dir: string, clock: Clock): Promise<{ cert: string; key: string }> {
  if (opts.tlsCertFile || opts.tlsPrivateKeyFile) {
    if (!opts.tlsCertFile || !opts.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return { cert: readFileSync(opts.tlsCertFile, 'utf8'), key: readFileSync(opts.tlsPrivateKeyFile, 'utf8') };
  }
  const certPath = join(dir, 'apiserver.crt');
  const keyPath = join(dir, 'apiserver.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    if (new Date(new X509Certificate(cert).validTo).getTime() > clock.now() + 86400_000) return { cert, key: readFileSync(keyPath, 'utf8') };
  }
  const now = new Date(clock.now());
  const pems = await generate([{ name: 'commonName', value: 'orrery-apiserver' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 3600_000),
    notAfterDate: new Date(now.getTime() + 365 * 86400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: 'kubernetes' },
          { type: 2, value: 'kubernetes.default' },
          { type: 2, value: 'kubernetes.default.svc' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
          { type: 7, ip: '10.0.0.1' },
        ],
      },
    ],
  });
  writeFileSync(certPath, pems.cert);
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  return { cert: pems.cert, key: pems.private };
}

/** The kubeconfig with which `kubectl --kubeconfig FILE` reaches this server with no other flag. */
export function kubeconfigFor(server: string, caPem: string): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'orrery', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'orrery-admin', user: { username: 'admin', password: 'orrery' } }],
    contexts: [{ name: 'orrery', context: { cluster: 'orrery', user: 'orrery-admin', namespace: 'default' } }],
    'current-context': 'orrery',
    preferences: {},
  });
}

/**
 * Runs the API server live over HTTPS: opens (or creates) the store in the data dir, bootstraps
 * the system namespaces, starts compaction and housekeeping, and writes `DIR/kubeconfig`.
 */
export async function serve(opts: ServeOptions): Promise<RunningServer> {
  const dir = resolve(opts.dataDir);
  mkdirSync(dir, { recursive: true });
  const clock = opts.clock ?? realClock;
  const rng = opts.rng ?? new CryptoRng();
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const tls = await tlsPair(opts, dir, clock);
  const sqlite = new SqliteStorage({ path: join(dir, 'state.db') });
  const windowMs = (opts.watchHistoryWindowSeconds ?? 300) * 1000;
  const storage = new WatchCache(sqlite, { clock, historyWindowMs: windowMs });
  let ready = true;
  const api = new ApiServer({
    storage,
    clock,
    rng,
    services: {
      clusterIPRange: opts.serviceClusterIPRange ?? '10.0.0.0/24',
      nodePortRange: parsePortRange(opts.serviceNodePortRange ?? '30000-32767'),
    },
    minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds,
    ready: () => ready,
  });
  bootstrap(api.registry, firstServiceIP(opts.serviceClusterIPRange ?? '10.0.0.0/24'), opts.securePort ?? 6443);
  // Build the OpenAPI documents now rather than on kubectl's first request.
  openAPIv2Protobuf();
  buildOpenAPIv3Index();
  const compactor = startCompactor(storage, { clock, windowMs });
  const housekeeping = new Housekeeping(api.registry, clock, { eventTTLMs: (opts.eventTTLSeconds ?? 3600) * 1000, intervalMs: 1000 });
  housekeeping.start();
  const server = createHttpServer((req) => api.handle(req), { tls });
  const port = await listen(server, opts.securePort ?? 6443, opts.bindAddress ?? '0.0.0.0');
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigFor(url, tls.cert));
  log(`orrery apiserver serving on ${url} (revision ${storage.currentRevision()}, data dir ${dir})`);
  log(`kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
  let stopping: Promise<void> | undefined;
  return {
    port,
    url,
    kubeconfigPath,
    api,
    http: server,
    stop() {
      stopping ??= (async () => {
        ready = false;
        housekeeping.stop();
        compactor.stop();
        await new Promise<void>((res) => {
          server.close(() => res());
          server.closeAllConnections?.();
        });
        storage.close();
      })();
      return stopping;
    },
  };
}
