/**
 * The discrete-event environment: virtual time and a heap of events ordered by
 * (time, priority, sequence). Components keep ordinary async code; the environment resolves their
 * timers and deliveries at virtual times and lets pending promise callbacks finish before it
 * advances time. No module-level state: many environments can exist side by side.
 */
import { performance } from 'node:perf_hooks';
import { promiseHooks } from 'node:v8';

/** A scheduled event as returned by {@link SimEnvironment.schedule}. */
export interface SimEvent {
  /** Virtual time (ms) at which the event fires. */
  readonly time: number;
  /** Lower fires first among events at the same time. */
  readonly priority: number;
  /** Insertion order: breaks ties between equal time and priority. */
  readonly seq: number;
  /** Prevents the event from firing; cancelling a fired or cancelled event does nothing. */
  cancel(): void;
  /** Lets the process exit while pending (part of the Clock's TimerHandle shape); a no-op here. */
  unref(): void;
}

class Entry implements SimEvent {
  constructor(
    readonly time: number,
    readonly priority: number,
    readonly seq: number,
    public fn: (() => void) | null,
  ) {}

  cancel(): void {
    this.fn = null;
  }

  unref(): void {}
}

/** How the environment lets promise callbacks finish after an event. */
export type SettleMode =
  /**
   * Watches promise activity (V8 promise hooks, only while `run` is active). After an event that
   * created or settled no promise, one microtask hop suffices and the next event runs at once.
   * Otherwise a marker microtask queues the next step with `process.nextTick`, which Node runs
   * only once the microtask queue is empty: every promise callback and microtask the event caused,
   * however deep, has run, without the cost of a macrotask turn. Not waited for: a chain of raw
   * `queueMicrotask` calls nested two deep after an event without promise activity; microtasks
   * queued by a `process.nextTick` callback that a microtask queued; macrotasks (setImmediate,
   * I/O, real timers), which get a turn only every 4096 events.
   */
  | 'auto'
  /** Waits for a macrotask turn after every event: also covers nextTick and macrotask work; about 2 µs per event. */
  | 'always';

/** Options of a {@link SimEnvironment}. */
export interface SimEnvironmentOptions {
  /** Virtual time at start, in ms (default 0). */
  initialTime?: number;
  /** Record trace lines (see {@link SimEnvironment.record}); default false. */
  trace?: boolean;
  /** Default 'auto'. */
  settle?: SettleMode;
}

/** When {@link SimEnvironment.run} stops: at a virtual time, or once a condition holds. */
export interface RunOptions {
  /**
   * A virtual time (events at exactly this time stay pending, as in SimPy, and `now` becomes
   * `until`), or a condition checked before the first event and after each event has settled.
   */
  until?: number | (() => boolean);
  /**
   * Real-time pacing (SimPy's RealtimeEnvironment): an event at virtual time `t` fires no earlier
   * than `(t - start) / factor` wall milliseconds after the run started, so `factor` 1 is wall
   * speed and 10 is ten times faster. Waiting costs a wall timer per gap; when the simulation
   * falls behind it simply runs as fast as it can, unless `strict`, when a lag beyond
   * `toleranceMs` (default 100) makes the run reject with {@link SimulationTooSlow}.
   */
  realtime?: { factor?: number; strict?: boolean; toleranceMs?: number };
}

/** A strict real-time run fell behind wall time by more than its tolerance. */
export class SimulationTooSlow extends Error {
  readonly code = 'SIMULATION_TOO_SLOW';
  constructor(
    readonly virtualTime: number,
    readonly lagMs: number,
  ) {
    super(`the simulation fell ${Math.round(lagMs)} ms behind real time at virtual time ${virtualTime} ms`);
    this.name = 'SimulationTooSlow';
  }
}

/** Why and where a run stopped. */
export interface RunResult {
  stoppedBy: 'time' | 'condition' | 'exhausted';
  /** Virtual time at the stop. */
  now: number;
  /** Events fired during this run. */
  events: number;
}

/** Thrown when the environment is used in a way that cannot be honoured. */
export class SimulationMisuse extends Error {
  readonly code = 'SIMULATION_MISUSE';
}

/**
 * Consecutive events run without a macrotask turn before one is forced (keeps the process
 * responsive, and lets Node report unhandled rejections).
 */
const MAX_HOPS = 4096;

/** A settled promise: reactions on it are the environment's microtask hops. */
const RESOLVED = Promise.resolve();

/**
 * A SimPy-like environment. Guarantees:
 * - events fire in order of (time, priority, insertion), and `now` never decreases;
 * - during `run`, every promise callback queued by an event (and its chains) finishes before the
 *   next event fires, also among events at the same time (see {@link SettleMode} for the few
 *   kinds of work 'auto' does not wait for);
 * - a throwing event callback or a failed {@link process} makes `run` reject with that error.
 */
