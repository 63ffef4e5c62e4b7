import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { CORPUS } from './chunk-damage.js';

/**
 * SQL's `_objects.damaged` (issue 43): true for the objects whose current record lies in a chunk
 * that fails EclipseStore 4.2's checksum — the String whose byte rotted in the corpus'
 * flip-entity — false for every other, and false everywhere in a storage without checksums.
 */

async function damagedOf(directory: string): Promise<{ damaged: string[]; sound: number }> {
  const storage = await Storage.open(directory);
  const engine = new SqlEngine({ storage });
  try {
    const marked = await engine.query('SELECT oid FROM _objects WHERE damaged ORDER BY oid', { limit: 10_000 });
    const sound = await engine.query('SELECT count(*) FROM _objects WHERE NOT damaged', { limit: 1 });
    return { damaged: marked.rows.map((r) => String(r[0])), sound: Number(sound.rows[0]![0]) };
  } finally {
    await engine.close();
    await storage.close();
  }
}

describe('_objects.damaged', () => {
  it('marks the objects of a chunk that fails its checksum, and only them', async () => {
    const { damaged, sound } = await damagedOf(join(CORPUS, 'damaged', 'crc32c', 'flip-entity'));
    expect(damaged).toContain('1000000000000000042');
    expect(damaged).not.toContain('1000000000000000100');
    expect(sound).toBeGreaterThan(damaged.length);
  });

  it('is false for every object of a storage without checksums', async () => {
    const { damaged, sound } = await damagedOf(join(CONFORMANCE_DIR, 'storages', 'graph'));
    expect(damaged).toEqual([]);
    expect(sound).toBe(1263);
  });
});
