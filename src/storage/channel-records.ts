import { RECORD_HEADER_SIZE as HEADER } from '../format/entity-record.js';
import type { IndexBuilder } from './index-builder.js';
import type { RecordRunWalker } from './record-scan.js';

/**
 * What indexing a channel does with each record header: the object's location into the index
 * being built (index-builder.ts: the later record of an id wins), ids of the roots type. `walkRun` is the scanner's fast path
 * (record-scan.ts): the same work in a loop of its own, no call per record (the hot loop of
 * opening a storage; a call per record cost about a quarter of the walk).
 */
export class ChannelRecords implements RecordRunWalker {
  /** The file slot of the file being walked. */
  slot = 0;
  /** Object ids (as decimal strings) of records of the roots type. */
  readonly roots = new Set<string>();

  constructor(
    private readonly builder: IndexBuilder,
    private readonly rootsLow: number,
    private readonly rootsHigh: number,
  ) {}

  /** One record at absolute offset `offset` (ids as signed 32-bit halves). */
  record(offset: number, length: number, tidLow: number, tidHigh: number, idLow: number, idHigh: number): void {
    this.builder.load(idLow, idHigh, this.slot, offset, length);
    // In a method of its own: this one stays small enough to be compiled into the walk (walkRun).
    if (tidLow === this.rootsLow && tidHigh === this.rootsHigh) this.noteRoot(idLow, idHigh);
  }

  private noteRoot(idLow: number, idHigh: number): void {
    this.roots.add(String((BigInt(idHigh) << 32n) | BigInt(idLow >>> 0)));
  }

  walkRun(view: DataView, at: number, end: number, pos: number, validLength: number): number {
    let walked = 0;
    while (at + HEADER <= end) {
      const length = view.getUint32(at, true);
      if (view.getInt32(at + 4, true) !== 0 || length < HEADER || pos + length > validLength) break;
      // Signed reads: small integers stay unboxed.
      this.record(pos, length, view.getInt32(at + 8, true), view.getInt32(at + 12, true), view.getInt32(at + 16, true), view.getInt32(at + 20, true));
      at += length;
      pos += length;
      walked++;
    }
    lastWalked = walked;
    return at;
  }

  get walked(): number {
    return lastWalked;
  }
}

/**
 * How many records the last `walkRun` walked, in a module variable (one walk at a time per thread:
 * it is synchronous), not in a field: V8 compiles the loop while it first runs (on-stack
 * replacement), before the code after it ever ran, and a field store there, lacking type feedback,
 * threw the compiled loop away at the end of every chunk (20–27 times per thread, measured) until
 * the whole function had been compiled anew. A module variable needs no type feedback.
 */
let lastWalked = 0;
