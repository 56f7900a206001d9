import { RESOURCES, type ResourceInfo, type SubresourceInfo } from './resources.ts';
import { StatusError } from '../machinery/status.ts';

/**
 * What a request path addresses, after Kubernetes' RequestInfo: a resource request
 * (`/api/v1/namespaces/ns/pods/name/status`) or a non-resource path (`/healthz`).
 */
export type RequestInfo =
  | {
      readonly isResource: true;
      /** get, list, watch, create, update, patch, delete, deletecollection. */
      readonly verb: string;
      readonly group: string;
      readonly version: string;
      readonly resource: ResourceInfo;
      readonly namespace: string;
      readonly name: string;
      readonly subresource?: SubresourceInfo;
    }
  | { readonly isResource: false; readonly path: string };

const byGroupVersionResource = new Map<string, ResourceInfo>();
const groupVersions = new Set<string>();
for (const r of RESOURCES) {
  byGroupVersionResource.set(`${r.group}/${r.version}/${r.resource}`, r);
  groupVersions.add(`${r.group}/${r.version}`);
}

/** The resource of a group/version/plural, if served. */
export function lookupResource(group: string, version: string, resource: string): ResourceInfo | undefined {
  return byGroupVersionResource.get(`${group}/${version}/${resource}`);
}

/** True if the group version is served. */
export function isServedGroupVersion(group: string, version: string): boolean {
  return groupVersions.has(`${group}/${version}`);
}

function notFoundPath(path: string): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', { causes: [{ reason: 'UnexpectedServerResponse', message: `404 page not found: ${path}` }] });
}

/**
 * Parses a path and method into a RequestInfo. Throws 404 for unknown group versions, resources
 * and subresources, 405 for a method the resource does not support.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path.split('/').filter((p) => p !== '');
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return { isResource: false, path };
  }
  if (rest.length === 0) return { isResource: false, path };
  if (!isServedGroupVersion(group, version)) throw notFoundPath(path);
  try {
    rest = rest.map(decodeURIComponent);
  } catch {
    throw new StatusError(400, 'BadRequest', `invalid escape sequence in the request path: ${path}`);
  }

  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  // GET /api/v1/namespaces/{name}[/{subresource}] addresses the namespace itself.
  if (namespace && rest.length >= 1 && !lookupResource(group, version, rest[0]) && group === '') {
    rest = ['namespaces', namespace, ...rest];
    namespace = '';
  }
  const resource = lookupResource(group, version, rest[0]);
  if (!resource) throw notFoundPath(path);
  if (rest.length > 3) throw notFoundPath(path);
  if (resource.resource === 'namespaces' && rest.length >= 2) {
    namespace = '';
  } else if (resource.namespaced === false && namespace) {
    throw notFoundPath(path);
  }
  const name = rest[1] ?? '';
  let subresource: SubresourceInfo | undefined;
  if (rest.length === 3) {
    subresource = resource.subresources.find((s) => s.name === rest[2]);
    if (!subresource) throw notFoundPath(path);
  }

  const m = method.toUpperCase();
  let verb: string;
  const isWatch = query.get('watch') === 'true' || query.get('watch') === '1';
  if (name === '') {
    if (m === 'GET') verb = isWatch ? 'watch' : 'list';
    else if (m === 'POST') verb = 'create';
    else if (m === 'DELETE') verb = 'deletecollection';
    else verb = '';
  } else if (subresource && (subresource.name === 'binding' || subresource.name === 'eviction')) {
    verb = m === 'POST' ? 'create' : '';
  } else {
    if (m === 'GET') verb = isWatch ? 'watch' : 'get';
    else if (m === 'PUT') verb = 'update';
    else if (m === 'PATCH') verb = 'patch';
    else if (m === 'DELETE') verb = 'delete';
    else verb = '';
  }
  const allowed = subresource ? subresource.verbs : resource.verbs;
  if (!verb || !allowed.includes(verb)) {
    throw new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  }
  return { isResource: true, verb, group, version, resource, namespace, name, subresource };
}
