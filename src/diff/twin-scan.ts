import type { ObjectIndex } from '../storage/index/object-index.js';
import type { TwinChunks } from './twin-chunks.js';
import type { TypeCounter } from '../storage/index/type-counter.js';

/**
 * One file of A walked beside its twin (B's file of the same channel and number) for the records
 * that need nothing but counting: those that are not A's latest, and those the twin holds at the
 * same place as B's latest, byte for byte, in one loop per chunk; the block comparison that tells
 * them (64 KiB of the twin at once) serves the comparison's record-by-record way too
 * (compare-records.ts).
 */

const RECORD_HEADER = 24;
/** Bytes of A compared with the twin file at once where records lie at the same places. */
const BLOCK = 64 * 1024;

export class TwinFileScan {
  /** Records of A counted here whose object B has too. */
  matched = 0;
  // A range of the twin file known to hold exactly A's bytes (compared a block at a time: one
  // comparison per BLOCK bytes instead of one per record), and one known to differ somewhere.
  private equalFrom = 0;
  private equalTo = 0;
  private differsTo = 0;
  // A DataView per chunk (Buffer's own readers check their arguments on every call).
  private viewed: Buffer | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));

  /**
   * @param unchanged counts the unchanged records taken here, by their type id's low half (only
   *   type ids below 2^32 are taken).
   */
  constructor(
    private readonly objects: ObjectIndex,
    private readonly slot: number,
    private readonly twinObjects: ObjectIndex,
    private readonly twinSlot: number,
    private readonly twinLength: number,
    readonly chunks: TwinChunks,
    private readonly unchanged: TypeCounter,
  ) {}

  /**
   * The common records of `bytes` from `at` (file offset `offset`) up to `limit`, in one loop (a
   * call per record cost more than the work on most of them): records that are not A's latest are
   * passed over; those the twin holds at the same place as B's latest, byte for byte, with a type
   * id below 2^32, are counted as unchanged. Returns where it stopped: at a record that needs
   * more (the caller's general way), or where the twin's chunk has to be read on.
   */
  run(bytes: Buffer, at: number, offset: number, limit: number): number {
    if (bytes !== this.viewed) {
      this.viewed = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    const view = this.view;
    const objects = this.objects;
    const slot = this.slot;
    const twinObjects = this.twinObjects;
    const chunks = this.chunks;
    while (at + RECORD_HEADER <= limit) {
      const length = view.getInt32(at, true);
      // A gap (negative length), a record too long for a number of 32 bits, or one past the chunk.
      if (view.getInt32(at + 4, true) !== 0 || length < RECORD_HEADER || at + length > limit) break;
      const low = view.getInt32(at + 16, true);
      const high = view.getInt32(at + 20, true);
      if (objects.isLatest(low, high, slot, offset)) {
        if (view.getInt32(at + 12, true) !== 0 || offset + length > this.twinLength || !twinObjects.isLatest(low, high, this.twinSlot, offset)) break;
        if (chunks.behind(offset) || !this.equalAtTwin(bytes, at, offset, length)) break;
        this.matched++;
        this.unchanged.add(view.getUint32(at + 8, true));
      }
      at += length;
      offset += length;
    }
    return at;
  }

  /**
   * Whether the twin holds A's record at the same offset: inside a block known equal, else
   * compared (false for a record across the end of the twin's chunk: the general way reads it).
   */
  equalAtTwin(bytes: Buffer, at: number, offset: number, length: number): boolean {
    if (offset >= this.equalFrom && offset + length <= this.equalTo) return true;
    const chunks = this.chunks;
    if (offset >= this.differsTo) {
      const span = Math.min(BLOCK, bytes.length - at, chunks.heldFrom(offset));
      if (span > length) {
        if (chunks.equals(offset, bytes, at, span)) {
          this.equalFrom = offset;
          this.equalTo = offset + span;
          return true;
        }
        this.differsTo = offset + span;
      }
    }
    return chunks.equals(offset, bytes, at, length);
  }
}
