import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkLatestRecords } from '../../src/check/record-findings.js';
import { WalkedReachability } from '../../src/convert/walked-reachability.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { splitId } from '../../src/storage/index/object-id-halves.js';
import { ObjectIndex } from '../../src/storage/index/object-index.js';
import { forEachLatestRecordBytes } from '../../src/storage/records/latest-records.js';
import { DirectorySource } from '../../src/storage/source/directory-source.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

/**
 * convert's reachability (from the references the check's record walk reports) against the graph
 * index's (its own walk and build), object by object, on every corpus storage: the same objects
 * reachable, the same left out as garbage.
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const CORPORA = ['conformance', 'conformance-es', 'conformance-ms8', 'conformance-es42', 'conformance-es-gigamap'];
const storages = CORPORA.flatMap((corpus) => {
  const dir = join(FIXTURES, corpus, 'storages');
  return existsSync(dir) ? readdirSync(dir).map((name) => ({ name: `${corpus}/${name}`, dir: join(dir, name) })) : [];
}).filter((s) => existsSync(join(s.dir, 'PersistenceTypeDictionary.ptd')));

/**
 * The walked reachability of an opened storage against its graph index's, object by object: the
 * objects that differ (none expected), how many are reachable and how many objects there are.
 */
async function compareWithGraph(storage: Storage, named: string): Promise<{ walked: WalkedReachability; differing: string[]; reachable: number; objects: number }> {
  const { graph } = await buildGraph(storage);
  const walked = new WalkedReachability();
  await walkLatestRecords(storage, { references: walked });
  walked.search(storage, named);
  const differing: string[] = [];
  let reachable = 0;
  let objects = 0;
  for (const channel of storage.channels) {
    channel.objects.forEach((low, high) => {
      objects++;
      const node = graph.nodes.nodeOf(low, high);
      const expected = node >= 0 && graph.isReachable(node);
      if (expected) reachable++;
      if (walked.reachable(low, high) !== expected) differing.push(`${high}:${low >>> 0} (graph: ${expected})`);
    });
  }
  return { walked, differing, reachable, objects };
}

