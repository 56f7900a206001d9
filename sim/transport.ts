import type { ApiRequest, ApiResponse, ChunkWriter, DecodedWatchEvent, ResponseStream } from '../core/apiserver/types.ts';
import type { Rng } from '../core/machinery/rng.ts';
import type { Transport } from '../core/client/transport.ts';
import { constant, parseDistribution, type Distribution, type DistributionConfig, type Duration } from './distributions.ts';
import type { SimEnvironment } from './env.ts';

/** What the simulated network talks to: an API server's `handle` (e.g. `ApiServer` of core/apiserver/handler.ts). */
export interface SimServer {
  handle(req: ApiRequest): ApiResponse | Promise<ApiResponse>;
  /** See `Transport.isShared`: arrays the server shares with its clients, which request bodies may hold uncopied. */
  readonly isShared?: (array: readonly unknown[]) => boolean;
}

/**
 * The connection error a simulated client sees, shaped like Node's socket errors (`code`):
 * `ECONNRESET` for a dropped request or a partitioned client, `ECONNREFUSED` while the API
 * server is down in 'refused' mode.
 */
export class SimConnectionError extends Error {
  constructor(
    readonly code: 'ECONNRESET' | 'ECONNREFUSED',
    message: string,
  ) {
    super(message);
    this.name = 'SimConnectionError';
  }
}

/** A distribution, its config, or a bare duration. */
export type LatencySpec = Distribution | DistributionConfig | Duration;

/** Options of a {@link SimNetwork}. Latencies default to 0. */
export interface SimNetworkOptions {
  env: SimEnvironment;
  server: SimServer;
  /** The random stream of a client, by its name (e.g. `(c) => streams.stream(\`transport/${c}\`)`). */
  rngFor: (client: string) => Rng;
  /** Client → server latency of each request. */
  requestLatency?: LatencySpec;
  /** Server → client latency of each response (headers and body). */
  responseLatency?: LatencySpec;
  /** Server → client latency of each watch chunk (default: responseLatency). */
  watchEventLatency?: LatencySpec;
  /** Probability in [0, 1] that a request is lost (the client sees ECONNRESET). Default 0. */
  dropProbability?: number;
  /**
   * Hand clients the decoded event the server passes with each JSON watch frame, so they need
   * not parse it (the frame still crosses the network, with its size and latency). Default true.
   * The event's object is shared with the API server and every other watcher: read-only.
   */
  decodedWatchEvents?: boolean;
  /**
   * Let clients send JSON request bodies decoded (`ApiRequest.object`, a copy the server owns)
   * instead of as text. Default true. The body size limit does not apply to decoded bodies.
   */
  decodedBodies?: boolean;
  /**
   * Let clients take a response's decoded value (`ApiResponse.object`) instead of parsing its
   * body. Default true. Results are then shared with the API server: read-only.
   */
  decodedResponses?: boolean;
}

/** How the API server is unavailable: answering 503 ServiceUnavailable, or refusing connections. */
export type UnavailableMode = 'unavailable' | 'refused';

function toDistribution(spec: LatencySpec | undefined, path: string): Distribution {
  if (spec === undefined) return constant(0);
  if (typeof spec === 'object' && 'sample' in spec) return spec;
  return parseDistribution(spec, path);
}

function describe(req: ApiRequest): string {
  const q = req.query.toString();
  return `${req.method} ${req.path}${q ? `?${q}` : ''}`;
}

const UNAVAILABLE_BODY = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server is currently unable to handle the request',
  reason: 'ServiceUnavailable',
  code: 503,
});

/**
 * The simulated network between clients and one API server, with the faults of a scenario.
 * Every delivery is an event of the environment, at the virtual time its sampled latency says.
 * Guarantees: a request reaches `handle` only after its request latency, a response reaches the
 * client only after its response latency, and the chunks of a watch arrive in the order the
 * server wrote them, each no earlier than its own sampled latency. Latency samples come from the
 * client's own random stream. The network buffers watch chunks without limit (no backpressure
 * towards the server); a client's `write` returning false pauses delivery until it calls `resume`.
 */
