/**
 * The API server's whole surface: `handle(ApiRequest) → ApiResponse`. The node:http adapter and
 * the simulated transport only translate to and from these shapes.
 */

/** A request as the server sees it. Header names are lower-case. */
export interface ApiRequest {
  method: string;
  /** The path without the query, e.g. `/api/v1/namespaces/default/pods`. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  body?: Buffer;
  /** The authenticated user, once authentication exists. */
  user?: { name: string; groups: string[] };
}

/** A streamed response body (watch). The adapter calls `start` once with a writer. */
export interface ResponseStream {
  /**
   * Starts the stream. `write` returns false when the peer is backed up (call `resume` later);
   * `end` finishes the response.
   */
  start(write: (chunk: Buffer | string) => boolean, end: () => void): void;
  /** The peer drained after `write` returned false. */
  resume(): void;
  /** The peer went away; release everything. */
  cancel(): void;
}

/** A response. Exactly one of `body` / `stream` is set (or neither for empty bodies). */
export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body?: Buffer | string;
  stream?: ResponseStream;
}