describe('reachability from the check walk', () => {
  it('finds corpus storages to compare', () => {
    expect(storages.length).toBeGreaterThanOrEqual(15);
  });

  let garbageSeen = 0;
  it.each(storages)('$name: the objects the graph index finds reachable, and only those', async ({ dir }) => {
    const storage = await Storage.open(new DirectorySource(dir), { recordCacheBytes: 0 });
    try {
      const { walked, differing, reachable, objects } = await compareWithGraph(storage, dir);
      expect(differing).toEqual([]);
      expect(reachable).toBeGreaterThan(0);
      garbageSeen += objects - reachable;

      // The copy's view: by their numbers in a second walk over the same records, which are newest
      // versions, as the index says.
      const order = walked.copyOrder();
      const bit = (bits: Uint8Array, n: number): boolean => ((bits[n >>> 3] ?? 0) & (1 << (n & 7))) !== 0;
      let newest = 0;
      let latestBits = 0;
      const wrong: string[] = [];
      await forEachLatestRecordBytes(storage, (_bytes, _at, _offset, _length, _channel, _file, ordinal) => {
        if (!bit(order.latest, ordinal)) wrong.push(`record ${ordinal} is a newest version`);
        newest++;
      });
      for (let n = 0; n < order.records; n++) if (bit(order.latest, n)) latestBits++;
      expect(wrong).toEqual([]);
      expect(newest).toBe(order.newest);
      expect(latestBits).toBe(newest);
      expect(newest).toBe(objects);
    } finally {
      await storage.close();
    }
  });

  it('the corpora have garbage (the comparison tells reachable from unreachable)', () => {
    expect(garbageSeen).toBeGreaterThan(10);
  });

  it('a generated storage with superseded versions and garbage: the objects the graph index finds reachable (a search queue of many batches)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'walked-reachability-'));
    try {
      generateStorage({ directory: join(dir, 's'), entities: 20_000, channelCount: 4, seed: 7, updateRatio: 0.5 });
      const storage = await Storage.open(new DirectorySource(join(dir, 's')), { recordCacheBytes: 0 });
      try {
        const { differing, reachable, objects } = await compareWithGraph(storage, dir);
        expect(differing.slice(0, 10)).toEqual([]);
        // Far more reachable objects than one batch of the search's queue, and some garbage.
        expect(reachable).toBeGreaterThan(10_000);
        expect(objects - reachable).toBeGreaterThan(100);
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ObjectIndex.positionOf', () => {
  it('numbers ids in the run and in the hash table distinctly, below `positions`; -1 for others', () => {
    const index = new ObjectIndex(2);
    const ids: bigint[] = [];
    // A run of one channel's ids (low bits 01), then ids far off and of another high half (hashed).
    for (let i = 0n; i < 5000n; i++) ids.push(1_000_000_000_001n + i * 4n);
    for (let i = 0n; i < 300n; i++) ids.push(9_000_000_000_000_001n + i * 4_000_004n);
    ids.forEach((id, i) => {
      const [low, high] = splitId(id);
      index.set(low, high, 0, i * 8, 24);
    });
    const seen = new Set<number>();
    for (const id of ids) {
      const [low, high] = splitId(id);
      const position = index.positionOf(low, high);
      expect(position).toBeGreaterThanOrEqual(0);
      expect(position).toBeLessThan(index.positions);
      seen.add(position);
    }
    expect(seen.size).toBe(ids.length);
    const [low, high] = splitId(1_000_000_000_001n + 5000n * 4n + 400_000n);
    expect(index.positionOf(low, high)).toBe(-1);
  });
});

describe('ObjectIndex.markRunPositions', () => {
  it('answers positionOf for the run ids whose bit it sets, and sets bits only for run positions holding an entry', () => {
    const index = new ObjectIndex(2);
    const first = 1_000_000_000_001n;
    const [firstLow, firstHigh] = splitId(first);
    index.reserveRun(6000, firstLow, firstHigh);
    const ids: bigint[] = [];
    // Every other id of a run of one channel's ids (low bits 01), some of them with records too
    // long to pack (their positions marked IN_HASH, the location hashed); ids far off and of
    // another high half (hashed).
    for (let i = 0n; i < 5000n; i += 2n) ids.push(first + i * 4n);
    for (let i = 0n; i < 300n; i++) ids.push(9_000_000_000_000_001n + i * 4_000_004n);
    ids.forEach((id, i) => {
      const [low, high] = splitId(id);
      index.set(low, high, 0, i * 8, i % 97 === 5 ? 2 ** 20 : 24);
    });
    const base = 13;
    const present = new Uint8Array(Math.ceil((base + index.positions) / 8) + 2);
    const run = index.markRunPositions(present, base);
    const bit = (n: number): boolean => ((present[n >>> 3] ?? 0) & (1 << (n & 7))) !== 0;
    // The ids asked: those indexed, the absent ones between them, past the run's end, of another channel.
    const asked = [...ids, ...ids.slice(0, 2500).map((id) => id + 4n), first + 7000n * 4n, first + 1n];
    let inRun = 0;
    let elsewhere = 0;
    for (const id of asked) {
      const [low, high] = splitId(id);
      const p = (low >>> run.idShift) - run.start;
      const arithmetic = high === run.high && (low & ((1 << run.idShift) - 1)) === run.lowBits && p >= 0 && p < run.length && bit(base + p) ? p : undefined;
      if (arithmetic !== undefined) {
        inRun++;
        expect(index.positionOf(low, high)).toBe(arithmetic);
      } else elsewhere++;
    }
    const hashedInRun = ids.filter((_, i) => i < 2500 && i % 97 === 5).length;
    expect(inRun).toBe(2500 - hashedInRun);
    expect(elsewhere).toBe(asked.length - inRun);
    let set = 0;
    for (let n = 0; n < present.length * 8; n++) if (bit(n)) set++;
    expect(set).toBe(inRun);
    expect(bit(base - 1)).toBe(false);
  });
});
