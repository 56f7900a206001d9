/**
 * The API server benchmark (`make bench`): starts orrery and a bare node:https server as child
 * processes on 127.0.0.1, drives GET / LIST / CREATE / PATCH with autocannon and compares each
 * with the bare server answering a body of the same size, then measures watch delivery latency.
 * Prints a Markdown table and writes `results/bench/apiserver-<timestamp>.json` and
 * `results/bench/apiserver-latest.md`.
 *
 *   node --import tsx bench/apiserver.ts [--duration 10] [--warmup 2] [--connections 10]
 *     [--watchers 1000] [--watch-rate 20,500] [--scenarios get,list,create,patch,watch] [--no-pin]
 *
 * Every flag has an environment twin (BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS,
 * BENCH_WATCHERS, BENCH_WATCH_RATE, BENCH_SCENARIOS, BENCH_PIN=0).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg, platform, arch, release } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { EventEmitter } from 'node:events';
import { Command, InvalidArgumentError } from 'commander';
import { generate } from 'selfsigned';
import YAML from 'yaml';
import { LatencySamples, fileTimestamp, ratioOf, renderMarkdown, type BenchReport, type LoadRun, type MachineFacts, type ScenarioResult } from './report.ts';
import { agentFor, apiRequest, runWatchDelivery, type ApiTarget } from './watch-delivery.ts';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const HOST = '127.0.0.1';

/** The request scenarios, in the order they run; `watch` runs last. */
export const SCENARIOS = ['get', 'list', 'create', 'patch', 'watch'] as const;
/** A scenario name. */
export type ScenarioName = (typeof SCENARIOS)[number];

/** Settings of one benchmark run. */
export interface BenchOptions {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  watchers: number;
  /** Write rates of the watch scenario, one watch run per rate, in this order. */
  watchEventsPerSecond: number[];
  listPods: number;
  scenarios: ScenarioName[];
  /** Pin the load generator to CPU 0 and the servers to CPU 1 with taskset (when present and ≥ 2 CPUs). */
  pin: boolean;
  /** The command line recorded in the report. */
  command: string;
  /** Where results/bench/ lives (default: the repository's results/). */
  resultsDir?: string;
  log?: (line: string) => void;
}

/** The server child process did not become ready; `message` carries the tail of its log. */
export class ServerStartFailed extends Error {
  readonly code = 'SERVER_START_FAILED';
}

// ---- child processes -------------------------------------------------------------------------

interface Child {
  name: string;
  proc: ChildProcess;
  logTail: string[];
}

const children = new Set<Child>();

function killAllChildrenNow(): void {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
}

function spawnChild(name: string, args: string[], pinCpu: number | undefined): Child {
  const [cmd, argv] = pinCpu === undefined ? [process.execPath, args] : ['taskset', ['-c', String(pinCpu), process.execPath, ...args]];
  const proc = spawn(cmd, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
  const child: Child = { name, proc, logTail: [] };
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      child.logTail.push(line);
      if (child.logTail.length > 40) child.logTail.shift();
    }
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  proc.once('exit', () => children.delete(child));
  children.add(child);
  return child;
}

function waitForLine(child: Child, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolvePromise, reject) => {
    const check = (chunk: Buffer) => {
      const m = pattern.exec(chunk.toString('utf8'));
      if (m) {
        cleanup();
        resolvePromise(m);
      }
    };
    const onExit = (code: number | null, sig: string | null) => {
      cleanup();
      reject(new ServerStartFailed(`${child.name} exited (${sig ?? code}) before it was ready:\n  ${child.logTail.join('\n  ')}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new ServerStartFailed(`${child.name} not ready after ${timeoutMs / 1000} s:\n  ${child.logTail.join('\n  ')}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.proc.stdout!.off('data', check);
      child.proc.stderr!.off('data', check);
      child.proc.off('exit', onExit);
    };
    child.proc.stdout!.on('data', check);
    child.proc.stderr!.on('data', check);
    child.proc.once('exit', onExit);
  });
}

