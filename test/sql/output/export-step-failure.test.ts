import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BuiltTables } from '../../../src/sql/built-tables.js';
import { exportTables } from '../../../src/sql/output/table-export.js';
import { parquetExportInto, servedCorpusForExports } from '../../helpers/serving/served-corpus-for-exports.js';

/**
 * A Parquet export whose caller's `onStep` throws (a library user stopping the export from its
 * progress callback) while `_objects` is being copied beside the type fills (table-export.ts):
 * the export ends with that error only once the copy has ended, as it does for its own failures.
 * Before, the hidden directory was removed and the engine closed under the copy still writing
 * into it, and its outcome (a file in a removed directory, or an `onTable` call after the export
 * had failed) went unobserved.
 */

const served = servedCorpusForExports('export-step-failure-');

describe('a Parquet export whose onStep throws while _objects is copied', () => {
  it('ends with that error once the copy has ended, nothing left', { timeout: 120_000 }, async () => {
    const parent = join(served.base, 'out');
    mkdirSync(parent);
    // Whether `_objects`' copy (built-tables.ts `copyObjects`, started before the step) had
    // ended when the export failed: watched on the real method, not replaced.
    const copy = BuiltTables.prototype.copyObjects;
    let copies = 0;
    let copiesEnded = 0;
    BuiltTables.prototype.copyObjects = function (...args: Parameters<typeof copy>) {
      copies++;
      const copying = copy.apply(this, args);
      copying.then(
        () => copiesEnded++,
        () => copiesEnded++,
      );
      return copying;
    };
    const stopped = new Error('stopped by the caller');
    let endedAtFailure = -1;
    try {
      const exported = exportTables({
        ...parquetExportInto(served, join(parent, 'tables')),
        onStep: (step) => {
          if (step.startsWith('filling')) throw stopped;
        },
      }).catch((error: unknown) => {
        endedAtFailure = copiesEnded;
        throw error;
      });
      await expect(exported).rejects.toBe(stopped);
    } finally {
      BuiltTables.prototype.copyObjects = copy;
    }
    expect(copies).toBe(1);
    expect(endedAtFailure).toBe(1);
    expect(readdirSync(parent)).toEqual([]);
  });
});
