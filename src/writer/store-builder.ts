import type { TypeEntry } from '../format/type-dictionary.js';
import { ByteSink } from './byte-sink.js';
import { encodeRecord, type FieldValue } from './entity-encoder.js';

/**
 * The records of one store, collected per channel (channel = object id & (C - 1),
 * storage-format.md §4) in the order they are added. Records are encoded right away, so a store
 * costs its encoded bytes and nothing per entity. A builder can be cleared and reused.
 */
export class StoreBuilder {
  readonly sinks: readonly ByteSink[];
  private readonly mask: bigint;
  private recordCount = 0;
  /** Set once the writer has planned the store; a planned builder takes no more records. */
  sealed = false;

  constructor(readonly channelCount: number, initialCapacity = 256 * 1024) {
    this.mask = BigInt(channelCount - 1);
    this.sinks = Array.from({ length: channelCount }, () => new ByteSink(initialCapacity));
  }

  /** Encodes one entity record into its channel's part of the store. */
  add(entry: TypeEntry, objectId: bigint, values: readonly FieldValue[]): void {
    if (this.sealed) throw new Error('this store has been planned already; clear the builder to reuse it');
    encodeRecord(this.sinks[Number(objectId & this.mask)]!, entry, objectId, values);
    this.recordCount++;
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

  clear(): void {
    for (const sink of this.sinks) sink.clear();
    this.recordCount = 0;
    this.sealed = false;
  }
}
