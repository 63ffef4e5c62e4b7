import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { UsageError } from '../errors.js';

/**
 * The temporary directory DuckDB's database goes into (TMPDIR, else the system's), checked to be
 * an existing directory. A TMPDIR naming none (a typo, a mount not there yet) is the user's
 * setting to fix: told as a usage error naming TMPDIR and the directory, not as the raw
 * `ENOENT … lstat '…'` of the first call that reached it.
 */
export function temporaryDirectory(): string {
  const directory = tmpdir();
  const named = process.env.TMPDIR !== undefined && process.env.TMPDIR !== '' ? `TMPDIR names ${directory}` : `the temporary directory ${directory}`;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(directory).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
    throw new UsageError(`${named}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)`);
  }
  if (!isDirectory) throw new UsageError(`${named}, which is not a directory; set TMPDIR to an existing directory (the SQL tables are built there)`);
  return directory;
}
