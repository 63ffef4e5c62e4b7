import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TableCache } from '../../../src/sql/cache/table-cache.js';
import { exportTables } from '../../../src/sql/output/table-export.js';
import { parquetExportInto, servedCorpusForExports } from '../../helpers/serving/served-corpus-for-exports.js';

/**
 * A Parquet export whose `_objects` file cannot be written (written beside the type fills,
 * table-export.ts): the export ends with that error as soon as the fills are done, without
 * writing the other tables first (at 10M objects, minutes of work and gigabytes on a disk that
 * may be full), and leaves nothing beside --out. With a cache (the table filled, then copied)
 * and without (copied straight from the pass's rows).
 */

const served = servedCorpusForExports('export-objects-failure-');

describe('a Parquet export whose _objects file cannot be written', () => {
  it.each([
    ['without a cache', false],
    ['with a cache', true],
  ])('ends with that error, %s, before writing the other tables, nothing left', { timeout: 120_000 }, async (_label, cached) => {
    const parent = join(served.base, cached ? 'cached' : 'uncached');
    mkdirSync(parent);
    const steps: string[] = [];
    const written: string[] = [];
    const exported = exportTables({
      ...parquetExportInto(served, join(parent, 'tables')),
      ...(cached ? { cache: new TableCache(join(served.base, `cache-${String(cached)}`)) } : {}),
      onStep: (step) => {
        steps.push(step);
        // The hidden directory exists now and `_objects`' copy has not opened its file yet: a
        // directory in its place makes DuckDB's COPY fail as a full disk would.
        if (!step.startsWith('filling')) return;
        const partial = readdirSync(parent).find((name) => name.includes('.partial-'))!;
        mkdirSync(join(parent, partial, '_objects.parquet', 'taken'), { recursive: true });
      },
      onTable: (table) => written.push(table),
    });
    await expect(exported).rejects.toThrow(/_objects\.parquet/);
    expect(steps.slice(0, 2)).toEqual(['building the tables', expect.stringMatching(/^filling \d+ type tables$/)]);
    // Nothing written after the failure. `_objects`' copy fails well before the type fills end
    // on this corpus (250-330 ms measured), so mostly there is no writing step and no table told;
    // on a busy machine the fills may end first, and then at most the table whose copy was under
    // way is written (before the fix: every other table).
    expect(steps.length).toBeLessThanOrEqual(3);
    expect(written.length).toBeLessThanOrEqual(1);
    expect(written).not.toContain('_objects');
    expect(readdirSync(parent)).toEqual([]);
  });
});
