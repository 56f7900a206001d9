/**
 * Structural equality of JSON values (objects, arrays, strings, numbers, booleans, null).
 * Key order does not matter; `undefined` members count as absent, as in JSON.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** deepEqual over the members of two objects, ignoring the keys in `except`. */
export function deepEqualExcept(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined, except: ReadonlySet<string>): boolean {
  const ao = a ?? {};
  const bo = b ?? {};
  for (const k in ao) if (!except.has(k) && !deepEqual(ao[k], bo[k])) return false;
  for (const k in bo) if (!except.has(k) && ao[k] === undefined && bo[k] !== undefined) return false;
  return true;
}
