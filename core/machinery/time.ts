/**
 * Kubernetes' time formats from milliseconds since the epoch (the injected clock's `now()`).
 */

let lastSecond = NaN;
let lastText = '';

/**
 * metav1.Time: RFC 3339 in UTC to the second, e.g. `2006-01-02T15:04:05Z` (the fraction is
 * dropped, as Kubernetes serializes it). The last second formatted is remembered, since a busy
 * control plane formats the same second many times.
 */
export function formatTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    lastSecond = second;
  }
  return lastText;
}

/** metav1.MicroTime: RFC 3339 in UTC with six fractional digits, e.g. `2006-01-02T15:04:05.120000Z` (sub-millisecond digits are 0). */
export function formatMicroTime(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}
