import type { TypeEntry } from '../format/type-dictionary.js';
import { ByteSink } from './byte-sink.js';
import { encodeRecord, type FieldValue } from './entity-encoder.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { int32At } from '../format/int32-at.js';

/**
 * The records of one store, collected per channel (channel = object id & (C - 1),
 * storage-format.md §4) in the order they are added. Records are encoded right away, so a store
 * costs its encoded bytes and nothing per entity. A builder can be cleared and reused.
 */
export class StoreBuilder {
  readonly sinks: readonly ByteSink[];
  private readonly mask: bigint;
  private readonly channelMask: number;
  private recordCount = 0;
  /** Set once the writer has planned the store; a planned builder takes no more records. */
  sealed = false;

  /** @param firstGrowth see `ByteSink`'s: the size a channel's part grows to at once when it outgrows `initialCapacity`. */
  constructor(
    readonly channelCount: number,
    private readonly initialCapacity = 256 * 1024,
    firstGrowth = 0,
  ) {
    this.mask = BigInt(channelCount - 1);
    this.channelMask = channelCount - 1;
    this.sinks = Array.from({ length: channelCount }, () => new ByteSink(initialCapacity, firstGrowth));
  }

  /** Encodes one entity record into its channel's part of the store. */
  add(entry: TypeEntry, objectId: bigint, values: readonly FieldValue[]): void {
    if (this.sealed) throw new Error('this store has been planned already; clear the builder to reuse it');
    encodeRecord(this.sinks[Number(objectId & this.mask)]!, entry, objectId, values);
    this.recordCount++;
  }

  /**
   * Appends a complete record as it is (header and content, e.g. copied from another storage) to
   * the part of its object's channel. The header's length must be the record's length.
   */
  addRecord(record: Uint8Array): void {
    this.addRecordAt(Buffer.from(record.buffer, record.byteOffset, record.byteLength), 0, record.byteLength);
  }

  /**
   * `addRecord` of `bytes[at, at + length)`, for walks that copy many records out of one chunk:
   * no view or subarray made per record.
   */
  addRecordAt(bytes: Buffer, at: number, length: number): void {
    if (this.sealed) throw new Error('this store has been planned already; clear the builder to reuse it');
    this.addRecordsAt(bytes, at, length, length, 1);
  }

  /**
   * `count` complete records back to back in `bytes[at, at + length)`, all of one channel (the
   * first record's, `firstLength` bytes long): copied with one call. The first record's header is
   * checked; the caller vouches for the others (a walk that measured each).
   */
  addRecordsAt(bytes: Buffer, at: number, length: number, firstLength: number, count: number): void {
    if (this.sealed) throw new Error('this store has been planned already; clear the builder to reuse it');
    if (firstLength < RECORD_HEADER_SIZE || firstLength > length || at < 0 || at + length > bytes.length || int32At(bytes, at) !== firstLength || int32At(bytes, at + 4) !== 0) {
      throw new RangeError(`not a complete record: ${firstLength} bytes, header says ${firstLength >= 8 && at + 8 <= bytes.length ? bytes.readBigInt64LE(at) : '?'}`);
    }
    // The channel is in the object id's lowest bits (no bigint needed): oid & (channels - 1).
    const sink = this.sinks[int32At(bytes, at + 16) & this.channelMask]!;
    const start = sink.reserve(length);
    bytes.copy(sink.buffer, start, at, at + length);
    this.recordCount += count;
  }

  get records(): number {
    return this.recordCount;
  }

  /** Encoded bytes over all channels. */
  get byteLength(): number {
    let total = 0;
    for (const sink of this.sinks) total += sink.length;
    return total;
  }

  /**
   * Empties the builder for the next store. A channel's part that stayed empty for a whole store
   * gives its memory back: a copy walks one source channel after the other, so each part of a
   * builder grew to a batch once, and the other parts' memory was held for nothing (convert at 1M
   * entities, two builders: peak RSS 227-231 -> 201-211 MB).
   */
  clear(): void {
    for (const sink of this.sinks) {
      if (sink.length === 0) sink.release(this.initialCapacity);
      else sink.clear();
    }
    this.recordCount = 0;
    this.sealed = false;
  }
}
