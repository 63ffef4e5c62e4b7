import { dirname, join } from 'node:path';
import type { GraphIndex } from '../graph/model/graph-index.js';
import { GIGAMAP } from '../gigamap/gigamap-type-names.js';
import { readableTypeName } from '../inspect/type-names.js';
import type { RecordPassProgress } from '../storage/records/latest-records.js';
import type { Storage } from '../storage/storage.js';
import type { TypeTablePlan } from './tables/column-model.js';
import type { DuckModule } from './duck-module.js';
import type { SchemaTable } from './tables/finish-tables.js';
import { openSandbox, type Sandbox } from './sandbox/sandbox.js';
import { buildTables, plansOf } from './fills/table-build.js';
import type { CachedTables, TakenTables } from './cache/table-cache.js';
import { KeptLinkFiles } from './kept-link-files.js';
import { BuiltTables, MAX_KEPT_MESSAGES } from './built-tables.js';
import { LINK_DIRECTORY } from './built-link-tables.js';
import { statementHint } from './statement-hint.js';

/**
 * A new `BuiltTables` (built-tables.ts) of the storage's current state, in a sandbox of its own:
 * built by the base pass, or opened from a kept database (table-cache.ts), locked the same way,
 * its plans made again from the dictionary so that what it lacks is filled as usual.
 */

export interface BuildOptions {
  readonly memoryLimitBytes: number;
  readonly allowFiles: boolean;
  /** The build makes every value type's `_values` rows (value-fill.ts), not only the base ones. */
  readonly everyValue?: boolean | undefined;
  readonly onProgress?: ((progress: RecordPassProgress) => void) | undefined;
  readonly onProblem?: ((message: string) => void) | undefined;
  /** No cache: the build's database is never kept, so it need not be compressed (sandbox.ts `neverKept`). */
  readonly neverKept?: boolean | undefined;
  /** The statement the build is made for: the rows of the types it names are staged by the build's pass (fills/prestaged-types.ts). */
  readonly firstStatement?: string | undefined;
}

/**
 * The base tables of the storage's current state; run inside its consistency gate. `graph` is
 * the index when the base tables need it (GigaMaps: `needsGraph`), else undefined; `graphOf`
 * is asked for it when a statement first names `_objects`.
 */
export async function buildTablesOfState(
  duck: DuckModule,
  storage: Storage,
  graph: GraphIndex | undefined,
  graphOf: () => Promise<GraphIndex | undefined>,
  options: BuildOptions,
): Promise<{ built: BuiltTables; objects: number; problems: number }> {
  const generation = storage.generation;
  const sandbox = await openSandbox(duck, { memoryLimitBytes: options.memoryLimitBytes, storageDirectory: storage.directory, allowFiles: options.allowFiles, neverKept: options.neverKept });
  try {
    const connection = await sandbox.instance.connect();
    try {
      const messages: string[] = [];
      const onProblem = (message: string): void => {
        if (messages.length < MAX_KEPT_MESSAGES) messages.push(message);
        options.onProblem?.(message);
      };
      const firstStatement = options.firstStatement === undefined ? undefined : await statementHint(connection, storage, options.firstStatement);
      const result = await buildTables(duck, connection, storage, graph, () => sandbox.instance.connect(), { onProgress: options.onProgress, onProblem, everyValue: options.everyValue, firstStatement });
      // Written out compressed into the private database file; the memory limit bounds what stays
      // cached. With the big numbers apart, once they are moved in (built-tables.ts `valuesComplete`).
      if (result.bigNumbers === undefined) await connection.run('CHECKPOINT');
      await sandbox.lock(connection);
      const deferred = byTableName(result.tables, result.deferred);
      const built = new BuiltTables(generation, sandbox, result.tables, deferred, result.linkTypes, result.decimals, storage, graphOf, options.onProblem, result.objects, result.problems, messages);
      if (options.everyValue === true) built.everyValueMade();
      else built.valuesMade(result.valuesMade);
      if (result.bigNumbers !== undefined) built.bigNumbersApart(result.bigNumbers);
      if (result.prestaged !== undefined) built.prestagedTypes(result.prestaged);
      return { built, objects: result.objects, problems: result.problems };
    } finally {
      connection.closeSync();
    }
  } catch (error) {
    sandbox.close();
    throw error;
  }
}

/**
 * The tables of the storage's current state from a kept database (`take` copies it into the
 * new sandbox's private directory; the link tables' Parquet files, if the entry kept them so, go
 * into `links/` beside it only when first needed, kept-link-files.ts: the lock lets DuckDB read
 * exactly those files, and `_elements` and `_references` become views over them then); undefined when there is none, or it cannot be opened (then
 * `onProblem` hears why, and `drop` removes the entry, so that the tables built instead replace
 * it). Run inside the storage's consistency gate, with the key taken there.
 */
