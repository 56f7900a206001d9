/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource): `100m`, `1.5Gi`, `2e3`,
 * `128974848`. A {@link Quantity} holds the exact value as `unscaled × 10^scale` (BigInt), rounded
 * up to whole nano-units as Kubernetes rounds it, and prints in Kubernetes' canonical form
 * (`1500m` → `1500m`, `1.5k` → `1500`, `1536Mi` stays binary, `0.5Gi` → `512Mi`).
 */

/** How a quantity prints: decimal SI suffixes, binary (1024-based) suffixes, or `e<n>` exponents. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** Kubernetes' message for a string that is not a quantity. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** Kubernetes' message for an unknown suffix. */
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
/** Kubernetes' message for an unusable number. */
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';

/** A string that is not a quantity; `message` is Kubernetes' wording. */
export class QuantityParseError extends Error {
  readonly code = 'QUANTITY_PARSE';
  constructor(message: string) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

const SYNTAX = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/;

const DECIMAL_SUFFIXES = new Map<string, number>(Object.entries({ n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }));
const BINARY_SUFFIXES = new Map<string, number>(Object.entries({ Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 }));
const DECIMAL_BY_EXPONENT = new Map([...DECIMAL_SUFFIXES].map(([k, v]) => [v, k]));
const BINARY_BY_EXPONENT = new Map([...BINARY_SUFFIXES].map(([k, v]) => [v, k]));

/** The largest BinarySI magnitude Kubernetes keeps (2^63 - 1); larger binary values are capped. */
const MAX_BINARY = 2n ** 63n - 1n;
/** NOTE: exponents beyond this are refused (ErrNumeric) so a request cannot make us build huge BigInts. */
const MAX_EXPONENT = 100_000;
const NANO = -9;

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

function digitCount(v: bigint): number {
  return v === 0n ? 0 : abs(v).toString().length;
}

/** Divides by 10^shift, rounding away from zero (inf.RoundUp). */
function shiftDownRoundUp(v: bigint, shift: number): bigint {
  if (shift <= 0) return v * pow10(-shift);
  if (v === 0n) return 0n;
  if (shift > digitCount(v)) return v < 0n ? -1n : 1n;
  const d = pow10(shift);
  const q = v / d;
  if (q * d === v) return q;
  return v < 0n ? q - 1n : q + 1n;
}

/** A resource quantity with an exact value, a format, and Kubernetes' canonical string form. */
export class Quantity {
  /** Exact value = unscaled × 10^scale, with scale ≥ -9. */
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The value in base units (cores, bytes…) as a float; approximate beyond 2^53. */
  readonly value: number;
  /** The value in milli-units, rounded up (away from zero) to an integer; approximate beyond 2^53. */
  readonly milli: number;

  constructor(unscaled: bigint, scale: number, format: QuantityFormat = 'DecimalSI') {
    if (scale < NANO) {
      unscaled = shiftDownRoundUp(unscaled, NANO - scale);
      scale = NANO;
    }
    this.unscaled = unscaled;
    this.scale = scale;
    this.format = format;
    this.value = unscaled === 0n ? 0 : Number.parseFloat(`${unscaled}e${scale}`);
    this.milli = Number(this.scaledValue(-3));
  }

  /** Parses a quantity string (see {@link parseQuantity}). */
  static parse(s: string): Quantity {
    return parseQuantity(s);
  }

  /** `value` milli-units (resource.NewMilliQuantity). */
  static fromMilli(milli: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(milli), -3, format);
  }

