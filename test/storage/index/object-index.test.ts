import { describe, expect, it } from 'vitest';
import { joinId, splitId } from '../../../src/storage/index/object-id-halves.js';
import { ObjectIndex, RUN_LENGTH_BITS, RUN_WORDS } from '../../../src/storage/index/object-index.js';

describe('ObjectIndex', () => {
  it('keeps the last location set for an id, across growth and compaction', () => {
    const index = new ObjectIndex();
    const base = 1000000000000000001n;
    for (let i = 0; i < 50_000; i++) {
      const [low, high] = splitId(base + BigInt(i));
      index.set(low, high, 0, i * 10, 30);
    }
    for (let i = 0; i < 50_000; i += 3) {
      const [low, high] = splitId(base + BigInt(i));
      index.set(low, high, 1, i, 40);
    }
    expect(index.size).toBe(50_000);
    const before = index.byteSize;
    index.compact();
    expect(index.byteSize).toBeLessThanOrEqual(before);
    expect(index.byteSize / index.size).toBeLessThanOrEqual(27);
    expect(index.get(base)).toEqual({ fileSlot: 1, offset: 0, length: 40 });
    expect(index.get(base + 1n)).toEqual({ fileSlot: 0, offset: 10, length: 30 });
    expect(index.get(base + 49_999n)).toEqual({ fileSlot: 0, offset: 499_990, length: 30 });
    expect(index.get(base + 50_000n)).toBeUndefined();
    expect(index.get(-1n)).toBeUndefined();
    expect(index.get(0n)).toBeUndefined();
    let seen = 0;
    let sum = 0n;
    index.forEach((low, high) => {
      seen++;
      sum += joinId(low, high) - base;
    });
    expect(seen).toBe(50_000);
    expect(sum).toBe((49_999n * 50_000n) / 2n);
  });

  it('handles ids above 2^53 exactly', () => {
    const index = new ObjectIndex();
    const a = 9007199254740993n; // 2^53 + 1
    const b = 9007199254740992n;
    index.set(...splitId(a), 2, 100, 24);
    expect(index.get(a)).toEqual({ fileSlot: 2, offset: 100, length: 24 });
    expect(index.get(b)).toBeUndefined();
    expect(index.locate(...splitId(a))).toBe(2);
    expect([index.foundOffset, index.foundLength]).toEqual([100, 24]);
    expect(index.locate(...splitId(b))).toBe(-1);
  });

  it('locates by the id\'s halves what get finds, in the run and hashed; a negative id nowhere, as get', () => {
    const index = new ObjectIndex(2);
    const base = 1000000000000000000n;
    index.reserveRun(100, ...splitId(base));
    for (let i = 0n; i < 400n; i += 4n) index.set(...splitId(base + i), 1, Number(i) * 10, 30);
    index.set(...splitId(base + 4_000_000_000n), 3, 4_000_000_000, 1 << 20); // hashed, an offset past 2^31, a length that does not pack
    const negative = -4n;
    const halves = (id: bigint): [number, number] => [Number(BigInt.asIntN(32, id)), Number(id >> 32n)]; // signed, as a record walk reads them
    index.set(...halves(negative), 2, 7, 24); // as a damaged record's id would be: not taken
    for (const id of [base, base + 396n, base + 4_000_000_000n, base + 2n, base + 400n, negative]) {
      const location = index.get(id);
      const slot = index.locate(...splitId(id));
      expect(slot, String(id)).toBe(location?.fileSlot ?? -1);
      if (location !== undefined) expect([index.foundOffset, index.foundLength]).toEqual([location.offset, location.length]);
    }
    expect(index.locate(...halves(negative))).toBe(-1);
  });

  describe('dense run', () => {
    const base = 1000000000000000001n;
    /** Every location the index answers, by id, through forEach (checked against get). */
    const contents = (index: ObjectIndex): Map<bigint, string> => {
      const seen = new Map<bigint, string>();
      index.forEach((low, high, fileSlot, offset, length) => {
        const id = joinId(low, high);
        expect(seen.has(id), `${id} visited once`).toBe(false);
        seen.set(id, `${fileSlot}:${offset}:${length}`);
        expect(index.get(id)).toEqual({ fileSlot, offset, length });
        expect(index.locate(low, high)).toBe(fileSlot);
        expect([index.foundOffset, index.foundLength]).toEqual([offset, length]);
        expect(index.has(low, high)).toBe(true);
        expect(index.isLatest(low, high, fileSlot, offset)).toBe(true);
        expect(index.isLatest(low, high, fileSlot + 1, offset)).toBe(false);
      });
      expect(seen.size).toBe(index.size);
      return seen;
    };

    it('answers like the hash table alone, for ids in the run, below it, beyond it and of other channels', () => {
      // Channel 1 of 4: its ids share the low bits 01.
      const dense = new ObjectIndex(2);
      const hashed = new ObjectIndex(2);
      const first = base + 4n * 100n;
      dense.reserveRun(1000, ...splitId(first));
      const ids: bigint[] = [];
      for (let i = 0n; i < 1500n; i++) ids.push(first + 4n * i); // past the run: it grows
      ids.push(base + 4n * 3n, base + 4n * 50_000n, base + 4n * 10n + 2n, (5n << 32n) + 1n, 9007199254740993n);
      ids.forEach((id, i) => {
        expect(dense.set(...splitId(id), i % 7, i * 8, 24 + (i % 5))).toBe(-1);
        hashed.set(...splitId(id), i % 7, i * 8, 24 + (i % 5));
      });
      // Replacing reports the previous location.
      expect(dense.set(...splitId(first + 4n), 9, 4, 30)).toBe(1);
      expect(dense.replacedOffset).toBe(8);
      expect(dense.replacedLength).toBe(25);
      hashed.set(...splitId(first + 4n), 9, 4, 30);
      expect(dense.size).toBe(ids.length);
      expect(contents(dense)).toEqual(contents(hashed));
      expect(dense.get(first + 4n * 1500n)).toBeUndefined();
      expect(dense.get(first + 1n)).toBeUndefined();
      expect(dense.byteSize / dense.size).toBeLessThan(hashed.byteSize / hashed.size);

      const gone: bigint[] = [];
      const removed = dense.removeWhere((slot) => slot === 3, (low, high) => gone.push(joinId(low, high)));
      hashed.removeWhere((slot) => slot === 3);
      expect(removed).toBe(gone.length);
      expect(gone.length).toBeGreaterThan(200);
      for (const id of gone) expect(dense.get(id)).toBeUndefined();
      dense.compact();
      expect(contents(dense)).toEqual(contents(hashed));
    });

    it('moves hashed ids into the run when it grows over them', () => {
      const index = new ObjectIndex(0);
      index.reserveRun(100, ...splitId(base));
      index.set(...splitId(base + 250n), 1, 250, 24); // beyond twice the run: hashed
      for (let i = 0n; i < 300n; i++) if (i !== 250n) index.set(...splitId(base + i), 0, Number(i), 24); // grows over 250
      expect(index.size).toBe(300);
      expect(index.get(base + 250n)).toEqual({ fileSlot: 1, offset: 250, length: 24 });
      // The run is visited in id order before the hashed ids: 250 now comes in order.
      const order: bigint[] = [];
      index.forEach((low, high) => order.push(joinId(low, high) - base));
      expect(order).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(i)));
      expect(index.set(...splitId(base + 250n), 2, 1, 24)).toBe(1);
      expect(contents(index).size).toBe(300);
    });

    it('keeps records that do not pack (1 MiB or longer, file slot 4,094 or beyond) in the hash table, answering as the hash table alone', () => {
      const MIB = 2 ** 20;
      const dense = new ObjectIndex(1);
      const hashed = new ObjectIndex(1); // no run: every id hashed
      dense.reserveRun(500, ...splitId(base));
      const both = (i: number, fileSlot: number, offset: number, length: number): number => {
        const id = base + 2n * BigInt(i);
        const previous = dense.set(...splitId(id), fileSlot, offset, length);
        const replaced = previous >= 0 ? [dense.replacedOffset, dense.replacedLength] : [];
        const want = hashed.set(...splitId(id), fileSlot, offset, length);
        expect(previous, `${i}: ${fileSlot}/${offset}/${length}`).toBe(want);
        if (want >= 0) expect(replaced).toEqual([hashed.replacedOffset, hashed.replacedLength]);
        return previous;
      };
      for (let i = 0; i < 500; i++) both(i, i % 3, i * 8, i % 10 === 0 ? MIB + i : 24); // new, past the run's top
      both(5, 4093, 1, MIB - 1); // the largest that packs
      both(6, 4094, 2, 30); // a file slot that does not
      both(7, 1, 3, MIB); // a length that does not, over one that packed
      both(10, 2, 4, 24); // packs, over a location in the hash table: stays there
      both(10, 2, 5, MIB * 3);
      both(20, 0, 6, 40);
      both(600, 0, 7, MIB); // beyond the run: hashed as ever
      expect(dense.size).toBe(hashed.size);
      expect(contents(dense)).toEqual(contents(hashed));
      expect(dense.get(base + 12n)).toEqual({ fileSlot: 4094, offset: 2, length: 30 });
      expect(dense.get(base + 20n)).toEqual({ fileSlot: 2, offset: 5, length: MIB * 3 });
      expect(dense.removeWhere((slot) => slot === 2)).toBe(hashed.removeWhere((slot) => slot === 2));
      expect(contents(dense)).toEqual(contents(hashed));
      both(20, 1, 8, 24); // removed, set again
      dense.compact();
      expect(contents(dense)).toEqual(contents(hashed));
      expect(dense.byteSize / dense.size).toBeLessThanOrEqual(32);
    });

    it('keeps locations that do not pack hashed when the run grows over them', () => {
      const index = new ObjectIndex(0);
      index.reserveRun(100, ...splitId(base));
      index.set(...splitId(base + 150n), 1, 150, 2 ** 21); // beyond the run: hashed
      index.set(...splitId(base + 160n), 1, 160, 24);
      for (let i = 0n; i < 200n; i++) if (i !== 150n && i !== 160n) index.set(...splitId(base + i), 0, Number(i), 24); // grows over both
      expect(index.size).toBe(200);
      expect(index.get(base + 150n)).toEqual({ fileSlot: 1, offset: 150, length: 2 ** 21 });
      expect(index.get(base + 160n)).toEqual({ fileSlot: 1, offset: 160, length: 24 });
      expect(index.set(...splitId(base + 150n), 2, 1, 24)).toBe(1);
      expect(index.get(base + 150n)).toEqual({ fileSlot: 2, offset: 1, length: 24 });
      expect(contents(index).size).toBe(200);
      // The dissolved run keeps them too.
      const sparse = new ObjectIndex(0);
      sparse.reserveRun(10_000, ...splitId(base));
      for (let i = 0n; i < 10_000n; i += 10n) sparse.set(...splitId(base + i), 0, Number(i), i % 30n === 0n ? 2 ** 20 : 24);
      const before = contents(sparse);
      sparse.compact();
      expect(contents(sparse)).toEqual(before);
    });

    it('gives a sparse run up for the hash table when compacting', () => {
      const index = new ObjectIndex(0);
      index.reserveRun(10_000, ...splitId(base));
      for (let i = 0n; i < 10_000n; i += 10n) index.set(...splitId(base + i), 0, Number(i), 24);
      const before = contents(index);
      index.compact();
      expect(index.byteSize / index.size).toBeLessThanOrEqual(32);
      expect(contents(index)).toEqual(before);
    });
  });

  it('keeps a snapshot as it was while the index changes, and copies nothing once it is released', () => {
    const base = 7_000_000_000n;
    const index = new ObjectIndex(1);
    index.reserveRun(1000, ...splitId(base));
    for (let i = 0n; i < 2000n; i += 2n) index.set(...splitId(base + i), 0, Number(i), 24);
    index.set(...splitId(base + 1_000_001n), 0, 5, 24); // of this channel, far beyond the run: hashed
    const { parts, release } = index.snapshot();
    expect(parts.table.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(parts.run.buffer).toBeInstanceOf(SharedArrayBuffer);
    const frozen = ObjectIndex.fromParts(parts);
    const table = parts.table.slice();
    const run = parts.run.slice();
    index.set(...splitId(base + 10n), 3, 77, 24);
    index.set(...splitId(base + 3_000_001n), 1, 6, 24);
    index.compact();
    // The snapshot is untouched; the index has its own tables and answers with the change.
    expect(parts.table).toEqual(table);
    expect(parts.run).toEqual(run);
    expect(frozen.get(base + 10n)).toEqual({ fileSlot: 0, offset: 10, length: 24 });
    expect(frozen.get(base + 3_000_001n)).toBeUndefined();
    expect(index.get(base + 10n)).toEqual({ fileSlot: 3, offset: 77, length: 24 });
    expect(index.get(base + 3_000_001n)).toEqual({ fileSlot: 1, offset: 6, length: 24 });
    // The first snapshot's release (its tables were copied since) does not release a later one.
    const second = index.snapshot();
    release();
    index.set(...splitId(base + 14n), 4, 99, 24);
    expect(second.parts.run[7 * RUN_WORDS]).toBe((1 << RUN_LENGTH_BITS) | 24);
    // Released: changes go to the same tables again.
    const third = index.snapshot();
    third.release();
    third.release();
    second.release();
    index.set(...splitId(base + 12n), 4, 88, 24);
    expect(index.toParts().run).toBe(third.parts.run);
    expect(third.parts.run[6 * RUN_WORDS]).toBe((5 << RUN_LENGTH_BITS) | 24);
  });
});
