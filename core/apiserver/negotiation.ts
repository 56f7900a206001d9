import { StatusError } from '../machinery/status.ts';

/** The representations a response can take. */
export type Representation =
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'protobuf' }
  | { kind: 'table'; version: 'v1' | 'v1beta1' }
  | { kind: 'partial'; version: 'v1' | 'v1beta1' };

/** One entry of an Accept header. */
export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

/** Parses an Accept (or Content-Type) header into its media ranges, in the order given. */
export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i > 0) params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim().replace(/^"|"$/g, '');
    }
    out.push({ type: type.toLowerCase(), params });
  }
  return out.filter((m) => m.params.q !== '0');
}

/** Media types orrery can answer with, for 406 messages. */
export const SUPPORTED_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

/**
 * Chooses the response representation from Accept, honouring fallback lists in order:
 * Table and PartialObjectMetadata (meta.k8s.io v1/v1beta1) where `allowAs` permits them, JSON,
 * YAML, Protobuf (when `protobufOk`). Throws 406 NotAcceptable when nothing fits.
 */
export function negotiate(accept: string | undefined, opts: { allowAs: boolean; protobufOk: boolean }): Representation {
  // The common case of every Go and Node client, without parsing.
  if (accept === undefined || accept === 'application/json' || accept === '*/*') return { kind: 'json' };
  const ranges = parseMediaRanges(accept);
  if (ranges.length === 0) return { kind: 'json' };
  for (const r of ranges) {
    const as = r.params.as;
    if (as) {
      if (!opts.allowAs) continue;
      if (r.params.g !== 'meta.k8s.io' || (r.params.v !== 'v1' && r.params.v !== 'v1beta1')) continue;
      if (r.type !== 'application/json' && r.type !== 'application/yaml' && r.type !== '*/*') continue;
      if (as === 'Table') return { kind: 'table', version: r.params.v };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'partial', version: r.params.v };
      continue;
    }
    switch (r.type) {
      case 'application/json':
      case 'application/*':
      case '*/*':
      case '*':
        return { kind: 'json' };
      case 'application/yaml':
        return { kind: 'yaml' };
      case 'application/vnd.kubernetes.protobuf':
        if (opts.protobufOk) return { kind: 'protobuf' };
        continue;
      default:
        continue;
    }
  }
  throw new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${SUPPORTED_MEDIA_TYPES.join(', ')}`);
}

/** The body formats a request may carry. */
export type BodyFormat = 'json' | 'yaml' | 'protobuf' | 'merge-patch' | 'json-patch' | 'strategic-merge-patch' | 'apply-patch';

/** Classifies a Content-Type for a verb; throws 415 UnsupportedMediaType for anything else. */
export function bodyFormat(contentType: string | undefined, verb: string): BodyFormat {
  // NOTE: every write asks; the few content types clients send are remembered (errors are not).
  const memo = verb === 'patch' ? patchFormats : bodyFormats;
  const ct = contentType ?? '';
  let format = memo.get(ct);
  if (format === undefined) {
    format = parseBodyFormat(contentType, verb);
    if (memo.size >= 256) memo.clear();
    memo.set(ct, format);
  }
  return format;
}

const bodyFormats = new Map<string, BodyFormat>();
const patchFormats = new Map<string, BodyFormat>();

function parseBodyFormat(contentType: string | undefined, verb: string): BodyFormat {
  const type = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (verb === 'patch') {
    switch (type) {
      case 'application/merge-patch+json':
        return 'merge-patch';
      case 'application/json-patch+json':
        return 'json-patch';
      case 'application/strategic-merge-patch+json':
        return 'strategic-merge-patch';
      case 'application/apply-patch+yaml':
        return 'apply-patch';
    }
    throw new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`);
  }
  switch (type) {
    case 'application/json':
    case '':
      return 'json';
    case 'application/yaml':
      return 'yaml';
    case 'application/vnd.kubernetes.protobuf':
      return 'protobuf';
  }
  throw new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
}