export async function openKeptTables(
  duck: DuckModule,
  storage: Storage,
  graph: () => Promise<GraphIndex | undefined>,
  options: BuildOptions,
  take: (file: string, linkDirectory: string) => Promise<TakenTables | undefined>,
  drop: () => Promise<void>,
): Promise<BuiltTables | undefined> {
  const generation = storage.generation;
  let meta: CachedTables | undefined;
  let linkFiles: ReadonlyMap<string, string> = new Map();
  let takeLinkFile: TakenTables['takeLinkFile'] = async () => false;
  let privateDirectory: string | undefined;
  const seed = async (file: string): Promise<boolean> => {
    privateDirectory = dirname(file);
    try {
      const taken = await take(file, join(privateDirectory, LINK_DIRECTORY));
      meta = taken?.meta;
      linkFiles = taken?.linkFiles ?? new Map();
      if (taken !== undefined) takeLinkFile = taken.takeLinkFile;
    } catch (error) {
      options.onProblem?.(`the SQL cache could not be read, the tables are built: ${(error as Error).message}`);
    }
    return meta !== undefined;
  };
  // A kept database that DuckDB will not open or use (its bytes damaged, its size whole) is a cache
  // miss: told, dropped and built again. Not the statement's error: thrown on, DuckDB's refusal
  // failed every statement as the user's invalid one, naming the engine's private directory.
  const unusable = async (error: unknown): Promise<undefined> => {
    const reason = (error as Error).message;
    options.onProblem?.(`the cached SQL tables could not be opened, they are built again: ${privateDirectory === undefined ? reason : reason.replaceAll(privateDirectory, '<sql-tables>')}`);
    await drop().catch((dropping: unknown) => options.onProblem?.(`the SQL cache could not drop them: ${(dropping as Error).message}`));
    return undefined;
  };
  let sandbox: Sandbox;
  try {
    sandbox = await openSandbox(duck, { memoryLimitBytes: options.memoryLimitBytes, storageDirectory: storage.directory, allowFiles: options.allowFiles, seed });
  } catch (error) {
    // Without a kept database copied in, the failure is not the cache's (no room for a temporary directory...).
    if (meta === undefined) throw error;
    return unusable(error);
  }
  if (!sandbox.seeded || meta === undefined) {
    sandbox.close();
    return undefined;
  }
  try {
    const plans = plansOf(storage.dictionary, meta.entityTypeIds.map(BigInt), meta.deferred);
    const connection = await sandbox.instance.connect();
    try {
      // The copies' paths allowed before they exist (DuckDB takes them so): no file is copied now.
      await sandbox.lock(connection, [...linkFiles.values()]);
    } finally {
      connection.closeSync();
    }
    const decimals = new Map(meta.decimals);
    const messages = [...(meta.messages ?? [])];
    const built = new BuiltTables(generation, sandbox, meta.tables, byTableName(meta.tables, plans.deferred), plans.linkTypes, decimals, storage, graph, options.onProblem, meta.objects, meta.problems, messages);
    // The same warnings as the run that built them (unreadable records, with file and offset).
    for (const message of messages) options.onProblem?.(message);
    built.restoreFilled(meta.filled);
    if (linkFiles.size > 0) built.keepLinkFilesForLater(new KeptLinkFiles(new Map((meta.linkFiles ?? []).map((f) => [f.table, { path: linkFiles.get(f.table)!, rows: f.rows }])), takeLinkFile));
    return built;
  } catch (error) {
    sandbox.close();
    return unusable(error);
  }
}

/**
 * Whether the base tables need the graph index: only to find the GigaMaps (which objects are
 * instances of GigaMap), so only where the dictionary has the type. Elsewhere a first statement
 * does not wait for the graph build (10M objects: 3.2 s of CPU and 190 MB), which `_objects`
 * alone needs (`reachable`, the dominator columns).
 */
export function needsGraph(storage: Storage): boolean {
  return storage.dictionary.currentByName.has(GIGAMAP);
}

/** Entity types' tables made empty, by lower-case table name and alias. */
function byTableName(tables: readonly SchemaTable[], plans: ReadonlyMap<string, TypeTablePlan>): Map<string, TypeTablePlan> {
  const deferred = new Map<string, TypeTablePlan>();
  for (const table of tables) {
    const plan = table.typeName === null ? undefined : plans.get(table.typeName);
    if (plan === undefined) continue;
    deferred.set(table.name.toLowerCase(), plan);
    if (table.alias !== null) deferred.set(table.alias.toLowerCase(), plan);
    // An array's table is also a view under its readable name (`"int[]"`, finish-tables.ts).
    if (table.name.startsWith('[')) deferred.set(readableTypeName(table.name).toLowerCase(), plan);
  }
  return deferred;
}
