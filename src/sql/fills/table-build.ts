import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../../errors.js';
import type { GraphIndex } from '../../graph/model/graph-index.js';
import type { Storage } from '../../storage/storage.js';
import type { DuckModule } from '../duck-module.js';
import { planTypeTable, valueTypeIdsOf, type TypeTablePlan } from '../tables/column-model.js';
import { finishTables, type BuiltSchema } from '../tables/finish-tables.js';
import type { Staging } from '../tables/staging.js';
import { inOneTransaction } from '../tables/chunk-appender.js';
import { BasePass, type BasePassOptions } from './base-pass.js';
import { COMMITS_TABLE } from './commit-rows.js';
import { buildGigaMapTables } from './gigamap-tables.js';
import { LINK_TABLES, type LinkType } from './link-tables.js';
import { OBJECTS_TABLE } from './object-rows.js';
import { readNamedValues } from './value-fill.js';
import { PrestagedTypes, valuesNeeded, type StatementHint } from './prestaged-types.js';

/**
 * Streams the latest record of every object once into DuckDB through appenders (never row by
 * row SQL): `_values` (the value of every value-type object of the types value-fill.ts
 * `inBaseValues` names; the others' when a statement first needs them), and the staging tables of enums
 * and LocalDateTime that finish-tables.ts turns into their tables. Other entity types' records
 * are not decoded here: their tables are made empty and filled when a statement first names them
 * (type-fill.ts); `_objects` (object-rows.ts), `_elements` and `_references` (link-tables.ts)
 * likewise. The pass itself is base-pass.ts; here what comes before and after it.
 */

export interface TableBuildOptions extends BasePassOptions {
  /** What the statement the build is made for names: its types' rows staged by the pass (prestaged-types.ts). */
  readonly firstStatement?: StatementHint | undefined;
}

export interface TableBuildResult extends BuiltSchema {
  readonly objects: number;
  readonly problems: number;
  /** For the pass that fills `_elements` and `_references` when a statement first names them. */
  readonly linkTypes: ReadonlyMap<bigint, LinkType>;
  /** Entity types (by name) whose tables exist empty until a statement first names them. */
  readonly deferred: ReadonlyMap<string, TypeTablePlan>;
  /** The build's big numbers still apart from `_values`; undefined when the build moved them already (a table it made needed them). */
  readonly bigNumbers: BigNumbersApart | undefined;
  /** The rows of the types the first statement names, staged by the pass for its fill; undefined when it named none. */
  readonly prestaged: PrestagedTypes | undefined;
  /** Value types whose `_values` rows the pass made besides the base ones (those the first statement needs). */
  readonly valuesMade: ReadonlySet<bigint>;
}

/**
 * The build's big numbers, staged apart from `_values` (in an in-memory catalog of their own,
 * which every connection of the instance sees): `values` is a query of `_values`' columns that
 * holds them beside `_values`' rows, for a type fill's join (finish-tables.ts `makeTypeRows`);
 * `move` puts them into `_values` and drops the catalog, on the connection given, once something
 * needs `_values` whole (built-tables.ts `valuesComplete`): a statement that reads `_values` or a
 * value type's view, the other fills, keeping the tables in the cache. Until then nothing is
 * moved: a statement on a type table, the usual first one, neither waits for nor pays the move.
 */
export interface BigNumbersApart {
  readonly values: string;
  readonly move: (connection: DuckDBConnection) => Promise<void>;
}

/**
 * The big numbers' `_values` rows (a 10M-object storage's 1.79M prices) are appended by the pass
 * to a table of an in-memory catalog attached for them: appended to the database file, every
 * full row group is compressed as it is written, synchronously on the JavaScript thread (10M
 * objects: 0.4-0.6 s of the pass's CPU). Moving them into `_values` (an INSERT into the database
 * file, compressed again) cost DuckDB's threads about as much as the first statement's join
 * (10M objects: 1.2 s of CPU), so it is left until something needs `_values` whole
 * (`BigNumbersApart`). The other values stay in `_values`: the LocalDateTime tables made by the
 * build read their dates and times. Only `_values`' first three columns (a big number is a
 * text): the typed six, always NULL, cost the JavaScript thread's appends a third more per row
 * (1.79M prices: about 150 ms of a chunk's hand-over).
 */
