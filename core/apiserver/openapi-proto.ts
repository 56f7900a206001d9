import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import YAML from 'yaml';
import { K8S_API_DIR } from './typemodel.ts';

/**
 * The gnostic `openapi.v2.Document` protobuf encoding of a swagger 2.0 document — the body of
 * `GET /openapi/v2` with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`,
 * which kubectl ≤ 1.32 parses for `apply`, `create -f` and `explain`.
 *
 * Mapping (as gnostic's compiler does it): JSON keys become snake_case fields (`$ref` → `_ref`);
 * `x-…` keys become `vendor_extension` entries (`NamedAny` whose `Any.yaml` holds the value);
 * JSON maps become `additional_properties` lists of `Named…` pairs; `default`, `example` and
 * `enum` values become `Any`; the sum types (`type`, `items`, `additionalProperties`,
 * parameters by `in`, responses, `$ref` or inline, security schemes by `type`) pick their oneof arm.
 */

type Json = any;

let rootMemo: protobuf.Root | undefined;

function root(): protobuf.Root {
  if (!rootMemo) {
    const json = JSON.parse(readFileSync(new URL('openapi-v2.proto.json', K8S_API_DIR), 'utf8'));
    rootMemo = protobuf.Root.fromJSON(json);
    rootMemo.resolveAll();
  }
  return rootMemo;
}

function gnosticType(name: string): protobuf.Type {
  return root().lookupType(`openapi.v2.${name}`);
}

