/**
 * The typed-array tables a replayed channel log is kept in (commit-history.ts): its store entries
 * and the byte ranges each store or housekeeping transfer appended to its files. No JS object per
 * commit or per range, so a history of millions of commits stays a few arrays.
 */

/** Store entries of a channel in typed arrays. */
export class StoreTable {
  private timestamps = new BigInt64Array(256);
  private numbers = new Float64Array(256 * 6);
  length = 0;

  push(timestamp: bigint, logOffset: number, fileNumber: bigint, from: number, to: number, missingAfter: number): void {
    if (this.length === this.timestamps.length) {
      const t = new BigInt64Array(this.length * 2);
      t.set(this.timestamps);
      this.timestamps = t;
      const n = new Float64Array(this.length * 2 * 6);
      n.set(this.numbers);
      this.numbers = n;
    }
    this.timestamps[this.length] = timestamp;
    const b = this.length * 6;
    this.numbers[b] = logOffset;
    this.numbers[b + 1] = Number(fileNumber);
    this.numbers[b + 2] = from;
    this.numbers[b + 3] = to;
    this.numbers[b + 4] = missingAfter;
    this.numbers[b + 5] = missingAfter;
    this.length++;
  }

  /** Sets the "missing before the next store" count of the last store. */
  closePrevious(missing: number): void {
    if (this.length > 0) this.numbers[(this.length - 1) * 6 + 5] = missing;
  }

  timestamp(k: number): bigint {
    return this.timestamps[k]!;
  }
  logOffset(k: number): number {
    return this.numbers[k * 6]!;
  }
  fileNumber(k: number): bigint {
    return BigInt(this.numbers[k * 6 + 1]!);
  }
  from(k: number): number {
    return this.numbers[k * 6 + 2]!;
  }
  to(k: number): number {
    return this.numbers[k * 6 + 3]!;
  }
  missingAfter(k: number): number {
    return this.numbers[k * 6 + 4]!;
  }
  missingBeforeNext(k: number): number {
    return this.numbers[k * 6 + 5]!;
  }

  indexOfTimestamp(timestamp: bigint, size: number): number | undefined {
    // Store timestamps strictly increase within a log.
    let lo = 0;
    let hi = size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const ts = this.timestamps[mid]!;
      if (ts === timestamp) return mid;
      if (ts < timestamp) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
}

/**
 * Byte ranges of a channel's files in log order: which store (or which transfer, from which source
 * position) appended them. Appends go to the head file only and file numbers increase, so the
 * table is sorted by (file, start) and searched by bisection.
 */
export class RangeTable {
  private data = new Float64Array(1024 * 7);
  length = 0;

  push(file: bigint, start: number, end: number, kind: number, source: number, sourceFile: number, sourceOffset: number): void {
    if ((this.length + 1) * 7 > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    const b = this.length * 7;
    this.data[b] = Number(file);
    this.data[b + 1] = start;
    this.data[b + 2] = end;
    this.data[b + 3] = kind;
    this.data[b + 4] = source;
    this.data[b + 5] = sourceFile;
    this.data[b + 6] = sourceOffset;
    this.length++;
  }

  /** Drops what lies at or beyond `length` in the head file `file`. */
  truncate(file: bigint, length: number): void {
    const f = Number(file);
    while (this.length > 0) {
      const b = (this.length - 1) * 7;
      if (this.data[b] !== f || this.data[b + 2]! <= length) break;
      if (this.data[b + 1]! >= length) this.length--;
      else {
        this.data[b + 2] = length;
        break;
      }
    }
  }

  /** Index of the range holding byte `offset` of `file`, or -1. */
  find(file: bigint, offset: number): number {
    const f = Number(file);
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const b = mid * 7;
      const mf = this.data[b]!;
      if (mf < f || (mf === f && this.data[b + 2]! <= offset)) lo = mid + 1;
      else if (mf > f || this.data[b + 1]! > offset) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  file(r: number): number {
    return this.data[r * 7]!;
  }
  start(r: number): number {
    return this.data[r * 7 + 1]!;
  }
  end(r: number): number {
    return this.data[r * 7 + 2]!;
  }
  kind(r: number): number {
    return this.data[r * 7 + 3]!;
  }
  source(r: number): number {
    return this.data[r * 7 + 4]!;
  }
  sourceFile(r: number): number {
    return this.data[r * 7 + 5]!;
  }
  sourceOffset(r: number): number {
    return this.data[r * 7 + 6]!;
  }
}
