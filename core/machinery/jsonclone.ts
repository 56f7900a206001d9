/**
 * A deep copy of a JSON value with exactly the result of `JSON.parse(JSON.stringify(value))`
 * for plain data (objects, arrays, strings, finite numbers, booleans, null), without the text in
 * between: members whose value is undefined, a function or a symbol are left out, such array
 * elements become null, non-finite numbers become null and -0 becomes 0. Anything else (a
 * `toJSON` method, a class instance, a Map) is copied through JSON itself, so the guarantee holds
 * for every input; a cycle or a BigInt throws as JSON.stringify does.
 *
 * Arrays `keep` accepts are not copied: the copy holds them as they are. The caller vouches that
 * they are JSON data that nobody changes (an API server's own shared objects, see
 * `Transport.isShared`); the result then equals the JSON round trip except in identity.
 */
export function jsonClone<T>(value: T, keep?: (array: readonly unknown[]) => boolean): T {
  return cloneValue(value, 0, keep) as T;
}

const MAX_DEPTH = 1000;

function viaJson(v: unknown): unknown {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : JSON.parse(text);
}

function cloneValue(v: unknown, depth: number, keep: ((array: readonly unknown[]) => boolean) | undefined): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'object':
      break;
    default:
      return viaJson(v);
  }
  if (v === null) return null;
  // NOTE: past this depth (a cycle, most likely) JSON decides, and throws what it throws.
  if (depth > MAX_DEPTH) return viaJson(v);
  if (Array.isArray(v)) {
    if (keep !== undefined && keep(v)) return v;
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      const t = typeof e;
      out[i] = e === undefined || t === 'function' || t === 'symbol' ? null : cloneValue(e, depth + 1, keep);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') return viaJson(v);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const e = (v as Record<string, unknown>)[k];
    const t = typeof e;
    if (e === undefined || t === 'function' || t === 'symbol') continue;
    out[k] = cloneValue(e, depth + 1, keep);
  }
  return out;
}
