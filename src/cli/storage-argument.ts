import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { warnIfShared } from '../http/auth.js';
import { checkStorageSpec, isPostgresSpec, openStorageSource } from '../storage/open-source.js';
import type { StorageSource } from '../storage/source.js';
import { Storage, type OpenOptions } from '../storage/storage.js';
import { fromEnv } from './option-values.js';

/**
 * The storage argument every command that reads a storage takes: a directory, or a PostgreSQL
 * URL with its root table (see storage/open-source.ts), with the same options and checks
 * everywhere.
 */

export const STORAGE_ARGUMENT_TEXT =
  'the storage directory (holding PersistenceTypeDictionary.ptd and channel_0/ ...), or postgres://user@host:port/db for one kept in PostgreSQL (with --table)';

/** Where a storage is, as given on the command line. */
export interface StorageSpec {
  /** A directory, or a postgres:// URL. */
  readonly directory: string;
  /** The root table of a storage kept in PostgreSQL. */
  readonly table?: string | undefined;
  /** A file holding the database password. */
  readonly pgPasswordFile?: string | undefined;
}

/** Adds `--table` and `--pg-password-file` (also from STORAGE_INSPECTOR_* variables). */
export function withStorageOptions(command: Command): Command {
  return command
    .addOption(fromEnv(new Option('--table <name>', 'a storage kept in PostgreSQL: its root table ([schema.]name, e.g. ms_graph; the channels are <name>_channel_<i>)')))
    .addOption(fromEnv(new Option('--pg-password-file <file>', 'a storage kept in PostgreSQL: the database password is the first line of this file (or PGPASSWORD, PGPASSFILE, ~/.pgpass)')));
}

/** The storage spec of a parsed command (its one positional argument), checked. */
export function storageSpecOf(command: Command): StorageSpec {
  const [directory, ...rest] = command.args;
  if (directory === undefined || directory === '' || rest.length > 0) {
    throw new UsageError(`expected exactly one storage directory; see 'storage-inspector ${command.name()} --help'`);
  }
  const values = command.opts<{ table?: string; pgPasswordFile?: string }>();
  checkStorageSpec(directory, { table: values.table, passwordFile: values.pgPasswordFile });
  return { directory, table: values.table, pgPasswordFile: values.pgPasswordFile };
}

export function isDirectorySpec(spec: StorageSpec): boolean {
  return !isPostgresSpec(spec.directory);
}

/** Opens the storage a spec names (a warning if a password file can be read by others). */
export function openStorage(spec: StorageSpec, options: OpenOptions, warn: (message: string) => void): Promise<Storage> {
  // A command reads each record once or not at all: keeping them would only cost copies.
  return Storage.open(openSpecSource(spec, warn, options.allowExternalLinks === true), { recordCacheBytes: 0, ...options });
}

/** The source of the storage a spec names, for commands that read it themselves (`check`, `rescue`). */
export function openSpecSource(spec: StorageSpec, warn: (message: string) => void, allowExternalLinks = false): StorageSource {
  if (spec.pgPasswordFile !== undefined) warnIfShared(spec.pgPasswordFile, '--pg-password-file', warn);
  return openStorageSource(spec.directory, { table: spec.table, passwordFile: spec.pgPasswordFile, allowExternalLinks });
}
