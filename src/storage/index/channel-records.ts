import { RECORD_HEADER_SIZE } from '../../format/entity-record.js';
import type { IndexLoad } from './index-builder.js';
import type { RecordRunWalker } from '../records/record-scan.js';
import type { LatestTypes } from './latest-types.js';

/** A local copy, folded into the compiled walk (run-layout.ts says why). */
const HEADER = RECORD_HEADER_SIZE;

/**
 * What indexing a channel does with each record header: the object's location into the index
 * being built (index-builder.ts: the later record of an id wins), ids of the roots type.
 * `walkRun` is the scanner's fast path (record-scan.ts): the same work in a loop of its own, no
 * call per record (the hot loop of opening a storage; a call per record cost about a quarter of
 * the walk), handing each record to the index directly: V8 compiles what it calls into the loop
 * only so deep, and through `record`, one call more, opening the 1M benchmark storage (loaded
 * through `ObjectIndex.set`) took 147 instead of 140 ms (medians of eight alternated opens).
 */
export class ChannelRecords implements RecordRunWalker {
  /** The file slot of the file being walked. */
  slot = 0;
  /** Object ids (as decimal strings) of records of the roots type. */
  readonly roots = new Set<string>();

  constructor(
    protected readonly builder: IndexLoad,
    protected readonly rootsLow: number,
    protected readonly rootsHigh: number,
  ) {}

  /** One record at absolute offset `offset` (ids as signed 32-bit halves). */
  record(offset: number, length: number, tidLow: number, tidHigh: number, idLow: number, idHigh: number): void {
    this.builder.load(idLow, idHigh, this.slot, offset, length);
    if (tidLow === this.rootsLow && tidHigh === this.rootsHigh) this.noteRoot(idLow, idHigh);
  }

  /** In a method of its own, so that the walk stays small enough to be compiled whole. */
  protected noteRoot(idLow: number, idHigh: number): void {
    this.roots.add(String((BigInt(idHigh) << 32n) | BigInt(idLow >>> 0)));
  }

  walkRun(view: DataView, at: number, end: number, pos: number, validLength: number): number {
    let walked = 0;
    while (at + HEADER <= end) {
      const length = view.getUint32(at, true);
      if (view.getInt32(at + 4, true) !== 0 || length < HEADER || pos + length > validLength) break;
      // Signed reads: small integers stay unboxed.
      const idLow = view.getInt32(at + 16, true);
      const idHigh = view.getInt32(at + 20, true);
      this.builder.load(idLow, idHigh, this.slot, pos, length);
      if (view.getInt32(at + 8, true) === this.rootsLow && view.getInt32(at + 12, true) === this.rootsHigh) this.noteRoot(idLow, idHigh);
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
 * The same, with each record's type kept for the counts per type of the latest records
 * (latest-types.ts). A loop of its own rather than a test per record in the one above: opening
 * without the counts, as every command but a diff does, runs the walk as it was.
 */
export class ChannelRecordsWithTypes extends ChannelRecords {
  constructor(
    builder: IndexLoad,
    rootsLow: number,
    rootsHigh: number,
    private readonly types: LatestTypes,
  ) {
    super(builder, rootsLow, rootsHigh);
  }

  override record(offset: number, length: number, tidLow: number, tidHigh: number, idLow: number, idHigh: number): void {
    super.record(offset, length, tidLow, tidHigh, idLow, idHigh);
    this.types.set(idLow, idHigh, tidLow, tidHigh);
  }

  override walkRun(view: DataView, at: number, end: number, pos: number, validLength: number): number {
    let walked = 0;
    while (at + HEADER <= end) {
      const length = view.getUint32(at, true);
      if (view.getInt32(at + 4, true) !== 0 || length < HEADER || pos + length > validLength) break;
      const idLow = view.getInt32(at + 16, true);
      const idHigh = view.getInt32(at + 20, true);
      const tidLow = view.getInt32(at + 8, true);
      const tidHigh = view.getInt32(at + 12, true);
      this.builder.load(idLow, idHigh, this.slot, pos, length);
      this.types.set(idLow, idHigh, tidLow, tidHigh);
      if (tidLow === this.rootsLow && tidHigh === this.rootsHigh) this.noteRoot(idLow, idHigh);
      at += length;
      pos += length;
      walked++;
    }
    lastWalked = walked;
    return at;
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
