import { rmSync } from 'node:fs';

/**
 * Removes a directory in which DuckDB's threads may still make entries: at exit, a DuckDB being
 * opened creates its database file, a statement its spill directory and files, an export's COPY
 * the next table's file. rmSync lists the entries, removes them, then removes the directory; an
 * entry made after the listing fails that last step (ENOTEMPTY), and its `maxRetries` retry only
 * that step, never the listing: an exit handler threw and left the directory with the new entry
 * (sql interrupted as it opened DuckDB, beside two CPU hogs: 5 runs of 50; an export interrupted
 * during its copies: 2 runs of 30, its hidden `.partial-*` directory left with a table's file).
 * Each attempt here removes what is there by then. Once the directory itself is gone nothing can
 * be made in it: DuckDB makes no parents, neither of its database file, of `temp_directory`, nor
 * of a COPY's file.
 */
export function removeWhileWritten(directory: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(directory, { recursive: true, force: true });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Every attempt needs another entry made by DuckDB meanwhile, and it makes few.
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt === 100) throw error;
    }
  }
}

/**
 * `removeWhileWritten` from a `process.on('exit')` listener: never throws. An exception there
 * skipped every later exit listener (another directory's removal: an export's hidden directory
 * that could not be removed left the sandbox's database file of hundreds of MB beside it) and
 * printed a raw stack trace over the command's own last words; a directory that cannot be removed
 * (no permission, a busy file on a network disk) is named in one line instead.
 */
export function removeAtExit(directory: string): void {
  try {
    removeWhileWritten(directory);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    process.stderr.write(`storage-inspector: could not remove ${directory} at exit (${reason}); remove it by hand\n`);
  }
}
