import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import { SharedIndexWorkers } from '../../../src/storage/index/shared-index-workers.js';
import { Storage } from '../../../src/storage/storage.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';

/**
 * Storages opened one after another with one SharedIndexWorkers (a diff's two sides) are indexed
 * by the same threads, started once, and come out as each opened on its own; threads given back
 * after a failure are not lent again.
 */

function stateOf(storage: Storage): unknown {
  return {
    entities: storage.entityCount,
    root: storage.rootObjectId,
    warnings: storage.warnings,
    files: storage.channels.map((c) => c.files.map((f) => [f.fileNumber, f.totalLength, f.liveLength, f.metaLength, f.problem])),
    index: storage.channels.map((c) => {
      const entries: number[] = [];
      c.objects.forEach((low, high, slot, offset, length) => entries.push(low, high, slot, offset, length));
      return entries;
    }),
  };
}

async function alone(dir: string): Promise<unknown> {
  const storage = await Storage.open(dir, { indexThreads: 0 });
  try {
    return stateOf(storage);
  } finally {
    await storage.close();
  }
}

describe('index worker threads shared by several opens', () => {
  let root: string;
  const dirs: string[] = [];
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'si-shared-workers-'));
    for (const [i, channelCount] of [4, 2].entries()) {
      const dir = join(root, `s${i}`);
      generateStorage({ directory: dir, entities: 4000 + 1000 * i, channelCount, seed: 11 + i, fileMaximumSize: 32 * 1024, entitiesPerStore: 400 });
      dirs.push(dir);
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('indexes two storages one after another with threads started once, each as opened alone', async () => {
    const workers = new SharedIndexWorkers();
    const opened: Storage[] = [];
    try {
      for (const dir of dirs) opened.push(await Storage.open(dir, { indexThreads: 2, indexWorkers: workers }));
      expect(workers.started).toBe(1);
      expect(stateOf(opened[0]!)).toEqual(await alone(dirs[0]!));
      expect(stateOf(opened[1]!)).toEqual(await alone(dirs[1]!));
    } finally {
      await workers.close();
      for (const s of opened) await s.close();
    }
  });

  it('gives an open that asks while another holds the threads none (it starts its own)', async () => {
    const workers = new SharedIndexWorkers();
    try {
      const both = await Promise.all(dirs.map((dir) => Storage.open(dir, { indexThreads: 2, indexWorkers: workers })));
      expect(workers.started).toBe(1);
      expect(stateOf(both[0]!)).toEqual(await alone(dirs[0]!));
      expect(stateOf(both[1]!)).toEqual(await alone(dirs[1]!));
      for (const s of both) await s.close();
    } finally {
      await workers.close();
    }
  });

  it('drops threads given back unusable (a failed index ends them): the next lend starts new ones', async () => {
    const fifo = join(root, 'fifo.dat');
    execFileSync('mkfifo', [fifo]);
    const data = join(dirs[0]!, 'channel_0', readdirSync(join(dirs[0]!, 'channel_0')).filter((n) => n.endsWith('.dat')).sort()[0]!);
    const job = (path: string, to: number) => ({ files: [{ path, from: 0, to }], idShift: 2, rootsType: { low: 0, high: 0 } });
    const workers = new SharedIndexWorkers();
    try {
      const first = workers.lend(2)!;
      expect(workers.lend(2)).toBeUndefined(); // held
      const refused = await first.pool.index([job(fifo, 100)], () => undefined).catch((error: unknown) => error);
      expect((refused as StorageError).code).toBe('STORAGE_REFUSED');
      first.release(false);
      const second = workers.lend(1)!;
      expect(workers.started).toBe(2);
      expect(second.pool).not.toBe(first.pool);
      const entities: number[] = [];
      await second.pool.index([job(data, statSync(data).size)], (_channel, result) => entities.push(result.objects.size));
      expect(entities[0]).toBeGreaterThan(0);
      second.release(true);
      expect(workers.lend(1)?.pool).toBe(second.pool);
      expect(workers.started).toBe(2);
    } finally {
      await workers.close();
    }
  });

  it('lends nothing after close: the next open starts threads of its own', async () => {
    const workers = new SharedIndexWorkers();
    await workers.close();
    const storage = await Storage.open(dirs[1]!, { indexThreads: 2, indexWorkers: workers });
    expect(workers.started).toBe(0);
    expect(stateOf(storage)).toEqual(await alone(dirs[1]!));
    await storage.close();
  });
});
