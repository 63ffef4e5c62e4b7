import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { UsageError } from '../../errors.js';

/**
 * The temporary directory DuckDB's database goes into (TMPDIR, else the system's), checked to be
 * an existing directory. A TMPDIR naming none (a typo, a mount not there yet) is the user's
 * setting to fix: told as a usage error naming TMPDIR and the directory, not as the raw
 * `ENOENT … lstat '…'` of the first call that reached it.
 */
/**
 * A setting of the process keeps SQL from running: TMPDIR names no directory, or one inside the
 * storage directory. A usage error to the command line (exit 2); a server answers it as
 * "SQL Unavailable" (http/api-v1/sql), and only it: other usage errors stay what they were.
 */
export class TemporaryDirectoryError extends UsageError {
  override readonly name = 'TemporaryDirectoryError';
}

export function temporaryDirectory(): string {
  const directory = tmpdir();
  const named = process.env.TMPDIR !== undefined && process.env.TMPDIR !== '' ? `TMPDIR names ${directory}` : `the temporary directory ${directory}`;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(directory).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
    throw new TemporaryDirectoryError(`${named}, which does not exist; set TMPDIR to an existing directory (the SQL tables are built there)`);
  }
  if (!isDirectory) throw new TemporaryDirectoryError(`${named}, which is not a directory; set TMPDIR to an existing directory (the SQL tables are built there)`);
  return directory;
}
