/**
 * The bare node:https server the API server benchmark compares against: same TLS certificate,
 * keep-alive, and a static JSON body of a requested size — the cost of HTTPS and Node itself, with
 * no API machinery. Run as a child process:
 *
 *   node --import tsx bench/baseline-server.ts --cert FILE --key FILE [--port 0]
 *
 * It listens on 127.0.0.1 only and prints `baseline serving on https://127.0.0.1:PORT` on stdout.
 *
 * Routes: `ANY /bytes/N[?status=CODE]` reads the request body (if any) and answers CODE (default
 * 200) with a JSON body of exactly N bytes.
 */
import https from 'node:https';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A valid JSON document of exactly `n` bytes (n ≥ 2): an object whose one string field is padded,
 * or, below the object's minimum size, `""` / a padded string. Same n → same body.
 */
export function staticJsonBody(n: number): string {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`body size must be an integer ≥ 2, got ${n}`);
  const head = '{"kind":"Padding","data":"';
  const tail = '"}';
  if (n < head.length + tail.length) return `"${'x'.repeat(n - 2)}"`;
  return head + 'x'.repeat(n - head.length - tail.length) + tail;
}

/** Parses `/bytes/N?status=CODE`; undefined for any other path or an invalid size/status. */
export function parseBaselineRoute(url: string): { bytes: number; status: number } | undefined {
  const u = new URL(url, 'https://127.0.0.1');
  const m = /^\/bytes\/(\d{1,9})$/.exec(u.pathname);
  if (!m) return undefined;
  const bytes = Number(m[1]);
  const status = Number(u.searchParams.get('status') ?? '200');
  if (bytes < 2 || !Number.isInteger(status) || status < 200 || status > 599) return undefined;
  return { bytes, status };
}

/**
 * Creates (does not start) the bare server. Bodies are built once per size and cached; the headers
 * are the ones orrery sends on a plain JSON response (content-type, content-length), so responses
 * are of the same size.
 */
export function createBaselineServer(tls: { cert: string | Buffer; key: string | Buffer }): https.Server {
  const bodies = new Map<number, Buffer>();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req: http.IncomingMessage, res: http.ServerResponse) => {
    req.on('data', () => {});
    req.on('end', () => {
      const route = parseBaselineRoute(req.url ?? '/');
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found\n');
        return;
      }
      let body = bodies.get(route.bytes);
      if (!body) {
        body = Buffer.from(staticJsonBody(route.bytes));
        bodies.set(route.bytes, body);
      }
      res.writeHead(route.status, {
        'content-type': 'application/json',
        'content-length': String(body.length),
      });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

/** Starts the bare server on 127.0.0.1 and resolves with its port. */
export function startBaselineServer(tls: { cert: string | Buffer; key: string | Buffer }, port = 0): Promise<{ server: https.Server; port: number }> {
  const server = createBaselineServer(tls);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
  });
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const cert = argValue(args, '--cert');
  const key = argValue(args, '--key');
  if (!cert || !key) {
    process.stderr.write('usage: baseline-server.ts --cert FILE --key FILE [--port N]\n');
    process.exit(2);
  }
  const { server, port } = await startBaselineServer({ cert: readFileSync(cert), key: readFileSync(key) }, Number(argValue(args, '--port') ?? 0));
  process.stdout.write(`baseline serving on https://127.0.0.1:${port}\n`);
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    process.stderr.write(`baseline-server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
