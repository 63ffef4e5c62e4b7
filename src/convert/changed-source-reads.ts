import { StorageError } from '../errors.js';
import type { SourceReads } from '../storage/source/source.js';

/**
 * The copy's reads of the data files: each file's committed range whole, as the check's walk read
 * it before (the source is read twice). A file cut or deleted since, by an application's
 * housekeeping or restart, would make the copy meet other records than the check did (the walk
 * order's bits would then name other records; a cut at a record's end is no error to
 * `streamRecords`, whose reads end where the file does): refused, naming the file. Used by the
 * copying thread and by the copy's planning thread (copy-plan-worker.ts), which may be the first
 * to meet the change.
 */
export function wholeRanges(source: Pick<SourceReads, 'chunks'>, named: string): Pick<SourceReads, 'chunks'> {
  return {
    chunks: (path, from, to) => ({
      async *[Symbol.asyncIterator]() {
        let at = from;
        try {
          for await (const chunk of source.chunks(path, from, to)) {
            at += chunk.byteLength;
            yield chunk;
          }
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw fileGone(path, named, error);
          throw error;
        }
        // Thrown before the walk is told the reads ended: a record cut by the file's new end is
        // reported as the file's change, not as a malformed record.
        if (at < to) throw fileCut(path, at, to, named);
      },
    }),
  };
}

/** A data file deleted since the check read it. */
export function fileGone(path: string, named: string, cause: unknown): StorageError {
  return new StorageError('STORAGE_FILE_GONE', `${path} was deleted: ${changedWhileConverted(named)}`, { cause });
}

/** A data file that ends at `at` since the check read it up to `end`. */
export function fileCut(path: string, at: number, end: number, named: string): StorageError {
  return new StorageError('STORAGE_INCONSISTENT', `${path} ends at ${at}, before the ${end} committed bytes the check read: ${changedWhileConverted(named)}`);
}

export function changedWhileConverted(named: string): string {
  return `${named} changed while it was converted (an application writing to it?); nothing was written: convert it again while nothing writes to it, or convert a copy of it`;
}