export class SimNetwork {
  readonly env: SimEnvironment;
  private readonly server: SimServer;
  /** @internal The server's `isShared` (see `Transport.isShared`). */
  readonly isShared: ((array: readonly unknown[]) => boolean) | undefined;
  private readonly rngFor: (client: string) => Rng;
  private readonly requestLatency: Distribution;
  private readonly responseLatency: Distribution;
  private readonly watchEventLatency: Distribution;
  private readonly dropProbability: number;
  private readonly partitions = new Map<string, number>();
  private readonly dropCounts = new Map<string, number>();
  private readonly open = new Set<SimWatchStream>();
  private down: { mode: UnavailableMode; depth: number } | undefined;
  private readonly transports = new Map<string, SimTransport>();
  /** @internal See {@link SimNetworkOptions.decodedWatchEvents}. */
  readonly decodedWatchEvents: boolean;
  /** @internal See {@link SimNetworkOptions.decodedBodies}. */
  readonly decodedBodies: boolean;
  /** @internal See {@link SimNetworkOptions.decodedResponses}. */
  readonly decodedResponses: boolean;

  constructor(opts: SimNetworkOptions) {
    this.env = opts.env;
    this.server = opts.server;
    this.isShared = opts.server.isShared;
    this.rngFor = opts.rngFor;
    this.requestLatency = toDistribution(opts.requestLatency, 'requestLatency');
    this.responseLatency = toDistribution(opts.responseLatency, 'responseLatency');
    this.watchEventLatency = opts.watchEventLatency === undefined ? this.responseLatency : toDistribution(opts.watchEventLatency, 'watchEventLatency');
    const p = opts.dropProbability ?? 0;
    if (!(p >= 0 && p <= 1)) throw new RangeError(`dropProbability must be in [0, 1], got ${p}`);
    this.dropProbability = p;
    this.decodedWatchEvents = opts.decodedWatchEvents ?? true;
    this.decodedBodies = opts.decodedBodies ?? true;
    this.decodedResponses = opts.decodedResponses ?? true;
  }

  /** The transport of client `client` (one per name; the name selects its random stream and its partitions). */
  transport(client: string): SimTransport {
    let t = this.transports.get(client);
    if (!t) {
      t = new SimTransport(this, client, this.rngFor(client));
      this.transports.set(client, t);
    }
    return t;
  }

  /**
   * Cuts `clients` off the server from `afterMs` from now for `durationMs`: their requests and
   * responses in that interval are lost (ECONNRESET) and their open watches end at its start.
   */
  partition(clients: readonly string[], durationMs: number, afterMs = 0): void {
    this.env.schedule(afterMs, () => {
      for (const c of clients) this.partitions.set(c, (this.partitions.get(c) ?? 0) + 1);
      this.env.record('fault', `partition-start ${clients.join(',')}`);
      this.breakWatches((s) => clients.includes(s.client));
    });
    this.env.schedule(afterMs + durationMs, () => {
      for (const c of clients) {
        const n = (this.partitions.get(c) ?? 1) - 1;
        if (n > 0) this.partitions.set(c, n);
        else this.partitions.delete(c);
      }
      this.env.record('fault', `partition-end ${clients.join(',')}`);
    });
  }

  /**
   * Makes the API server unavailable from `afterMs` from now for `durationMs`: requests arriving
   * then get 503 ServiceUnavailable (`'unavailable'`) or ECONNREFUSED (`'refused'`), and every
   * open watch ends at its start.
   */
  serverUnavailable(durationMs: number, mode: UnavailableMode = 'unavailable', afterMs = 0): void {
    this.env.schedule(afterMs, () => {
      this.down = { mode, depth: (this.down?.depth ?? 0) + 1 };
      this.env.record('fault', `server-down ${mode}`);
      this.breakWatches(() => true);
    });
    this.env.schedule(afterMs + durationMs, () => {
      if (this.down && --this.down.depth === 0) this.down = undefined;
      this.env.record('fault', 'server-up');
    });
  }

