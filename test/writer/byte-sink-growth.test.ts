import { describe, expect, it } from 'vitest';
import { ByteSink } from '../../src/writer/byte-sink.js';
import { StoreBuilder } from '../../src/writer/store-builder.js';

describe('ByteSink firstGrowth', () => {
  it('grows to firstGrowth at once, then by doubling, keeping what was written', () => {
    const sink = new ByteSink(1024, 10_000);
    sink.buffer.fill(7, 0, 1000);
    sink.reserve(1000);
    expect(sink.buffer.length).toBe(1024);
    sink.reserve(100); // past 1024: one allocation of 10,000 bytes, not 2,048
    expect(sink.buffer.length).toBe(10_000);
    expect(sink.bytes().subarray(0, 1000).every((b) => b === 7)).toBe(true);
    sink.reserve(9_000); // 10,100 bytes: doubled
    expect(sink.buffer.length).toBe(20_000);
  });

  it('without it, doubles from the first capacity', () => {
    const sink = new ByteSink(1024);
    sink.reserve(1025);
    expect(sink.buffer.length).toBe(2048);
  });

  it("a store builder's idle part given back grows to firstGrowth again", () => {
    const builder = new StoreBuilder(2, 1024, 8192);
    const part = builder.sinks[0]!;
    part.reserve(2000);
    expect(part.buffer.length).toBe(8192);
    builder.clear(); // part 0 held bytes: kept
    expect(part.buffer.length).toBe(8192);
    builder.clear(); // idle for a whole store: back to 1 KiB
    expect(part.buffer.length).toBe(1024);
    part.reserve(1500);
    expect(part.buffer.length).toBe(8192);
  });
});
