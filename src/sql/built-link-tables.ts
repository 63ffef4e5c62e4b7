import { constants } from 'node:fs';
import { copyFile, link, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Storage } from '../storage/storage.js';
import type { DuckModule } from './duck-module.js';
import { buildLinkTables, type LinkType } from './fills/link-tables.js';
import { writeLinkTablesAsParquet } from './fills/link-parquet.js';
import { quoteIdent, quoteText } from './tables/column-model.js';
import { EXPORT_PARQUET_OPTIONS } from './tables/parquet-options.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { linkFileName } from './cache/entry-link-files.js';
import type { WriteTurns } from './cache/write-turns.js';
import type { FillLedger } from './fill-ledger.js';
import { linkTableDefinition, linkViews, type KeptLinkFiles, type LinkFile } from './kept-link-files.js';

/**
 * A build's link tables (`_elements`, `_references`; built-tables.ts holds one): filled for a
 * statement, written as Parquet for an export, kept as the files an export wrote of them, or taken
 * from the files a cache entry kept (kept-link-files.ts). Apart from the build's other tables
 * because the files add a life of their own: taken when first needed, lost, kept with the database.
 */

/**
 * An export's link tables kept for the cache as the files it writes (`copyLinkTables`); `filling`
 * told when those files are taken into the private directory to be kept.
 */
export interface LinkFill {
  readonly filling?: () => void;
}

/** What the build lends its link tables (built-tables.ts). */
export interface LinkTablesHost {
  readonly sandbox: Sandbox;
  readonly storage: Storage;
  readonly linkTypes: ReadonlyMap<bigint, LinkType>;
  readonly ledger: FillLedger;
  readonly turns: WriteTurns;
  /** built-tables.ts `inBuiltState`: `work` while the storage stays in the built state, after `_values` is moved. */
  inBuiltState(work: (connection: DuckDBConnection) => Promise<void>): Promise<boolean>;
  /** The `_values` rows of every value type the build left for later made; false as `ready`. */
  laterValues(duck: DuckModule): Promise<boolean>;
  onProblem(message: string): void;
  /** The build's database is to be kept anew, whatever was filled (the entry it came from is dropped). */
  keepAnew(): void;
}

/** The link tables, which an entry keeps as files only both together (`:links` says both). */
export const LINK_TABLE_NAMES = ['_elements', '_references'];
/** Where link files are taken to in the private directory: an export's (here) and a kept entry's (open-built-tables.ts). */
export const LINK_DIRECTORY = 'links';

export class BuiltLinkTables {
  /**
   * `_elements` and `_references` as Parquet files in the private directory, by table name: both
   * taken from a cache entry (the tables are views over them, `keptLinks`) or written by this
   * build's export (the tables left as they were): kept with the database, copied by an export.
   */
  private linkFiles: ReadonlyMap<string, LinkFile> | undefined;
  /** The link files of the cache entry this build was opened from, taken when first needed (kept-link-files.ts). */
  private keptLinks: KeptLinkFiles | undefined;
  /** A kept link file turned out gone or damaged when a statement took it: the entry was no entry, the tables are built again. */
  private keptLinksFailure: Error | undefined;

  constructor(private readonly host: LinkTablesHost) {}

  /** Why this build is broken by its kept link files, if it is (built-tables.ts `failure`). */
  get failure(): Error | undefined {
    return this.keptLinksFailure;
  }

  /** The link files kept with the database (`keepIn`): none, or both. */
  get keptFiles(): { table: string; rows: number; path: string }[] {
    return [...(this.linkFiles ?? [])].map(([table, file]) => ({ table, rows: file.rows, path: file.path }));
  }

  /**
   * The link tables of a kept entry as files not taken yet (open-built-tables.ts): the first
   * statement naming one, an export of them or keeping the database takes them (`takeKeptLinks`).
   */
  keepLinkFilesForLater(files: KeptLinkFiles): void {
    if (LINK_TABLE_NAMES.every((table) => files.files.has(table))) this.keptLinks = files;
  }

  /**
   * `tables` of the kept entry's link files taken into the private directory, their tables made
   * views over the copies (beside fills: keeping the database waits); false when one was gone or
   * damaged (the cache dropped the entry).
   */
  async takeKeptLinks(tables: readonly string[]): Promise<boolean> {
    const kept = this.keptLinks;
    if (kept === undefined) return false;
    for (const table of tables) {
      const view = (path: string): Promise<void> =>
        this.host.turns.shared(async () => {
          const connection = await this.host.sandbox.instance.connect();
          try {
            await linkViews(connection, new Map([[table, path]]));
          } finally {
            connection.closeSync();
          }
        });
      if (!(await kept.take(table, view))) return false;
    }
    if (LINK_TABLE_NAMES.every((table) => kept.isTaken(table))) this.linkFiles = kept.files;
    return true;
  }

  /** Whether the kept entry's link files are there but not all taken yet. */
  get keptLinksPending(): boolean {
    return this.keptLinks !== undefined && this.linkFiles === undefined;
  }

  /**
   * A kept link file gone or damaged, for a build that answers statements: this build is broken
   * (`failure`), the engine builds the tables again, as when the entry was found so at open.
   */
  keptLinksBroken(): void {
    this.keptLinksFailure ??= new Error('a link table kept in the SQL cache was gone or damaged; the tables are built again');
    this.host.onProblem('a link table kept in the SQL cache was gone or damaged: the cached tables are not used, they are built again');
  }