  /** `value` whole base units (resource.NewQuantity). */
  static fromValue(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value), 0, format);
  }

  /** The value in units of 10^scale, rounded up away from zero (Quantity.ScaledValue). */
  scaledValue(scale: number): bigint {
    return shiftDownRoundUp(this.unscaled, scale - this.scale);
  }

  /** The value in base units rounded up away from zero (Quantity.Value). */
  valueInt(): bigint {
    return this.scaledValue(0);
  }

  /** The value in milli-units rounded up away from zero (Quantity.MilliValue). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** -1, 0 or 1. */
  sign(): number {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  /** true for zero. */
  isZero(): boolean {
    return this.unscaled === 0n;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  cmp(other: Quantity): number {
    const a = this.sign();
    const b = other.sign();
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    const orderA = digitCount(this.unscaled) + this.scale;
    const orderB = digitCount(other.unscaled) + other.scale;
    if (orderA !== orderB) return (orderA < orderB ? -1 : 1) * a;
    const s = Math.min(this.scale, other.scale);
    const x = this.unscaled * pow10(this.scale - s);
    const y = other.unscaled * pow10(other.scale - s);
    return x === y ? 0 : x < y ? -1 : 1;
  }

  /** this + other, in this quantity's format. */
  add(other: Quantity): Quantity {
    const s = Math.min(this.scale, other.scale);
    return new Quantity(this.unscaled * pow10(this.scale - s) + other.unscaled * pow10(other.scale - s), s, this.format);
  }

  /** this - other, in this quantity's format. */
  sub(other: Quantity): Quantity {
    return this.add(other.neg());
  }

  /** -this. */
  neg(): Quantity {
    return new Quantity(-this.unscaled, this.scale, this.format);
  }

  /** Kubernetes' canonical string form. */
  toString(): string {
    return formatQuantity(this);
  }

  /** Serializes as the canonical string, as Kubernetes does in JSON. */
  toJSON(): string {
    return formatQuantity(this);
  }
}

/**
 * Parses a Kubernetes quantity: an optional sign, digits with at most one '.', then a suffix —
 * none, a decimal SI one (n u m k M G T P E), a binary one (Ki Mi Gi Ti Pi Ei) or an exponent
 * (e3, E-2). Values are rounded up to whole nano-units; binary values are capped at 2^63-1. A
 * JSON number is accepted as its decimal text. Throws {@link QuantityParseError} with Kubernetes'
 * message.
 */
export function parseQuantity(input: string | number): Quantity {
  const s = typeof input === 'number' ? String(input) : input;
  if (s.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  const m = SYNTAX.exec(s);
  if (!m) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  const negative = m[1] === '-';
  const num = m[2] ?? '';
  const denom = m[3] ?? '';
  const suffix = m[4] ?? '';

  let format: QuantityFormat;
  let base: 2 | 10 = 10;
  let exponent: number;
  if (DECIMAL_SUFFIXES.has(suffix)) {
    format = 'DecimalSI';
    exponent = DECIMAL_SUFFIXES.get(suffix)!;
  } else if (BINARY_SUFFIXES.has(suffix)) {
    format = 'BinarySI';
    base = 2;
    exponent = BINARY_SUFFIXES.get(suffix)!;
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    format = 'DecimalExponent';
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > MAX_EXPONENT) throw new QuantityParseError(QUANTITY_NUMERIC_ERROR);
    exponent = e;
  } else {
    throw new QuantityParseError(QUANTITY_SUFFIX_ERROR);
  }

  let unscaled = BigInt(`${num}${denom}` || '0');
  let scale = -denom.length;
  if (negative) unscaled = -unscaled;
  if (base === 10) scale += exponent;
  else unscaled *= 2n ** BigInt(exponent);

  let q = new Quantity(unscaled, scale, format);
  if (format === 'BinarySI') {
    if (abs(q.unscaled) > MAX_BINARY * pow10(Math.max(0, -q.scale))) {
      q = new Quantity(negative ? -MAX_BINARY : MAX_BINARY, 0, format);
    }
    const one = new Quantity(1n, 0);
    const magnitude = q.sign() < 0 ? q.neg() : q;
    if (!q.isZero() && magnitude.cmp(one) < 0) q = new Quantity(q.unscaled, q.scale, 'DecimalSI');
  }
  return q;
}

/** Strips trailing zeros into the exponent, then lowers the exponent to a multiple of 3. */
function canonicalDecimal(unscaled: bigint, scale: number): { mantissa: bigint; exponent: number } {
  let mantissa = unscaled;
  let exponent = scale;
  while (mantissa !== 0n && mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const r = ((exponent % 3) + 3) % 3;
  return { mantissa: mantissa * pow10(r), exponent: exponent - r };
}

/**
 * Kubernetes' canonical form of a quantity: `0` for zero; decimal formats as an integer mantissa
 * and an exponent that is a multiple of 3 (`1500m`, `12k`, `1e3`); BinarySI as an integer of
 * 1024-based units (`1536Mi`), unless the value is below 1024 in magnitude or not a whole number
 * of bytes, which print as DecimalSI.
 */
export function formatQuantity(q: Quantity): string {
  if (q.isZero()) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const whole = q.scale >= 0 ? q.unscaled * pow10(q.scale) : undefined;
    const exact = whole !== undefined || q.unscaled % pow10(-q.scale) === 0n;
    const intValue = whole ?? (exact ? q.unscaled / pow10(-q.scale) : 0n);
    if (!exact || (intValue > -1024n && intValue < 1024n)) {
      format = 'DecimalSI';
    } else {
      let mantissa = intValue;
      let exponent = 0;
      while (mantissa % 1024n === 0n && BINARY_BY_EXPONENT.has(exponent + 10)) {
        mantissa /= 1024n;
        exponent += 10;
      }
      return `${mantissa}${BINARY_BY_EXPONENT.get(exponent) ?? ''}`;
    }
  }
  const { mantissa, exponent } = canonicalDecimal(q.unscaled, q.scale);
  if (format === 'DecimalSI') {
    const suffix = DECIMAL_BY_EXPONENT.get(exponent);
    if (suffix !== undefined) return `${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}