async function stopChild(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.proc.once('exit', () => r()));
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

let clockTicks: number | undefined;

/** CPU seconds (user + system) used so far by process `pid`, from /proc; NaN where /proc is absent. */
export function processCpuSeconds(pid: number): number {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return NaN;
  }
}

/** CPU seconds all CPUs of the machine have spent busy (not idle or iowait), from /proc/stat; NaN where absent. */
export function machineBusyCpuSeconds(): number {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    return (total - v[3]! - v[4]!) / clockTicks;
  } catch {
    return NaN;
  }
}

/**
 * Waits (up to `maxSeconds`) until process `pid` uses under 20% of a core over half a second, so
 * that work left over from one scenario (queued watch events, compaction) does not count against
 * the next. Resolves either way; logs when it gave up.
 */
async function waitForIdle(pid: number, log: (l: string) => void, maxSeconds = 30): Promise<void> {
  const deadline = performance.now() + maxSeconds * 1000;
  for (;;) {
    const before = processCpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 500));
    const used = (processCpuSeconds(pid) - before) / 0.5;
    if (!(used >= 0.2)) return;
    if (performance.now() > deadline) {
      log(`server still busy (${Math.round(used * 100)}% CPU) after ${maxSeconds} s; going on`);
      return;
    }
  }
}

function tasksetAvailable(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// ---- kubeconfig --------------------------------------------------------------------------------

/**
 * The ApiTarget of a kubeconfig's current context on `port`: CA and credentials (bearer token,
 * basic auth, or client certificate). Refuses a cluster whose server is not https://127.0.0.1.
 */
export function targetFromKubeconfig(text: string, port: number): ApiTarget {
  const kc = YAML.parse(text) as {
    'current-context'?: string;
    contexts?: { name: string; context: { cluster: string; user?: string } }[];
    clusters?: { name: string; cluster: { server: string; 'certificate-authority-data'?: string } }[];
    users?: { name: string; user: { token?: string; username?: string; password?: string; 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
  };
  const ctx = kc.contexts?.find((c) => c.name === kc['current-context'])?.context ?? kc.contexts?.[0]?.context;
  const cluster = kc.clusters?.find((c) => c.name === ctx?.cluster)?.cluster ?? kc.clusters?.[0]?.cluster;
  if (!cluster) throw new Error('kubeconfig has no cluster');
  const server = new URL(cluster.server);
  if (server.protocol !== 'https:' || server.hostname !== HOST) throw new Error(`kubeconfig server ${cluster.server} is not https://${HOST}: refusing to benchmark it`);
  if (!cluster['certificate-authority-data']) throw new Error('kubeconfig cluster has no certificate-authority-data');
  const user = kc.users?.find((u) => u.name === ctx?.user)?.user ?? {};
  const headers: Record<string, string> = {};
  if (user.token) headers.authorization = `Bearer ${user.token}`;
  else if (user.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
  const b64 = (s?: string) => (s ? Buffer.from(s, 'base64').toString('utf8') : undefined);
  return { host: HOST, port, ca: b64(cluster['certificate-authority-data'])!, headers, cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) };
}

// ---- autocannon --------------------------------------------------------------------------------

interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: CannonRequest) => CannonRequest;
}

interface CannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
}

interface CannonInstance extends EventEmitter {
  stop(): void;
}

type Autocannon = (
  opts: { url: string; connections: number; duration: number; timeout: number; requests: CannonRequest[]; tlsOptions?: object },
  cb: (err: Error | null, result: CannonResult) => void,
) => CannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One request scenario as both servers see it. */
interface RequestSpec {
  name: ScenarioName;
  description: string;
  method: string;
  /** orrery path. */
  path: string;
  contentType?: string;
  /** A fresh request body per request (unique names, changing labels). */
  body?: () => string;
  expectStatus: number;
  targetRatio?: number;
}

interface LoadTarget {
  url: string;
  ca: string;
  headers: Record<string, string>;
  pid: number;
}

