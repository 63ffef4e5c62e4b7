/**
 * Recently read rows of files kept in database tables (a file is its rows concatenated in order),
 * so that neighbouring records (an object and those stored with it in one commit) are read with
 * one query. Only committed bytes are kept: they never change while the file exists (the tail
 * after them may be cut and rewritten when Java truncates an unfinished write). Bounded by bytes;
 * least recently used rows go first.
 */

interface CachedRow {
  readonly path: string;
  readonly start: number;
  readonly bytes: Buffer;
}

export const DEFAULT_ROW_CACHE_BYTES = 64 * 1024 * 1024;

export class RowCache {
  /** Per file: cached rows by start offset (ascending starts kept alongside for the search). */
  private readonly files = new Map<string, { starts: number[]; rows: Map<number, CachedRow> }>();
  /** Every cached row in least-recently-used order (Map iteration order). */
  private readonly lru = new Map<CachedRow, true>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_ROW_CACHE_BYTES) {}

  get size(): number {
    return this.bytes;
  }

  /** `[position, position + length)` if cached rows cover it without a hole, else undefined. */
  read(path: string, position: number, length: number): Buffer | undefined {
    const file = this.files.get(path);
    if (file === undefined) return undefined;
    const parts: Buffer[] = [];
    let at = position;
    const end = position + length;
    let index = floorIndex(file.starts, at);
    while (at < end) {
      const start = file.starts[index];
      const row = start === undefined ? undefined : file.rows.get(start);
      if (row === undefined || row.start > at || row.start + row.bytes.length <= at) return undefined;
      parts.push(row.bytes.subarray(at - row.start, Math.min(end, row.start + row.bytes.length) - row.start));
      at = row.start + row.bytes.length;
      index++;
    }
    this.touch(file, position, end);
    return parts.length === 1 ? Buffer.from(parts[0] as Buffer) : Buffer.concat(parts, length);
  }

  /** Keeps a row's committed bytes (the caller cut off anything after the committed length). */
  put(path: string, start: number, bytes: Buffer): void {
    if (bytes.length === 0 || bytes.length > this.maxBytes / 4) return;
    const existing = this.files.get(path)?.rows.get(start);
    if (existing !== undefined) {
      if (existing.bytes.length >= bytes.length) return;
      this.remove(existing);
    }
    let file = this.files.get(path);
    if (file === undefined) {
      file = { starts: [], rows: new Map() };
      this.files.set(path, file);
    }
    const row: CachedRow = { path, start, bytes };
    file.rows.set(start, row);
    const at = floorIndex(file.starts, start) + 1;
    file.starts.splice(at, 0, start);
    this.lru.set(row, true);
    this.bytes += bytes.length;
    while (this.bytes > this.maxBytes) {
      const oldest = this.lru.keys().next().value as CachedRow | undefined;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
  }

  /** Drops every row of a file (it was deleted, or its tail rewritten). */
  forget(path: string): void {
    const file = this.files.get(path);
    if (file === undefined) return;
    for (const row of file.rows.values()) {
      this.lru.delete(row);
      this.bytes -= row.bytes.length;
    }
    this.files.delete(path);
  }

  clear(): void {
    this.files.clear();
    this.lru.clear();
    this.bytes = 0;
  }

  private touch(file: { starts: number[]; rows: Map<number, CachedRow> }, from: number, to: number): void {
    for (let i = Math.max(0, floorIndex(file.starts, from)); i < file.starts.length && (file.starts[i] as number) < to; i++) {
      const row = file.rows.get(file.starts[i] as number);
      if (row === undefined) continue;
      this.lru.delete(row);
      this.lru.set(row, true);
    }
  }

  private remove(row: CachedRow): void {
    this.lru.delete(row);
    this.bytes -= row.bytes.length;
    const file = this.files.get(row.path);
    if (file === undefined) return;
    file.rows.delete(row.start);
    const index = floorIndex(file.starts, row.start);
    if (file.starts[index] === row.start) file.starts.splice(index, 1);
    if (file.rows.size === 0) this.files.delete(row.path);
  }
}

/** Index of the greatest value <= `value` in an ascending array; -1 when there is none. */
function floorIndex(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as number) <= value) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}
