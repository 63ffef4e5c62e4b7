import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportTables } from '../../../src/sql/output/table-export.js';
import { parquetExportInto, servedCorpusForExports } from '../../helpers/serving/served-corpus-for-exports.js';

/**
 * A Parquet export without a cache writes the entity types' tables straight from the type fill's
 * staged rows (table-export.ts, built-tables.ts `copyTypeTables`), with the link pass started
 * beside those copies. One of those files that cannot be written ends the export with DuckDB's
 * error naming it, before the tables written after the type tables (`_values`, `_commits`, the
 * link tables), and leaves nothing beside --out: the link pass has ended before the hidden
 * directory is removed.
 */

const served = servedCorpusForExports('export-type-copy-failure-');

describe('a Parquet export whose type table file cannot be written', () => {
  it('ends with that error before the tables written after the type tables, nothing left', { timeout: 120_000 }, async () => {
    const parent = join(served.base, 'uncached');
    mkdirSync(parent);
    const steps: string[] = [];
    const written: string[] = [];
    const exported = exportTables({
      ...parquetExportInto(served, join(parent, 'tables')),
      onStep: (step) => {
        steps.push(step);
        // The hidden directory exists now and no type table is copied yet: a directory in the
        // place of one's file makes DuckDB's COPY fail as a full disk would.
        if (!step.startsWith('filling')) return;
        const partial = readdirSync(parent).find((name) => name.includes('.partial-'))!;
        mkdirSync(join(parent, partial, 'conformance.bookstore.Book.parquet', 'taken'), { recursive: true });
      },
      onTable: (table) => written.push(table),
    });
    await expect(exported).rejects.toThrow(/conformance\.bookstore\.Book\.parquet/);
    // The link pass had started (the records were walked) when the copy failed.
    expect(steps).toEqual(['building the tables', expect.stringMatching(/^filling \d+ type tables$/), expect.stringMatching(/^writing \d+ tables$/)]);
    expect(written).not.toContain('conformance.bookstore.Book');
    for (const after of ['_values', '_commits', '_elements', '_references']) expect(written).not.toContain(after);
    expect(readdirSync(parent)).toEqual([]);
  });
});
