import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { allMemberValues, layoutEntity, type MemberValue } from '../../../src/format/entity-layout.js';
import { resolveJdkConstant } from '../../../src/format/ids.js';
import { buildGraph } from '../../../src/graph/build/graph-build.js';
import { Storage } from '../../../src/storage/storage.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { CONFORMANCE_DIR, STORAGE_NAMES } from '../../helpers/corpora/conformance.js';

/**
 * The reference plans against the format layer's general decoder: for every entity of the
 * vendored Java-written storages, the graph's forward references are exactly the reference
 * values the decoder finds; unreachable counts are the ones the corpus documents.
 */

/** Unreachable entities per storage, from the corpus README. */
const UNREACHABLE: Record<string, number> = { primitives: 5, arrays: 1, collections: 1, graph: 35, evolution: 6, noroot: 0 };

/**
 * `expect(actual, label).toEqual(expected)` for two typed arrays, asked only when they differ:
 * the arrays are compared here element by element (same kind, same length, each element
 * Object.is), and a difference still fails through the matcher with its message. Why: toEqual
 * walks a typed array element by element through vitest's generic equality, some 40 µs of CPU per
 * element on the 200,000-node graph below (its comparisons took most of this file's minute).
 */
function expectSameArray(actual: ArrayLike<number>, expected: ArrayLike<number>, label: string): void {
  let same = Object.prototype.toString.call(actual) === Object.prototype.toString.call(expected) && actual.length === expected.length;
  for (let i = 0; same && i < actual.length; i++) same = Object.is(actual[i], expected[i]);
  if (!same) expect(actual, label).toEqual(expected);
}

function references(values: readonly MemberValue[], out: bigint[]): void {
  for (const v of values) {
    if (typeof v === 'bigint') out.push(v);
    else if (typeof v !== 'string') references(v, out);
  }
}

describe('graph build over the vendored storages', () => {
  for (const name of STORAGE_NAMES) {
    it(`${name}: forward references equal the decoder's, reachability as documented`, async () => {
      const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
      try {
        const { graph, problemCount } = await buildGraph(storage);
        expect(problemCount).toBe(0);
        let unreachable = 0;
        let checked = 0;
        for (const channel of storage.channels) {
          const ids: bigint[] = [];
          channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low)));
          for (const id of ids) {
            const entity = (await storage.readEntity(id))!;
            const entry = storage.dictionary.byId.get(entity.typeId)!;
            const refs: bigint[] = [];
            references(allMemberValues(layoutEntity(entry, entity.content)), refs);
            const stored = [...new Set(refs.filter((r) => r !== 0n && resolveJdkConstant(r) === undefined))].sort((a, b) => (a < b ? -1 : 1));
            const node = graph.nodes.nodeOfId(id);
            const forward = [...graph.adjacency.forward(node)].map((n) => graph.nodes.idOf(n)).sort((a, b) => (a < b ? -1 : 1));
            expect(forward, `references of ${id}`).toEqual(stored);
            expect(graph.types.at(graph.typeOf(node)).typeId).toBe(entity.typeId);
            if (!graph.isReachable(node)) unreachable++;
            checked++;
          }
        }
        expect(checked).toBe(storage.entityCount);
        expect(unreachable).toBe(UNREACHABLE[name]);
        expect(graph.missing.size).toBe(0);
      } finally {
        await storage.close();
      }
    });
  }
});

