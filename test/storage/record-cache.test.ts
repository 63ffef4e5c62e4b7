import { describe, expect, it } from 'vitest';
import { DEFAULT_RECORD_CACHE_BYTES, FIRST_RING_BYTES, RecordCache } from '../../src/storage/record-cache.js';
import { prng } from '../helpers/corpora/prng.js';

/** A record's bytes that tell where it came from. */
function recordAt(channel: number, slot: number, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (channel * 131 + slot * 31 + offset + i * 7) & 0xff;
  return bytes;
}

describe('RecordCache', () => {
  it('answers a kept record with a copy of its bytes, and nothing for another place or length', () => {
    const cache = new RecordCache(64 * 1024);
    expect(cache.get(0, 0, 0, 40)).toBeUndefined();
    cache.put(1, 2, 3000, recordAt(1, 2, 3000, 40));
    const got = cache.get(1, 2, 3000, 40)!;
    expect(Buffer.from(recordAt(1, 2, 3000, 40)).equals(got)).toBe(true);
    got.fill(0); // a copy: the kept bytes stay
    expect(Buffer.from(recordAt(1, 2, 3000, 40)).equals(cache.get(1, 2, 3000, 40)!)).toBe(true);
    expect(cache.get(1, 2, 3000, 41)).toBeUndefined();
    expect(cache.get(0, 2, 3000, 40)).toBeUndefined();
    expect(cache.get(1, 3, 3000, 40)).toBeUndefined();
    expect(cache.get(1, 2, 3001, 40)).toBeUndefined();
    // Channel 0, slot 0, offset 0 is a place like any other (an empty entry is not it).
    expect(cache.get(0, 0, 0, 0)).toBeUndefined();
    cache.put(0, 0, 0, recordAt(0, 0, 0, 24));
    expect(Buffer.from(recordAt(0, 0, 0, 24)).equals(cache.get(0, 0, 0, 24)!)).toBe(true);
    expect(cache.stats()).toMatchObject({ hits: 3, misses: 6 });
  });

  it('keeps offsets beyond 32 bits apart', () => {
    const cache = new RecordCache(64 * 1024);
    cache.put(0, 1, 2 ** 32 + 16, recordAt(0, 1, 16, 30));
    expect(cache.get(0, 1, 16, 30)).toBeUndefined();
    expect(Buffer.from(recordAt(0, 1, 16, 30)).equals(cache.get(0, 1, 2 ** 32 + 16, 30)!)).toBe(true);
  });

  it('never answers bytes the ring has come round over, whatever was kept since', () => {
    const capacity = 16 * 1024;
    const cache = new RecordCache(capacity);
    const random = prng(7);
    const kept: { channel: number; slot: number; offset: number; length: number; order: number }[] = [];
    let written = 0;
    for (let order = 0; order < 5_000; order++) {
      const channel = Math.floor(random() * 4);
      const slot = Math.floor(random() * 50);
      const offset = Math.floor(random() * 1_000_000);
      const length = 20 + Math.floor(random() * 230); // at most 1/64 of the ring
      cache.put(channel, slot, offset, recordAt(channel, slot, offset, length));
      kept.push({ channel, slot, offset, length, order });
      written += length;
      // Every answer is the record asked for; the latest records are still there.
      if (order % 97 === 0) {
        for (const k of kept.slice(-40)) {
          const got = cache.get(k.channel, k.slot, k.offset, k.length);
          if (got !== undefined) expect(Buffer.from(recordAt(k.channel, k.slot, k.offset, k.length)).equals(got)).toBe(true);
        }
        const last = kept.at(-1)!;
        expect(cache.get(last.channel, last.slot, last.offset, last.length)).toBeDefined();
      }
    }
    expect(written).toBeGreaterThan(20 * capacity);
    let answered = 0;
    for (const k of kept) {
      const got = cache.get(k.channel, k.slot, k.offset, k.length);
      if (got === undefined) continue;
      answered++;
      expect(Buffer.from(recordAt(k.channel, k.slot, k.offset, k.length)).equals(got)).toBe(true);
    }
    // At most what fits in the ring is answered.
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThanOrEqual(capacity / 20);
  });

  it('answers every record of a set read over and over that fits its ring, wherever the records lie', () => {
    // 1 MiB: a table of 4,096 entries; 500 records at random places fill an eighth of it.
    const cache = new RecordCache(1024 * 1024);
    const random = prng(11);
    const places = Array.from({ length: 500 }, () => [Math.floor(random() * 4), Math.floor(random() * 900), Math.floor(random() * 8e6)] as const);
    for (let pass = 0; pass < 3; pass++) {
      for (const [channel, slot, offset] of places) {
        if (cache.get(channel, slot, offset, 100) === undefined) cache.put(channel, slot, offset, recordAt(channel, slot, offset, 100));
      }
    }
    expect(cache.stats()).toMatchObject({ misses: 500, hits: 1000 });
  });

  it('keeps no record larger than a 64th of its ring, and nothing at size 0', () => {
    const cache = new RecordCache(64 * 1024);
    cache.put(0, 0, 0, recordAt(0, 0, 0, 1025));
    expect(cache.get(0, 0, 0, 1025)).toBeUndefined();
    cache.put(0, 0, 0, recordAt(0, 0, 0, 1024));
    expect(cache.get(0, 0, 0, 1024)).toBeDefined();
    const none = new RecordCache(0);
    none.put(0, 0, 0, recordAt(0, 0, 0, 24));
    expect(none.get(0, 0, 0, 24)).toBeUndefined();
    expect(none.stats().bytes).toBe(0);
  });

  it('takes memory as it fills: a ring of 1 MiB first, doubled up to the capacity, the records kept carried over', () => {
    const cache = new RecordCache(DEFAULT_RECORD_CACHE_BYTES);
    cache.put(0, 1, 0, recordAt(0, 1, 0, 1000));
    // The first ring and its table (4,096 entries of 28 bytes), not the 64 MiB.
    expect(cache.stats()).toMatchObject({ capacity: DEFAULT_RECORD_CACHE_BYTES, bytes: FIRST_RING_BYTES + 4096 * 28 });
    // 6 MiB of records at places of three channels and many files: the ring doubles three times (8 MiB).
    const places = Array.from({ length: 6 * 1024 }, (_, i) => [i % 3, 1 + (i % 97), i * 1024 + (i % 5) * 2 ** 32] as const);
    for (const [channel, slot, offset] of places) cache.put(channel, slot, offset, recordAt(channel, slot, offset, 1024));
    expect(cache.stats().bytes).toBe(8 * FIRST_RING_BYTES + 32768 * 28);
    let answered = 0;
    for (const [channel, slot, offset] of [[0, 1, 0] as const, ...places]) {
      const length = offset === 0 ? 1000 : 1024;
      const got = cache.get(channel, slot, offset, length);
      if (got === undefined) continue;
      answered++;
      expect(Buffer.from(recordAt(channel, slot, offset, length)).equals(got)).toBe(true);
    }
    // Nothing went round, and the records of the smaller rings were carried over (else at most the
    // last 4 MiB would be answered): only a place pushed out of its set of four is missed.
    expect(answered).toBeGreaterThan(0.99 * (places.length + 1));
  });

  it('never answers bytes gone round over while it grows, and stops at its capacity', () => {
    const capacity = 4 * FIRST_RING_BYTES + 12345;
    const cache = new RecordCache(capacity);
    const random = prng(5);
    const kept: { channel: number; slot: number; offset: number; length: number }[] = [];
    let written = 0;
    while (written < 3 * capacity) {
      const channel = Math.floor(random() * 4);
      const slot = Math.floor(random() * 50);
      const offset = Math.floor(random() * 1e9);
      const length = 20 + Math.floor(random() * 60_000);
      cache.put(channel, slot, offset, recordAt(channel, slot, offset, length));
      kept.push({ channel, slot, offset, length });
      written += length;
      const last = kept.at(-1)!;
      expect(cache.get(last.channel, last.slot, last.offset, last.length)).toBeDefined();
      if (kept.length % 50 === 0) {
        for (const k of kept.slice(-300)) {
          const got = cache.get(k.channel, k.slot, k.offset, k.length);
          if (got !== undefined) expect(Buffer.from(recordAt(k.channel, k.slot, k.offset, k.length)).equals(got)).toBe(true);
        }
      }
    }
    // 1, 2, 4 MiB, then the capacity (not a power of two), and no further.
    expect(cache.stats().bytes).toBe(capacity + 32768 * 28); // its table: a power of two of entries, one per 256 bytes or more
  });

  it('forgets everything when cleared, and keeps records again afterwards', () => {
    const cache = new RecordCache(64 * 1024);
    for (let i = 0; i < 100; i++) cache.put(0, 1, i * 100, recordAt(0, 1, i * 100, 50));
    expect(cache.get(0, 1, 9900, 50)).toBeDefined();
    cache.clear();
    for (let i = 0; i < 100; i++) expect(cache.get(0, 1, i * 100, 50)).toBeUndefined();
    cache.put(0, 1, 100, recordAt(0, 1, 100, 50));
    expect(Buffer.from(recordAt(0, 1, 100, 50)).equals(cache.get(0, 1, 100, 50)!)).toBe(true);
    expect(cache.get(0, 1, 200, 50)).toBeUndefined();
  });
});
