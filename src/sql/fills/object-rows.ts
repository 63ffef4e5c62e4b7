import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { chunkDamageOf } from '../../damaged/chunk-damage.js';
import { startDominatorTree, type DominatorTreeUnderWay } from '../../graph/model/dominator-thread.js';
import type { DominatorTree } from '../../graph/model/dominator-tree.js';
import type { GraphIndex } from '../../graph/model/graph-index.js';
import { forEachLatestRecord } from '../../storage/records/latest-records.js';
import { readableTypeName } from '../../inspect/type-names.js';
import type { Storage } from '../../storage/storage.js';
import { CommitHistory } from '../../storage/history/commit-history.js';
import { scanStorageLayout } from '../../storage/source/storage-dir.js';
import { ChunkAppender, inOneTransaction } from '../tables/chunk-appender.js';
import { quoteText } from '../tables/column-model.js';
import { EXPORT_PARQUET_OPTIONS } from '../tables/parquet-options.js';
import { ParquetRowWriter, type ParquetColumn } from '../tables/parquet-rows.js';
import { RecordCommits } from './commit-rows.js';
import type { DuckModule } from '../duck-module.js';

/**
 * `_objects`: a row per current object, made when a statement first names it by a pass of its
 * own over the record headers (id, type id, file, offset, length), never from a decoded record,
 * without a bigint or an object per row. The rows keep the file and type as codes (a text longer
 * than 12 bytes costs a native call, see chunk-appender.ts) until the names are joined in. Made
 * with the base tables, its 10M rows were 1.5 s of every first statement at 10M objects.
 * `immediate_dominator`, `retained_objects` and `retained_bytes` come from the graph's dominator
 * tree (NULL for unreachable objects): the one computed in the background if it is of this
 * state, else computed for the pass. `damaged` marks the objects whose current record lies in a
 * chunk that fails EclipseStore 4.2's checksum (damaged/chunk-damage.ts, as /api/v1 marks them;
 * a storage without checksum records is not read for it).
 *
 * An engine with file access (an export's) stages the rows in a Parquet file of our own instead
 * of DuckDB's appender (parquet-rows.ts, from typed arrays; `reachable` as an INT32 0/1, cast
 * back), which the statement joining the names reads with DuckDB's parallel reader: the appender
 * took the JavaScript thread about 6 s of a profile's samples for the 10M rows of a 10M-object
 * export.
 */

/** `_objects` as the first statement finds it: with its columns, empty. */
export const OBJECTS_TABLE = `CREATE TABLE _objects (oid BIGINT, type_id BIGINT, type_name VARCHAR, reachable BOOLEAN, bytes BIGINT, channel INTEGER, file VARCHAR, "offset" BIGINT, commit_timestamp BIGINT, immediate_dominator BIGINT, retained_objects BIGINT, retained_bytes BIGINT, damaged BOOLEAN);`;

/**
 * Fills `_objects`: the rows from one walk over the latest records of the dictionary's types
 * (one transaction), then the type and file names joined in inside DuckDB. (A view joining the
 * names when read made `GROUP BY type_name` 10× slower: 123 ms instead of 13 at 10M.)
 */
export async function buildObjectsTable(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined, stagingDirectory?: string): Promise<void> {
  const staged = stagingDirectory === undefined ? undefined : join(stagingDirectory, `objects-${++stagedFiles}.rows`);
  try {
    await fillObjectsTable(duck, connection, storage, graph, staged, undefined);
  } finally {
    if (staged !== undefined) rmSync(staged, { force: true });
  }
}

/**
 * `_objects`' rows written straight into the Parquet file `file` (zstd) by the statement that
 * joins the names in, the table left unfilled: an export that keeps no tables. The rows went into
 * the table and were then read back for the COPY: two statements of 2.4-2.5 s each at 10M
 * objects. Rows written.
 */
export async function copyObjectRows(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined, stagingDirectory: string, file: string): Promise<number> {
  const staged = join(stagingDirectory, `objects-${++stagedFiles}.rows`);
  try {
    return (await fillObjectsTable(duck, connection, storage, graph, staged, file))!;
  } finally {
    if (staged !== undefined) rmSync(staged, { force: true });
  }
}

/** Staged files made by this process (each a name of its own). */
let stagedFiles = 0;

