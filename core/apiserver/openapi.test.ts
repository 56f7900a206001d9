import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import YAML from 'yaml';
import {
  buildOpenAPIv2,
  buildOpenAPIv3,
  buildOpenAPIv3Index,
  definitionName,
  groupVersionPath,
  openAPIv2Json,
  openAPIv2Protobuf,
  openAPIv3Json,
  serveOpenAPI,
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
  type JsonObject,
} from './openapi.ts';
import { decodeOpenAPIv2Protobuf, encodeOpenAPIv2Protobuf } from './openapi-proto.ts';
import { RESOURCES, servedGroupVersions } from './resources.ts';
import { K8S_API_DIR, messageNameForKind, typeModel } from './typemodel.ts';
import type { ApiRequest } from './types.ts';

const v2 = buildOpenAPIv2();
const defs: JsonObject = v2.definitions;

function defOf(group: string, version: string, kind: string): JsonObject {
  const name = definitionName(messageNameForKind(group, version, kind));
  assert.ok(defs[name], `definition ${name}`);
  return defs[name];
}

/** Every `$ref` in a JSON value, with the JSON path where it sits. */
function refs(value: unknown, at = '$', out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((v, i) => refs(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref') out.push([at, v as string]);
      else refs(v, `${at}.${k}`, out);
    }
  }
  return out;
}