  /** Loses the next `count` requests `client` sends. */
  dropNext(client: string, count = 1): void {
    this.dropCounts.set(client, (this.dropCounts.get(client) ?? 0) + count);
  }

  /** Whether `client` is partitioned now. */
  isPartitioned(client: string): boolean {
    return this.partitions.has(client);
  }

  /** Watches open now (delivered to a client and not yet ended). */
  get openWatches(): number {
    return this.open.size;
  }

  /** @internal Sends one request of `client`; see {@link SimTransport.request}. */
  send(client: string, rng: Rng, req: ApiRequest): Promise<ApiResponse> {
    const env = this.env;
    // NOTE: the request's description is built only for the trace (and for a lost request's error).
    const what = env.tracing ? describe(req) : '';
    if (env.tracing) env.record('send', `${client} ${what}`);
    const reqDelay = this.requestLatency.sample(rng);
    let dropped = false;
    const queued = this.dropCounts.get(client) ?? 0;
    if (queued > 0) {
      dropped = true;
      if (queued === 1) this.dropCounts.delete(client);
      else this.dropCounts.set(client, queued - 1);
    } else if (this.dropProbability > 0 && rng.next() < this.dropProbability) dropped = true;
    // NOTE: no named closures here: tsx (esbuild keepNames) makes each one cost a defineProperty.
    return new Promise<ApiResponse>((resolve, reject) => {
      env.schedule(reqDelay, () => {
        if (dropped) return this.lose(client, req, what, reject, 'ECONNRESET', 'dropped');
        if (this.isPartitioned(client)) return this.lose(client, req, what, reject, 'ECONNRESET', 'partitioned');
        if (this.down?.mode === 'refused') return this.lose(client, req, what, reject, 'ECONNREFUSED', 'server down');
        if (this.down) {
          const res: ApiResponse = { status: 503, headers: { 'content-type': 'application/json' }, body: UNAVAILABLE_BODY };
          this.deliver(client, rng, req, what, res, resolve, reject);
          return;
        }
        let pending: ApiResponse | Promise<ApiResponse>;
        try {
          pending = this.server.handle(req);
        } catch (e) {
          env.fail(e);
          reject(e);
          return;
        }
        Promise.resolve(pending).then(
          (res) => this.deliver(client, rng, req, what, res, resolve, reject),
          (e: unknown) => {
            env.fail(e);
            reject(e);
          },
        );
      });
    });
  }

  /** Fails a request as a lost connection, recorded in the trace. */
  private lose(client: string, req: ApiRequest, what: string, reject: (e: unknown) => void, code: 'ECONNRESET' | 'ECONNREFUSED', why: string): void {
    const described = what || describe(req);
    this.env.record('error', `${client} ${described} ${code} ${why}`);
    reject(new SimConnectionError(code, `${described}: ${code} (${why})`));
  }

  private deliver(
    client: string,
    rng: Rng,
    req: ApiRequest,
    what: string,
    res: ApiResponse,
    resolve: (r: ApiResponse) => void,
    reject: (e: unknown) => void,
  ): void {
    this.env.schedule(this.responseLatency.sample(rng), () => {
      if (this.isPartitioned(client)) {
        res.stream?.cancel();
        return this.lose(client, req, what, reject, 'ECONNRESET', 'partitioned');
      }
      if (this.env.tracing) this.env.record('recv', `${client} ${what} ${res.status}`);
      resolve(res.stream ? { ...res, stream: new SimWatchStream(this, client, rng, res.stream) } : res);
    });
  }

  private breakWatches(which: (s: SimWatchStream) => boolean): void {
    for (const s of [...this.open]) if (which(s)) s.break();
  }

  /** @internal */
  watchOpened(s: SimWatchStream): void {
    this.open.add(s);
  }

  /** @internal */
  watchClosed(s: SimWatchStream): void {
    this.open.delete(s);
  }

  /** @internal */
  watchDelay(rng: Rng): number {
    return this.watchEventLatency.sample(rng);
  }
}

