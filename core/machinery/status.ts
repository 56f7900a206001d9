/**
 * Kubernetes `Status` errors. Inside orrery errors are typed ({@link StatusError}); at the edge
 * they become a `meta.k8s.io/v1 Status` object with the code and reason Kubernetes uses.
 */

/** The `reason` values of metav1.StatusReason that orrery produces. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'Expired'
  | 'InternalError'
  | 'ServiceUnavailable';

/** One entry of `details.causes`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** The `details` of a Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The wire form of a `Status` object. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

/** An error that carries the Status to return. Handlers throw it; the edge serializes it. */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details?: StatusDetails;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }

  /** The `Status` object for this error. */
  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    if (this.details && Object.keys(this.details).length > 0) s.details = this.details;
    return s;
  }
}

/** A group/resource pair naming what an error is about, e.g. `{group: 'apps', resource: 'deployments'}`. */
export interface GroupResource {
  group: string;
  resource: string;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** 404 NotFound: `pods "x" not found`. */
export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, { name, group: gr.group || undefined, kind: gr.resource });
}

/** 409 AlreadyExists: `pods "x" already exists`. */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, { name, group: gr.group || undefined, kind: gr.resource });
}

/** 409 Conflict, as Kubernetes words an optimistic-concurrency failure. */
export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`, { name, group: gr.group || undefined, kind: gr.resource });
}

/** 410 Gone (reason Expired for continue tokens, Gone otherwise). */
export function gone(message: string, reason: 'Gone' | 'Expired' = 'Gone'): StatusError {
  return new StatusError(410, reason, message);
}

/** 400 BadRequest. */
export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

/** 422 Invalid with one cause per field error, worded as Kubernetes words them. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): StatusError {
  const list = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : String(c.message)));
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${summary}`, {
    name,
    group: group || undefined,
    kind,
    causes,
  });
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(message = 'the server does not allow this method on the requested resource'): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

/** 504 Timeout for a resourceVersion the server has not reached, with Retry-After. */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): StatusError {
  return new StatusError(
    504,
    'Timeout',
    `Too large resource version: ${requested}, current: ${current}`,
    { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/** Converts anything thrown into a StatusError; unknown errors become 500 InternalError. */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
}
