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
  /**
   * The JSON body already decoded, from an in-process client (the simulator's transport), in
   * place of `body`: a value the server now owns, exactly what parsing the JSON text would give
   * (see `jsonClone`), except that arrays the server shares with its clients (`ApiServer.isShared`)
   * may be held as they are: the server only reads those. Only for JSON content types. The body
   * size limit does not apply to it.
   */
  object?: unknown;
  /** The authenticated user, once authentication exists. */
  user?: { name: string; groups: string[] };
}

/**
 * A watch event as decoded from a JSON watch frame: what an in-process peer may take instead of
 * parsing the frame. Its object is shared and must not be mutated.
 */
export interface DecodedWatchEvent {
  type: string;
  object: unknown;
}

/** Writes one chunk of a streamed body; false when the peer is backed up. */
export type ChunkWriter = (chunk: Buffer | string, decoded?: DecodedWatchEvent) => boolean;

/** Options of {@link ResponseStream.start}. */
export interface StreamStartOptions {
  /**
   * The peer takes the `decoded` event of every frame that has one and never reads those frames'
   * text: a JSON watch stream then passes an empty chunk with each decoded event instead of
   * building its text (the simulator's network, when nothing traces chunk sizes).
   */
  decodedOnly?: boolean;
}

/** A streamed response body (watch). The adapter calls `start` once with a writer. */
export interface ResponseStream {
  /**
   * Starts the stream. `write` returns false when the peer is backed up (call `resume` later);
   * `end` finishes the response. A JSON watch stream passes each frame's event as `decoded`
   * too: exactly what parsing the frame gives, up to key order. A network adapter ignores it;
   * an in-process one (the simulator's) may hand it to the client to skip the parse, and may ask
   * for no frame text at all (`opts.decodedOnly`).
   */
  start(write: ChunkWriter, end: () => void, opts?: StreamStartOptions): void;
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
  /**
   * A JSON body's value, for in-process clients: exactly what parsing `body` gives (up to key
   * order), set only where the server knows that to hold (objects it stored and lists of them).
   * Shared with the server and other clients: read-only.
   */
  object?: unknown;
}