/** Every schema object inside a definition (the definition, properties, items, additionalProperties, allOf). */
function schemas(s: JsonObject, at: string, out: [string, JsonObject][] = []): [string, JsonObject][] {
  out.push([at, s]);
  for (const [k, p] of Object.entries(s.properties ?? {})) schemas(p as JsonObject, `${at}.${k}`, out);
  if (s.items) schemas(s.items, `${at}[]`, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') schemas(s.additionalProperties, `${at}{}`, out);
  for (const [i, a] of (s.allOf ?? []).entries()) schemas(a, `${at}.allOf[${i}]`, out);
  return out;
}

/** Where two JSON values first differ (a JSON path), or undefined when equal; cheap on large documents. */
function firstDifference(a: unknown, b: unknown, at = '$'): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${at}: ${JSON.stringify(a)?.slice(0, 200)} !== ${JSON.stringify(b)?.slice(0, 200)}`;
  }
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join('\0') !== kb.join('\0')) return `${at}: keys [${ka.join(', ')}] !== [${kb.join(', ')}]`;
  for (const k of ka) {
    const d = firstDifference((a as JsonObject)[k], (b as JsonObject)[k], `${at}.${k}`);
    if (d) return d;
  }
  return undefined;
}

function op(path: string, method: string): JsonObject {
  const item = v2.paths[path];
  assert.ok(item, `path ${path}`);
  assert.ok(item[method], `${method.toUpperCase()} ${path}`);
  return item[method];
}

/** The names of an operation's parameters, path-level ones included. */
function paramNames(path: string, method: string): string[] {
  return [...(v2.paths[path].parameters ?? []), ...(op(path, method).parameters ?? [])].map((p: JsonObject) => p.name);
}

describe('OpenAPI v2 definitions', () => {
  it('has the Kubernetes title and version', () => {
    assert.equal(v2.swagger, '2.0');
    assert.deepEqual(v2.info, { title: 'Kubernetes', version: 'v1.27.0' });
  });

  it('gives every served kind, its list and its subresource kinds a definition with their group-version-kind', () => {
    for (const r of RESOURCES) {
      const expectKind = (group: string, version: string, kind: string) => {
        const gvks = defOf(group, version, kind)['x-kubernetes-group-version-kind'];
        assert.ok(Array.isArray(gvks), `${kind} has x-kubernetes-group-version-kind`);
        assert.ok(gvks.some((g: JsonObject) => g.group === group && g.version === version && g.kind === kind), `${group}/${version} ${kind} in ${JSON.stringify(gvks)}`);
      };
      expectKind(r.group, r.version, r.kind);
      if (typeModel().has(messageNameForKind(r.group, r.version, r.listKind))) expectKind(r.group, r.version, r.listKind);
      for (const s of r.subresources) expectKind(s.group ?? r.group, s.version ?? r.version, s.kind);
    }
    assert.deepEqual(defs['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
    assert.deepEqual(defs['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind'], [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
    assert.deepEqual(defs['io.k8s.api.events.v1.Event']['x-kubernetes-group-version-kind'], [{ group: 'events.k8s.io', kind: 'Event', version: 'v1' }]);
  });

  it('publishes the meta kinds, DeleteOptions and WatchEvent for every served group version', () => {
    for (const kind of ['Status', 'DeleteOptions', 'WatchEvent', 'Patch', 'ObjectMeta', 'ListMeta']) {
      assert.ok(defs[`io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`], kind);
    }
    for (const kind of ['DeleteOptions', 'WatchEvent']) {
      const gvks: JsonObject[] = defs[`io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`]['x-kubernetes-group-version-kind'];
      for (const { group, version } of servedGroupVersions()) {
        assert.ok(gvks.some((g) => g.group === group && g.version === version && g.kind === kind), `${kind} for ${group}/${version}`);
      }
    }
    assert.deepEqual(defs['io.k8s.apimachinery.pkg.apis.meta.v1.Status']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Status', version: 'v1' }]);
    assert.equal(defs['io.k8s.api.core.v1.PodSpec']['x-kubernetes-group-version-kind'], undefined);
  });

  it('resolves every $ref to a definition', () => {
    const all = refs(v2);
    assert.ok(all.length > 1000, "all.length > 1000");
    for (const [at, ref] of all) {
      assert.match(ref, /^#\/definitions\//, at);
      assert.ok(defs[ref.slice('#/definitions/'.length)], `${at} → ${ref}`);
    }
  });

  it('keeps the shapes kube-openapi parses: no $ref beside a type, arrays with one items schema, typed definitions', () => {
    for (const [name, def] of Object.entries(defs)) {
      assert.ok(typeof def.type === 'string', `${name} has a type`);
      for (const [at, s] of schemas(def as JsonObject, name)) {
        if (s.$ref) assert.equal(s.type, undefined, `${at}: $ref with a type`);
        if (s.type === 'array') assert.ok(s.items && !Array.isArray(s.items), `${at}: array without one items schema`);
        if (!s.$ref) assert.ok(['string', 'integer', 'number', 'boolean', 'object', 'array'].includes(s.type), `${at}: type ${s.type}`);
        assert.equal(s.allOf, undefined, `${at}: allOf has no place in v2`);
      }
    }
  });

  it('carries strategic merge metadata: Pod spec.containers merge by name', () => {
    const pod = defs['io.k8s.api.core.v1.Pod'];
    assert.equal(pod.properties.spec.$ref, '#/definitions/io.k8s.api.core.v1.PodSpec');
    const containers = defs['io.k8s.api.core.v1.PodSpec'].properties.containers;
    assert.equal(containers.type, 'array');
    assert.equal(containers.items.$ref, '#/definitions/io.k8s.api.core.v1.Container');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    const ports = defs['io.k8s.api.core.v1.Container'].properties.ports;
    assert.equal(ports['x-kubernetes-patch-merge-key'], 'containerPort');
    assert.equal(ports['x-kubernetes-list-type'], 'map');
    assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
    assert.equal(defs['io.k8s.api.core.v1.Container'].properties.image['x-kubernetes-patch-strategy'], undefined);
    assert.equal(defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
  });

  it('marks required fields where Kubernetes does, and only fields that exist', () => {
    assert.deepEqual(defs['io.k8s.api.core.v1.Container'].required, ['name']);
    assert.deepEqual(defs['io.k8s.api.core.v1.PodSpec'].required, ['containers']);
    assert.deepEqual(defs['io.k8s.api.apps.v1.DeploymentSpec'].required, ['selector', 'template']);
    assert.deepEqual(defs['io.k8s.api.core.v1.PodList'].required, ['items']);
    assert.equal(defs['io.k8s.api.core.v1.Pod'].required, undefined);
    for (const [name, def] of Object.entries(defs)) {
      for (const field of (def as JsonObject).required ?? []) assert.ok((def as JsonObject).properties?.[field], `${name}.required names ${field}, which it lacks`);
    }
  });

  it('publishes the JSON shapes of special types, inlined structs and string-list wrappers', () => {
    assert.deepEqual(
      { type: defs['io.k8s.apimachinery.pkg.apis.meta.v1.Time'].type, format: defs['io.k8s.apimachinery.pkg.apis.meta.v1.Time'].format },
      { type: 'string', format: 'date-time' },
    );
    assert.equal(defs['io.k8s.apimachinery.pkg.api.resource.Quantity'].type, 'string');
    assert.equal(defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].format, 'int-or-string');
    const meta = defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
    assert.equal(meta.creationTimestamp.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time');
    assert.deepEqual(meta.labels.additionalProperties, { type: 'string' });
    const limits = defs['io.k8s.api.core.v1.ResourceRequirements'].properties.limits;
    assert.equal(limits.additionalProperties.$ref, '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity');
    // Volume inlines VolumeSource, Probe inlines its handler: no wrapper property, no wrapper definition.
    const volume = defs['io.k8s.api.core.v1.Volume'].properties;
    assert.ok(volume.emptyDir && volume.configMap && volume.name, "volume.emptyDir && volume.configMap && volume.name");
    assert.equal(volume.volumeSource, undefined);
    assert.equal(defs['io.k8s.api.core.v1.VolumeSource'], undefined);
    assert.ok(defs['io.k8s.api.core.v1.Probe'].properties.httpGet, "defs['io.k8s.api.core.v1.Probe'].properties.httpGet");
    // map[string]ExtraValue is a map of string lists in JSON.
    assert.deepEqual(defs['io.k8s.api.authorization.v1.SubjectAccessReviewSpec'].properties.extra.additionalProperties, { type: 'array', items: { type: 'string' } });
    assert.equal(defs['io.k8s.api.authorization.v1.ExtraValue'], undefined);
    assert.deepEqual(defs['io.k8s.api.core.v1.ContainerPort'].properties.containerPort.format, 'int32');
  });

  it('describes every definition and property', () => {
    for (const [name, def] of Object.entries(defs)) {
      assert.ok((def as JsonObject).description, name);
      for (const [field, p] of Object.entries((def as JsonObject).properties ?? {})) assert.ok((p as JsonObject).description, `${name}.${field}`);
    }
    assert.match(defs['io.k8s.api.core.v1.PodSpec'].properties.containers.description, /Container/);
  });
});

describe('OpenAPI v2 paths', () => {
  const ACTION_OF: Record<string, [string, string]> = {
    list: ['get', 'list'],
    create: ['post', 'post'],
    deletecollection: ['delete', 'deletecollection'],
    get: ['get', 'get'],
    update: ['put', 'put'],
    patch: ['patch', 'patch'],
    delete: ['delete', 'delete'],
  };

  it('has an operation with the right action and kind for every served resource and verb', () => {
    for (const r of RESOURCES) {
      const base = `/${groupVersionPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}`;
      for (const verb of r.verbs) {
        if (verb === 'watch') continue;
        const [method, action] = ACTION_OF[verb];
        const path = ['list', 'create', 'deletecollection'].includes(verb) ? base : `${base}/{name}`;
        const o = op(path, method);
        assert.equal(o['x-kubernetes-action'], action, `${method} ${path}`);
        assert.deepEqual(o['x-kubernetes-group-version-kind'], { group: r.group, kind: r.kind, version: r.version }, `${method} ${path}`);
      }
      for (const s of r.subresources) {
        for (const verb of s.verbs) {
          const o = op(`${base}/{name}/${s.name}`, ACTION_OF[verb][0]);
          assert.equal(o['x-kubernetes-action'], ACTION_OF[verb][1]);
          assert.deepEqual(o['x-kubernetes-group-version-kind'], { group: s.group ?? r.group, kind: s.kind, version: s.version ?? r.version });
        }
      }
      if (r.verbs.includes('watch')) {
        assert.equal(op(`/${groupVersionPath(r.group, r.version)}/watch${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}`, 'get')['x-kubernetes-action'], 'watchlist');
        assert.equal(op(`/${groupVersionPath(r.group, r.version)}/watch${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}/{name}`, 'get')['x-kubernetes-action'], 'watch');
      }
    }
  });

  it('publishes no operation the resource table does not serve', () => {
    assert.equal(v2.paths['/api/v1/namespaces'].delete, undefined, 'namespaces have no deletecollection');
    assert.deepEqual(Object.keys(v2.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']).filter((k) => k !== 'parameters'), ['post']);
    assert.equal(v2.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/{name}'], undefined);
    assert.deepEqual(Object.keys(v2.paths['/api/v1/namespaces/{name}/finalize']).filter((k) => k !== 'parameters'), ['put']);
    assert.equal(v2.paths['/api/v1/nodes/{name}/status'].post, undefined);
  });

  it('scopes paths: namespaced ones take {namespace}, cluster-scoped ones do not, all-namespaces lists exist', () => {
    const nsParam = v2.paths['/api/v1/namespaces/{namespace}/pods'].parameters.find((p: JsonObject) => p.name === 'namespace');
    assert.deepEqual({ in: nsParam.in, required: nsParam.required, type: nsParam.type }, { in: 'path', required: true, type: 'string' });
    assert.ok(!paramNames('/api/v1/nodes', 'get').includes('namespace'), "!paramNames('/api/v1/nodes', 'get').includes('namespace')");
    assert.ok(paramNames('/api/v1/nodes/{name}', 'get').includes('name'), "paramNames('/api/v1/nodes/{name}', 'get').includes('name')");
    assert.equal(op('/api/v1/pods', 'get').operationId, 'listCoreV1PodForAllNamespaces');
    assert.equal(op('/apis/apps/v1/deployments', 'get')['x-kubernetes-action'], 'list');
    assert.equal(v2.paths['/api/v1/nodes/{name}'].parameters.some((p: JsonObject) => p.name === 'namespace'), false);
    assert.equal(op('/apis/rbac.authorization.k8s.io/v1/clusterroles', 'get').operationId, 'listRbacAuthorizationV1ClusterRole');
    assert.equal(op('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'patch').operationId, 'patchAppsV1NamespacedDeploymentScale');
  });

  it('lists the standard query parameters of each verb', () => {
    const listParams = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch', 'pretty'];
    for (const p of listParams) assert.ok(paramNames('/api/v1/namespaces/{namespace}/pods', 'get').includes(p), `list ${p}`);
    for (const p of ['dryRun', 'fieldManager', 'fieldValidation', 'body', 'pretty']) assert.ok(paramNames('/api/v1/namespaces/{namespace}/pods', 'post').includes(p), `create ${p}`);
    for (const p of ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'body']) assert.ok(paramNames('/apis/apps/v1/namespaces/{namespace}/deployments/{name}', 'patch').includes(p), `patch ${p}`);
    for (const p of ['dryRun', 'fieldManager', 'fieldValidation']) assert.ok(paramNames('/api/v1/nodes/{name}', 'put').includes(p), `update ${p}`);
    for (const p of ['dryRun', 'gracePeriodSeconds', 'propagationPolicy', 'orphanDependents']) assert.ok(paramNames('/api/v1/namespaces/{namespace}/pods/{name}', 'delete').includes(p), `delete ${p}`);
    for (const p of ['labelSelector', 'fieldSelector', 'gracePeriodSeconds', 'propagationPolicy', 'limit', 'continue']) {
      assert.ok(paramNames('/api/v1/namespaces/{namespace}/configmaps', 'delete').includes(p), `deletecollection ${p}`);
    }
    assert.ok(!paramNames('/api/v1/namespaces/{namespace}/pods/{name}', 'get').includes('watch'), "!paramNames('/api/v1/namespaces/{namespace}/pods/{name}', 'get').includes('watch')");
    const fv = op('/api/v1/namespaces/{namespace}/pods/{name}', 'patch').parameters.find((p: JsonObject) => p.name === 'fieldValidation');
    assert.deepEqual({ in: fv.in, type: fv.type }, { in: 'query', type: 'string' });
    const limit = op('/api/v1/namespaces/{namespace}/pods', 'get').parameters.find((p: JsonObject) => p.name === 'limit');
    assert.equal(limit.type, 'integer');
  });

  it('gives bodies and responses the right schemas and media types', () => {
    const create = op('/api/v1/namespaces/{namespace}/pods', 'post');
    assert.deepEqual(create.parameters.find((p: JsonObject) => p.in === 'body'), { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });
    assert.equal(create.responses['201'].schema.$ref, '#/definitions/io.k8s.api.core.v1.Pod');
    assert.equal(op('/api/v1/namespaces/{namespace}/pods', 'get').responses['200'].schema.$ref, '#/definitions/io.k8s.api.core.v1.PodList');
    const patch = op('/api/v1/namespaces/{namespace}/pods/{name}', 'patch');
    assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'), "patch.consumes.includes('application/strategic-merge-patch+json')");
    assert.ok(patch.consumes.includes('application/apply-patch+yaml'), "patch.consumes.includes('application/apply-patch+yaml')");
    assert.equal(patch.parameters.find((p: JsonObject) => p.in === 'body').schema.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    const binding = op('/api/v1/namespaces/{namespace}/pods/{name}/binding', 'post');
    assert.equal(binding.parameters.find((p: JsonObject) => p.in === 'body').schema.$ref, '#/definitions/io.k8s.api.core.v1.Binding');
    assert.equal(op('/api/v1/namespaces/{namespace}/pods/{name}/eviction', 'post').parameters.find((p: JsonObject) => p.in === 'body').schema.$ref, '#/definitions/io.k8s.api.policy.v1.Eviction');
    assert.equal(op('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'get').responses['200'].schema.$ref, '#/definitions/io.k8s.api.autoscaling.v1.Scale');
    assert.equal(op('/api/v1/watch/namespaces/{namespace}/pods', 'get').responses['200'].schema.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent');
    assert.ok(op('/api/v1/namespaces/{namespace}/pods', 'get').produces.includes('application/json;stream=watch'), "op('/api/v1/namespaces/{namespace}/pods', 'get').produces.includes('application/json;stream=watch')");
  });

  it('gives every operation a unique operationId', () => {
    const seen = new Set<string>();
    for (const item of Object.values(v2.paths)) {
      for (const [method, o] of Object.entries(item as JsonObject)) {
        if (method === 'parameters') continue;
        assert.ok(!seen.has(o.operationId), o.operationId);
        seen.add(o.operationId);
      }
    }
  });
});

describe('OpenAPI v2 protobuf (gnostic)', () => {
  const bytes = openAPIv2Protobuf();

  it('decodes back to the same document', () => {
    assert.equal(firstDifference(decodeOpenAPIv2Protobuf(bytes), JSON.parse(openAPIv2Json().toString())), undefined);
  });

  it('is the openapi.v2.Document message as protobufjs reads it from the descriptor', () => {
    const root = protobuf.Root.fromJSON(JSON.parse(readFileSync(new URL('openapi-v2.proto.json', K8S_API_DIR), 'utf8')));
    const Document = root.lookupType('openapi.v2.Document');
    const doc = Document.toObject(Document.decode(bytes), { longs: Number }) as JsonObject;
    assert.equal(doc.swagger, '2.0');
    assert.equal(doc.info.title, 'Kubernetes');
    const pod = doc.definitions.additional_properties.find((n: JsonObject) => n.name === 'io.k8s.api.core.v1.Pod').value;
    assert.deepEqual(pod.type.value, ['object']);
    const gvk = pod.vendor_extension.find((e: JsonObject) => e.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(YAML.parse(gvk.value.yaml), [{ group: '', kind: 'Pod', version: 'v1' }]);
    const podSpec = doc.definitions.additional_properties.find((n: JsonObject) => n.name === 'io.k8s.api.core.v1.PodSpec').value;
    const containers = podSpec.properties.additional_properties.find((n: JsonObject) => n.name === 'containers').value;
    assert.equal(containers.items.schema[0]._ref, '#/definitions/io.k8s.api.core.v1.Container');
    const ext = Object.fromEntries(containers.vendor_extension.map((e: JsonObject) => [e.name, YAML.parse(e.value.yaml)]));
    assert.deepEqual(ext, { 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' });
    assert.deepEqual(podSpec.required, ['containers']);
    const item = doc.paths.path.find((n: JsonObject) => n.name === '/api/v1/namespaces/{namespace}/pods/{name}').value;
    const patchParams = item.patch.parameters.map((p: JsonObject) => p.parameter?.non_body_parameter?.query_parameter_sub_schema?.name).filter(Boolean);
    assert.ok(patchParams.includes('fieldValidation'), "patchParams.includes('fieldValidation')");
    const body = item.patch.parameters.find((p: JsonObject) => p.parameter?.body_parameter).parameter.body_parameter;
    assert.equal(body.schema._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    const opGvk = item.patch.vendor_extension.find((e: JsonObject) => e.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(YAML.parse(opGvk.value.yaml), { group: '', kind: 'Pod', version: 'v1' });
    const nsParam = item.parameters.find((p: JsonObject) => p.parameter?.non_body_parameter?.path_parameter_sub_schema?.name === 'namespace');
    assert.equal(nsParam.parameter.non_body_parameter.path_parameter_sub_schema.required, true);
    assert.equal(item.get.responses.response_code.find((r: JsonObject) => r.name === '200').value.response.schema.schema._ref, '#/definitions/io.k8s.api.core.v1.Pod');
  });

  it('encodes the sum types of swagger and rejects keys gnostic has no place for', () => {
    const doc = {
      swagger: '2.0',
      info: { title: 't', version: '1' },
      paths: {
        '/x': {
          get: {
            parameters: [{ $ref: '#/parameters/p' }, { name: 'h', in: 'header', type: 'string' }],
            responses: { default: { $ref: '#/responses/r' }, '200': { description: 'file', schema: { type: 'file' } } },
          },
        },
      },
      definitions: {
        A: { type: ['string', 'null'], enum: ['a', 'b'], default: 'a', additionalProperties: false },
        B: { type: 'array', items: [{ type: 'string' }, { type: 'integer', maximum: 3 }] },
      },
      parameters: { p: { name: 'q', in: 'query', type: 'integer', default: 5 } },
      responses: { r: { description: 'ok' } },
      securityDefinitions: { basic: { type: 'basic' }, o: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'u', scopes: { read: 'r' } } },
    };
    assert.deepStrictEqual(decodeOpenAPIv2Protobuf(encodeOpenAPIv2Protobuf(doc)), doc);
    assert.throws(() => encodeOpenAPIv2Protobuf({ swagger: '2.0', definitions: { A: { type: 'object', nonsense: 1 } } }), /Schema has no field for key "nonsense"/);
  });
});

describe('OpenAPI v3', () => {
  const index = buildOpenAPIv3Index();

  it('lists every served group version with the hash of its document', () => {
    const expected = servedGroupVersions().map(({ group, version }) => groupVersionPath(group, version)).sort();
    assert.deepEqual(Object.keys(index.paths).sort(), expected);
    assert.ok(expected.includes('api/v1') && expected.includes('apis/apps/v1'), "expected.includes('api/v1') && expected.includes('apis/apps/v1')");
    for (const [gv, { serverRelativeURL }] of Object.entries(index.paths)) {
      const hash = createHash('sha512').update(openAPIv3Json(gv)!).digest('hex').toUpperCase();
      assert.equal(serverRelativeURL, `/openapi/v3/${gv}?hash=${hash}`);
    }
  });

  it('gives each group version its own paths and the components.schemas they reach, all refs resolving', () => {
    for (const gv of Object.keys(index.paths)) {
      const doc = buildOpenAPIv3(gv)!;
      assert.equal(doc.openapi, '3.0.0');
      const schemas = doc.components.schemas;
      assert.ok(Object.keys(schemas).length > 0, gv);
      for (const p of Object.keys(doc.paths)) assert.ok(p.startsWith(`/${gv}/`), `${p} in ${gv}`);
      for (const [at, ref] of refs(doc)) {
        assert.match(ref, /^#\/components\/schemas\//, at);
        assert.ok(schemas[ref.slice('#/components/schemas/'.length)], `${gv} ${at} → ${ref}`);
      }
    }
    assert.ok(buildOpenAPIv3('api/v1')!.components.schemas['io.k8s.api.core.v1.Pod'], "buildOpenAPIv3('api/v1')!.components.schemas['io.k8s.api.core.v1.Pod']");
    assert.equal(buildOpenAPIv3('api/v1')!.components.schemas['io.k8s.api.apps.v1.Deployment'], undefined);
    assert.ok(buildOpenAPIv3('apis/apps/v1')!.components.schemas['io.k8s.api.core.v1.PodSpec'], "buildOpenAPIv3('apis/apps/v1')!.components.schemas['io.k8s.api.core.v1.PodSpec']");
    assert.ok(buildOpenAPIv3('apis/apps/v1')!.components.schemas['io.k8s.api.autoscaling.v1.Scale'], "buildOpenAPIv3('apis/apps/v1')!.components.schemas['io.k8s.api.autoscaling.v1.Scale']");
    assert.equal(buildOpenAPIv3('apis/nope/v1'), undefined);
    assert.equal(openAPIv3Json('apis/nope/v1'), undefined);
  });

  it('wraps described refs in allOf and keeps merge metadata on the property', () => {
    const schemas = buildOpenAPIv3('api/v1')!.components.schemas;
    const pod = schemas['io.k8s.api.core.v1.Pod'];
    assert.deepEqual(pod['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
    assert.deepEqual(pod.properties.spec.allOf, [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }]);
    assert.ok(pod.properties.spec.description, "pod.properties.spec.description");
    const containers = schemas['io.k8s.api.core.v1.PodSpec'].properties.containers;
    assert.deepEqual(containers.items.allOf, [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }]);
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
  });

  it('describes operations as kubectl 1.33 expects: strategic merge request bodies and fieldValidation on PATCH', () => {
    const doc = buildOpenAPIv3('apis/apps/v1')!;
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.ok(patch.requestBody.content['application/strategic-merge-patch+json'], "patch.requestBody.content['application/strategic-merge-patch+json']");
    assert.equal(patch.requestBody.required, true);
    const fv = patch.parameters.find((p: JsonObject) => p.name === 'fieldValidation');
    assert.deepEqual({ in: fv.in, schema: fv.schema.type }, { in: 'query', schema: 'string' });
    const list = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].get;
    assert.equal(list.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/io.k8s.api.apps.v1.DeploymentList');
    assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].parameters.some((p: JsonObject) => p.name === 'namespace' && p.in === 'path' && p.required), "doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].parameters.some((p: JsonObject) => p.name === 'namespace' && p.in === 'path' && p.required)");
  });
});

describe('memoization and serving', () => {
  function get(path: string, accept?: string, extra: Record<string, string> = {}): ReturnType<typeof serveOpenAPI> {
    const [p, q] = path.split('?');
    const req: ApiRequest = { method: 'GET', path: p, query: new URLSearchParams(q ?? ''), headers: { accept, ...extra } };
    return serveOpenAPI(req);
  }

  it('builds and serializes each document once', () => {
    assert.equal(buildOpenAPIv2(), v2);
    assert.equal(openAPIv2Json(), openAPIv2Json());
    assert.equal(openAPIv2Protobuf(), openAPIv2Protobuf());
    assert.equal(buildOpenAPIv3('apis/apps/v1'), buildOpenAPIv3('/openapi/v3/apis/apps/v1'));
    assert.equal(openAPIv3Json('api/v1'), openAPIv3Json('api/v1'));
  });

  it('answers /openapi/v2 in the encoding Accept asks for, with a content type client-go can parse', () => {
    const pb = get('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf')!;
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], OPENAPI_V2_PROTOBUF_CONTENT_TYPE);
    assert.ok(!String(pb.headers['content-type']).includes('@'), "!String(pb.headers['content-type']).includes('@')");
    assert.equal(pb.body, openAPIv2Protobuf());
    const json = get('/openapi/v2', 'application/json')!;
    assert.equal(json.headers['content-type'], 'application/json');
    assert.equal(json.body, openAPIv2Json());
    assert.equal(get('/openapi/v2', undefined)!.body, openAPIv2Json());
    assert.equal(get('/swagger-2.0.0.pb-v1', 'application/json')!.body, openAPIv2Protobuf());
    assert.equal(get('/openapi/v2', 'text/html')!.status, 406);
    const etag = json.headers.etag as string;
    assert.equal(get('/openapi/v2', 'application/json', { 'if-none-match': etag })!.status, 304);
    assert.equal(get('/api/v1', 'application/json'), undefined);
  });

  it('answers /openapi/v3 and its documents, redirecting stale hashes', () => {
    const idx = get('/openapi/v3', 'application/json, */*')!;
    assert.equal(idx.status, 200);
    assert.deepEqual(JSON.parse(String(idx.body)), buildOpenAPIv3Index());
    const url = buildOpenAPIv3Index().paths['apis/apps/v1'].serverRelativeURL;
    const doc = get(url, 'application/json')!;
    assert.equal(doc.status, 200);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
    assert.equal(doc.body, openAPIv3Json('apis/apps/v1'));
    const stale = get('/openapi/v3/apis/apps/v1?hash=ABC', 'application/json')!;
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
    assert.equal(get('/openapi/v3/apis/nope/v1', 'application/json')!.status, 404);
    assert.equal(get('/openapi/v3/api/v1', 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf')!.status, 406);
  });
});