function cannon(t: LoadTarget, req: CannonRequest, connections: number, seconds: number, onResponse?: (status: number, ms: number) => void): Promise<{ result: CannonResult; elapsed: number }> {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const inst = autocannon({ url: t.url, connections, duration: seconds, timeout: 30, requests: [req], tlsOptions: { ca: t.ca } }, (err, result) => {
      if (err) reject(err);
      else resolvePromise({ result, elapsed: (performance.now() - start) / 1000 });
    });
    if (onResponse) inst.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => onResponse(status, ms));
  });
}

async function measureLoad(t: LoadTarget, req: CannonRequest, o: BenchOptions, responseBytes: number): Promise<LoadRun> {
  if (o.warmupSeconds > 0) await cannon(t, req, o.connections, o.warmupSeconds);
  const latency = new LatencySamples();
  const statusCodes: Record<string, number> = {};
  const serverStart = processCpuSeconds(t.pid);
  const machineStart = machineBusyCpuSeconds();
  const clientStart = process.cpuUsage();
  const { result, elapsed } = await cannon(t, req, o.connections, o.durationSeconds, (status, ms) => {
    latency.record(ms);
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
  });
  const server = processCpuSeconds(t.pid) - serverStart;
  const machine = machineBusyCpuSeconds() - machineStart;
  const c = process.cpuUsage(clientStart);
  const client = (c.user + c.system) / 1e6;
  return {
    requestsPerSecond: latency.count / elapsed,
    latency: latency.summary(),
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes,
    responseBytes,
    serverCpu: server / elapsed,
    clientCpu: client / elapsed,
    otherCpu: Math.max(0, machine - server - client) / elapsed,
    durationSeconds: elapsed,
  };
}

function cannonRequest(spec: RequestSpec, path: string, headers: Record<string, string>): CannonRequest {
  const h: Record<string, string> = { accept: 'application/json', ...headers };
  if (spec.contentType) h['content-type'] = spec.contentType;
  const req: CannonRequest = { method: spec.method, path, headers: h };
  if (spec.body) {
    const next = spec.body;
    req.body = next();
    req.setupRequest = (r) => ({ ...r, body: next() });
  }
  return req;
}

// ---- setup -------------------------------------------------------------------------------------

function podManifest(name: string, labels: Record<string, string>): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.9',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
        },
      ],
    },
  };
}

