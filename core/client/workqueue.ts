import { realClock, type Clock, type TimerHandle } from '../machinery/clock.ts';
import { TokenBucketRateLimiter } from './ratelimit.ts';

/** Decides how long an item waits before a rate-limited retry (client-go's workqueue.RateLimiter). */
export interface ItemRateLimiter<T> {
  /** The delay in ms before `item` may be retried; counts a failure. */
  when(item: T): number;
  /** Clears the failure history of `item`. */
  forget(item: T): void;
  /** How many failures of `item` have been counted since the last `forget`. */
  numRequeues(item: T): number;
}

/** Per-item exponential backoff: `baseMs * 2^failures`, capped at `maxMs`. */
export class ItemExponentialFailureRateLimiter<T> implements ItemRateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1000_000,
  ) {}

  when(item: T): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    const delay = this.baseMs * Math.pow(2, n);
    return delay > this.maxMs || !Number.isFinite(delay) ? this.maxMs : delay;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** An overall token bucket across all items: each retry takes a token, waiting when none is left. */
export class BucketItemRateLimiter<T> implements ItemRateLimiter<T> {
  private readonly bucket: TokenBucketRateLimiter;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.bucket = new TokenBucketRateLimiter({ qps, burst, clock });
  }

  when(): number {
    return this.bucket.reserve();
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

/** The longest delay any of several limiters asks for (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter<T> implements ItemRateLimiter<T> {
  private readonly limiters: ItemRateLimiter<T>[];

  constructor(...limiters: ItemRateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }
  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }
  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/**
 * client-go's DefaultControllerRateLimiter: per-item exponential backoff from 5 ms doubling to
 * 1000 s, and an overall bucket of 10 qps with a burst of 100; the longer delay wins.
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): ItemRateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1000_000), new BucketItemRateLimiter<T>(10, 100, clock));
}

/** Options of a {@link WorkQueue}. */
export interface WorkQueueOptions<T> {
  clock?: Clock;
  rateLimiter?: ItemRateLimiter<T>;
  /** Used in errors and metrics. */
  name?: string;
}

/**
 * A rate-limited, delaying, de-duplicating work queue (client-go's workqueue semantics):
 *
 * - An item added while it is already queued is queued once.
 * - An item handed out by `get` is processing until `done`; adding it meanwhile marks it dirty and
 *   it is queued again at `done`, so no two workers ever process the same item at once.
 * - `addAfter(item, ms)` adds it after `ms` of clock time (the earliest of several pending
 *   `addAfter`s wins); `addRateLimited` waits as the item rate limiter says; `forget` clears the
 *   item's failure history.
 * - After `shutDown`, adds are ignored, pending delays are dropped, items already queued are still
 *   handed out, and `get` resolves to `undefined` once the queue is empty.
 */
export class WorkQueue<T = string> {
  private readonly clock: Clock;
  private readonly limiter: ItemRateLimiter<T>;
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiting = new Map<T, { due: number; timer: TimerHandle }>();
  private readonly getters: ((item: T | undefined) => void)[] = [];
  private shutting = false;

  constructor(opts: WorkQueueOptions<T> = {}) {
    this.clock = opts.clock ?? realClock;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /** Queues `item` unless it is already queued (or marks it dirty while it is processing). */
  add(item: T): void {
    if (this.shutting || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  private push(item: T): void {
    const g = this.getters.shift();
    if (g) {
      this.dirty.delete(item);
      this.processing.add(item);
      g(item);
      return;
    }
    this.queue.push(item);
  }

  /** Number of items queued (not counting processing or delayed ones). */
  len(): number {
    return this.queue.length - this.head;
  }

  /**
   * The next item to process, marking it processing; waits while the queue is empty. Resolves to
   * `undefined` after `shutDown` once nothing is left. Call `done(item)` when finished.
   */
  get(): Promise<T | undefined> {
    if (this.head < this.queue.length) {
      const item = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.dirty.delete(item);
      this.processing.add(item);
      return Promise.resolve(item);
    }
    if (this.shutting) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of `item`; if it was added meanwhile it is queued again. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.push(item);
  }

  /** Adds `item` after `ms` of clock time (at once when `ms` <= 0). */
  addAfter(item: T, ms: number): void {
    if (this.shutting) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const due = this.clock.now() + ms;
    const existing = this.waiting.get(item);
    if (existing) {
      if (existing.due <= due) return;
      this.clock.clearTimer(existing.timer);
    }
    const timer = this.clock.setTimer(ms, () => {
      this.waiting.delete(item);
      this.add(item);
    });
    this.waiting.set(item, { due, timer });
  }

  /** Adds `item` when the rate limiter allows (per-item exponential backoff by default). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.limiter.when(item));
  }

  /** Stops tracking `item`'s failures (call after it was processed successfully). */
  forget(item: T): void {
    this.limiter.forget(item);
  }

  /** How many times `item` has been re-queued by `addRateLimited` since its last `forget`. */
  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  /** Stops accepting work; waiting `get`s resolve to `undefined`. */
  shutDown(): void {
    if (this.shutting) return;
    this.shutting = true;
    for (const w of this.waiting.values()) this.clock.clearTimer(w.timer);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** Whether `shutDown` has been called. */
  shuttingDown(): boolean {
    return this.shutting;
  }
}

/**
 * Runs `workers` loops that take items from `queue` and call `sync(item)`; an item whose sync
 * throws is re-added rate-limited (and `onError` is told), one that succeeds is forgotten.
 * Resolves when the queue is shut down and every worker has finished.
 */
export async function runWorkers<T>(queue: WorkQueue<T>, workers: number, sync: (item: T) => Promise<void> | void, onError?: (item: T, err: unknown) => void): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const item = await queue.get();
      if (item === undefined) return;
      try {
        await sync(item);
        queue.forget(item);
      } catch (err) {
        onError?.(item, err);
        queue.addRateLimited(item);
      } finally {
        queue.done(item);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}
