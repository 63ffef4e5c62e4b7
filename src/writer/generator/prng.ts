/**
 * Small deterministic random numbers for the generator (no `Math.random`): mulberry32 for
 * streams, and a stateless 32-bit mix for values derived from an index.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = hash32(seed >>> 0, 0x9e3779b9);
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }

  /** A number in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

/** A well-mixed unsigned 32-bit hash of two 32-bit integers. */
export function hash32(a: number, b: number): number {
  let h = Math.imul(a ^ 0x85ebca6b, 0xcc9e2d51) ^ Math.imul(b + 0x27d4eb2f, 0x1b873593);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