const BIG_NUMBERS_CATALOG = '__big_numbers_apart';
const BIG_NUMBERS_TABLE = 'big_numbers';
const BIG_NUMBERS_STAGE = `${BIG_NUMBERS_CATALOG}.${BIG_NUMBERS_TABLE}`;
const BIG_NUMBERS_COLUMNS = 'oid, type_id, text';

/** `_values`, and `_objects` and `_commits` empty until a statement names them (object-rows.ts, commit-rows.ts); the empty link tables come after the pass. */
export const SYSTEM_TABLES = `${OBJECTS_TABLE}
${COMMITS_TABLE}
CREATE TABLE _values (oid BIGINT, type_id BIGINT, text VARCHAR, int BIGINT, num DOUBLE, bool BOOLEAN, ts TIMESTAMP, dt DATE, tm TIME);
`;

/**
 * `connect`: another connection of the same instance, for the big numbers' appends (one
 * transaction writes into one catalog only, and the pass's transaction writes `_values`).
 */
export async function buildTables(
  duck: DuckModule,
  connection: DuckDBConnection,
  storage: Storage,
  graph: GraphIndex | undefined,
  connect: () => Promise<DuckDBConnection>,
  options: TableBuildOptions = {},
): Promise<TableBuildResult> {
  await connection.run(SYSTEM_TABLES);
  await connection.run(`ATTACH ':memory:' AS ${BIG_NUMBERS_CATALOG}`);
  await connection.run(`CREATE TABLE ${BIG_NUMBERS_STAGE} AS SELECT ${BIG_NUMBERS_COLUMNS} FROM _values LIMIT 0`);
  const hint = options.firstStatement;
  const prestaged = hint === undefined ? undefined : await PrestagedTypes.make(duck, connection, connect, storage, hint);
  const valuesMade = hint === undefined ? new Set<bigint>() : valuesNeeded(storage, hint, prestaged);
  const apart = await connect();
  let pass: BasePass;
  try {
    pass = await BasePass.open(duck, connection, storage, { ...options, valuesToo: valuesMade }, await apart.createAppender(BIG_NUMBERS_TABLE, 'main', BIG_NUMBERS_CATALOG), prestaged);
    await pass.run();
  } finally {
    apart.closeSync();
    prestaged?.close();
  }
  const stagings = [...pass.stagings.values()];
  let moved = false;
  const moveBigNumbers = async (on: DuckDBConnection): Promise<void> => {
    if (moved) return;
    moved = true;
    await on.run(`INSERT INTO _values (${BIG_NUMBERS_COLUMNS}) SELECT ${BIG_NUMBERS_COLUMNS} FROM ${BIG_NUMBERS_STAGE}`);
    await on.run(`DETACH ${BIG_NUMBERS_CATALOG}`);
  };
  // A staged table (an enum's, say) with a member that may hold a big number joins it from `_values`.
  if (stagings.some((staging) => staging.plan.columns.some((column) => column.role.kind === 'value' && mayHoldBigNumber(column.role.declared, storage.dictionary)))) await moveBigNumbers(connection);
  // The values the enum and LocalDateTime tables name that the pass left for later (an enum constant's name: a String).
  const named = await namedLaterValues(connection, stagings, moved ? undefined : BIG_NUMBERS_STAGE);
  await readNamedValues(duck, connection, storage, named, (message) => pass.problem(message));
  await connection.run(LINK_TABLES);
  try {
    await buildGigaMapTables(duck, connection, storage, graph);
  } catch (error) {
    if (!isAppError(error)) throw error;
    pass.problem(error.message);
  }
  // One transaction for the finishing statements (a table, a staging table and views per type):
  // each statement committed alone waited for its write-ahead log to reach the disk (10M objects:
  // 0.65-1.34 s wall for 0.15 s of CPU; 0.15 s with the database on a memory file system).
  let schema: BuiltSchema | undefined;
  await inOneTransaction(connection, async () => {
    schema = await finishTables(connection, stagings, [...pass.deferred.values()], pass.perType, pass.shapes, storage.dictionary);
    // Their rows served the enum and LocalDateTime tables just made; their types' own pass makes them again (not twice).
    if (named.length > 0) await connection.run(`DELETE FROM _values WHERE oid IN (${named.join(', ')})`);
  });
  if (schema === undefined) throw new Error('the tables were not finished');
  const bigNumbers: BigNumbersApart | undefined = moved
    ? undefined
    : { values: `(SELECT * FROM _values UNION ALL BY NAME SELECT ${BIG_NUMBERS_COLUMNS} FROM ${BIG_NUMBERS_STAGE})`, move: moveBigNumbers };
  return { ...schema, objects: pass.objects, problems: pass.problems, linkTypes: pass.linkTypes(), deferred: pass.deferred, bigNumbers, prestaged, valuesMade };
}

