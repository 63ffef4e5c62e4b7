import { type Command, Option } from 'commander';
import type { StorageDamage } from '../../damaged/readable-part.js';
import { UsageError } from '../../errors.js';
import { warnIfShared } from '../../http/guard/auth.js';
import { checkStorageSpec, isPostgresSpec, openStorageSource } from '../../storage/open-source.js';
import type { StorageSource } from '../../storage/source/source.js';
import { DEFAULT_MAX_DICTIONARY_BYTES, Storage, type OpenOptions } from '../../storage/storage.js';
import { fromEnv, integerOption } from './option-values.js';

/**
 * The storage argument every command that reads a storage takes: a directory, or a database URL
 * with its root table (see storage/open-source.ts), with the same options and checks everywhere.
 */

export const STORAGE_ARGUMENT_TEXT =
  'the storage directory (holding PersistenceTypeDictionary.ptd and channel_0/ ...), or one kept in a database: postgres://user@host:port/db, mariadb://user@host:port/db (also mysql://) or sqlite:FILE (or the SQLite file itself), with --table';

/** Where a storage is, as given on the command line. */
export interface StorageSpec {
  /** A directory, or a database (postgres://, mariadb://, mysql://, sqlite:). */
  readonly directory: string;
  /** The root table of a storage kept in a database. */
  readonly table?: string | undefined;
  /** A file holding the database password. */
  readonly pgPasswordFile?: string | undefined;
  /** A directory: follow symbolic links that lead outside it (`--allow-external-links`). */
  readonly allowExternalLinks?: boolean | undefined;
  /** A larger type dictionary is refused (`--max-dictionary-bytes`). */
  readonly maxDictionaryBytes?: number | undefined;
}

/** The largest `--max-dictionary-bytes` accepted. */
export const MAX_DICTIONARY_BYTES = 2 ** 30;

/**
 * Adds `--table` and `--pg-password-file` (also from STORAGE_INSPECTOR_* variables); with
 * `readingLimits` also `--allow-external-links` and `--max-dictionary-bytes`, which messages
 * about refused files suggest (`serve` declares those itself, among its other limits).
 */
export function withStorageOptions(command: Command, readingLimits = false): Command {
  if (readingLimits) {
    command
      .addOption(new Option('--allow-external-links', 'follow symbolic links of the storage directory that lead outside it (e.g. channels on another disk; refused by default)'))
      .addOption(integerOption('--max-dictionary-bytes', 'n', `refuse a type dictionary larger than this (default ${DEFAULT_MAX_DICTIONARY_BYTES})`, 1024, MAX_DICTIONARY_BYTES, 'bytes'));
  }
  return command
    .addOption(fromEnv(new Option('--table <name>', 'a storage kept in a database: its root table ([schema.]name, e.g. storage or ms_graph; the channels are <name>$channel_<i> or <name>_channel_<i>; SQLite and MariaDB: optional when the database holds one storage)')))
    .addOption(fromEnv(new Option('--pg-password-file <file>', 'a storage kept in PostgreSQL or MariaDB/MySQL: the database password is the first line of this file (PostgreSQL else PGPASSWORD, PGPASSFILE, ~/.pgpass; MariaDB else ~/.my.cnf)')));
}

/** The storage spec of a parsed command (its one positional argument), checked. */
export function storageSpecOf(command: Command): StorageSpec {
  const [directory, ...rest] = command.args;
  if (directory === undefined || directory === '' || rest.length > 0) {
    throw new UsageError(`expected exactly one storage directory; see 'storage-inspector ${command.name()} --help'`);
  }
  const values = command.opts<{ table?: string; pgPasswordFile?: string; allowExternalLinks?: boolean; maxDictionaryBytes?: number }>();
  checkStorageSpec(directory, { table: values.table, passwordFile: values.pgPasswordFile });
  return {
    directory,
    table: values.table,
    pgPasswordFile: values.pgPasswordFile,
    allowExternalLinks: values.allowExternalLinks === true,
    maxDictionaryBytes: values.maxDictionaryBytes,
  };
}

export function isDirectorySpec(spec: StorageSpec): boolean {
  return !isPostgresSpec(spec.directory);
}

/**
 * Opens the storage a spec names (a warning if a password file can be read by others). A storage
 * MicroStream would refuse (a logged data file gone, damaged log entries) is opened as far as it
 * can be read, its damage told through `warn`, unless `strict`.
 */
export async function openStorage(spec: StorageSpec, options: OpenOptions, warn: (message: string) => void, strict = false): Promise<Storage> {
  return (await openStorageWithDamage(spec, options, warn, strict)).storage;
}

/** `openStorage`, with the damage for which MicroStream would refuse the storage (empty when none). */
export async function openStorageWithDamage(
  spec: StorageSpec,
  options: OpenOptions,
  warn: (message: string) => void,
  strict = false,
): Promise<{ storage: Storage; damage: readonly StorageDamage[] }> {
  // A command reads each record once or not at all: keeping them would only cost copies.
  const limits = { allowExternalLinks: spec.allowExternalLinks === true, ...(spec.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: spec.maxDictionaryBytes }) };
  const open = { recordCacheBytes: 0, ...limits, ...options };
  try {
    return { storage: await Storage.open(openSpecSource(spec, warn), open), damage: [] };
  } catch (error) {
    if (strict) throw error;
    // Loaded only for a refused storage (with Java's start-up analysis): not before `serve`'s first answer.
    const { damageLine, isRefusedDamage, openReadablePart } = await import('../../damaged/readable-part.js');
    if (!isRefusedDamage(error)) throw error;
    const opened = await openReadablePart(openSpecSource(spec, () => undefined), open);
    warn(`MicroStream would refuse this storage (${error instanceof Error ? error.message : String(error)}); reading what can be read of it (--strict refuses it)`);
    for (const d of opened.damage) warn(`damage: ${damageLine(d)}`);
    return opened;
  }
}

/** The source of the storage a spec names, for commands that read it themselves (`check`, `rescue`). */
export function openSpecSource(spec: StorageSpec, warn: (message: string) => void): StorageSource {
  if (spec.pgPasswordFile !== undefined) warnIfShared(spec.pgPasswordFile, '--pg-password-file', warn);
  return openStorageSource(spec.directory, { table: spec.table, passwordFile: spec.pgPasswordFile, allowExternalLinks: spec.allowExternalLinks === true });
}
