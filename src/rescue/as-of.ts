import { StorageError, UsageError } from '../errors.js';
import { CommitHistory, type PointInTime } from '../storage/history/commit-history.js';
import type { SourceReads } from '../storage/source/source.js';
import type { StorageLayout } from '../storage/source/storage-dir.js';

/**
 * `--as-of`: a commit number (as `check --commits` lists them), a commit's log timestamp, or a
 * date-time (ISO 8601; the last commit made at or before it).
 */
export type AsOf = { readonly commit: number } | { readonly timestamp: bigint } | { readonly time: number };

/** Commit numbers are small; log timestamps are epoch nanoseconds (19 digits today). */
const LARGEST_COMMIT_NUMBER = 1_000_000_000_000;

export function parseAsOf(text: string): AsOf {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const value = BigInt(trimmed);
    return value <= BigInt(LARGEST_COMMIT_NUMBER) ? { commit: Number(value) } : { timestamp: value };
  }
  const time = Date.parse(trimmed);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(time)) {
    throw new UsageError(`--as-of ${text}: expected a commit number, a commit timestamp or a date-time such as 2024-05-01T12:00:00Z`);
  }
  return { time };
}

/**
 * The point in time to rebuild; fails naming the files when its state can no longer be rebuilt
 * exactly. The logs are read through `reads` (the snapshot the layout was listed in), or from
 * the storage directory of the layout.
 */
export async function resolveAsOf(layout: StorageLayout, asOf: AsOf, reads?: SourceReads): Promise<PointInTime> {
  const history = await CommitHistory.read(layout, reads);
  let number: number | undefined;
  if ('commit' in asOf) number = asOf.commit >= 1 && asOf.commit <= history.size ? asOf.commit : undefined;
  else if ('timestamp' in asOf) number = history.commitByTimestamp(asOf.timestamp)?.number;
  else number = history.commitAtOrBefore(asOf.time)?.number;
  if (number === undefined) {
    const what = 'commit' in asOf ? `commit ${asOf.commit}` : 'timestamp' in asOf ? `a commit with timestamp ${asOf.timestamp}` : `a commit at or before ${new Date(asOf.time).toISOString()}`;
    throw new UsageError(`${layout.directory} has no ${what} (${history.size} commits; list them with check --commits)`);
  }
  const point = history.pointInTime(number, layout);
  if (point.missingFiles.length > 0) {
    const files = point.missingFiles.map((m) => `channel ${m.channel} file ${m.fileNumber} (${m.length} bytes then, ${m.sizeOnDisk === undefined ? 'deleted since' : `${m.sizeOnDisk} bytes now`})`);
    throw new StorageError(
      'STORAGE_INCONSISTENT',
      `the state as of commit ${number} (${new Date(point.commit.time).toISOString()}) cannot be rebuilt exactly: the history is incomplete, ` +
        `housekeeping (or someone) removed data files that held it: ${files.join(', ')}. Commits whose files are all still there are marked recoverable by check --commits.`,
    );
  }
  return point;
}
