import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { exportTables } from '../../../src/sql/output/table-export.js';
import { parquetExportInto, servedCorpusForExports } from '../../helpers/serving/served-corpus-for-exports.js';

/**
 * A Parquet export whose link pass (`_elements`, `_references`: written beside the other tables'
 * copies, table-export.ts) fails at its start, as a full disk would fail its staged rows: the
 * export ends with that error after at most the table whose copy was under way, not after every
 * other table was written (at 10M objects, tens of copies and gigabytes), and leaves nothing
 * beside --out. Without a cache (the rows copied straight into the files) and with one (the
 * tables filled from the staged rows, then copied).
 */

const served = servedCorpusForExports('export-links-failure-');

describe('a Parquet export whose link pass cannot write its staged rows', () => {
  it.each([
    ['without a cache', false],
    ['with a cache', true],
  ])('ends with that error, %s, before writing the other tables, nothing left', { timeout: 120_000 }, async (_label, cached) => {
    const parent = join(served.base, cached ? 'cached' : 'uncached');
    mkdirSync(parent);
    const written: string[] = [];
    let tables = 0;
    const exported = exportTables({
      ...parquetExportInto(served, join(parent, 'tables')),
      // With a cache the pass fills the tables from the same staged files (then copied from them).
      ...(cached ? { cache: new TableCache(join(served.base, 'cache')) } : {}),
      onStep: (step) => {
        const count = /^writing (\d+) tables$/.exec(step);
        if (count === null) return;
        tables = Number(count[1]);
        // The link pass starts right after this step; its first staged file is named after the
        // first link table's file. A directory holding something in the place of both candidates
        // makes opening it fail.
        const partial = readdirSync(parent).find((name) => name.includes('.partial-'))!;
        for (const table of ['_elements', '_references']) mkdirSync(join(parent, partial, `${table}.parquet.elements.rows`, 'taken'), { recursive: true });
      },
      onTable: (table) => written.push(table),
    });
    await expect(exported).rejects.toThrow(/elements\.rows/);
    // The graph corpus has more than a dozen tables besides the link tables.
    expect(tables).toBeGreaterThan(12);
    // `_objects` is written beside the type fills (it may end before or after this step); of the
    // other tables, at most the one whose copy was under way when the failure came.
    expect(written.filter((table) => table !== '_objects').length).toBeLessThanOrEqual(1);
    expect(readdirSync(parent)).toEqual([]);
  });
});
