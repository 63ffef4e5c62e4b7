import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { flush } from './disk-flush.js';

/**
 * The link tables' Parquet files of a cache entry (table-cache.ts): kept beside the database,
 * each hashed as the entry holds it; looked at (their sizes) when the entry is taken; copied into
 * the private directory and their hashes checked only when first needed (`takeKeptLinkFile`),
 * since at 10M objects the two files are ~100 MB, which a statement that never names the link
 * tables paid on every open.
 */

/**
 * A link table (`_elements`, `_references`) kept as the Parquet file an export wrote of it
 * (zstd, DuckDB's writer), beside the database; the database's table of that name is left empty.
 */
export interface KeptLinkFile {
  /** The table's name; the file is `<table>.parquet` in the entry. */
  readonly table: string;
  readonly rows: number;
  readonly bytes: number;
  /** Hex SHA-256 of the file: a copy taken that differs (a damaged entry) is no entry. */
  readonly sha256: string;
}

/** A link table's Parquet file to keep with the database (`keep`). */
export interface LinkFileToKeep {
  readonly table: string;
  readonly rows: number;
  readonly path: string;
}

/** A kept link table's file name in an entry (and in the private directory it is taken into). */
export function linkFileName(table: string): string {
  return `${table}.parquet`;
}

/** The bytes the link files to keep take (`keep` refuses an entry larger than the cache). */
export async function linkFilesSize(linkFiles: readonly LinkFileToKeep[]): Promise<number> {
  let linkBytes = 0;
  for (const link of linkFiles) linkBytes += (await stat(link.path)).size;
  return linkBytes;
}

/** What the kept link files take on disk. */
export function keptLinkBytes(files: readonly KeptLinkFile[] | undefined): number {
  return (files ?? []).reduce((n, f) => n + f.bytes, 0);
}

/** `linkFiles` copied into the entry being written (`temp`), each flushed and hashed as the entry holds it. */
export async function keepLinkFiles(temp: string, linkFiles: readonly LinkFileToKeep[]): Promise<KeptLinkFile[]> {
  const kept: KeptLinkFile[] = [];
  for (const link of linkFiles) {
    const copy = join(temp, linkFileName(link.table));
    await copyFile(link.path, copy, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await chmod(copy, 0o600);
    await flush(copy);
    // The hash of what the entry holds, read back from it: what a later `take` compares.
    kept.push({ table: link.table, rows: link.rows, bytes: (await stat(copy)).size, sha256: await fileHash(copy) });
  }
  return kept;
}

/** Whether every link file of an entry is there with the size it was kept with (its bytes are hashed when taken). */
export async function everyLinkFileThere(dir: string, files: readonly KeptLinkFile[]): Promise<boolean> {
  for (const kept of files) {
    const stats = await stat(join(dir, linkFileName(kept.table))).catch(() => undefined);
    if (stats?.size !== kept.bytes) return false;
  }
  return true;
}

/**
 * The entry's (`dir`) file of `table` copied to `copy` in `linkDirectory` (made private): true
 * when the copy is whole (size and SHA-256 as `kept` says); false when the entry's file is gone
 * or differs (the copy removed, `dropEntry` called: no entry, its tables built again).
 */
export async function takeKeptLinkFile(
  dir: string,
  table: string,
  kept: KeptLinkFile | undefined,
  copy: string | undefined,
  linkDirectory: string | undefined,
  dropEntry: () => Promise<void>,
): Promise<boolean> {
  if (kept === undefined || copy === undefined || linkDirectory === undefined) return false;
  await mkdir(linkDirectory, { recursive: true, mode: 0o700 });
  const whole = await copyFile(join(dir, linkFileName(table)), copy, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE).then(
    async () => (await stat(copy)).size === kept.bytes && (await fileHash(copy)) === kept.sha256,
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    },
  );
  if (!whole) {
    await rm(copy, { force: true });
    await dropEntry();
  }
  return whole;
}

/** Hex SHA-256 of a file's bytes. */
async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
