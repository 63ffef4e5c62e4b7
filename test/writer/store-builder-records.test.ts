import { describe, expect, it } from 'vitest';
import { StoreBuilder } from '../../src/writer/store-builder.js';

/**
 * Records copied as they are into a store (`addRecord`, and `addRecordAt` for records inside a
 * larger chunk, as convert copies them): each into the part of its object's channel, byte for
 * byte; anything that is not one complete record is refused.
 */

function record(objectId: bigint, content: number[]): Buffer {
  const bytes = Buffer.alloc(24 + content.length);
  bytes.writeBigInt64LE(BigInt(bytes.length), 0);
  bytes.writeBigInt64LE(1000001n, 8);
  bytes.writeBigInt64LE(objectId, 16);
  Buffer.from(content).copy(bytes, 24);
  return bytes;
}

describe('records copied into a store', () => {
  it('addRecordAt takes a record out of a chunk into its channel (object id & (channels - 1))', () => {
    const a = record(1000000000000000005n, [1, 2, 3]);
    const b = record(1000000000000000006n, [4, 5]);
    const chunk = Buffer.concat([Buffer.from([9, 9]), a, b, Buffer.from([7])]);
    const builder = new StoreBuilder(2);
    builder.addRecordAt(chunk, 2, a.length);
    builder.addRecordAt(chunk, 2 + a.length, b.length);
    builder.addRecord(new Uint8Array(b));
    expect(builder.records).toBe(3);
    expect(builder.sinks[1]!.bytes()).toEqual(a);
    expect(builder.sinks[0]!.bytes()).toEqual(Buffer.concat([b, b]));
  });

  it('clear gives back the memory of a channel part that stayed empty for a whole store, and keeps a used one\'s', () => {
    const builder = new StoreBuilder(2, 1024);
    const big = record(1000000000000000005n, new Array<number>(5000).fill(1)); // channel 1
    builder.addRecord(big);
    builder.addRecord(record(1000000000000000006n, [2])); // channel 0
    expect(builder.sinks[1]!.buffer.length).toBeGreaterThanOrEqual(big.length);
    builder.clear(); // both parts were used: both keep their memory
    expect(builder.sinks[1]!.buffer.length).toBeGreaterThanOrEqual(big.length);
    builder.addRecord(record(1000000000000000008n, [3])); // a store with channel 0 only
    builder.clear();
    expect(builder.sinks[1]!.buffer.length).toBe(1024);
    expect(builder.sinks[0]!.buffer.length).toBe(1024);
    builder.addRecord(big); // and it grows again where needed
    expect(builder.sinks[1]!.bytes()).toEqual(big);
  });

  it('refuses a length that is not the header\'s, a range beyond the chunk, a short record', () => {
    const a = record(1000000000000000005n, [1, 2, 3]);
    const builder = new StoreBuilder(2);
    expect(() => builder.addRecordAt(a, 0, a.length - 1)).toThrow('not a complete record: 26 bytes, header says 27');
    expect(() => builder.addRecordAt(Buffer.concat([Buffer.alloc(1), a]), 1, a.length + 1)).toThrow(RangeError);
    expect(() => builder.addRecordAt(a, 4, a.length)).toThrow(RangeError);
    expect(() => builder.addRecord(a.subarray(0, 20))).toThrow('not a complete record: 20 bytes');
    expect(builder.records).toBe(0);
  });
});
