import type { ApiRequest, ApiResponse } from '../apiserver/types.ts';

/**
 * A client's way to an API server: HTTP(S) to a URL, in-process to `handle()`, or the simulator's
 * transport with sampled latency and faults. The same client code runs over all of them.
 */
export interface Transport {
  /** Sends one request. Watch responses come back with `stream` set. */
  request(req: ApiRequest): Promise<ApiResponse>;
  /**
   * The transport hands `ApiRequest.object` to an API server in the same process: clients send
   * JSON bodies as decoded copies instead of text (no encode here, no parse there).
   */
  readonly decodedBodies?: boolean;
  /**
   * Clients may take a response's `ApiResponse.object` instead of parsing its body: results are
   * then shared with the server and must not be mutated.
   */
  readonly decodedResponses?: boolean;
  /**
   * Whether `array` is part of an object the in-process server shares with its clients (a stored
   * object's managedFields or ownerReferences list): a decoded request body (an object sent
   * whole, not a patch) may hold it as it is instead of a copy,
   * since the server only reads it. Absent: every body is copied whole.
   */
  readonly isShared?: (array: readonly unknown[]) => boolean;
}

/**
 * A Transport that calls an API server's `handle` in the same process, with no latency. Nothing
 * is encoded as JSON text: request bodies go as decoded copies, and stored objects and watch
 * events come back as the server's shared decoded objects (read-only).
 */
export class InProcessTransport implements Transport {
  /** Always true; see {@link Transport.decodedBodies}. */
  readonly decodedBodies = true;
  /** Always true; see {@link Transport.decodedResponses}. */
  readonly decodedResponses = true;

  /** `isShared`: see {@link Transport.isShared} (the server's `isShared`, when it is an ApiServer). */
  constructor(
    private readonly handle: (req: ApiRequest) => ApiResponse | Promise<ApiResponse>,
    readonly isShared?: (array: readonly unknown[]) => boolean,
  ) {}

  async request(req: ApiRequest): Promise<ApiResponse> {
    return this.handle(req);
  }
}
