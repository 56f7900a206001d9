import { SeededRng } from '../core/machinery/rng.ts';

/**
 * Seeded random streams, one per component name: `stream('scheduler')` always draws the same
 * sequence for the same seed, whatever other streams exist or how much they have drawn, so adding
 * a component never shifts another's draws. Asking twice for a name returns the same stream.
 */
export class RngStreams {
  private readonly streams = new Map<string, SeededRng>();

  constructor(readonly seed: string | number) {}

  /** The stream for `name` (created on first use). */
  stream(name: string): SeededRng {
    let s = this.streams.get(name);
    if (!s) {
      s = SeededRng.stream(this.seed, name);
      this.streams.set(name, s);
    }
    return s;
  }

  /** Names of the streams handed out so far, sorted. */
  names(): string[] {
    return [...this.streams.keys()].sort();
  }
}
