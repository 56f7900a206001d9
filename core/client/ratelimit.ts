import { realClock, type Clock } from '../machinery/clock.ts';

/** A client-side limiter that every request waits on before it is sent. */
export interface RateLimiter {
  /** Resolves when the caller may send one request (reserving its token). */
  wait(): Promise<void>;
  /** Takes a token if one is available now; never waits. */
  tryAccept(): boolean;
}

/** Options of a {@link TokenBucketRateLimiter}, with `--kube-api-qps` / `--kube-api-burst` meaning. */
export interface TokenBucketOptions {
  /** Sustained rate, tokens per second of clock time; must be > 0. */
  qps: number;
  /** Bucket size: how many requests may go at once after a quiet period; must be >= 1. */
  burst: number;
  clock?: Clock;
}

/**
 * A token bucket on the injected clock: it starts full with `burst` tokens, refills at `qps`
 * tokens per second up to `burst`, and each request takes one. Waiters reserve their token when
 * they ask (as Go's `rate.Limiter.Wait` does), so they are admitted in call order, each no earlier
 * than the bucket's refill allows: `burst` at once, then one every `1/qps` seconds.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(opts: TokenBucketOptions) {
    if (!(opts.qps > 0) || !Number.isFinite(opts.qps)) throw new RangeError(`qps must be a positive number, got ${opts.qps}`);
    if (!(opts.burst >= 1) || !Number.isInteger(opts.burst)) throw new RangeError(`burst must be a positive integer, got ${opts.burst}`);
    this.qps = opts.qps;
    this.burst = opts.burst;
    this.clock = opts.clock ?? realClock;
    this.tokens = opts.burst;
    this.last = this.clock.now();
  }

  private advance(): void {
    const now = this.clock.now();
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
      this.last = now;
    }
  }

  /**
   * Reserves one token and returns how many milliseconds of clock time the caller must wait
   * before using it (0 when a token was available).
   */
  reserve(): number {
    this.advance();
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return Math.ceil((-this.tokens * 1000) / this.qps);
  }

  tryAccept(): boolean {
    this.advance();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  async wait(): Promise<void> {
    const delay = this.reserve();
    if (delay > 0) await this.clock.sleep(delay);
  }
}

/** A limiter that admits everything at once (client-go's behaviour for a negative QPS). */
export class UnlimitedRateLimiter implements RateLimiter {
  async wait(): Promise<void> {}
  tryAccept(): boolean {
    return true;
  }
}

/** client-go's defaults when QPS / burst are left at 0. */
export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;

/**
 * The limiter for `--kube-api-qps` / `--kube-api-burst` as client-go reads them: qps 0 means the
 * default 5 (burst 0 means 10), a negative qps means no client-side limit.
 */
export function rateLimiterFor(qps: number, burst: number, clock?: Clock): RateLimiter {
  if (qps < 0) return new UnlimitedRateLimiter();
  return new TokenBucketRateLimiter({ qps: qps === 0 ? DEFAULT_QPS : qps, burst: burst === 0 ? DEFAULT_BURST : burst, clock });
}
