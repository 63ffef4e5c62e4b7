import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unshared } from '../../../src/graph/build/build-memory.js';
import { BuildState } from '../../../src/graph/build/build-state.js';
import type { DecodedFile } from '../../../src/graph/build/decode-messages.js';
import { NodeIds } from '../../../src/graph/model/node-ids.js';
import { RecordDecoder, type DecodeSink } from '../../../src/graph/build/record-decoder.js';
import { NOT_STORED, TypeTable } from '../../../src/graph/model/type-table.js';
import { Storage } from '../../../src/storage/storage.js';
import { SYNC_LOCAL_FILES } from '../../../src/storage/source/sync-file-chunks.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';

/**
 * The parts of a threaded build that the storages at hand never reach: types the decode worker
 * numbered beyond the dictionary (records of type ids the dictionary lacks), and records whose
 * id belongs to another channel (each node's arrays must have one writer).
 */

describe('a graph build state', () => {
  const root = mkdtempSync(join(tmpdir(), 'build-state-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'storage');
  generateStorage({ directory: dir, entities: 2000, channelCount: 2, seed: 4, fileMaximumSize: 32 * 1024, entitiesPerStore: 300 });

  it("gives the nodes the decode worker typed beyond the dictionary this thread's numbers of those types", async () => {
    const storage = await Storage.open(dir);
    try {
      const types = new TypeTable(storage.dictionary);
      const base = types.size;
      const state = new BuildState(10, unshared, types);
      // The worker met two unknown type ids (its numbers base and base + 1); this thread has
      // met one other unknown id before, so its numbers differ.
      const ownUnknown = types.indexOfId(999_001n);
      expect(ownUnknown).toBe(base);
      const file = (addedTypes: bigint[], retyped: number[]): DecodedFile => ({
        kind: 'file',
        channel: 1,
        order: 0,
        bytes: 0,
        records: retyped.length / 2,
        latestRecords: retyped.length / 2,
        retyped: Int32Array.from(retyped),
        superseded: new Int32Array(0),
        missing: new Int32Array(0),
        problems: [],
        problemCount: 0,
        addedTypes,
      });
      state.merge(file([999_002n], [3, base]));
      state.merge(file([999_001n], [5, base + 1, 7, base]));
      expect(state.typeOfNode[3]).toBe(types.indexOfId(999_002n));
      expect(state.typeOfNode[3]).toBe(base + 1);
      expect(state.typeOfNode[5]).toBe(ownUnknown);
      expect(state.typeOfNode[7]).toBe(base + 1);
      expect(state.typeOfNode[4]).toBe(NOT_STORED);
      expect(state.records).toBe(3);
    } finally {
      await storage.close();
    }
  });

  it('leaves out, as a problem, every record decoded as another channel than its id belongs to', async () => {
    const storage = await Storage.open(dir);
    try {
      const nodes = NodeIds.fromChannels(storage.channels);
      const types = new TypeTable(storage.dictionary);
      const seen = { latest: 0, older: 0, problems: [] as string[] };
      const sink: DecodeSink = {
        latest: () => void seen.latest++,
        olderVersion: () => void seen.older++,
        missingReference: () => undefined,
        problem: (_file, _offset, message) => void seen.problems.push(message),
      };
      const channel = storage.channels[0]!;
      const file = channel.files[0]!;
      const decoder = new RecordDecoder(nodes, types, storage.channels.length);
      await decoder.decodeFile(SYNC_LOCAL_FILES.chunks(file.path, 0, file.totalLength), file, 0, channel.objects, sink);
      const right = seen.latest + seen.older;
      expect(right).toBeGreaterThan(0);
      expect(seen.problems).toEqual([]);
      seen.latest = 0;
      seen.older = 0;
      await decoder.decodeFile(SYNC_LOCAL_FILES.chunks(file.path, 0, file.totalLength), file, 1, channel.objects, sink);
      expect(seen.latest + seen.older).toBe(0);
      expect(seen.problems).toHaveLength(right);
      expect(seen.problems[0]).toMatch(/^object \d+ belongs to channel 0, not to channel 1$/);
    } finally {
      await storage.close();
    }
  });
});