/** A watch body crossing the simulated network: chunks re-timed by sampled latency, order kept. */
class SimWatchStream implements ResponseStream {
  private write: ChunkWriter | undefined;
  private end: (() => void) | undefined;
  private lastAt = 0;
  private paused = false;
  private closed = false;
  private endArrived = false;
  private readonly backlog: { chunk: Buffer | string; decoded: DecodedWatchEvent | undefined }[] = [];

  constructor(
    private readonly net: SimNetwork,
    readonly client: string,
    private readonly rng: Rng,
    private readonly inner: ResponseStream,
  ) {}

  start(write: ChunkWriter, end: () => void): void {
    if (this.write) throw new Error('watch stream already started');
    this.write = write;
    this.end = end;
    this.net.watchOpened(this);
    const passDecoded = this.net.decodedWatchEvents;
    this.inner.start(
      (chunk, decoded) => {
        if (!this.closed) this.net.env.scheduleAt(this.nextArrival(), () => this.arrive(chunk, passDecoded ? decoded : undefined));
        return true;
      },
      () => {
        if (!this.closed) this.net.env.scheduleAt(this.nextArrival(), () => this.arriveEnd());
      },
      // NOTE: the trace records chunk sizes, so a traced run still has the frames built.
      { decodedOnly: passDecoded && !this.net.env.tracing },
    );
  }

  resume(): void {
    if (this.closed || !this.paused) return;
    this.paused = false;
    while (!this.paused && this.backlog.length > 0) {
      const { chunk, decoded } = this.backlog.shift()!;
      this.push(chunk, decoded);
    }
    if (!this.paused && this.endArrived) this.finish();
  }

  cancel(): void {
    if (this.closed) return;
    this.closed = true;
    this.backlog.length = 0;
    this.net.watchClosed(this);
    this.inner.cancel();
  }

  /** The connection broke (partition, server down): the server side is cancelled and the client sees the end now. */
  break(): void {
    if (this.closed) return;
    this.net.env.record('watch-broken', this.client);
    this.cancel();
    this.end?.();
  }

  private nextArrival(): number {
    const at = Math.max(this.net.env.now + this.net.watchDelay(this.rng), this.lastAt);
    this.lastAt = at;
    return at;
  }

  private arrive(chunk: Buffer | string, decoded: DecodedWatchEvent | undefined): void {
    if (this.closed) return;
    if (this.paused) this.backlog.push({ chunk, decoded });
    else this.push(chunk, decoded);
  }

  private push(chunk: Buffer | string, decoded: DecodedWatchEvent | undefined): void {
    if (this.net.env.tracing) this.net.env.record('watch-chunk', `${this.client} ${chunk.length}`);
    if (this.write!(chunk, decoded) === false) this.paused = true;
  }

  private arriveEnd(): void {
    if (this.closed) return;
    this.endArrived = true;
    if (!this.paused) this.finish();
  }

  private finish(): void {
    this.closed = true;
    this.net.watchClosed(this);
    this.net.env.record('watch-end', this.client);
    this.end!();
  }
}

/**
 * A client's {@link Transport} over a {@link SimNetwork}. `request` resolves at the virtual time
 * the response arrives, or rejects with {@link SimConnectionError} when the request or its
 * response is lost.
 */
export class SimTransport implements Transport {
  /** See {@link SimNetworkOptions.decodedBodies}. */
  readonly decodedBodies: boolean;
  /** See {@link SimNetworkOptions.decodedResponses}. */
  readonly decodedResponses: boolean;
  /** See `Transport.isShared` (only with decoded bodies). */
  readonly isShared: ((array: readonly unknown[]) => boolean) | undefined;

  constructor(
    private readonly net: SimNetwork,
    /** The client's name: selects its partitions and appears in the trace. */
    readonly client: string,
    private readonly rng: Rng,
  ) {
    this.decodedBodies = net.decodedBodies;
    this.decodedResponses = net.decodedResponses;
    this.isShared = net.decodedBodies ? net.isShared : undefined;
  }

  request(req: ApiRequest): Promise<ApiResponse> {
    return this.net.send(this.client, this.rng, req);
  }
}
