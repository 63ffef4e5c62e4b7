import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import { IndexWorkerPool } from '../../../src/storage/index/index-workers.js';
import { Storage } from '../../../src/storage/storage.js';
import { applyOp, loadTransitions, SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';

/**
 * Indexing channels in worker threads (index-workers.ts) gives exactly the state indexing in the
 * opening thread gives: the same index entries, per-file figures, roots and warnings, damaged
 * records named with file and offset, errors of a worker thrown as the errors they were.
 */

/** Everything an open derives from the files, entry by entry. */
function stateOf(storage: Storage): unknown {
  return {
    entities: storage.entityCount,
    root: storage.rootObjectId,
    roots: storage.rootsObjectId,
    warnings: storage.warnings,
    files: storage.channels.map((c) => c.files.map((f) => [f.slot, f.path, f.fileNumber, f.totalLength, f.liveLength, f.metaLength, f.problem])),
    index: storage.channels.map((c) => {
      const entries: number[] = [];
      c.objects.forEach((low, high, slot, offset, length) => entries.push(low, high, slot, offset, length));
      return { entries, bytes: c.objects.byteSize };
    }),
  };
}

async function expectSameOpen(dir: string, threads = 2): Promise<void> {
  const inThread = await Storage.open(dir, { indexThreads: 0 });
  const inWorkers = await Storage.open(dir, { indexThreads: threads });
  try {
    expect(stateOf(inWorkers)).toEqual(stateOf(inThread));
  } finally {
    await inThread.close();
    await inWorkers.close();
  }
}

const CORPORA = ['conformance', 'conformance-ms8', 'conformance-es'];

describe('indexing in worker threads', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'si-index-workers-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('gives the same state for every vendored storage', async () => {
    for (const corpus of CORPORA) {
      const storages = join('test', 'fixtures', corpus, 'storages');
      for (const name of readdirSync(storages)) await expectSameOpen(join(storages, name));
    }
  });

  it('gives the same state for generated storages of both families, with more channels than threads', async () => {
    for (const family of ['microstream', 'eclipsestore'] as const) {
      const dir = join(root, `generated-${family}`);
      generateStorage({ directory: dir, entities: 5000, channelCount: 4, family, seed: 9, fileMaximumSize: 32 * 1024, entitiesPerStore: 500 });
      await expectSameOpen(dir, 2);
      await expectSameOpen(dir, 3);
    }
  });

  it('names a damaged record with file and offset and still serves the rest', async () => {
    const dir = join(root, 'damaged');
    generateStorage({ directory: dir, entities: 3000, channelCount: 2, seed: 4, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
    const channel = join(dir, 'channel_1');
    const file = join(channel, readdirSync(channel).filter((n) => n.endsWith('.dat')).sort()[1]!);
    // An implausible length where the second record of the file starts: the walk stops there.
    const bytes = readFileSync(file);
    const damagedAt = Number(bytes.readBigInt64LE(0));
    expect(damagedAt).toBeGreaterThanOrEqual(24);
    bytes.writeBigInt64LE(3n, damagedAt);
    writeFileSync(file, bytes);
    const storage = await Storage.open(dir, { indexThreads: 2 });
    try {
      expect(storage.warnings).toContain(`${file}: offset ${damagedAt}: record length 3 is shorter than its header; the rest of this file is not indexed`);
      const other = storage.channels[0]!;
      let id = 0n;
      other.objects.forEach((low, high) => {
        if (id === 0n) id = (BigInt(high) << 32n) | BigInt(low);
      });
      expect((await storage.readEntity(id))?.objectId).toBe(id);
    } finally {
      await storage.close();
    }
    await expectSameOpen(dir);
  });

  it('throws what a worker failed with, as the error it was', async () => {
    const fifo = join(root, 'fifo.dat');
    execFileSync('mkfifo', [fifo]);
    const job = (path: string) => ({ files: [{ path, from: 0, to: 100 }], idShift: 0, rootsType: { low: 0, high: 0 } });
    const pool = new IndexWorkerPool(1);
    const refused = await pool.index([job(fifo)], () => undefined).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StorageError);
    expect((refused as StorageError).code).toBe('STORAGE_REFUSED');
    expect((refused as Error).message).toBe(`${fifo} is not a regular file (it is a FIFO); refusing to read it`);
    const again = new IndexWorkerPool(2);
    const missing = join(root, 'gone.dat');
    const gone = await again.index([job(missing), job(missing)], () => undefined).catch((error: unknown) => error);
    expect((gone as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect((gone as Error).message).toContain(missing);
  });

  it('follows a storage opened by workers like one opened in this thread', async () => {
    const dirs = ['workers', 'thread'].map((name) => {
      const dir = join(root, `follow-${name}`);
      cpSync(join(SEQUENCE_DIR, 'states', 'S0'), dir, { recursive: true });
      return dir;
    });
    const [inWorkers, inThread] = await Promise.all([Storage.open(dirs[0]!, { indexThreads: 2 }), Storage.open(dirs[1]!, { indexThreads: 0 })]);
    try {
      for (const transition of loadTransitions()) {
        for (const op of transition.ops) for (const dir of dirs) applyOp(dir, op);
        await inWorkers.refresh();
        await inThread.refresh();
        const strip = (state: unknown): string => JSON.stringify(state, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).replaceAll('follow-workers', 'follow-thread');
        expect(strip(stateOf(inWorkers)), `after ${transition.to}`).toBe(strip(stateOf(inThread)));
      }
      expect(inWorkers.generation).toBeGreaterThan(1);
    } finally {
      await inWorkers.close();
      await inThread.close();
    }
  });

  it('runs the built worker as the built code starts it (a process of its own, plain node)', async () => {
    const dir = join(root, 'built');
    generateStorage({ directory: dir, entities: 2000, channelCount: 2, seed: 7, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
    const built = pathToFileURL(join('dist', 'storage', 'storage.js')).href;
    const script = `const { Storage } = await import(${JSON.stringify(built)});
      const s = await Storage.open(process.argv[1], { indexThreads: 2 });
      const index = s.channels.map((c) => { const e = []; c.objects.forEach((...w) => e.push(...w)); return e; });
      console.log(JSON.stringify({ entities: s.entityCount, root: String(s.rootObjectId), live: s.channels.map((c) => c.files.map((f) => f.liveLength)), index }));`;
    const printed = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, dir], { encoding: 'utf8' })) as unknown;
    const storage = await Storage.open(dir, { indexThreads: 0 });
    try {
      const index = storage.channels.map((c) => {
        const entries: number[] = [];
        c.objects.forEach((...words) => entries.push(...words));
        return entries;
      });
      expect(printed).toEqual({ entities: storage.entityCount, root: String(storage.rootObjectId), live: storage.channels.map((c) => c.files.map((f) => f.liveLength)), index });
    } finally {
      await storage.close();
    }
  });

  it('opens the generated storage of the damage test without warnings when it is not damaged', () => {
    // Guards the damage test above: the generated storage itself opens without warnings.
    const dir = join(root, 'clean');
    generateStorage({ directory: dir, entities: 3000, channelCount: 2, seed: 4, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
    return Storage.open(dir, { indexThreads: 2 }).then(async (storage) => {
      expect(storage.warnings).toEqual([]);
      await storage.close();
    });
  });
});
