import type { Rng } from '../core/machinery/rng.ts';

/** A duration in a config: a number of milliseconds, or a string like `'250us'`, `'5ms'`, `'1.5s'`, `'2m'`, `'1h'`. */
export type Duration = number | string;

/** A latency distribution as written in a scenario. All values are durations; samples are clamped to [min, max]. */
export type DistributionConfig =
  | { dist: 'constant'; value: Duration }
  | { dist: 'uniform'; min: Duration; max: Duration }
  | { dist: 'exponential'; mean: Duration; min?: Duration; max?: Duration }
  | { dist: 'normal'; mean: Duration; stddev: Duration; min?: Duration; max?: Duration }
  | { dist: 'lognormal'; median: Duration; p99: Duration; min?: Duration; max?: Duration };

/** A distribution of non-negative durations in milliseconds. */
export interface Distribution {
  /** One sample in ms, drawn from `rng` (normal and lognormal use two draws, the others one, constant none). */
  sample(rng: Rng): number;
  /** A short canonical description, e.g. `lognormal(median=5ms, p99=50ms)`. */
  readonly description: string;
}

/** A config that does not describe a distribution; `field` is the dotted path of the offending field. */
export class DistributionInvalid extends Error {
  readonly code = 'DISTRIBUTION_INVALID';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'DistributionInvalid';
  }
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** z such that P(Z ≤ z) = 0.99 for a standard normal Z. */
const Z99 = 2.3263478740408408;

/**
 * Parses a duration (`'5ms'`, `'1.5s'`, `'200us'`, a bare number of ms) into ms; throws
 * {@link DistributionInvalid} naming `field` when it is not a finite, non-negative duration.
 */
export function parseDuration(value: unknown, field: string): number {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|ms|s|m|h)?\s*$/.exec(value);
    if (!m) throw new DistributionInvalid(field, `invalid duration "${value}" (want e.g. 5ms, 1.5s, 200us)`);
    ms = Number(m[1]) * UNITS[m[2] ?? 'ms'];
  } else throw new DistributionInvalid(field, `must be a duration (number of ms or a string like "5ms"), got ${value === null ? 'null' : typeof value}`);
  if (!Number.isFinite(ms) || ms < 0) throw new DistributionInvalid(field, `must be a finite, non-negative duration, got ${String(value)}`);
  return ms;
}

function fmt(ms: number): string {
  return `${Number(ms.toPrecision(6))}ms`;
}

const FIELDS: Record<DistributionConfig['dist'], { required: string[]; optional: string[] }> = {
  constant: { required: ['value'], optional: [] },
  uniform: { required: ['min', 'max'], optional: [] },
  exponential: { required: ['mean'], optional: ['min', 'max'] },
  normal: { required: ['mean', 'stddev'], optional: ['min', 'max'] },
  lognormal: { required: ['median', 'p99'], optional: ['min', 'max'] },
};

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** A standard normal deviate from two uniform draws (Box–Muller). */
function standardNormal(rng: Rng): number {
  const u1 = rng.next();
  const u2 = rng.next();
  return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * Builds a distribution from its config. A bare duration (`5`, `'5ms'`) means a constant. Unknown
 * fields, missing fields, bad durations and inconsistent bounds throw {@link DistributionInvalid}
 * naming the field under `path` (e.g. `network.requestLatency.p99`).
 */
export function parseDistribution(config: unknown, path = 'distribution'): Distribution {
  if (typeof config === 'number' || typeof config === 'string') {
    const v = parseDuration(config, path);
    return constant(v);
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new DistributionInvalid(path, 'must be a duration or an object with a "dist" field');
  }
  const c = config as Record<string, unknown>;
  const kind = c.dist;
  if (typeof kind !== 'string' || !(kind in FIELDS)) {
    throw new DistributionInvalid(`${path}.dist`, `must be one of ${Object.keys(FIELDS).join(', ')}, got ${JSON.stringify(kind)}`);
  }
  const spec = FIELDS[kind as DistributionConfig['dist']];
  for (const k of Object.keys(c)) {
    if (k !== 'dist' && !spec.required.includes(k) && !spec.optional.includes(k)) throw new DistributionInvalid(`${path}.${k}`, `unknown field for dist "${kind}"`);
  }
  for (const k of spec.required) if (c[k] === undefined) throw new DistributionInvalid(`${path}.${k}`, `required for dist "${kind}"`);
  const d = (k: string): number => parseDuration(c[k], `${path}.${k}`);
  const lo = c.min === undefined ? 0 : d('min');
  const hi = c.max === undefined ? Infinity : d('max');
  if (hi < lo) throw new DistributionInvalid(`${path}.max`, `must not be less than min (${fmt(lo)})`);
  const bounds = c.min === undefined && c.max === undefined ? '' : `, min=${fmt(lo)}, max=${hi === Infinity ? 'inf' : fmt(hi)}`;
  switch (kind) {
    case 'constant':
      return constant(d('value'));
    case 'uniform': {
      const width = hi - lo;
      return { description: `uniform(min=${fmt(lo)}, max=${fmt(hi)})`, sample: (rng) => lo + width * rng.next() };
    }
    case 'exponential': {
      const mean = d('mean');
      return { description: `exponential(mean=${fmt(mean)}${bounds})`, sample: (rng) => clamp(-mean * Math.log(1 - rng.next()), lo, hi) };
    }
    case 'normal': {
      const mean = d('mean');
      const sd = d('stddev');
      return { description: `normal(mean=${fmt(mean)}, stddev=${fmt(sd)}${bounds})`, sample: (rng) => clamp(mean + sd * standardNormal(rng), lo, hi) };
    }
    default: {
      const median = d('median');
      const p99 = d('p99');
      if (median <= 0) throw new DistributionInvalid(`${path}.median`, 'must be greater than 0');
      if (p99 < median) throw new DistributionInvalid(`${path}.p99`, `must not be less than median (${fmt(median)})`);
      const mu = Math.log(median);
      const sigma = Math.log(p99 / median) / Z99;
      return { description: `lognormal(median=${fmt(median)}, p99=${fmt(p99)}${bounds})`, sample: (rng) => clamp(Math.exp(mu + sigma * standardNormal(rng)), lo, hi) };
    }
  }
}

/** A distribution that always yields `ms` (draws nothing). */
export function constant(ms: number): Distribution {
  return { description: `constant(${fmt(ms)})`, sample: () => ms };
}
