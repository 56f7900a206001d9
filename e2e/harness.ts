// End-to-end harness: temp dirs, the real kubectl binaries, the orrery server in-process or as a
// child process, and a small HTTPS client that trusts the CA of the server's kubeconfig.
// Every process started here is also killed when the test process exits, so a failing test never
// leaves a server or `kubectl --watch` behind.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import https from 'node:https';
import { fileURLToPath, pathToFileURL } from 'node:url';
import YAML from 'yaml';

/** The repository root (the parent of `e2e/`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Creates a fresh directory under the OS temp dir; `removeTempDir` deletes it. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `orrery-e2e-${prefix}-`));
}

/** Deletes a directory made by {@link makeTempDir}; never throws. */
export function removeTempDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // best effort
  }
}

/** Resolves after `ms` milliseconds (e2e code runs on the real clock). */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a truthy value (returned) or `timeoutMs` passes (then throws with `what`). */
export async function eventually<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

/** One real kubectl binary. */
export interface KubectlBinary {
  /** Minor version as `1.27`. */
  readonly version: string;
  readonly path: string;
}

/**
 * The oldest and the newest kubectl installed beside `/usr/bin/kubectl` (1.27 and 1.33), called
 * directly rather than through the version-dispatching wrapper. Throws if either is missing.
 */
export function kubectlBinaries(versions: readonly string[] = ['1.27', '1.33']): KubectlBinary[] {
  const dispatcher = '/usr/bin/kubectl';
  let dir: string;
  try {
    const target = readlinkSync(dispatcher);
    dir = dirname(resolve(dirname(dispatcher), target));
  } catch {
    dir = dirname(dispatcher);
  }
  return versions.map((version) => {
    const path = join(dir, `kubectl.${version}`);
    if (!existsSync(path)) throw new Error(`kubectl ${version} not found at ${path}`);
    return { version, path };
  });
}

/** What a finished kubectl run produced. */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The command line, for failure messages. */
  readonly command: string;
}

/** Options of one kubectl invocation. */
export interface KubectlRunOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** Kill kubectl after this long (default 30 s). */
  timeoutMs?: number;
}

/**
 * One kubectl binary bound to a server: every invocation gets `--kubeconfig`, its own
 * `--cache-dir` (discovery cache) and `HOME` in a private temp dir, and a `--request-timeout`.
 * Invocations are asynchronous, so an in-process server keeps serving while kubectl runs.
 */
export class Kubectl {
  readonly home: string;
  readonly cacheDir: string;

  constructor(
    readonly binary: KubectlBinary,
    readonly kubeconfigPath: string,
    workDir: string,
  ) {
    this.home = join(workDir, `home-${binary.version}`);
    this.cacheDir = join(workDir, `cache-${binary.version}`);
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.cacheDir, { recursive: true });
  }

  private argv(args: readonly string[]): string[] {
    return [`--kubeconfig=${this.kubeconfigPath}`, `--cache-dir=${this.cacheDir}`, '--request-timeout=20s', ...args];
  }

  private env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.home, KUBECONFIG: this.kubeconfigPath, LANG: 'C', NO_COLOR: '1' };
  }

  /** Runs kubectl to completion; never rejects on a non-zero exit (see {@link ok} / {@link fails}). */
  run(args: readonly string[], opts: KubectlRunOptions = {}): Promise<KubectlResult> {
    const argv = this.argv(args);
    const command = `kubectl.${this.binary.version} ${args.join(' ')}`;
    return new Promise((resolveRun) => {
      const child = track(
        execFile(this.binary.path, argv, { env: this.env(), timeout: opts.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
          const code = err ? (typeof (err as any).code === 'number' ? (err as any).code : -1) : 0;
          const note = err && (err as any).killed ? '\n[killed by the e2e timeout]' : '';
          resolveRun({ code, stdout: String(stdout), stderr: String(stderr) + note, command });
        }),
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      else child.stdin?.end();
    });
  }

  /** Runs kubectl and returns stdout; throws (with stdout and stderr) if it exits non-zero. */
  async ok(args: readonly string[], opts: KubectlRunOptions = {}): Promise<string> {
    const r = await this.run(args, opts);
    if (r.code !== 0) throw new Error(`\`${r.command}\` exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r.stdout;
  }

  /** Runs kubectl with `-o json` appended and parses stdout. */
  async json(args: readonly string[], opts: KubectlRunOptions = {}): Promise<any> {
    const out = await this.ok([...args, '-o', 'json'], opts);
    try {
      return JSON.parse(out);
    } catch {
      throw new Error(`kubectl ${args.join(' ')} -o json printed no JSON:\n${out}`);
    }
  }

  /** Runs kubectl expecting a non-zero exit; throws if it succeeded. */
  async fails(args: readonly string[], opts: KubectlRunOptions = {}): Promise<KubectlResult> {
    const r = await this.run(args, opts);
    if (r.code === 0) throw new Error(`\`${r.command}\` was expected to fail but succeeded\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r;
  }

  /** Starts a long-running kubectl (e.g. `get --watch`) whose stdout lines are collected. */
  background(args: readonly string[]): BackgroundProcess {
    const child = track(spawn(this.binary.path, this.argv(args), { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] }));
    return new BackgroundProcess(child, `kubectl.${this.binary.version} ${args.join(' ')}`);
  }
}

/** A child process whose stdout is split into lines as they arrive. */
export class BackgroundProcess {
  readonly lines: string[] = [];
  stderr = '';
  private partial = '';
  private readonly exited: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    readonly command: string,
  ) {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((r) => child.once('exit', () => r()));
  }

  /** True while the process runs. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until `count` stdout lines (default 1) satisfy `match`; returns the last of them. */
  async waitForLine(match: (line: string) => boolean, timeoutMs = 15_000, what = 'a matching line', count = 1): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.filter(match);
      if (found.length >= count) return found[count - 1]!;
      if (!this.running) throw new Error(`\`${this.command}\` exited (${this.child.exitCode ?? this.child.signalCode}) before printing ${what}\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`\`${this.command}\` printed no ${what} within ${timeoutMs} ms\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      await sleep(25);
    }
  }

  /** Kills the process (SIGTERM, then SIGKILL after 2 s) and waits for it to exit. Idempotent. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await this.exited;
    clearTimeout(t);
  }
}

/** What the e2e clients need from a kubeconfig written by `orrery serve`. */
export interface ClusterAccess {
  readonly server: string;
  readonly ca: string;
  readonly username?: string;
  readonly password?: string;
  readonly token?: string;
}

/** Reads the current context's cluster and user of a kubeconfig. */
export function readKubeconfig(path: string): ClusterAccess {
  const cfg = YAML.parse(readFileSync(path, 'utf8'));
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c: any) => c.name === ctxName)?.context ?? cfg.contexts?.[0]?.context;
  const cluster = (cfg.clusters ?? []).find((c: any) => c.name === ctx?.cluster)?.cluster ?? cfg.clusters?.[0]?.cluster;
  const user = (cfg.users ?? []).find((u: any) => u.name === ctx?.user)?.user ?? cfg.users?.[0]?.user ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig ${path} has no cluster server`);
  const ca = cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') : readFileSync(cluster['certificate-authority'], 'utf8');
  return { server: cluster.server, ca, username: user.username, password: user.password, token: user.token };
}

/** A response read completely. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON (undefined if it is not JSON). */
  readonly body: any;
}

