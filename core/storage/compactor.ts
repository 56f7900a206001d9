/**
 * Periodic compaction: keeps the history of the last `windowMs` readable and drops what is older,
 * which is what makes "410 Gone" real for watches and old resourceVersions.
 */
import type { Clock, TimerHandle } from '../machinery/clock.ts';
import { isStorageError, type Storage } from './interface.ts';

/** Options of {@link startCompactor}. */
export interface CompactorOptions {
  /** Drives the interval and timestamps the recorded revisions. */
  clock: Clock;
  /** History younger than this stays readable (default 5 minutes). */
  windowMs?: number;
  /** How often a revision is recorded and compaction considered (default 60 s). */
  intervalMs?: number;
  /**
   * Receives a compaction failure other than a closed store. Without it the error is thrown from
   * the timer callback (it is never silently ignored).
   */
  onError?: (err: unknown) => void;
}

/** A running compactor. */
export interface Compactor {
  /** Stops the compactor; no compaction happens afterwards. Idempotent. */
  stop(): void;
}

/**
 * Starts compacting `storage`: at start and then every `intervalMs` it records
 * (clock.now(), storage.currentRevision()), and compacts to the newest recorded revision that
 * was recorded at least `windowMs` ago (if that is newer than the compacted revision). Every
 * revision written within the last `windowMs` therefore stays readable and watchable; older
 * history becomes Compacted within about one interval of leaving the window. The compactor
 * stops by itself when the storage reports it is closed.
 */
export function startCompactor(storage: Storage, opts: CompactorOptions): Compactor {
  const { clock } = opts;
  const windowMs = opts.windowMs ?? 5 * 60_000;
  const intervalMs = Math.max(1, opts.intervalMs ?? 60_000);
  const marks: Array<{ at: number; revision: number }> = [];
  let timer: TimerHandle | undefined;
  let stopped = false;

  const stop = (): void => {
    stopped = true;
    if (timer !== undefined) clock.clearTimer(timer);
    timer = undefined;
  };

  const tick = (): void => {
    const now = clock.now();
    marks.push({ at: now, revision: storage.currentRevision() });
    let target = -1;
    while (marks.length > 0 && now - marks[0].at >= windowMs) target = marks.shift()!.revision;
    if (target > storage.compactedRevision()) storage.compact(target);
  };

  const run = (): void => {
    timer = undefined;
    if (stopped) return;
    try {
      tick();
    } catch (err) {
      if (isStorageError(err, 'Closed')) {
        stop();
        return;
      }
      if (!opts.onError) {
        stop();
        throw err;
      }
      opts.onError(err);
    }
    if (stopped) return;
    timer = clock.setTimer(intervalMs, run);
    timer.unref?.();
  };

  run();
  return { stop };
}
