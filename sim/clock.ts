import type { Clock, TimerHandle } from '../core/machinery/clock.ts';
import type { SimEnvironment, SimEvent } from './env.ts';

/** The default epoch of virtual time 0: 2026-01-01T00:00:00Z (the same as FakeClock's). */
export const DEFAULT_SIM_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * The environment's virtual clock as a {@link Clock}: `now()` is `startMs + env.now`, timers are
 * environment events (fired in (time, priority, insertion) order), `sleep` is `env.timeout`.
 * Negative delays count as 0, as on the real clock.
 */
export class SimClock implements Clock {
  constructor(
    readonly env: SimEnvironment,
    readonly startMs: number = DEFAULT_SIM_EPOCH_MS,
  ) {}

  now(): number {
    return this.startMs + this.env.now;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    return this.env.schedule(Math.max(0, ms || 0), fn);
  }

  clearTimer(handle: TimerHandle): void {
    (handle as Partial<SimEvent>).cancel?.();
  }

  sleep(ms: number): Promise<void> {
    return this.env.timeout(Math.max(0, ms || 0));
  }
}