async function mustCreate(target: ApiTarget, agent: ReturnType<typeof agentFor>, path: string, obj: object): Promise<void> {
  const r = await apiRequest(target, agent, 'POST', path, obj);
  if (r.status !== 201 && r.status !== 409) throw new Error(`POST ${path}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
}

async function inParallel(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

// ---- the run -----------------------------------------------------------------------------------

function machineFacts(pinning: string): MachineFacts {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model.trim() ?? 'unknown',
    memoryGiB: totalmem() / 1024 ** 3,
    node: process.version,
    platform: `${platform()} ${arch()} ${release()}`,
    loadAverage: loadavg(),
    pinning,
  };
}

async function selfSignedPair(): Promise<{ cert: string; key: string }> {
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'orrery-bench' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 3600_000),
    notAfterDate: new Date(now.getTime() + 7 * 86400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: HOST }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * Runs the whole benchmark: starts both servers, runs the selected scenarios, stops the servers,
 * and resolves with the report (it does not write files; see `writeReport`). A scenario that fails
 * is recorded in `failures` and does not stop the others.
 */
export async function runBench(o: BenchOptions): Promise<BenchReport> {
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const startedAt = new Date();
  const pin = o.pin && cpus().length >= 2 && tasksetAvailable();
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  const pinning = pin ? 'load generator pinned to CPU 0, servers to CPU 1 (taskset)' : 'not pinned';
  const report: BenchReport = {
    startedAt: startedAt.toISOString(),
    command: o.command,
    settings: { durationSeconds: o.durationSeconds, warmupSeconds: o.warmupSeconds, connections: o.connections },
    machine: machineFacts(pinning),
    scenarios: [],
    watches: [],
    failures: [],
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'orrery-bench-'));
  try {
    const tls = await selfSignedPair();
    const certFile = join(dataDir, 'bench.crt');
    const keyFile = join(dataDir, 'bench.key');
    writeFileSync(certFile, tls.cert);
    writeFileSync(keyFile, tls.key, { mode: 0o600 });

    log('starting orrery apiserver…');
    const orrery = spawnChild(
      'orrery apiserver',
      ['--import', 'tsx', 'bin/orrery.ts', 'serve', '--data-dir', join(dataDir, 'orrery'), '--secure-port', '0', '--bind-address', HOST, '--tls-cert-file', certFile, '--tls-private-key-file', keyFile],
      pin ? 1 : undefined,
    );
    const m = await waitForLine(orrery, /serving on https:\/\/127\.0\.0\.1:(\d+)/, 120_000);
    const target = targetFromKubeconfig(readFileSync(join(dataDir, 'orrery', 'kubeconfig'), 'utf8'), Number(m[1]));
    log(`orrery apiserver ready on https://${HOST}:${target.port} (pid ${orrery.proc.pid})`);

    const bare = spawnChild('baseline server', ['--import', 'tsx', 'bench/baseline-server.ts', '--cert', certFile, '--key', keyFile], pin ? 1 : undefined);
    const bm = await waitForLine(bare, /baseline serving on https:\/\/127\.0\.0\.1:(\d+)/, 60_000);
    const bareTarget: LoadTarget = { url: `https://${HOST}:${bm[1]}`, ca: tls.cert, headers: {}, pid: bare.proc.pid! };
    const orreryTarget: LoadTarget = { url: `https://${HOST}:${target.port}`, ca: target.ca, headers: target.headers, pid: orrery.proc.pid! };

    const agent = agentFor(target, 16);
    const wants = (s: ScenarioName) => o.scenarios.includes(s);
    let counter = 0;
    const specs: RequestSpec[] = [];
    try {
      log('creating benchmark objects…');
      for (const ns of ['bench', 'bench-list', 'bench-create']) await mustCreate(target, agent, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      if (wants('get')) {
        await mustCreate(target, agent, '/api/v1/namespaces/bench/pods', podManifest('bench-get', { app: 'bench', scenario: 'get' }));
        specs.push({ name: 'get', description: 'GET one pod', method: 'GET', path: '/api/v1/namespaces/bench/pods/bench-get', expectStatus: 200, targetRatio: 0.5 });
      }
      if (wants('list')) {
        await inParallel(o.listPods, 16, (i) => mustCreate(target, agent, '/api/v1/namespaces/bench-list/pods', podManifest(`pod-${String(i).padStart(4, '0')}`, { app: 'bench', scenario: 'list' })));
        specs.push({ name: 'list', description: `LIST ${o.listPods} pods (one namespace)`, method: 'GET', path: '/api/v1/namespaces/bench-list/pods', expectStatus: 200 });
      }
      if (wants('create')) {
        specs.push({
          name: 'create',
          description: 'CREATE configmap (unique names)',
          method: 'POST',
          path: '/api/v1/namespaces/bench-create/configmaps',
          contentType: 'application/json',
          body: () => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${(counter++).toString(36)}`, labels: { app: 'bench' } }, data: { key: 'value-0123456789' } }),
          expectStatus: 201,
          targetRatio: 0.2,
        });
      }
      if (wants('patch')) {
        await mustCreate(target, agent, '/api/v1/namespaces/bench/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench-patch', labels: { app: 'bench' } }, data: { key: 'value' } });
        specs.push({
          name: 'patch',
          description: 'PATCH configmap label (merge patch, one object)',
          method: 'PATCH',
          path: '/api/v1/namespaces/bench/configmaps/bench-patch',
          contentType: 'application/merge-patch+json',
          body: () => JSON.stringify({ metadata: { labels: { 'bench-counter': String(counter++) } } }),
          expectStatus: 200,
        });
      }
    } finally {
      agent.destroy();
    }

    for (const spec of specs) {
      try {
        const probeAgent = agentFor(target, 1);
        const probe = await apiRequest(target, probeAgent, spec.method, spec.path, spec.body?.(), spec.contentType).finally(() => probeAgent.destroy());
        if (probe.status !== spec.expectStatus) throw new Error(`probe ${spec.method} ${spec.path}: HTTP ${probe.status}, want ${spec.expectStatus}: ${probe.body.slice(0, 300)}`);
        const responseBytes = Buffer.byteLength(probe.body);
        await waitForIdle(orreryTarget.pid, log);
        log(`${spec.name}: orrery (${responseBytes} B responses)…`);
        const orreryRun = await measureLoad(orreryTarget, cannonRequest(spec, spec.path, orreryTarget.headers), o, responseBytes);
        log(`${spec.name}: orrery ${orreryRun.requestsPerSecond.toFixed(0)} req/s; bare server…`);
        const barePath = `/bytes/${responseBytes}?status=${spec.expectStatus}`;
        const bareRun = await measureLoad(bareTarget, cannonRequest(spec, barePath, {}), o, responseBytes);
        log(`${spec.name}: bare ${bareRun.requestsPerSecond.toFixed(0)} req/s`);
        const result: ScenarioResult = {
          name: spec.name,
          description: spec.description,
          orrery: orreryRun,
          baseline: bareRun,
          ratio: ratioOf(orreryRun.requestsPerSecond, bareRun.requestsPerSecond),
          targetRatio: spec.targetRatio,
        };
        report.scenarios.push(result);
      } catch (e) {
        report.failures.push({ name: spec.name, error: (e as Error).message });
        log(`${spec.name}: FAILED: ${(e as Error).message}`);
      }
    }

    if (wants('watch')) {
      const runs = [...o.watchEventsPerSecond.map((rate) => ({ rate, mode: 'broadcast' as const })), ...o.watchEventsPerSecond.slice(-1).map((rate) => ({ rate, mode: 'selective' as const }))];
      for (const { rate, mode } of runs) {
        try {
          await waitForIdle(orrery.proc.pid!, log);
          log(`watch @ ${rate}/s (${mode}): opening ${o.watchers} watch streams…`);
          report.watches.push(
            await runWatchDelivery({
              target,
              mode,
              namespace: `bench-watch-${mode}-${rate}`,
              watchers: o.watchers,
              eventsPerSecond: rate,
              warmupSeconds: o.warmupSeconds,
              durationSeconds: o.durationSeconds,
              serverCpuSeconds: () => processCpuSeconds(orrery.proc.pid!),
              machineBusyCpuSeconds,
              log,
            }),
          );
        } catch (e) {
          report.failures.push({ name: `watch @ ${rate}/s`, error: (e as Error).message });
          log(`watch @ ${rate}/s: FAILED: ${(e as Error).message}`);
        }
      }
    }
    if (orrery.proc.exitCode !== null || orrery.proc.signalCode !== null) {
      report.failures.push({ name: 'orrery apiserver', error: `exited during the benchmark (${orrery.proc.signalCode ?? orrery.proc.exitCode}):\n  ${orrery.logTail.join('\n  ')}` });
    }
    report.machine.loadAverageAtEnd = loadavg();
    return report;
  } finally {
    await Promise.all([...children].map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Writes the report as `DIR/apiserver-<timestamp>.json` and `DIR/apiserver-latest.md`; returns both paths. */
export function writeReport(report: BenchReport, dir: string): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `apiserver-${fileTimestamp(new Date(report.startedAt))}.json`);
  const markdown = join(dir, 'apiserver-latest.md');
  writeFileSync(json, `${JSON.stringify(report, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`);
  writeFileSync(markdown, renderMarkdown(report));
  return { json, markdown };
}

// ---- command line ------------------------------------------------------------------------------

function positive(name: string, integer: boolean) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new InvalidArgumentError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got "${v}"`);
    return n;
  };
}

function nonNegative(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a number ≥ 0, got "${v}"`);
    return n;
  };
}

function rateList(v: string): number[] {
  const rates = v.split(',').map((s) => s.trim()).filter(Boolean).map(positive('--watch-rate', false));
  if (rates.length === 0) throw new InvalidArgumentError('--watch-rate needs at least one rate');
  return rates;
}

function scenarioList(v: string): ScenarioName[] {
  const names = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) if (!(SCENARIOS as readonly string[]).includes(n)) throw new InvalidArgumentError(`unknown scenario "${n}" (known: ${SCENARIOS.join(', ')})`);
  return names as ScenarioName[];
}

function commandLine(): string {
  const env = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v}`);
  const args = process.argv.slice(2);
  const cmd = args.length === 0 && process.env.MAKELEVEL ? 'make bench' : ['node --import tsx bench/apiserver.ts', ...args].join(' ');
  return [...env, cmd].join(' ');
}

async function main(): Promise<void> {
  const env = process.env;
  const program = new Command()
    .name('bench/apiserver.ts')
    .description('Benchmark the orrery API server against a bare node:https server (127.0.0.1 only)')
    .option('--duration <seconds>', 'measured seconds per scenario', positive('--duration', false), Number(env.BENCH_DURATION ?? 10))
    .option('--warmup <seconds>', 'warm-up seconds per scenario', nonNegative('--warmup'), Number(env.BENCH_WARMUP ?? 2))
    .option('--connections <n>', 'keep-alive connections for request scenarios', positive('--connections', true), Number(env.BENCH_CONNECTIONS ?? 10))
    .option('--watchers <n>', 'concurrent watch streams', positive('--watchers', true), Number(env.BENCH_WATCHERS ?? 1000))
    .option('--watch-rate <list>', 'writes per second in the watch scenario; a comma-separated list runs it once per rate', rateList, rateList(env.BENCH_WATCH_RATE ?? '20,500'))
    .option('--list-pods <n>', 'pods in the LIST scenario', positive('--list-pods', true), Number(env.BENCH_LIST_PODS ?? 500))
    .option('--scenarios <list>', `comma-separated subset of ${SCENARIOS.join(',')}`, scenarioList, scenarioList(env.BENCH_SCENARIOS ?? SCENARIOS.join(',')))
    .option('--no-pin', 'do not pin processes to CPUs')
    .showHelpAfterError();
  program.parse(process.argv);
  const f = program.opts<{ duration: number; warmup: number; connections: number; watchers: number; watchRate: number[]; listPods: number; scenarios: ScenarioName[]; pin: boolean }>();
  const opts: BenchOptions = {
    durationSeconds: f.duration,
    warmupSeconds: f.warmup,
    connections: f.connections,
    watchers: f.watchers,
    watchEventsPerSecond: f.watchRate,
    listPods: f.listPods,
    scenarios: f.scenarios,
    pin: f.pin && env.BENCH_PIN !== '0',
    command: commandLine(),
  };
  const perScenario = 2 * (opts.warmupSeconds + opts.durationSeconds) + 30;
  const watchSeconds = opts.scenarios.includes('watch') ? opts.watchEventsPerSecond.length * (opts.warmupSeconds + opts.durationSeconds + 200) : 0;
  const budgetSeconds = 300 + perScenario * opts.scenarios.length + watchSeconds;
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: still running after ${budgetSeconds} s; killing the servers and giving up\n`);
    killAllChildrenNow();
    process.exit(1);
  }, budgetSeconds * 1000);
  watchdog.unref();

  const report = await runBench(opts);
  const dir = opts.resultsDir ?? join(REPO_ROOT, 'results', 'bench');
  const paths = writeReport(report, dir);
  process.stdout.write(`${renderMarkdown(report)}\n`);
  process.stderr.write(`wrote ${paths.json} and ${paths.markdown}\n`);
  clearTimeout(watchdog);
  process.exitCode = report.failures.length > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.on('exit', killAllChildrenNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      process.stderr.write(`bench: ${sig}, stopping the servers\n`);
      killAllChildrenNow();
      process.exit(130);
    });
  }
  main().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    killAllChildrenNow();
    process.exit(1);
  });
}