/** `__objects`' columns as the staged Parquet file holds them (`reachable`: 1, 0 or NULL). */
const STAGED_OBJECT_COLUMNS: readonly ParquetColumn[] = [
  { name: 'oid', type: 'int64', nullable: false },
  { name: 'type_id', type: 'int64', nullable: false },
  { name: 'reachable', type: 'int32', nullable: true },
  { name: 'bytes', type: 'int64', nullable: false },
  { name: 'channel', type: 'int32', nullable: false },
  { name: 'file', type: 'int32', nullable: false },
  { name: 'offset', type: 'int64', nullable: false },
  { name: 'commit_timestamp', type: 'int64', nullable: true },
  { name: 'immediate_dominator', type: 'int64', nullable: true },
  { name: 'retained_objects', type: 'int64', nullable: true },
  { name: 'retained_bytes', type: 'int64', nullable: true },
];

/** `copyTo`: the rows written into that Parquet file instead of `_objects` (rows written answered). */
async function fillObjectsTable(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined, staged: string | undefined, copyTo: string | undefined): Promise<number | undefined> {
  // The storage holds this state while the pass runs (the caller's consistency gate, across every
  // await here): the background computation cannot take turns, so the tree is computed for the
  // pass, in a worker thread where that pays, while this thread goes on; taken when the rows need it.
  const dominators = graph === undefined ? undefined : startDominatorTree(graph, storage.channels);
  try {
    return await fillObjectRows(duck, connection, storage, graph, staged, copyTo, dominators);
  } finally {
    await dominators?.stop();
  }
}

async function fillObjectRows(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined, staged: string | undefined, copyTo: string | undefined, dominators: DominatorTreeUnderWay | undefined): Promise<number | undefined> {
  await connection.run(`
${staged === undefined ? 'CREATE OR REPLACE TABLE __objects (oid BIGINT, type_id BIGINT, reachable BOOLEAN, bytes BIGINT, channel INTEGER, file INTEGER, "offset" BIGINT, commit_timestamp BIGINT, immediate_dominator BIGINT, retained_objects BIGINT, retained_bytes BIGINT);' : ''}
CREATE OR REPLACE TABLE __files (code INTEGER, name VARCHAR);
CREATE OR REPLACE TABLE __types (type_id BIGINT, type_name VARCHAR);
CREATE OR REPLACE TABLE __damaged (oid VARCHAR);`);
  // Chunks failing their checksums (EclipseStore 4.2): the objects whose current record lies in one.
  const damaged = (await chunkDamageOf(storage)).objects;
  // The logs alone (no record read): which commit wrote each record (commit_timestamp).
  const history = await storage.source.snapshot(async (reader) => CommitHistory.read(await scanStorageLayout(reader, storage.source.location), reader));
  const tree = await dominators?.take();
  await inOneTransaction(connection, async () => {
    const rows: ObjectRowSink = staged === undefined ? new ChunkAppender(duck, await connection.createAppender('__objects')) : new ParquetRowWriter(staged, STAGED_OBJECT_COLUMNS);
    const objects = new ObjectRows(rows, graph, storage.channels.length, tree, new RecordCommits(history, storage), staged !== undefined);
    try {
      await forEachLatestRecord(storage, new Set(storage.dictionary.byId.keys()), () => undefined, undefined, true, (idLow, idHigh, typeLow, typeHigh, file, offset, length) => {
        objects.add(idLow, idHigh, typeLow, typeHigh, file, offset, length);
        return false;
      });
    } finally {
      objects.rows.closeSync();
    }
    const files = new ChunkAppender(duck, await connection.createAppender('__files'));
    for (const [path, code] of objects.files) {
      files.appendInteger(code);
      files.appendVarchar(path.split(/[\\/]/).slice(-2).join('/'));
      files.endRow();
    }
    files.closeSync();
    const types = new ChunkAppender(duck, await connection.createAppender('__types'));
    for (const entry of storage.dictionary.entries) {
      types.appendBigInt(entry.typeId);
      // The name for reading (`int[]` for `[I`), as the viewer, the API's answers and the MCP tools show it.
      types.appendVarchar(readableTypeName(entry.typeName));
      types.endRow();
    }
    types.closeSync();
    if (damaged.size > 0) {
      const marked = new ChunkAppender(duck, await connection.createAppender('__damaged'));
      for (const oid of damaged.keys()) {
        marked.appendVarchar(oid);
        marked.endRow();
      }
      marked.closeSync();
    }
  });
  const source = staged === undefined ? '__objects' : `read_parquet(${quoteText(staged)})`;
  // Named as `_objects` names them (a COPY writes the names of the SELECT).
  const rows = `SELECT o.oid, o.type_id, t.type_name, ${staged === undefined ? 'o.reachable' : 'o.reachable::BOOLEAN AS reachable'}, o.bytes, o.channel, f.name AS file, o."offset", o.commit_timestamp, o.immediate_dominator, o.retained_objects, o.retained_bytes, d.oid IS NOT NULL AS damaged FROM ${source} o LEFT JOIN __types t ON t.type_id = o.type_id LEFT JOIN __files f ON f.code = o.file LEFT JOIN (SELECT oid::BIGINT AS oid FROM __damaged) d ON d.oid = o.oid`;
  let written: number | undefined;
  if (copyTo === undefined) await connection.run(`INSERT INTO _objects ${rows}`);
  else written = Number((await connection.runAndReadAll(`COPY (${rows}) TO ${quoteText(copyTo)} (${EXPORT_PARQUET_OPTIONS})`)).getRows()[0]![0]);
  await connection.run(`
${staged === undefined ? 'DROP TABLE __objects;' : ''}
DROP TABLE __damaged;
DROP TABLE __files;
DROP TABLE __types;`);
  return written;
}

