import { createHash, type Hash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanStorageDirectory } from '../../storage/source/storage-dir.js';
import type { Storage } from '../../storage/storage.js';

/**
 * What a cached database of a storage's tables is filed under (table-cache.ts): the build of the
 * product that made it and the storage's identity and committed state. A cached database is used
 * only where all of it is the same again, so a storage that changed in any way, or a newer build
 * of the table code, builds the tables anew.
 *
 * - The product: TABLES_FORMAT (raised by hand when the tables change shape on purpose), a hash of
 *   the code the tables are made by, as it runs (this folder and every room below the commands and
 *   servers: storage, format, graph, inspect, gigamap, damaged, ...; a change anybody makes to how a
 *   table or a value is made is a new key without anyone remembering to raise the constant) and
 *   the DuckDB library's version (its file format).
 * - The storage: its directory with every link resolved; per file it reads (type dictionary, data
 *   files, transaction logs) the name, size, device, inode, modification and change times (a file
 *   replaced, even by one of the same size and with its modification time set back, has a new
 *   inode or change time); the whole content of the type dictionary and of each transaction log
 *   hashed (a log rewritten in place); and what the opened storage itself read: per channel its
 *   files and committed lengths, the last commit's time and the root (a commit that landed after
 *   the storage was opened, before the key was taken, gives a key no later run has).
 *
 * Storages kept in PostgreSQL have no key: their tables are not cached (their rows tell no
 * change time a rewrite could not keep).
 */

/** Raise when the tables' shape or content changes in a way the code hash might not show. */
export const TABLES_FORMAT = 1;

let codeHash: string | undefined;

/** Rooms of the code root the tables are never made by (they use sql, not the other way round). */
const NOT_TABLE_CODE = new Set(['cli', 'http', 'mcp', 'library', 'viewer', 'vendor']);

/**
 * A hash of the modules the tables may be made by, as they run: every .js or .ts file below the
 * code root (dist/, or src/ under tsx) but the rooms above sql. About 250 files, 1.5 MB; once a process.
 */
export function tableCodeHash(): string {
  codeHash ??= hashTableCode();
  return codeHash;
}

/** The hash of the table code as it is on disk now (`tableCodeHash` keeps the first one of a process). */
export function hashTableCode(): string {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const hash = createHash('sha256');
  const names = (readdirSync(root, { recursive: true }) as string[]).filter((name) => /\.(js|ts)$/.test(name) && !name.endsWith('.d.ts') && !NOT_TABLE_CODE.has(name.split(sep)[0]!));
  for (const name of names.sort()) hash.update(name).update('\0').update(readFileSync(join(root, name))).update('\0');
  return hash.digest('hex');
}

export interface StorageStateKey {
  /** Hex SHA-256 of everything above: the entry's name. */
  readonly key: string;
  /** The storage's directory, links resolved (for `cache list`). */
  readonly directory: string;
}

/** The key of a directory storage's current state; undefined for a storage not kept in a directory. */
export async function storageStateKey(storage: Storage, duckVersion: string, code: string = tableCodeHash()): Promise<StorageStateKey | undefined> {
  if (storage.source.kind !== 'directory') return undefined;
  const directory = realpathSync(storage.directory);
  const layout = await scanStorageDirectory(directory);
  const hash = createHash('sha256');
  const line = (...parts: (string | number | bigint)[]): void => void hash.update(parts.join('\t') + '\n');
  line('format', TABLES_FORMAT, 'code', code, 'duckdb', duckVersion);
  line('directory', directory);
  const file = async (path: string, whole: boolean): Promise<void> => {
    const stats: BigIntStats = statSync(path, { bigint: true });
    line('file', path, stats.size, stats.dev, stats.ino, stats.mtimeNs, stats.ctimeNs);
    if (whole) line('content', await contentHash(path, stats.size));
  };
  await file(layout.dictionaryPath, true);
  for (const channel of layout.channels) {
    line('channel', channel.index, channel.directoryName);
    for (const data of channel.dataFiles) await file(data.path, false);
    if (channel.logPath !== undefined) await file(channel.logPath, true);
  }
  line('dictionary-read', createHash('sha256').update(storage.dictionaryBytes).digest('hex'));
  for (const channel of storage.channels) for (const f of channel.files) line('read', channel.index, f.name, f.totalLength);
  line('last-commit', storage.lastCommitTimestamp, 'root', storage.rootObjectId, storage.rootsObjectId);
  return { key: hash.digest('hex'), directory };
}

/** A file's bytes hashed, up to the size it was listed with (a log appended to meanwhile changes its stats anyway). */
async function contentHash(path: string, size: bigint): Promise<string> {
  const hash: Hash = createHash('sha256');
  if (size > 0n) {
    for await (const chunk of createReadStream(path, { start: 0, end: Number(size) - 1 })) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
