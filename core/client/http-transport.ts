import http from 'node:http';
import https from 'node:https';
import type { ApiRequest, ApiResponse, ResponseStream } from '../apiserver/types.ts';
import type { ClusterAccess } from './kubeconfig.ts';
import type { Transport } from './transport.ts';

/** Options of an {@link HttpTransport}. */
export interface HttpTransportOptions {
  /** Maximum sockets kept to the server (default 64). */
  maxSockets?: number;
  /** User-Agent header (default `orrery/0.1`). */
  userAgent?: string;
}

function isWatch(req: ApiRequest): boolean {
  const w = req.query.get('watch');
  return w === '1' || w === 'true';
}

/**
 * The real Transport: HTTP(S) to an API server described by ClusterAccess (from a kubeconfig),
 * with keep-alive, the cluster's CA, client certificates, bearer tokens or basic auth. Watch
 * responses come back as a ResponseStream with backpressure (the socket pauses while the reader
 * is backed up).
 */
export class HttpTransport implements Transport {
  private readonly agent: http.Agent;
  private readonly base: URL;
  private readonly auth: Record<string, string>;

  constructor(
    readonly access: ClusterAccess,
    private readonly opts: HttpTransportOptions = {},
  ) {
    this.base = new URL(access.server);
    const secure = this.base.protocol === 'https:';
    const common = { keepAlive: true, maxSockets: opts.maxSockets ?? 64 };
    this.agent = secure
      ? new https.Agent({ ...common, ca: access.ca, cert: access.cert, key: access.key, rejectUnauthorized: !access.insecureSkipTLSVerify })
      : new http.Agent(common);
    this.auth = {};
    if (access.token) this.auth['authorization'] = `Bearer ${access.token}`;
    else if (access.username !== undefined) this.auth['authorization'] = `Basic ${Buffer.from(`${access.username}:${access.password ?? ''}`).toString('base64')}`;
  }

  request(req: ApiRequest): Promise<ApiResponse> {
    const mod = this.base.protocol === 'https:' ? https : http;
    const qs = req.query.toString();
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent ?? 'orrery/0.1', ...this.auth };
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
    if (req.body) headers['content-length'] = String(req.body.length);
    return new Promise((resolve, reject) => {
      const out = mod.request(
        { protocol: this.base.protocol, hostname: this.base.hostname, port: this.base.port, path: `${req.path}${qs ? `?${qs}` : ''}`, method: req.method, headers, agent: this.agent },
        (res) => {
          const resHeaders: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k] = v;
          const status = res.statusCode ?? 0;
          if (isWatch(req) && status === 200) {
            resolve({ status, headers: resHeaders, stream: new IncomingStream(res, out) });
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status, headers: resHeaders, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(req.body);
    });
  }

  /** Closes pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}

class IncomingStream implements ResponseStream {
  constructor(
    private readonly res: http.IncomingMessage,
    private readonly req: http.ClientRequest,
  ) {}

  start(write: (chunk: Buffer | string) => boolean, end: () => void): void {
    let ended = false;
    const finish = () => {
      if (!ended) {
        ended = true;
        end();
      }
    };
    this.res.on('data', (c: Buffer) => {
      if (!write(c)) this.res.pause();
    });
    this.res.on('end', finish);
    this.res.on('close', finish);
    this.res.on('error', finish);
  }

  resume(): void {
    this.res.resume();
  }

  cancel(): void {
    this.req.destroy();
    this.res.destroy();
  }
}
