import { statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { GraphIndex } from '../graph/model/graph-index.js';
import type { Storage } from '../storage/storage.js';
import type { TypeTablePlan } from './tables/column-model.js';
import type { DuckModule } from './duck-module.js';
import type { SchemaTable } from './tables/finish-tables.js';
import type { LinkType } from './fills/link-tables.js';
import { quoteText } from './tables/column-model.js';
import { EXPORT_PARQUET_OPTIONS } from './tables/parquet-options.js';
import { buildCommitsTable } from './fills/commit-rows.js';
import { buildObjectsTable, copyObjectRows } from './fills/object-rows.js';
import { dominatorsSettled } from '../graph/model/dominators-under-way.js';
import type { Sandbox } from './sandbox/sandbox.js';
import type { KeepResult, TableCache } from './cache/table-cache.js';
import { WriteTurns } from './cache/write-turns.js';
import { FillLedger } from './fill-ledger.js';
import type { KeptLinkFiles } from './kept-link-files.js';
import { BuiltLinkTables, LINK_TABLE_NAMES, type LinkFill } from './built-link-tables.js';
import type { BigNumbersApart } from './fills/table-build.js';
import type { PrestagedTypes } from './fills/prestaged-types.js';
import { BigNumbersMove } from './fills/big-numbers-move.js';
import { BuiltTypeFills, type TypeCopyEvents } from './built-type-fills.js';

/**
 * One build of a storage's tables (one storage generation) in a sandbox of its own, and what the
 * first statement naming a table fills later: an entity type's table, `_objects`,
 * `_elements` and `_references`. Every fill reads the state the build read (the storage's
 * consistency gate) or answers false when the storage has moved on, which means a new build.
 * sql-engine.ts runs statements against it and retires it when a newer one replaces it;
 * open-built-tables.ts makes it (a build, or a kept database opened).
 *
 * Kept between runs (table-cache.ts): `keepIn` keeps the database as filled so far, and the link
 * tables as the Parquet files an export wrote of them (built-link-tables.ts); a copy
 * opened later has its plans made again from the dictionary, so that the tables it has not
 * filled yet are filled as usual. Fills (which write the database) and keeping it (which copies
 * the file) take turns.
 */

/** Problem messages kept with the tables (one per unreadable record: a damaged storage may have many). */
export const MAX_KEPT_MESSAGES = 10_000;

export type { LinkFill } from './built-link-tables.js';
export type { TypeCopyEvents } from './built-type-fills.js';

export class BuiltTables {
  /** Statements and exports using it now: it is closed only when none is. */
  active = 0;
  /** Replaced by a newer build (or the engine closed): closed once no longer active. */
  retired = false;
  /** What is filled since the build, or being filled. */
  private readonly ledger = new FillLedger();
  /** How many of `filled` the kept entry has (-1: nothing kept by this build yet). */
  private keptFilled = -1;
  /** The build's big numbers apart from `_values` (open-built-tables.ts), until something needs `_values` whole (`valuesComplete`). */
  private readonly bigNumbers: BigNumbersMove;
  private readonly turns = new WriteTurns();
  /**
   * `_objects` being written straight into a file (`copyObjects`), settled when done: a fill of
   * the table waits for it (both passes make the same helper tables, `__types` and the others:
   * at once, DuckDB refused one with a catalog write-write conflict or the file held rows twice).
   */
  private objectsCopied: Promise<unknown> = Promise.resolve();
  /** `_elements` and `_references`: filled, written for exports, kept as files or taken from a kept entry's (built-link-tables.ts). */
  private readonly links: BuiltLinkTables;
  /** The entity types' tables and the later value types' `_values` rows (built-type-fills.ts). */
  private readonly types: BuiltTypeFills;

  /** Made by open-built-tables.ts (a build, or a kept database opened), which also closes the sandbox if this fails. */
  constructor(
    readonly generation: number,
    readonly sandbox: Sandbox,
    readonly tables: readonly SchemaTable[],
    /** Entity types' tables made empty, by lower-case full or simple name. */
    private readonly deferred: ReadonlyMap<string, TypeTablePlan>,
    private readonly linkTypes: ReadonlyMap<bigint, LinkType>,
    private readonly decimals: ReadonlyMap<string, string>,
    private readonly storage: Storage,
    /** The graph index of the build (`_objects.reachable`), asked for when `_objects` is filled. */
    private readonly graph: () => Promise<GraphIndex | undefined>,
    onProblem: ((message: string) => void) | undefined,
    readonly objectCount: number,
    readonly problemCount: number,
    /** What the build (and the fills) reported of the storage: told again by a run that takes the tables from the cache. */
    private readonly messages: string[] = [],
  ) {
    this.onProblem = (message) => {
      if (this.messages.length < MAX_KEPT_MESSAGES) this.messages.push(message);
      onProblem?.(message);
    };
    this.links = new BuiltLinkTables({
      sandbox,
      storage,
      linkTypes,
      ledger: this.ledger,
      turns: this.turns,
      inBuiltState: (work) => this.inBuiltState(work),
      laterValues: (duck) => this.types.values(duck, this.types.laterValueTypes()),
      onProblem: (message) => this.onProblem(message),
      keepAnew: () => {
        this.keptFilled = -1;
      },
    });
    this.bigNumbers = new BigNumbersMove(() => sandbox.instance.connect(), sandbox.tempDirectory);
    this.types = new BuiltTypeFills(
      {
        storage,
        sandbox,
        ledger: this.ledger,
        decimals,
        deferred,
        bigNumbers: this.bigNumbers,
        valuesComplete: () => this.valuesComplete(),
        inBuiltState: (work, afterValues) => this.inBuiltState(work, afterValues),
        onProblem: (message) => this.onProblem(message),
      },
      tables,
    );
  }

  private readonly onProblem: (message: string) => void;

  /** The build's big numbers, staged apart (open-built-tables.ts): moved into `_values` only when something needs it whole. */
  bigNumbersApart(apart: BigNumbersApart): void {
    this.bigNumbers.keepApart(apart);
  }

  /** The rows the build's pass staged for the statement it was made for (fills/prestaged-types.ts). */
  prestagedTypes(prestaged: PrestagedTypes): void {
    this.types.prestagedTypes(prestaged);
  }

  /** Resolves once `_values` holds every row of the build (fills/big-numbers-move.ts `complete`): what reads `_values` whole or copies the database asks for this first. */
  valuesComplete(): Promise<void> {
    return this.bigNumbers.complete();
  }

  /**
   * Why this build's big numbers could not be moved into `_values`, if they could not: its
   * `_values` lacks them, so nothing may be answered from it (`ready` answers false) and the
   * engine builds the tables again rather than failing every later statement with this.
   */
  get failure(): Error | undefined {
    return this.bigNumbers.failure ?? this.links.failure;
  }

  /** Whether no move of the big numbers is under way (`settled` has settled). */
  get isSettled(): boolean {
    return this.bigNumbers.isSettled;
  }

  /** Resolves once a move of the big numbers under way is done (the engine closes the sandbox only after it); one not asked for is not started. */
  settled(): Promise<void> {
    return this.bigNumbers.settled();
  }

  /** The build made every value type's `_values` rows (`everyValue`): no value fill later. */
  everyValueMade(): void {
    this.types.everyValueMade();
  }

  /** The build made the `_values` rows of these value types too (those its first statement needs): no value fill for them later. */
  valuesMade(typeIds: Iterable<bigint>): void {
    this.types.valuesMade(typeIds);
  }

  /** What a kept database had filled (its cache entry): filled, and kept already. */
  restoreFilled(filled: readonly string[]): void {
    this.ledger.restore(filled);
    this.keptFilled = this.ledger.filled.size;
  }

  /** The link tables of a kept entry as files not taken yet (open-built-tables.ts; built-link-tables.ts). */
  keepLinkFilesForLater(files: KeptLinkFiles): void {
    this.links.keepLinkFilesForLater(files);
  }

  /**
   * Keeps the database as filled so far under `key` (once per new fill): checkpointed, then
   * copied while no fill writes; undefined when there was nothing new to keep or the database
   * could not be made still (a statement's transaction held the checkpoint off: later).
   */
  async keepIn(cache: TableCache, key: string, storageDirectory: string): Promise<KeepResult | undefined> {
    await this.valuesComplete();
    if (this.failure !== undefined) return undefined;
    // Kept with the database, so taken first (only when something new is to be kept: a fill).
    if (this.links.keptLinksPending && this.unkept && !(await this.links.takeKeptLinks(LINK_TABLE_NAMES))) {
      this.links.keptLinksBroken();
      return undefined;
    }
    return this.turns.alone(async () => {
      if (this.ledger.filled.size === this.keptFilled) return undefined;
      if (this.keptFilled >= 0 || this.ledger.filled.size > 0) {
        const connection = await this.sandbox.instance.connect();
        try {
          await connection.run('CHECKPOINT');
        } catch {
          return undefined;
        } finally {
          connection.closeSync();
        }
      }
      // A write-ahead log left means the file alone is not the whole database.
      if ((statSync(`${this.sandbox.databaseFile}.wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) return undefined;
      const filled = [...this.ledger.filled];
      const result = await cache.keep(
        this.sandbox.databaseFile,
        {
          key,
          storage: storageDirectory,
          tables: this.tables,
          decimals: [...this.decimals],
          entityTypeIds: [...this.linkTypes.keys()].map(String),
          deferred: [...new Set([...this.deferred.values()].map((plan) => plan.typeName))],
          filled,
          objects: this.objectCount,
          problems: this.problemCount,
          messages: this.messages,
        },
        this.keptFilled >= 0,
        this.links.keptFiles,
      );
      this.keptFilled = filled.length;
      return result;
    });
  }

  /** Whether tables were filled since the database was last kept. */
  get unkept(): boolean {
    return this.ledger.filled.size !== this.keptFilled;
  }

  /**
   * The tables a statement reads (lower-case names, as statement-check.ts found them in DuckDB's
   * parse), filled: false when the storage is no longer in the built state. `columns`: the names
   * it may read columns by (undefined: any); a type table's members outside them are left
   * NULL until a statement names one (its table is then filled again with them).
   */
  async ready(duck: DuckModule, tables: ReadonlySet<string>, columns?: ReadonlySet<string>): Promise<boolean> {
    try {
      return await this.readyFilled(duck, tables, columns);
    } catch (error) {
      // Every fill and statement waits for the move: its failure is this build's, not theirs.
      if (this.bigNumbers.failure !== undefined) return false;
      throw error;
    }
  }

  private async readyFilled(duck: DuckModule, tables: ReadonlySet<string>, columns?: ReadonlySet<string>): Promise<boolean> {
    if (tables.has('_objects') && !(await this.objectsTable(duck))) return false;
    if (tables.has('_commits') && !(await this.commitsTable(duck))) return false;
    // `_elements` takes the texts of value objects from `_values`; `_values` is every value.
    if ((tables.has('_elements') || tables.has('_references') || tables.has('_values')) && !(await this.types.values(duck, this.types.laterValueTypes()))) return false;
    if (!(await this.links.ready(duck, tables))) return false;
    const plans = new Set<TypeTablePlan>();
    const views = new Set<bigint>();
    for (const name of tables) {
      const plan = this.deferred.get(name);
      if (plan !== undefined) plans.add(plan);
      for (const id of this.types.viewIds(name)) views.add(id);
    }
    if (views.size > 0 && !(await this.types.values(duck, views))) return false;
    if (!(await this.types.fill(duck, plans, columns, true))) return false;
    // A statement that reads `_values` (or a value type's view over it) reads every row of it.
    if (tables.has('_values') || views.size > 0) await this.valuesComplete();
    return true;
  }

  /**
   * Every type table, `_objects` and `_commits` filled (our own exports; benchmarks); false as
   * `ready`. `_objects` beside the type fills: its graph index is built in worker threads and its
   * rows joined to their names by DuckDB's threads while this thread walks the type fills' records.
   */
  async fillAll(duck: DuckModule, withObjects = true): Promise<boolean> {
    const types = async (): Promise<boolean> =>
      (await this.commitsTable(duck)) && (await this.types.values(duck, this.types.laterValueTypes())) && this.types.fill(duck, new Set(this.deferred.values()), undefined, false);
    // Both ended before the answer (a failure of one must not leave the other writing into a closed database).
    const [objects, rest] = await Promise.allSettled([withObjects ? this.objectsTable(duck) : Promise.resolve(true), types()]);
    if (objects.status === 'rejected') throw objects.reason;
    if (rest.status === 'rejected') throw rest.reason;
    return objects.value && rest.value;
  }

  /**
   * `_elements` and `_references` written as Parquet (`files`, by lower-case table name; our
   * exports), and with `fill` kept as those files (built-link-tables.ts `copyLinkTables`). Rows
   * per table written; undefined when the storage is no longer in the built state.
   */
  copyLinkTables(duck: DuckModule, files: ReadonlyMap<string, string>, fill?: LinkFill): Promise<Map<string, number> | undefined> {
    return this.links.copyLinkTables(duck, files, fill);
  }

  /** Entity types' tables written as Parquet straight from their staged rows (`files`, by full type name; an export that keeps no tables): built-type-fills.ts `copyTypeTables`. */
  copyTypeTables(duck: DuckModule, files: ReadonlyMap<string, string>, told: TypeCopyEvents = {}): Promise<Map<string, number> | undefined> {
    return this.types.copyTypeTables(duck, files, told);
  }

  /**
   * `_objects` written as Parquet (`file`, zstd; an export that keeps no tables): from the table
   * when a statement has filled it (or is filling it), else straight from the pass's staged rows,
   * the table left unfilled (object-rows.ts `copyObjectRows`). Rows written; undefined when the
   * storage is no longer in the built state.
   */
  async copyObjects(duck: DuckModule, file: string): Promise<number | undefined> {
    let rows = 0;
    if (this.ledger.objects !== undefined || !this.sandbox.allowFiles) {
      const copy = async (connection: DuckDBConnection): Promise<void> => {
        rows = Number((await connection.runAndReadAll(`COPY (SELECT * FROM _objects) TO ${quoteText(file)} (${EXPORT_PARQUET_OPTIONS})`)).getRows()[0]![0]);
      };
      return (await this.objectsTable(duck)) && (await this.inBuiltState(copy)) ? rows : undefined;
    }
    // Noted before the first await: a statement's fill asked for from now on waits for it.
    const copied = (async (): Promise<boolean> => {
      await this.objectsCopied;
      const graph = await this.graph();
      if (graph !== undefined) await dominatorsSettled(graph);
      return this.inBuiltState(async (connection) => {
        rows = await copyObjectRows(duck, connection, this.storage, graph, this.sandbox.tempDirectory, file);
      });
    })();
    this.objectsCopied = copied.catch(() => undefined);
    return (await copied) ? rows : undefined;
  }

  /** Fills `_objects` once (a pass of its own); false when the storage is no longer in the built state. */
  private objectsTable(duck: DuckModule): Promise<boolean> {
    // The graph asked for before the storage's gate is entered (its build reads through the gate too),
    // and so is the dominator tree being computed in the background for it (its slices take turns
    // of the gate): the pass takes that tree instead of computing it a second time.
    return this.ledger.objectsFilling(() =>
      this.objectsCopied.then(() => this.graph()).then(async (graph) => {
        if (graph !== undefined) await dominatorsSettled(graph);
        // An export's engine (file access on) stages the rows as Parquet in its private directory.
        return this.inBuiltState((connection) => buildObjectsTable(duck, connection, this.storage, graph, this.sandbox.allowFiles ? this.sandbox.tempDirectory : undefined));
      }),
    );
  }

  /** Fills `_commits` once (the commit log, shared with the history routes); false when the storage is no longer in the built state. */
  private commitsTable(duck: DuckModule): Promise<boolean> {
    return this.ledger.commitsFilling(() => this.inBuiltState((connection) => buildCommitsTable(duck, connection, this.storage)));
  }

  /**
   * Runs `work` on a connection of its own while the storage stays in the state the tables were
   * built from (its consistency gate); false, having done nothing, when it has moved on.
   */
  private async inBuiltState(work: (connection: DuckDBConnection) => Promise<void>, afterValues = true): Promise<boolean> {
    // Every fill but a type fill reads (or, the value fills, writes) `_values` with every row of the build.
    if (afterValues) await this.valuesComplete();
    return this.turns.shared(() =>
      this.storage.consistent(async () => {
        if (this.storage.generation !== this.generation) return false;
        const connection = await this.sandbox.instance.connect();
        try {
          await work(connection);
        } finally {
          connection.closeSync();
        }
        return true;
      }),
    );
  }
}