describe('a build with worker threads (decoding half the channels, sweeping reachability)', () => {
  const root = mkdtempSync(join(tmpdir(), 'graph-thread-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // With one channel, the worker thread decodes it from its first file on, the building thread
  // from its last file back, until they meet.
  // The last spans more than four ranges of target nodes and two blocks of sources: referrers are
  // partitioned by the histogram both threads count while they write the forward halves.
  const setups = [
    { family: 'microstream', channelCount: 4, entities: 20_000, fileMaximumSize: 64 * 1024 },
    { family: 'eclipsestore', channelCount: 4, entities: 20_000, fileMaximumSize: 64 * 1024 },
    { family: 'microstream', channelCount: 1, entities: 20_000, fileMaximumSize: 64 * 1024 },
    { family: 'microstream', channelCount: 4, entities: 200_000, fileMaximumSize: 1024 * 1024 },
  ] as const;

  // Four storages generated and each graph built twice, one of 200,000 entities: 30 s at load 13,
  // 94 s at load 20 beside the suite.
  it('gives the rows, versions and reachability the building thread gives alone, for both families, with four channels or one', { timeout: 240_000 }, async () => {
    for (const { family, channelCount, entities, fileMaximumSize } of setups) {
      const dir = join(root, `${family}-${channelCount}-${entities}`);
      generateStorage({ directory: dir, entities, channelCount, family, seed: 5, fileMaximumSize, entitiesPerStore: 700, updateRatio: 0.3 });
      const storage = await Storage.open(dir);
      try {
        const alone = await buildGraph(storage, { threads: false });
        const threaded = await buildGraph(storage, { threads: true });
        const inThread = alone.graph;
        const inWorker = threaded.graph;
        expect(threaded.records).toBe(alone.records);
        expect(threaded.problemCount).toBe(alone.problemCount);
        expect(inWorker.types.all().map((t) => t.typeId)).toEqual(inThread.types.all().map((t) => t.typeId));
        expect(inWorker.superseded.size).toBeGreaterThan(0);
        expect(inWorker.superseded.size).toBe(inThread.superseded.size);
        // Each thread finds a node's older records in file order, but the two threads' files are
        // merged as they come: compared as sets (the versions API sorts them).
        // Compared as joined texts, the matcher asked only for a node whose places differ (see expectSameArray).
        const places = (graph: typeof inThread, v: number): string[] => graph.superseded.of(v).map((p) => `${p.channel}/${p.fileSlot}/${p.offset}`).sort();
        for (let v = 0; v < inThread.nodeCount; v++) {
          const [got, want] = [places(inWorker, v), places(inThread, v)];
          if (got.join(' ') !== want.join(' ') || got.length !== want.length) expect(got, `older records of node ${v}`).toEqual(want);
        }
        expect(inWorker.missing.size).toBe(inThread.missing.size);
        expect(inWorker.reach.buffer).toBeInstanceOf(SharedArrayBuffer);
        expectSameArray(inWorker.reach, inThread.reach, 'reach');
        expectSameArray(inWorker.adjacency.baseRows, inThread.adjacency.baseRows, 'baseRows');
        expectSameArray(inWorker.adjacency.baseRowStart, inThread.adjacency.baseRowStart, 'baseRowStart');
        expectSameArray(inWorker.typeOfNode, inThread.typeOfNode, 'typeOfNode');
        let reachable = 0;
        for (let v = 0; v < inWorker.nodeCount; v++) if (inWorker.isReachable(v)) reachable++;
        expect(reachable).toBeGreaterThan(inWorker.nodeCount / 2);
      } finally {
        await storage.close();
      }
    }
  });

  it('fails as the building thread alone fails when a file goes while the worker thread decodes', async () => {
    // One channel's file at a time: one of them is the worker thread's, whose failure makes the
    // building thread decode every file itself and fail in its own terms.
    for (const lost of [0, 1]) {
      const dir = join(root, `gone-${lost}`);
      generateStorage({ directory: dir, entities: 6000, channelCount: 2, seed: 6, fileMaximumSize: 32 * 1024, entitiesPerStore: 400 });
      const storage = await Storage.open(dir);
      try {
        unlinkSync(storage.channels[lost]!.files[1]!.path);
        const failure = (options: { threads: boolean }): Promise<unknown> =>
          buildGraph(storage, options).then(
            () => undefined,
            (error: unknown) => error,
          );
        const alone = await failure({ threads: false });
        expect(alone).toBeInstanceOf(Error);
        const threaded = await failure({ threads: true });
        expect(threaded, `channel ${lost}`).toBeInstanceOf((alone as Error).constructor);
        expect((threaded as Error).message).toBe((alone as Error).message);
      } finally {
        await storage.close();
      }
    }
  });

  it('runs the built worker as the built code starts it (a process of its own, plain node)', async () => {
    const dir = join(root, 'built');
    generateStorage({ directory: dir, entities: 3000, channelCount: 2, seed: 8, fileMaximumSize: 32 * 1024, entitiesPerStore: 300, updateRatio: 0.3 });
    const from = (path: string): string => JSON.stringify(pathToFileURL(join('dist', path)).href);
    const script = `const { Storage } = await import(${from('storage/storage.js')});
      const { buildGraph } = await import(${from('graph/build/graph-build.js')});
      const s = await Storage.open(process.argv[1]);
      const { graph, records } = await buildGraph(s, { threads: true });
      console.log(JSON.stringify({ shared: graph.reach.buffer instanceof SharedArrayBuffer, reach: [...graph.reach], records, older: graph.superseded.size, types: [...graph.typeOfNode] }));`;
    const printed = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, dir], { encoding: 'utf8' })) as unknown;
    const storage = await Storage.open(dir);
    try {
      const { graph, records } = await buildGraph(storage, { threads: false });
      expect(graph.superseded.size).toBeGreaterThan(0);
      expect(printed).toEqual({ shared: true, reach: [...graph.reach], records, older: graph.superseded.size, types: [...graph.typeOfNode] });
    } finally {
      await storage.close();
    }
  });
});
