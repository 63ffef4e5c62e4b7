import { resolveAsOf, type AsOf } from '../rescue/as-of.js';
import { CommitHistory, type Commit } from '../storage/history/commit-history.js';
import { committedLengthsAt } from '../storage/history/point-in-time.js';
import type { StorageSource } from '../storage/source/source.js';
import { PinnedSource } from '../storage/source/pinned-source.js';
import { scanStorageLayout } from '../storage/source/storage-dir.js';
import { Storage, type CommittedLengths, type StorageOpenOptions } from '../storage/storage.js';

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

export async function openSide(source: StorageSource, asOf: AsOf | undefined, options: StorageOpenOptions = {}): Promise<DiffSide> {
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

/**
 * Two states of one storage that is being served, read through one snapshot of its source (one
 * transaction for PostgreSQL): the state after commit `from`, and after `to` (or the latest).
 * The served storage and its source are left as they are; `use` runs while both states are open.
 */
export async function withPoints<T>(source: StorageSource, from: AsOf, to: AsOf | undefined, use: (a: DiffSide, b: DiffSide) => Promise<T>): Promise<T> {
  return source.snapshot(async (reader) => {
    const layout = await scanStorageLayout(reader, source.location);
    const pointA = await resolveAsOf(layout, from, reader);
    const pointB = to === undefined ? undefined : await resolveAsOf(layout, to, reader);
    const open = (lengths: CommittedLengths | undefined): Promise<Storage> =>
      Storage.open(new PinnedSource(source, reader), { recordCacheBytes: RECORD_CACHE_BYTES, ...(lengths === undefined ? {} : { committedLengths: lengths }) });
    const a = await open(committedLengthsAt(pointA));
    try {
      const b = await open(pointB === undefined ? undefined : committedLengthsAt(pointB));
      try {
        return await use({ storage: a, commit: pointA.commit }, pointB === undefined ? { storage: b } : { storage: b, commit: pointB.commit });
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });
}

/** How many commits the storage's logs hold (reads the logs only). */
export async function commitCount(source: StorageSource): Promise<number> {
  return source.snapshot(async (reader) => (await CommitHistory.read(await scanStorageLayout(reader, source.location), reader)).size);
}
