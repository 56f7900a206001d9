import { randomBytes } from 'node:crypto';
import seedrandom from 'seedrandom';

/**
 * The injected source of randomness: uids, generated names, jitter, latency samples.
 * A seeded Rng gives the same sequence for the same seed on every run.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** An RFC 4122 version-4 UUID drawn from this generator. */
  uuid(): string;
  /** `n` characters from Kubernetes' generateName alphabet (no vowels, no ambiguous digits). */
  alphanumeric(n: number): string;
}

/** Kubernetes' rand.String alphabet: consonants and digits that avoid accidental words and look-alikes. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

abstract class BaseRng implements Rng {
  abstract next(): number;

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  uuid(): string {
    const b = new Array<number>(16);
    for (let i = 0; i < 16; i++) b[i] = this.int(256);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  alphanumeric(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += NAME_ALPHABET[this.int(NAME_ALPHABET.length)];
    return s;
  }
}

/** A deterministic generator (seedrandom's alea). Same seed, same sequence. */
export class SeededRng extends BaseRng {
  private readonly prng: seedrandom.PRNG;

  constructor(seed: string | number) {
    super();
    this.prng = seedrandom.alea(String(seed));
  }

  next(): number {
    return this.prng();
  }

  /** An independent stream derived from this seed and a name, so adding a stream never shifts another's draws. */
  static stream(seed: string | number, name: string): SeededRng {
    return new SeededRng(`${seed}/${name}`);
  }
}

/** A generator seeded from the operating system's entropy, for live serving. */
export class CryptoRng extends BaseRng {
  private buf = randomBytes(4096);
  private off = 0;

  next(): number {
    if (this.off + 4 > this.buf.length) {
      this.buf = randomBytes(4096);
      this.off = 0;
    }
    const v = this.buf.readUInt32LE(this.off);
    this.off += 4;
    return v / 0x100000000;
  }
}