/** One HTTPS request to the server of `access`, trusting its CA; a JSON `body` is sent as application/json unless `contentType` says otherwise. */
export function request(
  access: ClusterAccess,
  method: string,
  path: string,
  body?: unknown,
  opts: { contentType?: string; agent?: https.Agent; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const url = new URL(path, access.server);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) {
    headers['content-type'] = opts.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  if (access.token) headers.authorization = `Bearer ${access.token}`;
  else if (access.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${access.username}:${access.password ?? ''}`).toString('base64')}`;
  return new Promise((resolveReq, reject) => {
    const req = https.request(
      url,
      { method, headers, ca: access.ca, agent: opts.agent, timeout: opts.timeoutMs ?? 20_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolveReq({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The orrery server run as `node --import tsx bin/orrery.ts serve` in a child process. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  readonly kubeconfigPath: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after 5 s. Idempotent. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `bin/orrery.ts serve --data-dir DIR --secure-port 0 --bind-address 127.0.0.1` and waits
 * for its "serving on https://127.0.0.1:PORT" line (rejects, with its stderr, if it exits first or
 * takes longer than `timeoutMs`).
 */
export function startServerProcess(dataDir: string, extraArgs: readonly string[] = [], timeoutMs = 60_000): Promise<ServerProcess> {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bin', 'orrery.ts'), 'serve', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...extraArgs], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    }),
  );
  let err = '';
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  let stopping: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      const r = await exited;
      clearTimeout(t);
      return r;
    })();
    return stopping;
  };
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`orrery serve did not report ready within ${timeoutMs} ms; stderr:\n${err}`));
    }, timeoutMs);
    child.stderr!.on('data', (chunk: string) => {
      err += chunk;
      const m = /serving on (https:\/\/[^\s:]+:(\d+))/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, port: Number(m[2]), url: m[1]!, kubeconfigPath: join(dataDir, 'kubeconfig'), stderr: () => err, stop });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`orrery serve exited (${code ?? signal}) before it was ready; stderr:\n${err}`));
    });
  });
}

/**
 * Loads `@kubernetes/client-node`. `ORRERY_CLIENT_NODE=/path/to/node_modules/@kubernetes/client-node`
 * loads another installed copy (e.g. a 1.x release on Node 20, where 2.x cannot load).
 */
export async function loadClientNode(): Promise<typeof import('@kubernetes/client-node')> {
  const override = process.env.ORRERY_CLIENT_NODE;
  if (override) {
    const pkg = JSON.parse(readFileSync(join(override, 'package.json'), 'utf8'));
    const entry = typeof pkg.exports?.['.'] === 'object' ? (pkg.exports['.'].import ?? pkg.exports['.'].default) : (pkg.module ?? pkg.main ?? 'index.js');
    return import(pathToFileURL(join(override, typeof entry === 'string' ? entry : 'dist/index.js')).href);
  }
  return import('@kubernetes/client-node');
}
