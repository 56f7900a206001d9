/**
 * The injected notion of time. Everything in core/ asks a Clock for "now" and for timers, so that
 * the same code runs on the wall clock (live) and on the simulator's virtual clock.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as this clock sees it. Never decreases. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds of this clock's time. */
  setTimer(ms: number, fn: () => void): TimerHandle;
  /** Cancels a timer; cancelling a fired or cancelled timer does nothing. */
  clearTimer(handle: TimerHandle): void;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

/** An opaque timer handle returned by {@link Clock.setTimer}. */
export interface TimerHandle {
  /** Lets the process exit while this timer is pending (live clocks); a no-op elsewhere. */
  unref?(): void;
}

/** The wall clock. `now()` is Date.now() clamped to never go backwards. */
export class RealClock implements Clock {
  private last = 0;

  now(): number {
    const t = Date.now();
    if (t > this.last) this.last = t;
    return this.last;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    return setTimeout(fn, Math.max(0, ms));
  }

  clearTimer(handle: TimerHandle): void {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  }
}

/** A process-wide wall clock, the default wherever a Clock is optional. */
export const realClock: Clock = new RealClock();

/**
 * A clock that only moves when told to: `step(ms)` advances time and fires due timers in order of
 * (due time, creation order). For race-free unit tests.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers = new Map<number, { due: number; seq: number; fn: () => void }>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { due: this.t + Math.max(0, ms), seq: id, fn });
    return { id } as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete((handle as { id: number }).id);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(ms, resolve));
  }

  /** Advances time by `ms`, firing every timer that falls due, in order. */
  step(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      let next: { id: number; due: number; seq: number; fn: () => void } | undefined;
      for (const [id, tm] of this.timers) {
        if (tm.due <= target && (!next || tm.due < next.due || (tm.due === next.due && tm.seq < next.seq))) {
          next = { id, ...tm };
        }
      }
      if (!next) break;
      this.timers.delete(next.id);
      this.t = Math.max(this.t, next.due);
      next.fn();
    }
    this.t = target;
  }

  /** Number of timers not yet fired or cancelled. */
  pending(): number {
    return this.timers.size;
  }
}