  /** The link tables among `tables` (a statement's) there to read; false when the storage is no longer in the built state or a kept file was gone or damaged. */
  async ready(duck: DuckModule, tables: ReadonlySet<string>): Promise<boolean> {
    const links = LINK_TABLE_NAMES.filter((table) => tables.has(table));
    if (links.length > 0 && this.keptLinks !== undefined) {
      // Only the kept files this statement names are taken (a statement naming none takes none).
      if (!(await this.takeKeptLinks(links))) {
        this.keptLinksBroken();
        return false;
      }
    } else if (links.length > 0 && !(await this.linkTables(duck))) return false;
    return true;
  }

  /** Fills `_elements` and `_references` once; false when the storage is no longer in the built state. */
  private linkTables(duck: DuckModule): Promise<boolean> {
    return this.host.ledger.linksFilling(() =>
      this.host.inBuiltState(async (connection) => {
        await buildLinkTables(duck, connection, this.host.storage, this.host.linkTypes);
        // Written out compressed now if nothing holds it off; a statement reading meanwhile (its
        // transaction open) makes DuckDB refuse, and DuckDB checkpoints later by itself.
        await connection.run('CHECKPOINT').catch(() => undefined);
      }),
    );
  }

  /**
   * `_elements` and `_references` written as Parquet (`files`, by lower-case table name; our
   * exports): copied byte for byte from the files a cache entry kept of them; else copied from the
   * tables when a statement has filled them; else written by a pass of their own into Parquet
   * files of our own, which DuckDB's COPY reads and writes as it writes every table
   * (fills/link-parquet.ts): DuckDB's appender took the JavaScript thread about 19 s for the 48M
   * rows of a 10M-object storage. `fill` (an export whose tables are kept in the cache): the files
   * written of both tables are then taken into the private directory (`filling` told), kept with
   * the database (`keepIn`) for the next export to copy and a statement to read through views;
   * filling the tables instead cost the first export a third more CPU and the entry 250 MB more
   * at 10M. Rows per table written; undefined when the storage is no longer in the built state.
   */
  async copyLinkTables(duck: DuckModule, files: ReadonlyMap<string, string>, fill?: LinkFill): Promise<Map<string, number> | undefined> {
    if (!(await this.host.laterValues(duck))) return undefined;
    let rows = new Map<string, number>();
    if (this.keptLinks !== undefined && [...files.keys()].every((table) => this.keptLinks!.files.has(table)) && !(await this.takeKeptLinks([...files.keys()]))) {
      // Gone or damaged in the entry (dropped): written by a pass as without it, and kept anew.
      await this.forgetKeptLinks();
    }
    const kept = this.linkFiles ?? this.keptLinks?.files;
    if (kept !== undefined && [...files.keys()].every((table) => kept.has(table) && (this.keptLinks?.isTaken(table) ?? true))) {
      // The built state's rows as an export wrote them (the entry's hash checked when taken).
      for (const [table, file] of files) {
        await copyFile(kept.get(table)!.path, file, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
        rows.set(table, kept.get(table)!.rows);
      }
      return rows;
    }
    // Filled already (or being filled) for a statement: those rows.
    if (this.host.ledger.links !== undefined) {
      const copy = async (connection: DuckDBConnection): Promise<void> => {
        for (const [table, file] of files) {
          const reader = await connection.runAndReadAll(`COPY (SELECT * FROM ${quoteIdent(table)}) TO ${quoteText(file)} (${EXPORT_PARQUET_OPTIONS})`);
          rows.set(table, Number(reader.getRows()[0]![0]));
        }
      };
      return (await this.linkTables(duck)) && (await this.host.inBuiltState(copy)) ? rows : undefined;
    }
    const done = await this.host.inBuiltState(async (connection) => {
      rows = await writeLinkTablesAsParquet(connection, this.host.storage, this.host.linkTypes, files);
    });
    if (!done) return undefined;
    if (fill !== undefined && this.host.sandbox.allowFiles && this.linkFiles === undefined && LINK_TABLE_NAMES.every((table) => files.has(table) && rows.has(table))) {
      fill.filling?.();
      this.linkFiles = await this.takeLinkFiles(files, rows);
      this.host.ledger.linksKeptAsFiles();
    }
    return rows;
  }

  /**
   * An export's engine whose kept link files could not be taken: the ledger forgets the link
   * tables (`:links`), a copy taken of one is removed and its view made an empty table again (a
   * database kept without `:links` must hold the tables a fill inserts into).
   */
  private async forgetKeptLinks(): Promise<void> {
    const kept = this.keptLinks;
    this.keptLinks = undefined;
    this.host.ledger.linksLost();
    // The entry is dropped: this database is kept anew, whatever was filled.
    this.host.keepAnew();
    if (kept === undefined) return;
    await this.host.turns.shared(async () => {
      const connection = await this.host.sandbox.instance.connect();
      try {
        for (const table of LINK_TABLE_NAMES) {
          if (!kept.isTaken(table)) continue;
          await connection.run(`DROP VIEW IF EXISTS ${quoteIdent(table)}`);
          await connection.run(linkTableDefinition(table));
        }
      } finally {
        connection.closeSync();
      }
    });
    for (const file of kept.files.values()) await rm(file.path, { force: true });
  }

  /**
   * The link files an export wrote (`files`) taken into the private directory: linked where the
   * file system allows (no bytes copied; the export's later rename or removal leaves the link),
   * else copied. Nothing writes them afterwards.
   */
  private async takeLinkFiles(files: ReadonlyMap<string, string>, rows: ReadonlyMap<string, number>): Promise<Map<string, LinkFile>> {
    const directory = join(this.host.sandbox.tempDirectory, LINK_DIRECTORY);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const taken = new Map<string, LinkFile>();
    for (const table of LINK_TABLE_NAMES) {
      const path = join(directory, linkFileName(table));
      await link(files.get(table)!, path).catch(() => copyFile(files.get(table)!, path, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE));
      taken.set(table, { path, rows: rows.get(table)! });
    }
    return taken;
  }
}
