import { resolveAsOf, type AsOf } from '../rescue/as-of.js';
import type { Commit } from '../storage/history/commit-history.js';
import { committedLengthsAt } from '../storage/history/point-in-time.js';
import type { StorageSource } from '../storage/source/source.js';
import { scanStorageLayout } from '../storage/source/storage-dir.js';
import { Storage, type OpenOptions } from '../storage/storage.js';

/**
 * A side of a diff: a storage as it is now, or as it was right after an earlier commit (its logs
 * read up to that commit, `rescue --as-of`'s rule). A point whose data files housekeeping has
 * deleted since is refused with the files named (resolveAsOf).
 */

export interface DiffSide {
  readonly storage: Storage;
  /** The commit the side shows, when it is an earlier state. */
  readonly commit?: Commit;
}

/** Records read lately kept per side: a diff summarizes the same referenced objects (enums, owners) again and again. */
const RECORD_CACHE_BYTES = 8 * 1024 * 1024;

export async function openSide(source: StorageSource, asOf: AsOf | undefined, options: OpenOptions = {}): Promise<DiffSide> {
  if (asOf === undefined) return { storage: await Storage.open(source, { recordCacheBytes: RECORD_CACHE_BYTES, ...options }) };
  let point;
  try {
    point = await source.snapshot(async (reader) => resolveAsOf(await scanStorageLayout(reader, source.location), asOf, reader));
  } catch (error) {
    await source.close();
    throw error;
  }
  const storage = await Storage.open(source, { recordCacheBytes: RECORD_CACHE_BYTES, ...options, committedLengths: committedLengthsAt(point) });
  return { storage, commit: point.commit };
}