export class SimEnvironment {
  /**
   * A 4-ary min-heap of entries, with their times alongside in a plain array (stored unboxed and
   * contiguous), so most comparisons read no entry: half the depth of a binary heap, and its
   * children side by side.
   */
  private heap: Entry[] = [];
  private times: number[] = [];
  private seq = 0;
  private t: number;
  private fired = 0;
  private running = false;
  private failure: { error: unknown } | undefined;
  private activity = 0;
  private readonly settleMode: SettleMode;
  private readonly lines: string[] | undefined;

  constructor(opts: SimEnvironmentOptions = {}) {
    this.t = opts.initialTime ?? 0;
    this.settleMode = opts.settle ?? 'auto';
    this.lines = opts.trace ? [] : undefined;
  }

  /** Current virtual time in ms. */
  get now(): number {
    return this.t;
  }

  /** Events fired since creation. */
  get eventsFired(): number {
    return this.fired;
  }

  /** Events waiting in the heap (including cancelled ones not yet discarded). */
  get pending(): number {
    return this.heap.length;
  }

  /** Whether trace lines are being recorded. */
  get tracing(): boolean {
    return this.lines !== undefined;
  }

  /** Schedules `fn` to run `delayMs` after now (≥ 0); lower `priority` first among equal times. */
  schedule(delayMs: number, fn: () => void, priority = 0): SimEvent {
    if (!(delayMs >= 0)) throw new SimulationMisuse(`delay must be a non-negative number, got ${delayMs}`);
    return this.push(this.t + delayMs, fn, priority);
  }

  /** Schedules `fn` at virtual time `time` (≥ now). */
  scheduleAt(time: number, fn: () => void, priority = 0): SimEvent {
    if (!(time >= this.t)) throw new SimulationMisuse(`cannot schedule at ${time}, before now (${this.t})`);
    return this.push(time, fn, priority);
  }

  /** A promise that resolves `ms` of virtual time from now. */
  timeout(ms: number, priority = 0): Promise<void> {
    return new Promise((resolve) => {
      this.schedule(ms, resolve, priority);
    });
  }

