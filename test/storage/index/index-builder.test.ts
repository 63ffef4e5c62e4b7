import { describe, expect, it } from 'vitest';
import { splitId } from '../../../src/storage/index/object-id-halves.js';
import { IndexBuilder, IndexBySet, type IndexLoad } from '../../../src/storage/index/index-builder.js';
import { ObjectIndex } from '../../../src/storage/index/object-index.js';

/**
 * Building a channel's index in one go (blind writes, live bytes counted at the end, writes far
 * behind put aside) against setting the same records one by one, and against the records
 * themselves: the latest record of each id, in file order, and the bytes those take per file.
 */

type Location = { fileSlot: number; offset: number; length: number };
/** File slots of the six files: the last two past what a run entry packs (4,094 files). */
const SLOTS = [0, 1, 2, 3, 4094, 4100];

/**
 * Records in file order: mostly new ids in ascending order, some stored again (far behind or
 * near), a few outside the run (hashed), now and then one too long to pack into the run.
 */
function records(seed: number, each: (id: bigint, location: Location) => void): { latest: Map<bigint, Location>; far: number } {
  let state = seed;
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const base = 1000000000000000001n;
  const idOf = (k: number): bigint => base + 4n * BigInt(k);
  const latest = new Map<bigint, Location>();
  let created = 0;
  let far = 0;
  for (const fileSlot of SLOTS) {
    for (let offset = 0, n = 0; n < 8_000; n++) {
      const length = random() < 0.01 ? 2 ** 20 + Math.floor(random() * 100) : 24 + Math.floor(random() * 100);
      const pick = random();
      let id: bigint;
      if (pick < 0.7 || created === 0) id = idOf(created++);
      else if (pick < 0.9) {
        const k = Math.floor(random() * created);
        if (created - k > 5000) far++;
        id = idOf(k);
      } else if (pick < 0.97) id = idOf(Math.max(0, created - 1 - Math.floor(random() * 50)));
      else id = (7n << 40n) + BigInt(Math.floor(random() * 500)); // outside the run: hashed
      each(id, { fileSlot, offset, length });
      latest.set(id, { fileSlot, offset, length });
      offset += length;
    }
  }
  return { latest, far };
}

function wrongLocations(index: ObjectIndex, latest: Map<bigint, Location>): string[] {
  const wrong: string[] = [];
  for (const [id, { fileSlot, offset, length }] of latest) {
    const got = index.get(id);
    if (got?.fileSlot !== fileSlot || got.offset !== offset || got.length !== length) wrong.push(`${id}: ${JSON.stringify(got)}`);
  }
  return wrong.slice(0, 5);
}

function liveOf(latest: Map<bigint, Location>): number[] {
  const live = new Array<number>(4101).fill(0);
  for (const { fileSlot, length } of latest.values()) live[fileSlot] = live[fileSlot]! + length;
  return live;
}

describe('IndexBuilder', () => {
  const ways: [string, number, { behindFromRun?: number; behindBatch?: number } | undefined][] = [
    ['set one by one (short runs)', 30_000, undefined],
    ['written blind', 30_000, { behindFromRun: Infinity }],
    ['written blind into a run reserved too short (it grows)', 12_000, { behindFromRun: Infinity }],
    ['writes far behind put aside 5 at a time', 30_000, { behindFromRun: 0, behindBatch: 5 }],
    ['writes far behind put aside 1,000 at a time', 30_000, { behindFromRun: 0, behindBatch: 1000 }],
    ['writes far behind put aside a million at a time', 30_000, { behindFromRun: 0, behindBatch: 1 << 20 }],
  ];
  for (const [name, reserved, options] of ways) {
    it(`ends with the latest record of every id and each file's live bytes: ${name}`, () => {
      for (const seed of [1, 2, 3]) {
        const builder: IndexLoad = options === undefined ? new IndexBySet(2, 4101) : new IndexBuilder(2, options);
        builder.reserveRun(reserved, ...splitId(1000000000000000001n));
        const oneByOne = new ObjectIndex(2);
        oneByOne.reserveRun(reserved, ...splitId(1000000000000000001n));
        const { latest, far } = records(seed, (id, { fileSlot, offset, length }) => {
          builder.load(...splitId(id), fileSlot, offset, length);
          oneByOne.set(...splitId(id), fileSlot, offset, length);
        });
        expect(far).toBeGreaterThan(1000);
        const live = new Array<number>(4101).fill(0);
        const index = builder.finish(live);
        expect(index.size).toBe(latest.size);
        expect(wrongLocations(index, latest)).toEqual([]);
        expect(live).toEqual(liveOf(latest));
        // The same entries as setting one by one.
        oneByOne.compact();
        expect(index.size).toBe(oneByOne.size);
        expect(index.byteSize / index.size).toBeLessThanOrEqual(32);
        const entries = (i: ObjectIndex): string[] => {
          const all: string[] = [];
          i.forEach((low, high, fileSlot, offset, length) => all.push(`${low}:${high}:${fileSlot}:${offset}:${length}`));
          return all.sort();
        };
        expect(entries(index)).toEqual(entries(oneByOne));
      }
    });
  }

  it('weighs a hashed record against the run by file order, either way', () => {
    const base = 5000n;
    const builder = new IndexBuilder(0, { behindFromRun: Infinity });
    builder.reserveRun(10, ...splitId(base));
    builder.load(...splitId(base + 1n), 0, 100, 2 ** 20); // hashed (too long), then packed: the run's wins
    builder.load(...splitId(base + 1n), 1, 8, 24);
    builder.load(...splitId(base + 2n), 1, 16, 24); // packed, then hashed: the hash table's wins
    builder.load(...splitId(base + 2n), 1, 40, 2 ** 21);
    builder.load(...splitId(base + 3n), 2, 0, 2 ** 20); // hashed alone
    builder.load(...splitId(base + 30n), 2, 100, 24); // beyond reach of the run: hashed, packs
    const live = [0, 0, 0];
    const index = builder.finish(live);
    expect(index.get(base + 1n)).toEqual({ fileSlot: 1, offset: 8, length: 24 });
    expect(index.get(base + 2n)).toEqual({ fileSlot: 1, offset: 40, length: 2 ** 21 });
    expect(index.get(base + 3n)).toEqual({ fileSlot: 2, offset: 0, length: 2 ** 20 });
    expect(index.get(base + 30n)).toEqual({ fileSlot: 2, offset: 100, length: 24 });
    expect(index.size).toBe(4);
    expect(live).toEqual([0, 24 + 2 ** 21, 2 ** 20 + 24]);
    // What it answers later, set one by one, goes where it belongs.
    expect(index.set(...splitId(base + 2n), 2, 200, 30)).toBe(1);
    expect(index.get(base + 2n)).toEqual({ fileSlot: 2, offset: 200, length: 30 });
  });
});
