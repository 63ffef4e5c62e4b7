/**
 * Log timestamps as Java makes them (storage-format.md §6.2): epoch milliseconds × 1 000 000 plus a
 * counter for calls within the same millisecond, strictly increasing.
 */
export class StoreClock {
  private last: bigint;

  /** `after`: every timestamp handed out is greater than this (e.g. the latest one in the logs). */
  constructor(
    private readonly now: () => number = Date.now,
    after = 0n,
  ) {
    this.last = after;
  }

  next(): bigint {
    const base = BigInt(Math.floor(this.now())) * 1_000_000n;
    this.last = base > this.last ? base : this.last + 1n;
    return this.last;
  }

  /** The latest timestamp handed out (or the starting bound). */
  get latest(): bigint {
    return this.last;
  }
}