/** Whether a value member declared as `declared` may hold a BigDecimal or BigInteger (any type but a final value type or an enum may). */
function mayHoldBigNumber(declared: string, dictionary: Storage['dictionary']): boolean {
  return declared === 'java.math.BigDecimal' || declared === 'java.math.BigInteger' || valueTypeIdsOf(declared, dictionary) === undefined;
}

/** The objects the staged tables' value members name that `_values` (and the big numbers' staging table, if given) lacks (enums have a few constants each). */
async function namedLaterValues(connection: DuckDBConnection, stagings: readonly Staging[], bigNumbers: string | undefined): Promise<bigint[]> {
  const selects: string[] = [];
  for (const staging of stagings) staging.plan.columns.forEach((column, i) => column.role.kind === 'value' && selects.push(`SELECT c${i} AS oid FROM ${staging.table}`));
  if (selects.length === 0) return [];
  // NOT EXISTS, not NOT IN: DuckDB then builds its hash table over the few named ids, not over
  // every row of `_values` and the big numbers (10M objects: 110-130 ms of CPU -> 7-10 ms, on the
  // build's way; `oid` is never NULL in either, so the answers are the same).
  const lacking = (table: string): string => `NOT EXISTS (SELECT 1 FROM ${table} v WHERE v.oid = n.oid)`;
  const made = bigNumbers === undefined ? lacking('_values') : `${lacking('_values')} AND ${lacking(bigNumbers)}`;
  const reader = await connection.runAndReadAll(`SELECT DISTINCT n.oid FROM (${selects.join(' UNION ALL ')}) n WHERE n.oid IS NOT NULL AND ${made} ORDER BY n.oid`);
  return reader.getRows().map((row) => row[0] as bigint);
}

/**
 * The plans a build made, made again from the dictionary for a database kept between runs
 * (table-cache.ts): the entity type ids the pass met (`linkTypes`' keys) and the types whose
 * tables are filled when first named (`deferred`'s names).
 */
export function plansOf(dictionary: Storage['dictionary'], entityTypeIds: readonly bigint[], deferredNames: readonly string[]): Pick<TableBuildResult, 'linkTypes' | 'deferred'> {
  const plans = new Map<string, TypeTablePlan>();
  const planOf = (typeName: string): TypeTablePlan => {
    let plan = plans.get(typeName);
    if (plan === undefined) {
      plan = planTypeTable(typeName, dictionary.entries.filter((e) => e.typeName === typeName), dictionary);
      plans.set(typeName, plan);
    }
    return plan;
  };
  const linkTypes = new Map<bigint, LinkType>();
  for (const typeId of entityTypeIds) {
    const entry = dictionary.byId.get(typeId);
    if (entry === undefined) throw new Error(`the cached tables name type id ${typeId}, which the dictionary lacks`);
    const plan = planOf(entry.typeName);
    const columns = plan.fieldOfColumn.get(typeId);
    if (columns !== undefined) linkTypes.set(typeId, { entry, plan, fieldOfColumn: columns });
  }
  return { linkTypes, deferred: new Map(deferredNames.map((name) => [name, planOf(name)])) };
}
