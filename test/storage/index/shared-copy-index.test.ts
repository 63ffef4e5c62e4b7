import { describe, expect, it } from 'vitest';
import { joinId, splitId } from '../../../src/storage/index/object-id-halves.js';
import { ObjectIndex } from '../../../src/storage/index/object-index.js';
import { sharedCopyOf } from '../../../src/storage/index/shared-copy-index.js';
import { copyShared } from '../../../src/storage/index/shared-ints.js';
import type { ObjectIndexParts } from '../../../src/storage/index/object-index-parts.js';

describe('sharedCopyOf', () => {
  it('a shared copy keeps what is set in it apart from the tables it shares, until it is asked for them whole', () => {
    const base = 9_000_000_000n;
    const make = (): ObjectIndex => {
      const index = new ObjectIndex(1);
      index.reserveRun(1000, ...splitId(base));
      for (let i = 0n; i < 2000n; i += 2n) index.set(...splitId(base + i), 0, Number(i), 24);
      index.set(...splitId(base + 1_000_001n), 0, 5, 24); // hashed
      return index;
    };
    const original = make();
    const run = original.toParts().run.slice();
    const copy = sharedCopyOf(original);
    // The replaced location comes from the shared tables (run and hash table), then from the copy's own changes.
    expect(copy.set(...splitId(base + 10n), 2, 300, 40)).toBe(0);
    expect([copy.replacedOffset, copy.replacedLength]).toEqual([10, 24]);
    expect(copy.set(...splitId(base + 1_000_001n), 3, 400, 48)).toBe(0);
    expect([copy.replacedOffset, copy.replacedLength]).toEqual([5, 24]);
    expect(copy.set(...splitId(base + 10n), 4, 500, 56)).toBe(2);
    expect([copy.replacedOffset, copy.replacedLength]).toEqual([300, 40]);
    expect(copy.set(...splitId(base + 2_000_003n), 1, 600, 64)).toBe(-1); // new
    expect(copy.set(...splitId(base + 2_000_003n), 1, 700, 64)).toBe(1);
    expect(copy.size).toBe(original.size + 1);
    // The copy answers with its changes, the original as it was; the shared run is unchanged.
    expect(copy.get(base + 10n)).toEqual({ fileSlot: 4, offset: 500, length: 56 });
    expect(copy.get(base + 12n)).toEqual({ fileSlot: 0, offset: 12, length: 24 });
    expect(copy.isLatest(...splitId(base + 10n), 4, 500)).toBe(true);
    expect(copy.isLatest(...splitId(base + 10n), 0, 10)).toBe(false);
    expect(copy.isLatest(...splitId(base + 12n), 0, 12)).toBe(true);
    expect(copy.has(...splitId(base + 2_000_003n))).toBe(true);
    expect(original.has(...splitId(base + 2_000_003n))).toBe(false);
    expect(original.get(base + 10n)).toEqual({ fileSlot: 0, offset: 10, length: 24 });
    expect(original.toParts().run).toEqual(run);
    // Asked for whole: the copy's own tables with the changes in, the original's still as they were.
    const seen = new Map<bigint, string>();
    copy.forEach((low, high, fileSlot, offset, length) => seen.set(joinId(low, high), `${fileSlot}/${offset}/${length}`));
    expect(seen.size).toBe(copy.size);
    expect(seen.get(base + 10n)).toBe('4/500/56');
    expect(seen.get(base + 1_000_001n)).toBe('3/400/48');
    expect(seen.get(base + 2_000_003n)).toBe('1/700/64');
    expect(seen.get(base + 1998n)).toBe('0/1998/24');
    expect(copy.toParts().run).not.toBe(original.toParts().run);
    expect(original.toParts().run).toEqual(run);
    expect(original.get(base + 1_000_001n)).toEqual({ fileSlot: 0, offset: 5, length: 24 });
    // The original changes its own tables (copied first: the copy read them until it settled).
    original.set(...splitId(base + 12n), 5, 9, 24);
    expect(copy.get(base + 12n)).toEqual({ fileSlot: 0, offset: 12, length: 24 });

    // Many changes: past a share of the entries the copy settles on its own, and answers the same.
    const other = make();
    const many = sharedCopyOf(other);
    for (let i = 0n; i < 6000n; i++) many.set(...splitId(base + 4_000_001n + 2n * i), 1, Number(i), 30);
    for (let i = 0n; i < 2000n; i += 2n) many.set(...splitId(base + i), 2, Number(i) + 1, 32);
    expect(many.size).toBe(other.size + 6000);
    expect(many.get(base + 4_000_001n + 2n * 5999n)).toEqual({ fileSlot: 1, offset: 5999, length: 30 });
    expect(many.get(base + 1998n)).toEqual({ fileSlot: 2, offset: 1999, length: 32 });
    expect(other.get(base + 1998n)).toEqual({ fileSlot: 0, offset: 1998, length: 24 });
    expect(other.has(...splitId(base + 4_000_001n))).toBe(false);
  });

  it('told how many sets to expect, sizes its own table once and answers as before', () => {
    const base = 1_000_000n;
    const make = (): ObjectIndex => {
      const index = new ObjectIndex(0);
      index.reserveRun(40_000, ...splitId(base));
      for (let i = 0n; i < 40_000n; i++) index.set(...splitId(base + i), 0, Number(i) * 30, 30);
      return index;
    };
    const told = sharedCopyOf(make());
    const untold = sharedCopyOf(make());
    const before = told.byteSize;
    told.expectSets(3000);
    const sized = told.byteSize;
    expect(sized - before).toBeGreaterThanOrEqual(3000 * 20); // 20 bytes a slot
    make().expectSets(3000); // a plain index: nothing to size
    for (const copy of [told, untold]) {
      for (let i = 0n; i < 3000n; i++) copy.set(...splitId(base + 13n * i), 1, Number(i), 40);
      copy.set(...splitId(base + 90_000n), 2, 7, 50); // a new id
    }
    expect(told.byteSize).toBe(sized); // not grown again
    for (let i = 0n; i < 40_000n; i += 7n) expect(told.get(base + i)).toEqual(untold.get(base + i));
    expect(told.get(base + 13n * 2999n)).toEqual({ fileSlot: 1, offset: 2999, length: 40 });
    expect([told.size, told.has(...splitId(base + 90_000n))]).toEqual([untold.size, true]);
  });

  /** A plain index over a copy of an index's tables: what the shared copy must answer like. */
  const plainCopy = (index: ObjectIndex): ObjectIndex => {
    const p = index.toParts();
    return ObjectIndex.fromParts({ ...p, table: copyShared(p.table), run: copyShared(p.run), runFields: [...p.runFields] as unknown as ObjectIndexParts['runFields'] });
  };
  /** Deterministic numbers in [0, 1) (a linear congruential generator). */
  const numbers = (seed: number): (() => number) => {
    let s = seed >>> 0;
    return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  };

  // Seeds 1-3 only set and look up (the changes pass the share and settle on their own midway);
  // 4-6 also remove, compact and walk in between (settling at the first). Ids in the run, hashed,
  // past the run (it grows once settled), far off; records that do not pack into the run.
  for (let seed = 1; seed <= 6; seed++) {
    it(`answers every set and lookup as a plain index over a copy of the tables would, the shared tables unchanged (seed ${seed})`, () => {
      const next = numbers(seed);
      const idShift = seed % 3;
      const base = seed % 2 === 0 ? 9_000_000_000n : 1_000_000n;
      const original = new ObjectIndex(idShift);
      original.reserveRun(300, ...splitId(base));
      for (let i = 0n; i < 600n; i++) if (next() < 0.8) original.set(...splitId(base + i), Math.floor(next() * 3), Math.floor(next() * 1e6), 24 + Math.floor(next() * 100));
      for (let i = 0; i < 20; i++) original.set(...splitId(base + 100_000n + BigInt(Math.floor(next() * 1000))), 1, i, 30);
      const kept = plainCopy(original).toParts();
      const plain = plainCopy(original);
      const copy = sharedCopyOf(original);
      const reshapes = seed > 3;
      const anId = (): bigint => {
        const k = next();
        if (k < 0.5) return base + BigInt(Math.floor(next() * 700));
        if (k < 0.7) return base + 100_000n + BigInt(Math.floor(next() * 1000));
        if (k < 0.9) return base + BigInt(Math.floor(next() * 40_000));
        return base + 50_000_000_000n + BigInt(Math.floor(next() * 100));
      };
      const entries = (index: ObjectIndex): string[] => {
        const all: string[] = [];
        index.forEach((low, high, fileSlot, offset, length) => void all.push(`${joinId(low, high)} ${fileSlot}/${offset}/${length}`));
        return all.sort();
      };
      const differences: string[] = [];
      const same = (what: string, got: unknown, want: unknown): void => {
        if (JSON.stringify(got) !== JSON.stringify(want)) differences.push(`${what}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
      };
      for (let step = 0; step < (reshapes ? 4000 : 20_000); step++) {
        const k = next();
        const id = anId();
        if (k < 0.8) {
          const fileSlot = next() < 0.02 ? 4095 + Math.floor(next() * 3) : Math.floor(next() * 6);
          const length = next() < 0.02 ? (1 << 20) + 5 : 24 + Math.floor(next() * 100);
          const offset = Math.floor(next() * 2 ** 32);
          const previous = plain.set(...splitId(id), fileSlot, offset, length);
          same(`set ${id} (step ${step})`, copy.set(...splitId(id), fileSlot, offset, length), previous);
          if (previous >= 0) same(`replaced ${id}`, [copy.replacedOffset, copy.replacedLength], [plain.replacedOffset, plain.replacedLength]);
        } else if (k < 0.95 || !reshapes) {
          const location = plain.get(id);
          same(`get ${id}`, copy.get(id), location);
          const slot = copy.locate(...splitId(id));
          same(`locate ${id}`, slot < 0 ? undefined : { fileSlot: slot, offset: copy.foundOffset, length: copy.foundLength }, location);
          same(`has ${id}`, copy.has(...splitId(id)), plain.has(...splitId(id)));
          if (location !== undefined) same(`isLatest ${id}`, copy.isLatest(...splitId(id), location.fileSlot, location.offset), true);
          same('size', copy.size, plain.size);
        } else if (k < 0.97) {
          const drop = Math.floor(next() * 6);
          same('removed', copy.removeWhere((s) => s === drop), plain.removeWhere((s) => s === drop));
        } else if (k < 0.98) {
          copy.compact();
          plain.compact();
        } else {
          same('entries', entries(copy), entries(plain));
        }
      }
      same('entries', entries(copy), entries(plain));
      same('size', copy.size, plain.size);
      expect(differences.slice(0, 5)).toEqual([]);
      expect(original.toParts().run).toEqual(kept.run);
      expect(original.toParts().table).toEqual(kept.table);
    });
  }
});
