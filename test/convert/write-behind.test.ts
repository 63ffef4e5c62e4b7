import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFileBytes } from '../helpers/corpora/data-files.js';
import { convertStorage } from '../../src/convert/convert-storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

/**
 * The copy writing behind (each store's writes in the thread pool while the next batch is filled,
 * as convert does for large storages) writes the same storage as the copy that writes each store
 * before it goes on: the same data files byte for byte, over many stores and files, and the same
 * report.
 */

let work = '';
let source = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-convert-write-behind-'));
  source = join(work, 'source');
  generateStorage({ directory: source, entities: 3000, channelCount: 2, seed: 7, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, updateRatio: 0.3 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('convert writing behind', () => {
  it('writes the data files, dictionary and report of the copy that writes each store first', async () => {
    // 1 KiB stores and files: the copy's batches fall due hundreds of times, also inside runs and at files' ends.
    const options = { channels: 4, fileSize: 1024 };
    const plain = await convertStorage(source, { ...options, out: join(work, 'plain'), writeBehind: false });
    const behind = await convertStorage(source, { ...options, out: join(work, 'behind'), writeBehind: true });
    const expected = dataFileBytes(join(work, 'plain'));
    const got = dataFileBytes(join(work, 'behind'));
    expect(expected.size).toBeGreaterThan(100);
    expect([...got.keys()]).toEqual([...expected.keys()]);
    for (const [name, bytes] of expected) expect(got.get(name)!.equals(bytes), name).toBe(true);
    expect(readFileSync(join(work, 'behind', 'PersistenceTypeDictionary.ptd'), 'utf8')).toBe(readFileSync(join(work, 'plain', 'PersistenceTypeDictionary.ptd'), 'utf8'));
    expect({ ...behind, out: '' }).toEqual({ ...plain, out: '' });
    expect(behind.written.objects).toBeGreaterThan(2000);
    expect(behind.garbage.objects + behind.superseded.objects).toBeGreaterThan(0);
  });
});
