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

let lastMicroSecond = NaN;
let lastMicroPrefix = '';
const MILLIS = Array.from({ length: 1000 }, (_, i) => `.${String(i).padStart(3, '0')}000Z`);

/**
 * metav1.MicroTime: RFC 3339 in UTC with six fractional digits, e.g. `2006-01-02T15:04:05.120000Z`
 * (sub-millisecond digits are 0). The date and time of the last second formatted are remembered.
 */
export function formatMicroTime(ms: number): string {
  const whole = Math.floor(ms);
  const second = Math.floor(whole / 1000);
  // NOTE: years outside 0000–9999 print differently (±YYYYYY), so they take toISOString every time.
  if (second !== lastMicroSecond) {
    const iso = new Date(whole).toISOString();
    if (iso.length !== 24) return `${iso.slice(0, -5)}${MILLIS[whole - second * 1000]}`;
    lastMicroPrefix = iso.slice(0, 19);
    lastMicroSecond = second;
  }
  return `${lastMicroPrefix}${MILLIS[whole - second * 1000]}`;
}
