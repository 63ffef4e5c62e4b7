import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLinkTablesAsParquet } from '../../../src/sql/fills/link-parquet.js';
import type { LinkThreadWork } from '../../../src/sql/fills/link-thread.js';
import { plansOf } from '../../../src/sql/fills/table-build.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/conformance.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * An export's link pass shared with a worker thread (the data files claimed from both ends)
 * writes the same `_elements` and `_references` as the pass alone: the same columns, row counts
 * and rows (an md5 of every row's text, sorted), the worker having read some of the files; and
 * leaves none of its own files behind.
 */

const memory = memoryDuck();
let base: string;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'link-thread-'));
  // The texts of value objects are joined from `_values`; none here: the same NULLs either way.
  await memory.connection.run('CREATE TABLE _values (oid BIGINT, text VARCHAR)');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function fingerprint(file: string): Promise<{ columns: string[]; rows: number; md5: string }> {
  const read = `read_parquet('${file.replaceAll("'", "''")}')`;
  const columns = (await memory.connection.runAndReadAll(`DESCRIBE SELECT * FROM ${read}`)).getRows().map((r) => `${String(r[0])} ${String(r[1])}`);
  const [rows, md5] = (await memory.connection.runAndReadAll(`SELECT count(*), md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY t::VARCHAR), '')) FROM ${read} t`)).getRows()[0]!;
  return { columns, rows: Number(rows), md5: String(md5) };
}

describe('the link pass shared with a worker thread', () => {
  for (const name of ['graph', 'collections']) {
    it(`writes the rows the pass alone writes (${name})`, { timeout: 60_000 }, async () => {
      const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', name));
      try {
        const dataFiles = storage.channels.reduce((n, c) => n + c.files.length, 0);
        expect(dataFiles).toBeGreaterThan(1);
        const { linkTypes } = plansOf(storage.dictionary, storage.dictionary.entries.map((e) => e.typeId), []);
        const write = async (dir: string, threads: boolean): Promise<{ rows: Map<string, number>; work: LinkThreadWork | undefined }> => {
          mkdirSync(dir);
          const files = new Map([
            ['_elements', join(dir, '_elements.parquet')],
            ['_references', join(dir, '_references.parquet')],
          ]);
          let work: LinkThreadWork | undefined;
          const rows = await writeLinkTablesAsParquet(memory.connection, storage, linkTypes, files, threads, (w) => (work = w));
          expect(readdirSync(dir).sort()).toEqual(['_elements.parquet', '_references.parquet']);
          return { rows, work };
        };
        const alone = await write(join(base, `${name}-alone`), false);
        const shared = await write(join(base, `${name}-shared`), true);
        expect(alone.work).toBeUndefined();
        expect(shared.work!.files).toBeGreaterThan(0);
        expect(shared.work!.files).toBeLessThanOrEqual(dataFiles);
        expect(alone.rows.get('_elements')).toBeGreaterThan(0);
        expect(alone.rows.get('_references')).toBeGreaterThan(0);
        expect(shared.rows).toEqual(alone.rows);
        for (const table of ['_elements', '_references']) {
          expect(await fingerprint(join(base, `${name}-shared`, `${table}.parquet`))).toEqual(await fingerprint(join(base, `${name}-alone`, `${table}.parquet`)));
        }
      } finally {
        await storage.close();
      }
    });
  }
});
