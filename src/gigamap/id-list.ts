/**
 * A growing list of entity ids in a Float64Array (no JS object per id). Entity ids are positions
 * in a GigaMap, at most 2^48 with the largest exponents EclipseStore allows, so they are exact in
 * a double; they are not object ids (those stay bigint).
 */
export class IdList {
  private data: Float64Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Float64Array(Math.max(1, capacity));
  }

  push(id: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = id;
  }

  /** The ids as an array of their own length (a view when nothing is left over). */
  toArray(): Float64Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}

/** A growing column of 64-bit object ids. */
export class BigIntColumn {
  private data: BigInt64Array;
  length = 0;

  constructor(capacity: number) {
    this.data = new BigInt64Array(Math.max(1, capacity));
  }

  push(id: bigint): void {
    if (this.length === this.data.length) {
      const grown = new BigInt64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = id;
  }

  toArray(): BigInt64Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}

/** Index of the first element >= value in a sorted array. */
export function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether a sorted array holds the value. */
export function containsId(sorted: Float64Array, value: number): boolean {
  const i = lowerBound(sorted, value);
  return i < sorted.length && sorted[i] === value;
}