/** The gnostic message types that stand for a JSON map: one repeated `additional_properties` of `Named…` pairs. */
function namedValueType(t: protobuf.Type): protobuf.Field | undefined {
  const ap = t.fields.additional_properties;
  if (!ap || t.fieldsArray.length !== 1 || !ap.repeated) return undefined;
  const named = ap.resolve().resolvedType as protobuf.Type;
  return named.fields.value.resolve();
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function camel(field: string): string {
  return field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function namedAny(entries: [string, Json][]): Json[] {
  return entries.map(([name, value]) => ({ name, value: { yaml: JSON.stringify(value) } }));
}

function splitExtensions(json: Json): { plain: [string, Json][]; ext: [string, Json][] } {
  const plain: [string, Json][] = [];
  const ext: [string, Json][] = [];
  for (const [k, v] of Object.entries(json)) {
    if (v === undefined) continue;
    (k.startsWith('x-') ? ext : plain).push([k, v]);
  }
  return { plain, ext };
}

const NON_BODY_ARM: Record<string, [string, string]> = {
  header: ['header_parameter_sub_schema', 'HeaderParameterSubSchema'],
  formData: ['form_data_parameter_sub_schema', 'FormDataParameterSubSchema'],
  query: ['query_parameter_sub_schema', 'QueryParameterSubSchema'],
  path: ['path_parameter_sub_schema', 'PathParameterSubSchema'],
};

const SECURITY_ARM: Record<string, [string, string]> = {
  basic: ['basic_authentication_security', 'BasicAuthenticationSecurity'],
  apiKey: ['api_key_security', 'ApiKeySecurity'],
  'oauth2:implicit': ['oauth2_implicit_security', 'Oauth2ImplicitSecurity'],
  'oauth2:password': ['oauth2_password_security', 'Oauth2PasswordSecurity'],
  'oauth2:application': ['oauth2_application_security', 'Oauth2ApplicationSecurity'],
  'oauth2:accessCode': ['oauth2_access_code_security', 'Oauth2AccessCodeSecurity'],
};

function jsonReference(json: Json): Json {
  const out: Json = { _ref: json.$ref };
  if (json.description !== undefined) out.description = json.description;
  return out;
}

/** JSON (swagger 2.0) → plain object of gnostic message `typeName`. */
function toGnostic(typeName: string, json: Json, where: string): Json {
  switch (typeName) {
    case 'Any':
      return { yaml: JSON.stringify(json) };
    case 'TypeItem':
      return { value: Array.isArray(json) ? json : [json] };
    case 'ItemsItem':
      return { schema: (Array.isArray(json) ? json : [json]).map((s, i) => toGnostic('Schema', s, `${where}[${i}]`)) };
    case 'AdditionalPropertiesItem':
      return typeof json === 'boolean' ? { boolean: json } : { schema: toGnostic('Schema', json, where) };
    case 'StringArray':
      return { value: [...json] };
    case 'Paths':
    case 'Responses': {
      const { plain, ext } = splitExtensions(json);
      const [field, valueType] = typeName === 'Paths' ? ['path', 'PathItem'] : ['response_code', 'ResponseValue'];
      const out: Json = { [field]: plain.map(([name, v]) => ({ name, value: toGnostic(valueType, v, `${where}.${name}`) })) };
      if (ext.length) out.vendor_extension = namedAny(ext);
      return out;
    }
    case 'ResponseValue':
      return json.$ref !== undefined ? { json_reference: jsonReference(json) } : { response: toGnostic('Response', json, where) };
    case 'ParametersItem':
      return json.$ref !== undefined ? { json_reference: jsonReference(json) } : { parameter: toGnostic('Parameter', json, where) };
    case 'Parameter':
      return json.in === 'body' ? { body_parameter: toGnostic('BodyParameter', json, where) } : { non_body_parameter: toGnostic('NonBodyParameter', json, where) };
    case 'NonBodyParameter': {
      const arm = NON_BODY_ARM[json.in];
      if (!arm) throw new Error(`${where}: parameter with unknown location ${JSON.stringify(json.in)}`);
      return { [arm[0]]: toGnostic(arm[1], json, where) };
    }
    case 'SchemaItem':
      return json.type === 'file' ? { file_schema: toGnostic('FileSchema', json, where) } : { schema: toGnostic('Schema', json, where) };
    case 'SecurityDefinitionsItem': {
      const arm = SECURITY_ARM[json.type === 'oauth2' ? `oauth2:${json.flow}` : json.type];
      if (!arm) throw new Error(`${where}: unknown security scheme type ${JSON.stringify(json.type)}`);
      return { [arm[0]]: toGnostic(arm[1], json, where) };
    }
  }
  const t = gnosticType(typeName);
  const mapValue = namedValueType(t);
  if (mapValue) {
    return {
      additional_properties: Object.entries(json).map(([name, v]) => ({ name, value: convertValue(mapValue, v, `${where}.${name}`) })),
    };
  }
  const { plain, ext } = splitExtensions(json);
  const out: Json = {};
  for (const [k, v] of plain) {
    const fieldName = k === '$ref' ? '_ref' : snake(k);
    const field = t.fields[fieldName];
    if (!field) throw new Error(`${where}: ${typeName} has no field for key ${JSON.stringify(k)}`);
    field.resolve();
    out[fieldName] = field.repeated ? (v as Json[]).map((e, i) => convertValue(field, e, `${where}.${k}[${i}]`)) : convertValue(field, v, `${where}.${k}`);
  }
  if (ext.length) {
    if (!t.fields.vendor_extension) throw new Error(`${where}: ${typeName} takes no vendor extensions`);
    out.vendor_extension = namedAny(ext);
  }
  return out;
}

function convertValue(field: protobuf.Field, v: Json, where: string): Json {
  return field.resolvedType instanceof protobuf.Type ? toGnostic(field.resolvedType.name, v, where) : v;
}

/**
 * Encodes a swagger 2.0 document (plain JSON) as gnostic's `openapi.v2.Document`. Throws on keys
 * the gnostic schema has no place for, so a malformed document fails loudly instead of silently
 * losing fields.
 */
export function encodeOpenAPIv2Protobuf(doc: object): Buffer {
  const Document = gnosticType('Document');
  const plain = toGnostic('Document', doc, '$');
  const message = Document.fromObject(plain);
  return Buffer.from(Document.encode(message).finish());
}

function parseAny(any: Json): Json {
  if (!any || any.yaml === undefined) return undefined;
  return YAML.parse(any.yaml);
}

function fromExtensions(list: Json[] | undefined, out: Json): void {
  for (const e of list ?? []) out[e.name] = parseAny(e.value);
}

/** Plain gnostic object of `typeName` → JSON (swagger 2.0). */
function fromGnostic(typeName: string, obj: Json): Json {
  switch (typeName) {
    case 'Any':
      return parseAny(obj);
    case 'TypeItem':
      return obj.value?.length === 1 ? obj.value[0] : (obj.value ?? []);
    case 'ItemsItem': {
      const list = (obj.schema ?? []).map((s: Json) => fromGnostic('Schema', s));
      return list.length === 1 ? list[0] : list;
    }
    case 'AdditionalPropertiesItem':
      return obj.boolean !== undefined ? obj.boolean : fromGnostic('Schema', obj.schema ?? {});
    case 'StringArray':
      return obj.value ?? [];
    case 'Paths':
    case 'Responses': {
      const [field, valueType] = typeName === 'Paths' ? ['path', 'PathItem'] : ['response_code', 'ResponseValue'];
      const out: Json = {};
      for (const n of obj[field] ?? []) out[n.name] = fromGnostic(valueType, n.value ?? {});
      fromExtensions(obj.vendor_extension, out);
      return out;
    }
    case 'ResponseValue':
    case 'ParametersItem':
      if (obj.json_reference) {
        const out: Json = { $ref: obj.json_reference._ref ?? '' };
        if (obj.json_reference.description !== undefined) out.description = obj.json_reference.description;
        return out;
      }
      return typeName === 'ResponseValue' ? fromGnostic('Response', obj.response ?? {}) : fromGnostic('Parameter', obj.parameter ?? {});
    case 'Parameter':
      return obj.body_parameter ? fromGnostic('BodyParameter', obj.body_parameter) : fromGnostic('NonBodyParameter', obj.non_body_parameter ?? {});
    case 'NonBodyParameter':
    case 'SecurityDefinitionsItem': {
      const arms = typeName === 'NonBodyParameter' ? NON_BODY_ARM : SECURITY_ARM;
      for (const [field, type] of Object.values(arms)) if (obj[field]) return fromGnostic(type, obj[field]);
      return {};
    }
    case 'SchemaItem':
      return obj.file_schema ? fromGnostic('FileSchema', obj.file_schema) : fromGnostic('Schema', obj.schema ?? {});
  }
  const t = gnosticType(typeName);
  const mapValue = namedValueType(t);
  if (mapValue) {
    const out: Json = {};
    for (const n of obj.additional_properties ?? []) out[n.name] = backValue(mapValue, n.value);
    return out;
  }
  const out: Json = {};
  for (const field of t.fieldsArray) {
    if (field.name === 'vendor_extension') continue;
    const v = obj[field.name];
    if (v === undefined) continue;
    field.resolve();
    out[field.name === '_ref' ? '$ref' : camel(field.name)] = field.repeated ? (v as Json[]).map((e) => backValue(field, e)) : backValue(field, v);
  }
  fromExtensions(obj.vendor_extension, out);
  return out;
}

function backValue(field: protobuf.Field, v: Json): Json {
  if (field.resolvedType instanceof protobuf.Type) return fromGnostic(field.resolvedType.name, v ?? {});
  if (v === undefined) return field.type === 'string' ? '' : v;
  return v;
}

/**
 * Decodes gnostic `openapi.v2.Document` bytes back to a swagger 2.0 JSON document (the inverse
 * of {@link encodeOpenAPIv2Protobuf}: a document built by this module decodes to an equal object).
 */
export function decodeOpenAPIv2Protobuf(bytes: Uint8Array): object {
  const Document = gnosticType('Document');
  const plain = Document.toObject(Document.decode(bytes), { longs: Number, bytes: String, defaults: false, arrays: false, objects: false, oneofs: false });
  return fromGnostic('Document', plain);
}
