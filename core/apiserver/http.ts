import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { StatusError } from '../machinery/status.ts';
import type { ApiRequest, ApiResponse } from './types.ts';

/** The function an adapter serves. */
export type Handler = (req: ApiRequest) => Promise<ApiResponse>;

/** TLS material for HTTPS; plain HTTP without it. */
export interface TlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
}

function statusBody(err: StatusError): string {
  return JSON.stringify(err.toStatus());
}

/**
 * Binds a Handler to node:http(s): translates requests (reading bodies up to `maxBodyBytes`,
 * refusing larger ones with 413 before reading them), writes responses, and runs watch streams
 * with backpressure (`write` → false, resumed on 'drain') and cancellation when the peer leaves.
 */
export function createHttpServer(handle: Handler, opts: { tls?: TlsOptions; maxBodyBytes?: number } = {}): http.Server {
  const max = opts.maxBodyBytes ?? 3 * 1024 * 1024;
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const fail = (err: StatusError) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(err.code, { 'content-type': 'application/json', ...err.headers });
      res.end(statusBody(err));
    };
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > max) {
      fail(new StatusError(413, 'RequestEntityTooLarge', `the request body is too large: limit is ${max} bytes`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        if (!tooLarge) fail(new StatusError(413, 'RequestEntityTooLarge', `the request body is too large: limit is ${max} bytes`));
        tooLarge = true;
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (tooLarge) return;
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        return fail(new StatusError(400, 'BadRequest', 'malformed request URL'));
      }
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const apiReq: ApiRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body: size > 0 ? Buffer.concat(chunks) : undefined };
      handle(apiReq).then(
        (out) => writeResponse(req, res, out),
        (e) => fail(e instanceof StatusError ? e : new StatusError(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`)),
      );
    });
  };
  const server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, listener) : http.createServer(listener);
  server.keepAliveTimeout = 65_000;
  return server;
}

function writeResponse(req: http.IncomingMessage, res: http.ServerResponse, out: ApiResponse): void {
  const headers: Record<string, string | string[]> = { ...out.headers };
  if (out.stream) {
    delete headers['transfer-encoding'];
    res.writeHead(out.status, headers);
    res.flushHeaders();
    const stream = out.stream;
    let ended = false;
    res.on('drain', () => stream.resume());
    res.on('close', () => {
      if (!ended) stream.cancel();
    });
    // Events written in the same turn of the event loop leave in one TLS record (cork until the
    // next turn), which cuts the per-event cost on both ends of busy watches.
    let corked = false;
    const uncork = () => {
      corked = false;
      if (!ended) res.uncork();
    };
    stream.start(
      (chunk) => {
        if (ended) return true;
        if (!corked) {
          corked = true;
          res.cork();
          setImmediate(uncork);
        }
        return res.write(chunk);
      },
      () => {
        if (ended) return;
        ended = true;
        res.end();
      },
    );
    return;
  }
  const body = out.body ?? '';
  headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(out.status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Starts listening and resolves with the bound port. */
export function listen(server: http.Server, port: number, host = '0.0.0.0'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