/** Where `ObjectRows` writes: DuckDB's appender or a staged Parquet file (both take the same calls). */
export type ObjectRowSink = Pick<ChunkAppender, 'appendBigIntHalves' | 'appendBigIntNumber' | 'appendInteger' | 'appendNull' | 'endRow' | 'closeSync'> & { appendBoolean?(value: boolean): void };

/** `__objects` rows from record headers: no bigint or object per row. */
export class ObjectRows {
  /** File path → code, in the order the pass met them. */
  readonly files = new Map<string, number>();
  private lastFile = '';
  private lastCode = -1;
  private readonly channelMask: number;
  private readonly halves = new Int32Array(2);

  constructor(
    readonly rows: ObjectRowSink,
    private readonly graph: GraphIndex | undefined,
    channelCount: number,
    /** The graph's dominator tree (the retained columns are NULL without one). */
    private readonly tree: DominatorTree | undefined,
    private readonly commits?: RecordCommits,
    /** `reachable` as an INT32 1 or 0 (a staged Parquet file has no boolean column). */
    private readonly booleansAsIntegers = false,
  ) {
    // Channel counts are powers of two; the channel is the id's low bits (ids.ts channelOf).
    this.channelMask = channelCount - 1;
  }

  add(idLow: number, idHigh: number, typeLow: number, typeHigh: number, file: string, offset: number, length: number): void {
    const rows = this.rows;
    rows.appendBigIntHalves(idLow, idHigh);
    rows.appendBigIntHalves(typeLow, typeHigh);
    const graph = this.graph;
    const node = graph === undefined || idHigh < 0 ? -1 : graph.nodes.nodeOf(idLow | 0, idHigh | 0);
    if (node < 0) rows.appendNull();
    else if (this.booleansAsIntegers) rows.appendInteger(graph!.isReachable(node) ? 1 : 0);
    else rows.appendBoolean!(graph!.isReachable(node));
    rows.appendBigIntNumber(length);
    rows.appendInteger(idLow & this.channelMask);
    if (file !== this.lastFile) {
      let code = this.files.get(file);
      if (code === undefined) this.files.set(file, (code = this.files.size));
      this.lastFile = file;
      this.lastCode = code;
    }
    rows.appendInteger(this.lastCode);
    rows.appendBigIntNumber(offset);
    const commits = this.commits;
    if (commits === undefined) rows.appendNull();
    else {
      const channel = idLow & this.channelMask;
      commits.append(rows, commits.numberOf(channel, file, offset));
    }
    this.addRetained(node);
    rows.endRow();
  }

  /** `immediate_dominator`, `retained_objects`, `retained_bytes`: NULL for unreachable objects (and the roots object's dominator). */
  private addRetained(node: number): void {
    const rows = this.rows;
    const tree = this.tree;
    if (tree === undefined || !tree.isReachable(node)) {
      rows.appendNull();
      rows.appendNull();
      rows.appendNull();
      return;
    }
    const d = tree.immediateDominator(node);
    if (d < 0) rows.appendNull();
    else {
      this.graph!.nodes.writeIdHalves(d, this.halves);
      rows.appendBigIntHalves(this.halves[0] as number, this.halves[1] as number);
    }
    rows.appendBigIntNumber(tree.retainedObjects(node));
    rows.appendBigIntNumber(tree.retainedBytes(node));
  }
}
