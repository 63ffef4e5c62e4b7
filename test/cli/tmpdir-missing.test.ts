import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { runCliInProcess as cli } from '../helpers/serving/cli-in-process.js';

/**
 * `sql` and `export` keep DuckDB's database under TMPDIR. A TMPDIR naming a directory that does
 * not exist (a typo, a mount not there yet) is the user's setting to fix: a usage error naming
 * TMPDIR and the directory (exit 2), not a raw `ENOENT: no such file or directory, lstat '…'`.
 */

let work: string;
let source: string;
const tmpdirBefore = process.env.TMPDIR;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-tmpdir-missing-'));
  source = join(work, 'storage');
  generateStorage({ directory: source, entities: 500, channelCount: 1, seed: 5 });
});
afterEach(() => {
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a TMPDIR that is no directory', () => {
  it('sql: a usage error naming TMPDIR and the directory', async () => {
    const missing = join(work, 'no-such-directory');
    process.env.TMPDIR = missing;
    const run = await cli(['sql', source, 'SELECT count(*) FROM _objects']);
    // (An indexing line may come before it when the machine is busy.)
    expect(run.stderr).toContain(`storage-inspector sql: TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)\n`);
    expect(run.stderr).not.toContain('ENOENT');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
  });

  it('export: the same before any work, nothing written', async () => {
    const missing = join(work, 'not-there');
    const out = join(work, 'tables');
    process.env.TMPDIR = missing;
    const run = await cli(['export', source, '--format', 'parquet', '--out', out, '--no-cache']);
    expect(run.stderr).toContain(`storage-inspector export: TMPDIR names ${missing}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)\n`);
    expect(run.stderr).not.toContain('building the tables');
    expect(run.stderr).not.toContain('ENOENT');
    expect(run.code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('a file, not a directory: said so', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    process.env.TMPDIR = file;
    const run = await cli(['sql', source, 'SELECT 1']);
    expect(run.stderr).toContain(`storage-inspector sql: TMPDIR names ${file}, which is not a directory; set TMPDIR to an existing directory (the SQL tables are built there)\n`);
    expect(run.code).toBe(2);
  });
});