  /**
   * Registers a simulation process: its rejection is never lost — it fails the current run, or
   * the next `run`/`step` if none is active. Returns the process's promise.
   */
  process<T>(p: Promise<T> | (() => Promise<T>)): Promise<T> {
    let promise: Promise<T>;
    try {
      promise = typeof p === 'function' ? p() : p;
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise.catch((e: unknown) => this.fail(e));
    return promise;
  }

  /** Marks the simulation failed with `error` (the first failure wins). */
  fail(error: unknown): void {
    if (!this.failure) this.failure = { error };
  }

  /** Appends a trace line `"<now> <type> <detail>"` when tracing is on. */
  record(type: string, detail: string): void {
    if (this.lines) this.lines.push(`${this.t.toFixed(3)} ${type} ${detail}`);
  }

  /** The recorded trace lines, in order (empty when tracing is off). */
  trace(): readonly string[] {
    return this.lines ?? [];
  }

  /** Virtual time of the next live event, or Infinity. */
  peek(): number {
    const e = this.top();
    return e ? e.time : Infinity;
  }

  /**
   * Fires exactly one event, synchronously (promise callbacks it queues run after this returns;
   * `await settle()` lets them finish). Returns false when no event is pending. Throws the event's
   * error, or a pending process failure.
   */
  step(): boolean {
    this.throwFailure();
    const e = this.top();
    if (!e) return false;
    this.fire(e);
    return true;
  }

  /** Resolves once every queued promise callback has run (one macrotask turn). */
  settle(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * Fires events until `until` (a time or a condition) or until none are left. Rejects with the
   * first error of an event callback or a process; the failing event's time stays in `now`.
   */
  run(opts: RunOptions = {}): Promise<RunResult> {
    if (this.running) return Promise.reject(new SimulationMisuse('run() is already active on this environment'));
    const until = opts.until;
    if (typeof until === 'number' && !(until >= this.t)) {
      return Promise.reject(new SimulationMisuse(`until (${until}) must not be before now (${this.t})`));
    }
    const rt = opts.realtime;
    const factor = rt?.factor ?? 1;
    if (rt && !(factor > 0 && Number.isFinite(factor))) return Promise.reject(new SimulationMisuse(`realtime.factor must be a positive number, got ${factor}`));
    this.running = true;
    const startCount = this.fired;
    const wall0 = rt ? performance.now() : 0;
    const virtual0 = this.t;
    const always = this.settleMode === 'always';
    const stopHooks = always ? undefined : this.watchPromises();
    return new Promise<RunResult>((resolve, reject) => {
      let hops = 0;
      let hopMark = 0;
      let inHop = 0;
      const finish = (stoppedBy: RunResult['stoppedBy'] | null, error?: unknown): void => {
        stopHooks?.();
        this.running = false;
        if (stoppedBy === null) reject(error);
        else resolve({ stoppedBy, now: this.t, events: this.fired - startCount });
      };
      const pump = (): void => {
        if (this.failure) {
          const f = this.failure;
          this.failure = undefined;
          return finish(null, f.error);
        }
        try {
          if (typeof until === 'function' && until()) return finish('condition');
        } catch (e) {
          return finish(null, e);
        }
        const e = this.top();
        if (rt && typeof until === 'number' && (!e || e.time >= until)) {
          // NOTE: a paced run that ends at a time also ends no earlier than that time's wall moment.
          const lag = performance.now() - (wall0 + (until - virtual0) / factor);
          if (lag < -1) {
            setTimeout(pump, -lag);
            return;
          }
        }
        if (!e) {
          if (typeof until === 'number') this.t = until;
          return finish('exhausted');
        }
        if (typeof until === 'number' && e.time >= until) {
          this.t = until;
          return finish('time');
        }
        if (rt) {
          const lag = performance.now() - (wall0 + (e.time - virtual0) / factor);
          if (lag < -1) {
            setTimeout(pump, -lag);
            return;
          }
          if (rt.strict && lag > (rt.toleranceMs ?? 100)) return finish(null, new SimulationTooSlow(e.time, lag));
        }
        const before = this.activity;
        try {
          this.fire(e);
        } catch (err) {
          return finish(null, err);
        }
        if (always || ++hops >= MAX_HOPS) {
          hops = 0;
          setImmediate(pump);
        } else if (this.activity !== before) {
          void RESOLVED.then(afterMicrotasks);
        } else {
          // NOTE: a reaction on a settled promise is the cheapest microtask (queueMicrotask wraps
          // each callback in an AsyncResource, about 300 bytes a hop); the promise the reaction
          // derives is the hop's own, not the event's activity, so the mark is taken after it.
          // The hop running now (when pump runs inside one) settles its own promise after this.
          void RESOLVED.then(afterHop);
          hopMark = this.activity + inHop;
        }
      };
      // NOTE: Node drains the whole microtask queue before it runs a nextTick callback queued
      // from a microtask, so `pump` runs again only once the event's promise work is done.
      const afterMicrotasks = (): void => {
        process.nextTick(pump);
      };
      const afterHop = (): void => {
        if (this.activity !== hopMark) process.nextTick(pump);
        else {
          // NOTE: pump never throws (it turns every failure into the run's rejection), so no finally.
          inHop = 1;
          pump();
          inHop = 0;
        }
      };
      setImmediate(pump);
    });
  }

  private watchPromises(): () => void {
    const bump = (): void => {
      this.activity++;
    };
    const stops = [promiseHooks.onInit(bump), promiseHooks.onSettled(bump)];
    return () => {
      for (const s of stops) s();
    };
  }

  private throwFailure(): void {
    if (this.failure) {
      const f = this.failure;
      this.failure = undefined;
      throw f.error;
    }
  }

  private fire(e: Entry): void {
    this.pop();
    const fn = e.fn!;
    e.fn = null;
    this.t = e.time;
    this.fired++;
    fn();
  }

  /** The earliest live event, discarding cancelled ones on the way. */
  private top(): Entry | undefined {
    const h = this.heap;
    while (h.length > 0 && h[0].fn === null) this.pop();
    return h[0];
  }

  private push(time: number, fn: () => void, priority: number): Entry {
    const e = new Entry(time, priority, this.seq++, fn);
    const h = this.heap;
    const t = this.times;
    let i = h.length;
    h.push(e);
    t.push(time);
    while (i > 0) {
      const p = (i - 1) >> 2;
      // NOTE: a later entry never goes before an equal-time one of the same priority (seq only grows).
      if (t[p] < time || (t[p] === time && !less(e, h[p]))) break;
      h[i] = h[p];
      t[i] = t[p];
      i = p;
    }
    h[i] = e;
    t[i] = time;
    return e;
  }

  private pop(): void {
    const h = this.heap;
    const t = this.times;
    const last = h.pop()!;
    const lastTime = t.pop()!;
    const n = h.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // The least of up to four children.
      let c = first;
      const end = first + 4 < n ? first + 4 : n;
      for (let k = first + 1; k < end; k++) {
        if (t[k] < t[c] || (t[k] === t[c] && less(h[k], h[c]))) c = k;
      }
      if (lastTime < t[c] || (lastTime === t[c] && less(last, h[c]))) break;
      h[i] = h[c];
      t[i] = t[c];
      i = c;
    }
    h[i] = last;
    t[i] = lastTime;
  }
}

function less(a: Entry, b: Entry): boolean {
  if (a.time !== b.time) return a.time < b.time;
  if (a.priority !== b.priority) return a.priority < b.priority;
  return a.seq < b.seq;
}
