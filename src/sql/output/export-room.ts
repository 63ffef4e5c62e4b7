import { statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * The room on the disk an export needs, checked before any work starts (not found missing by a
 * write tens of seconds in). Estimated from the bytes of the storage's current records (the data
 * files' live lengths, known from the open without a read). Measured (the built code, every
 * table, the largest size each directory reached; the graph storage of the conformance corpus
 * its final files):
 *
 * | storage, live record bytes | beside `--out` | DuckDB's directory under TMPDIR |
 * |---|---|---|
 * | generated 1M objects, 69.9 MB | Parquet 130 MB (1.86×) | 98 MB (1.40×) |
 * | generated 10M objects, 702.4 MB | Parquet 1.32 GB (1.88×) | 979 MB (1.39×) |
 * | conformance graph, 76.8 KB | Parquet 137 KB (1.8×), CSV 535 KB (7.0×), NDJSON 1.15 MB (15×) | 1.7–7.1 MB |
 *
 * Beside `--out`: the tables written and, as Parquet, the link pass's uncompressed rows; CSV and
 * NDJSON write no such rows but texts (a column's name in every NDJSON row). Under TMPDIR: the
 * database of the built tables, some megabytes however small the storage, and `_objects`' rows
 * staged as Parquet while it is filled (fills/object-rows.ts). The factors below are
 * those figures rounded up; one sum is asked for when both directories are on one filesystem;
 * one table alone (`--type`) asks only for the database's room, but for `_references` or
 * `_elements`, whose uncompressed rows the link pass writes beside `--out` first (1.05 GB of the
 * 1.32 GB at 10M objects): those ask a whole export's room there too.
 */

/** Bytes beside `--out` asked for per live record byte, by format. */
export const BESIDE_OUT_PER_RECORD_BYTE = { parquet: 2.5, csv: 8, ndjson: 16 } as const;
/** Bytes under TMPDIR asked for per live record byte, and at least. */
export const TEMPORARY_PER_RECORD_BYTE = 1.75;
export const TEMPORARY_AT_LEAST = 8 * 1024 * 1024;

export interface RoomNeeded {
  /** The directory and the bytes asked for there (one entry per filesystem). */
  readonly places: readonly { readonly directory: string; readonly label: string; readonly bytes: number }[];
}

/**
 * What an export of a storage with these live record bytes asks for, where. `besideAsWhole`: the
 * room beside `--out` a whole export asks (every table, or one link table); else none there.
 */
export function exportRoomNeeded(liveRecordBytes: number, format: keyof typeof BESIDE_OUT_PER_RECORD_BYTE, outParent: string, besideAsWhole: boolean, temporary: string = tmpdir()): RoomNeeded {
  if (!Number.isFinite(liveRecordBytes) || liveRecordBytes < 0) throw new RangeError(`live record bytes must be a finite number ≥ 0, not ${liveRecordBytes}`);
  const beside = besideAsWhole ? Math.ceil(liveRecordBytes * BESIDE_OUT_PER_RECORD_BYTE[format]) : 0;
  const temp = Math.max(TEMPORARY_AT_LEAST, Math.ceil(liveRecordBytes * TEMPORARY_PER_RECORD_BYTE));
  if (statSync(outParent).dev === statSync(temporary).dev) return { places: [{ directory: outParent, label: `${outParent} (beside --out and the temporary directory: one filesystem)`, bytes: beside + temp }] };
  return {
    places: [
      { directory: outParent, label: `${outParent} (beside --out)`, bytes: beside },
      { directory: temporary, label: `${temporary} (the temporary directory, TMPDIR)`, bytes: temp },
    ],
  };
}

/**
 * The first place without the room asked for, with the bytes free there; undefined when every
 * place has it. A place whose free space cannot be learnt (statfs not supported there: some FUSE
 * and network filesystems) is told to `unknown` and not checked: the estimate must not refuse an
 * export the disk may well hold.
 */
export function missingRoom(
  needed: RoomNeeded,
  free: (directory: string) => number = freeBytes,
  unknown: (label: string, error: unknown) => void = () => undefined,
): { readonly label: string; readonly bytes: number; readonly free: number } | undefined {
  for (const place of needed.places) {
    if (place.bytes === 0) continue;
    let available: number;
    try {
      available = free(place.directory);
    } catch (error) {
      unknown(place.label, error);
      continue;
    }
    if (!Number.isFinite(available)) {
      unknown(place.label, new Error(`the filesystem told ${available} bytes free`));
      continue;
    }
    if (available < place.bytes) return { label: place.label, bytes: place.bytes, free: available };
  }
  return undefined;
}

/** Bytes an unprivileged writer may still write on the directory's filesystem. */
export function freeBytes(directory: string): number {
  const fs = statfsSync(directory);
  return fs.bavail * fs.bsize;
}

/** Bytes as a person reads them (MB below a GB, else GB). */
export function roomText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}
