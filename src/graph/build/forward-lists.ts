import { FORWARD_FLAG } from '../model/adjacency.js';
import { RANGE_BITS } from '../model/referrer-rows.js';

/**
 * The forward lists of a graph build in the order the records are found (file order), each
 * ending with a flagged entry, in chunks that are never copied; laid out as rows in node order
 * once every file is read (graph-build.ts). The decode worker thread keeps lists of its own, in
 * chunks over shared memory that the building thread reads once the worker is done.
 */

/** Entries of a chunk: 2^22 (16 MiB). */
export const TEMP_CHUNK_BITS = 22;
const TEMP_CHUNK = 1 << TEMP_CHUNK_BITS;
const LAST = 0x80000000;

export class ForwardLists {
  length = 0;

  constructor(
    private readonly chunks: Uint32Array[] = [],
    private readonly allocate: (length: number) => Uint32Array = (length) => new Uint32Array(length),
  ) {}

  /** Lists another thread wrote (`parts` of its ForwardLists), read here without copying. */
  static fromParts(parts: ForwardListsParts): ForwardLists {
    const lists = new ForwardLists(parts.chunks);
    lists.length = parts.length;
    return lists;
  }

  /** The chunks and length, for another thread (chunks over shared memory are not copied in a message). */
  toParts(): ForwardListsParts {
    return { chunks: this.chunks, length: this.length };
  }

  /** Appends `targets[from, from + count)`, flagging the last; returns where the list starts. */
  append(targets: Uint32Array, count: number, from = 0): number {
    const start = this.length;
    const end = from + count;
    const c = start >>> TEMP_CHUNK_BITS;
    if (count > 0 && c < this.chunks.length && (start + count - 1) >>> TEMP_CHUNK_BITS === c) {
      // The whole list fits in the current chunk (nearly always): no lookup per entry.
      const chunk = this.chunks[c]!;
      let at = start & (TEMP_CHUNK - 1);
      for (let i = from; i < end - 1; i++) chunk[at++] = targets[i] as number;
      chunk[at] = ((targets[end - 1] as number) | LAST) >>> 0;
      this.length = start + count;
      return start;
    }
    for (let i = from; i < end; i++) {
      const at = this.length++;
      const c = at >>> TEMP_CHUNK_BITS;
      if (c === this.chunks.length) this.chunks.push(this.allocate(TEMP_CHUNK));
      const u = targets[i] as number;
      this.chunks[c]![at & (TEMP_CHUNK - 1)] = i === end - 1 ? (u | LAST) >>> 0 : u;
    }
    return start;
  }

  /**
   * Adds to `degrees[u]` one for every entry u of every list. Directly: the targets of records in
   * file order are near each other often enough that partitioning them by range first (to keep the
   * counts written in cache) took longer at 10M entities, and its scratch memory was fresh pages.
   */
  countTargets(degrees: Uint32Array): void {
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      const count = Math.min(TEMP_CHUNK, this.length - c * TEMP_CHUNK);
      for (let i = 0; i < count; i++) {
        const u = (chunk[i] as number) & 0x7fffffff;
        degrees[u] = (degrees[u] as number) + 1;
      }
    }
  }

  /**
   * A chunk of these lists, for scratch memory once no list is read again (its pages are mapped
   * already: fresh memory costs a page fault a page), or undefined when there is none.
   */
  lendChunk(): Uint32Array | undefined {
    return this.chunks[0];
  }

  /**
   * Copies the list starting at `start` into `rows` at `at` with the forward flag, counting each
   * target in `histogram[base + its range]` (referrer-rows.ts); returns the end.
   */
  copyForward(start: number, rows: Uint32Array, at: number, histogram: Uint32Array, base: number): number {
    for (let i = start; ; i++) {
      const x = this.chunks[i >>> TEMP_CHUNK_BITS]![i & (TEMP_CHUNK - 1)] as number;
      rows[at++] = (x | FORWARD_FLAG) >>> 0;
      const r = base + ((x & 0x7fffffff) >>> RANGE_BITS);
      histogram[r] = (histogram[r] as number) + 1;
      if (x >= LAST) return at;
    }
  }
}

export interface ForwardListsParts {
  readonly chunks: Uint32Array[];
  readonly length: number;
}
