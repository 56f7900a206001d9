/**
 * Go duration strings (`time.ParseDuration` / `Duration.String`), the form Kubernetes component
 * configurations use for `metav1.Duration` fields: `1m30s`, `20s`, `500ms`, `2h45m`, `1.5h`, `0`.
 */

/** A string that is not a Go duration; `message` follows Go's wording. */
export class DurationParseError extends Error {
  readonly code = 'DURATION_PARSE';
  constructor(message: string) {
    super(message);
    this.name = 'DurationParseError';
  }
}

const UNIT_NANOS = new Map<string, bigint>([
  ['ns', 1n],
  ['us', 1_000n],
  ['µs', 1_000n],
  ['μs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const MAX_INT64 = 2n ** 63n - 1n;
const TERM = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/;

/**
 * Parses a Go duration into whole nanoseconds, exactly as `time.ParseDuration` does: an optional
 * sign, then one or more decimal numbers each with a unit (ns, us, µs, ms, s, m, h); a bare `0`
 * is allowed. Fractions below a nanosecond are truncated; values beyond int64 are refused.
 */
export function parseDurationNanos(input: string): bigint {
  const invalid = () => new DurationParseError(`time: invalid duration ${JSON.stringify(input)}`);
  let s = input;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    const m = TERM.exec(s);
    if (!m) throw invalid();
    const [whole, intPart = '', fracPart = '', unit = ''] = m;
    if (intPart === '' && fracPart === '') throw invalid();
    const scale = UNIT_NANOS.get(unit);
    if (scale === undefined) {
      if (unit === '') throw new DurationParseError(`time: missing unit in duration ${JSON.stringify(input)}`);
      throw new DurationParseError(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(input)}`);
    }
    let term = BigInt(intPart || '0') * scale;
    if (fracPart !== '') term += (BigInt(fracPart) * scale) / 10n ** BigInt(fracPart.length);
    total += term;
    if (total > MAX_INT64 + (negative ? 1n : 0n)) throw invalid();
    s = s.slice(whole.length);
  }
  return negative ? -total : total;
}

/** Parses a Go duration into milliseconds (fractional below 1 ms); see {@link parseDurationNanos}. */
export function parseDuration(input: string): number {
  return Number(parseDurationNanos(input)) / 1e6;
}

function fraction(v: bigint, digits: number): string {
  const p = 10n ** BigInt(digits);
  const whole = v / p;
  const frac = (v % p).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/**
 * Formats nanoseconds as Go's `Duration.String`: `0s`; below a second in the largest fitting
 * unit (`500ms`, `1.5µs`, `20ns`); otherwise hours, minutes and seconds (`1h0m0s`, `1m30s`, `2.5s`).
 */
export function formatDurationNanos(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const v = nanos < 0n ? -nanos : nanos;
  if (v < 1_000n) return `${sign}${v}ns`;
  if (v < 1_000_000n) return `${sign}${fraction(v, 3)}µs`;
  if (v < 1_000_000_000n) return `${sign}${fraction(v, 6)}ms`;
  const hours = v / 3_600_000_000_000n;
  const minutes = (v / 60_000_000_000n) % 60n;
  const seconds = fraction(v % 60_000_000_000n, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Formats milliseconds as Go's `Duration.String` (rounded to whole nanoseconds). */
export function formatDuration(ms: number): string {
  return formatDurationNanos(BigInt(Math.round(ms * 1e6)));
}
