/**
 * Small non-cryptographic hashes for deterministic spreading (jitter offsets, name suffixes).
 */

/** The 32-bit FNV-1a hash of a string's UTF-16 code units: the same input always gives the same unsigned integer. */
export function fnv32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
