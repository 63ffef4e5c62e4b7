import type { DuckDBConnection } from '@duckdb/node-api';
import type { TypeDictionary, TypeEntry } from '../../format/type-dictionary.js';
import { GIGAMAP_TABLES } from '../../gigamap/sql-rows.js';
import { readableTypeName } from '../../inspect/type-names.js';
import { quoteIdent, quoteText, simpleNameOf, sqlTypeOf, valueTypeIdsOf, type ColumnRole, type TypeTablePlan, type ValueKind } from './column-model.js';
import { jdkConstantRows } from './jdk-constants.js';
import { isEnumPlan, stagingColumns, type Staging } from './staging.js';
import type { DecimalShapes } from './value-records.js';

/**
 * After the pass: the values that need other values (enum constant names, LocalDateTime from its
 * date and time, JDK constants), the SQL type of big-number columns, then every type's table
 * (staging joined to `_values` for value members), the value types' views and the simple-name
 * aliases. Returns what `GET /api/v1/sql/schema` lists.
 */

/** The system tables, in the order the schema lists them. */
export const SYSTEM_TABLE_NAMES: readonly string[] = ['_objects', '_commits', '_references', '_elements', '_values', ...GIGAMAP_TABLES.map((t) => t.name)];

export interface SchemaColumn {
  readonly name: string;
  readonly type: string;
  readonly objectId: boolean;
}

export interface SchemaTable {
  readonly name: string;
  readonly alias: string | null;
  readonly kind: 'type' | 'system';
  readonly typeName: string | null;
  readonly typeIds: readonly string[];
  readonly columns: readonly SchemaColumn[];
}

export interface BuiltSchema {
  readonly tables: readonly SchemaTable[];
  /** The SQL type of each big-number type that fits a DECIMAL (type-fill.ts makes the same columns). */
  readonly decimals: ReadonlyMap<string, string>;
}

interface PerTypeInfo {
  readonly entry: TypeEntry;
  readonly value: ValueKind | undefined;
}

const SYSTEM_OBJECT_IDS: Readonly<Record<string, readonly string[]>> = {
  _objects: ['oid'],
  _commits: [],
  _references: ['from_oid', 'to_oid'],
  _elements: ['owner', 'key_oid', 'value_oid'],
  _values: ['oid'],
  ...Object.fromEntries(GIGAMAP_TABLES.map((t) => [t.name, t.columns.filter((c) => c.objectId).map((c) => c.name)])),
};

const TYPED: Readonly<Record<ValueKind, string>> = {
  text: 'v.text',
  tinyint: 'CAST(v.int AS TINYINT)',
  smallint: 'CAST(v.int AS SMALLINT)',
  integer: 'CAST(v.int AS INTEGER)',
  bigint: 'v.int',
  boolean: 'v.bool',
  float: 'CAST(v.num AS FLOAT)',
  double: 'v.num',
  decimal: 'v.text',
  timestamp: 'v.ts',
  date: 'v.dt',
  time: 'v.tm',
};

/**
 * `deferred`: entity types whose tables are made empty here (with the columns they will have) and
 * filled when a statement first names them (type-fill.ts).
 */
export async function finishTables(
  connection: DuckDBConnection,
  stagings: readonly Staging[],
  deferred: readonly TypeTablePlan[],
  perType: ReadonlyMap<bigint, PerTypeInfo | null>,
  shapes: DecimalShapes,
  dictionary?: TypeDictionary,
): Promise<BuiltSchema> {
  await connection.run(`INSERT INTO _values (oid, text, int, bool) VALUES ${jdkConstantRows()}`);
  for (const staging of stagings) {
    const plan = staging.plan;
    // Enum constants, constant-specific bodies (`Op$1`) too: their value is the constant's name.
    const isEnum = isEnumPlan(plan);
    const nameColumn = plan.columns.findIndex((c) => c.name === 'name' || c.name === 'java.lang.Enum#name');
    if (isEnum && nameColumn >= 0) {
      await connection.run(`INSERT INTO _values (oid, type_id, text) SELECT s._oid, s._type_id, n.text FROM ${staging.table} s LEFT JOIN _values n ON n.oid = s.c${nameColumn}`);
    }
    if (plan.typeName === 'java.time.LocalDateTime') {
      const date = plan.columns.findIndex((c) => c.name === 'date');
      const time = plan.columns.findIndex((c) => c.name === 'time');
      if (date >= 0 && time >= 0) {
        await connection.run(
          `INSERT INTO _values (oid, type_id, text, ts) SELECT s._oid, s._type_id, strftime(d.dt + t.tm, '%Y-%m-%dT%H:%M:%S.%f'), d.dt + t.tm FROM ${staging.table} s LEFT JOIN _values d ON d.oid = s.c${date} LEFT JOIN _values t ON t.oid = s.c${time}`,
        );
      }
    }
  }
  const decimals = decimalTypes(shapes);
  const valueExpression = valueExpressionOf(decimals);

  const tables: { name: string; kind: 'type'; typeName: string; typeIds: string[]; objectIds: Set<string> }[] = [];
  const made = [...stagings.map((staging) => ({ plan: staging.plan, staging: staging.table, empty: false })), ...deferred.map((plan, i) => ({ plan, staging: `__empty_${i}`, empty: true }))];
  for (const { plan, staging, empty } of made) {
    // A table filled later is made from an empty staging table: the same columns, no rows.
    if (empty) await connection.run(`CREATE TABLE ${staging} ${stagingColumns(plan)}`);
    // LIMIT 0 for a table filled later: without it DuckDB still built the joins' hash tables
    // over `_values` (0.44 s for one table at 10M objects).
    if (empty) await connection.run(`CREATE TABLE ${quoteIdent(plan.typeName)} AS ${typeTableSelect(plan, staging, decimals, dictionary)} LIMIT 0`);
    else await makeTypeRows(connection, plan, staging, decimals, dictionary, (select) => `CREATE TABLE ${quoteIdent(plan.typeName)} AS ${select}`);
    await connection.run(`DROP TABLE ${staging}`);
    const objectIds = new Set<string>(['_oid', ...plan.columns.filter((c) => c.role.kind === 'reference').map((c) => c.name)]);
    const typeIds = [...perType.values()].filter((t): t is PerTypeInfo => t !== null && t.entry.typeName === plan.typeName).map((t) => String(t.entry.typeId));
    tables.push({ name: plan.typeName, kind: 'type', typeName: plan.typeName, typeIds, objectIds });
  }
  // Value types: a view over `_values` each, the typed value and the Java text.
  const valueTypes = new Map<string, { kind: ValueKind; ids: string[] }>();
  for (const t of perType.values()) {
    if (t === null || t.value === undefined) continue;
    const known = valueTypes.get(t.entry.typeName) ?? { kind: t.value, ids: [] };
    known.ids.push(String(t.entry.typeId));
    valueTypes.set(t.entry.typeName, known);
  }
  for (const [typeName, { kind, ids }] of valueTypes) {
    await connection.run(
      `CREATE VIEW ${quoteIdent(typeName)} AS SELECT v.oid AS _oid, v.type_id AS _type_id, ${valueExpression(kind, typeName)} AS value, v.text AS text FROM _values v WHERE v.type_id IN (${ids.join(', ')})`,
    );
    tables.push({ name: typeName, kind: 'type', typeName, typeIds: ids, objectIds: new Set(['_oid']) });
  }

  // Simple-name views where exactly one table has that simple name and nothing else is so named.
  const bySimple = new Map<string, number>();
  // DuckDB's names are case-insensitive: `HashTable` and `Hashtable` are one name.
  for (const t of tables) bySimple.set(simpleNameOf(t.name).toLowerCase(), (bySimple.get(simpleNameOf(t.name).toLowerCase()) ?? 0) + 1);
  const fullNames = new Set(tables.map((t) => t.name.toLowerCase()));
  const aliases = new Map<string, string>();
  for (const t of tables) {
    if (t.name.startsWith('[')) {
      // An array's table (`"[I"`, `"[Ljava.lang.String;"`) also under the name Java writes
      // (`"int[]"`, `"java.lang.String[]"`), as `_objects.type_name` gives it. Not as its alias:
      // clients write an alias unquoted (`FROM Customer`), which `int[]` cannot be.
      const readable = readableTypeName(t.name);
      if (readable !== t.name && !fullNames.has(readable.toLowerCase())) await connection.run(`CREATE VIEW ${quoteIdent(readable)} AS SELECT * FROM ${quoteIdent(t.name)}`);
      continue;
    }
    const simple = simpleNameOf(t.name);
    if (simple === t.name || bySimple.get(simple.toLowerCase()) !== 1 || fullNames.has(simple.toLowerCase()) || simple.startsWith('_')) continue;
    await connection.run(`CREATE VIEW ${quoteIdent(simple)} AS SELECT * FROM ${quoteIdent(t.name)}`);
    aliases.set(t.name, simple);
  }

  const described = await describeColumns(connection);
  const schema: SchemaTable[] = [];
  for (const name of SYSTEM_TABLE_NAMES) {
    const ids = new Set(SYSTEM_OBJECT_IDS[name]);
    schema.push({ name, alias: null, kind: 'system', typeName: null, typeIds: [], columns: (described.get(name) ?? []).map((c) => ({ ...c, objectId: ids.has(c.name) })) });
  }
  tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const t of tables) {
    schema.push({
      name: t.name,
      alias: aliases.get(t.name) ?? null,
      kind: 'type',
      typeName: t.typeName,
      typeIds: t.typeIds,
      columns: (described.get(t.name) ?? []).map((c) => ({ ...c, objectId: t.objectIds.has(c.name) })),
    });
  }
  return { tables: schema, decimals };
}

/** A value column's expression over its `_values` row `v`, given the decimal types. */
function valueExpressionOf(decimals: ReadonlyMap<string, string>): (kind: ValueKind, typeName: string | undefined) => string {
  return (kind, typeName) => {
    if (kind !== 'decimal') return TYPED[kind];
    const sql = typeName === undefined ? undefined : decimals.get(typeName);
    return sql === undefined ? 'v.text' : `CAST(v.text AS ${sql})`;
  };
}

/**
 * Value members one statement joins to `_values` at most. DuckDB keeps the hash table of every
 * join of a statement until the statement ends, each taking 12-16 MB however few its rows: the
 * one-row table of a type with 60 value members (the corpora's PrimitivesRoot) needed between
 * 768 MB and 1 GB, and failed now and then with "Out of Memory (976.5 MiB/976.5 MiB used)" under
 * the default limit of 1 GiB; joined eight at a time it is made under a limit of 256 MB (four at a
 * time: 96 MB, but more statements and copies for every type of five to eight such members).
 */
export const MAX_VALUE_JOINS = 8;

/**
 * A value member's join to `_values` or `source` (a query of its columns that also holds the big numbers
 * not moved into it yet, table-build.ts `BigNumbersApart`): the rows of the types it can hold where the
 * dictionary says which; and its column's expression.
 */
function valueJoin(
  role: Extract<ColumnRole, { kind: 'value' }>,
  i: number,
  decimals: ReadonlyMap<string, string>,
  dictionary: TypeDictionary | undefined,
  source = '_values',
): { join: string; expression: string } {
  const ids = dictionary === undefined ? undefined : valueTypeIdsOf(role.declared, dictionary);
  const values = ids === undefined ? source : `(SELECT * FROM ${source} WHERE type_id IS NULL${ids.length === 0 ? '' : ` OR type_id IN (${ids.join(', ')})`})`;
  return { join: `LEFT JOIN ${values} v${i} ON v${i}.oid = s.c${i}`, expression: valueExpressionOf(decimals)(role.value, role.declared).replace(/\bv\./g, `v${i}.`) };
}

/**
 * The SELECT that makes a type's rows from its staging table in one statement: value members
 * joined to their values, to the rows of the types the member can hold where the dictionary says
 * which (`valueTypeIdsOf`; the JDK constants, without a type id, too). `resolved`: value members
 * whose values an earlier step put into column `r<i>` of the staging table (`makeTypeRows`).
 */
export function typeTableSelect(
  plan: TypeTablePlan,
  staging: string,
  decimals: ReadonlyMap<string, string>,
  dictionary?: TypeDictionary,
  resolved: ReadonlySet<number> = new Set(),
  skipped: ReadonlySet<number> = new Set(),
  /** What the values are joined from: `_values`, or a query of its columns (`makeTypeRows`). */
  values = '_values',
): string {
  const select = ['s._oid AS _oid', 's._type_id AS _type_id'];
  const joins: string[] = [];
  plan.columns.forEach((column, i) => {
    const role = column.role;
    // A member no statement has named yet: NULL, not joined (its table is then partial, built-tables.ts).
    if (skipped.has(i)) select.push(`NULL AS ${quoteIdent(column.name)}`);
    else if (resolved.has(i)) select.push(`s.r${i} AS ${quoteIdent(column.name)}`);
    else if (role.kind === 'value') {
      const value = valueJoin(role, i, decimals, dictionary, values);
      joins.push(value.join);
      select.push(`${value.expression} AS ${quoteIdent(column.name)}`);
    } else select.push(`s.c${i} AS ${quoteIdent(column.name)}`);
  });
  return `SELECT ${select.join(', ')} FROM ${staging} s ${joins.join(' ')}`;
}

/**
 * Makes a type's rows from its staging table: `into` wraps the SELECT (`INSERT INTO t ...`,
 * `CREATE TABLE t AS ...`, `COPY (...) TO file`); `skipped` members are NULL. Rows written. A type with more than MAX_VALUE_JOINS value members gets its values
 * first in steps of at most that many joins, each step a temporary copy of the staging rows with
 * the values found so far (`r<i>`), so that no statement holds more than that many hash tables.
 */
export async function makeTypeRows(
  connection: DuckDBConnection,
  plan: TypeTablePlan,
  staging: string,
  decimals: ReadonlyMap<string, string>,
  dictionary: TypeDictionary | undefined,
  into: (select: string) => string,
  skipped: ReadonlySet<number> = new Set(),
  /**
   * What the values are joined from: `_values`, or a query of its columns that also holds the
   * build's big numbers not moved into it yet (table-build.ts `BigNumbersApart`).
   */
  values = '_values',
): Promise<number> {
  const members = plan.columns.flatMap((column, i) => (column.role.kind === 'value' && !skipped.has(i) ? [i] : []));
  const resolved = new Set<number>();
  const steps: string[] = [];
  try {
    let source = staging;
    // The last MAX_VALUE_JOINS members are joined by the final statement itself.
    for (let from = 0; members.length - from > MAX_VALUE_JOINS; from += MAX_VALUE_JOINS) {
      // A temporary table of the connection, named after the staging table (which may lie in another catalog).
      const step = `${staging.slice(staging.lastIndexOf('.') + 1)}_step${steps.length}`;
      const joins: string[] = [];
      const columns: string[] = [];
      for (const i of members.slice(from, from + MAX_VALUE_JOINS)) {
        const value = valueJoin(plan.columns[i]!.role as Extract<ColumnRole, { kind: 'value' }>, i, decimals, dictionary, values);
        joins.push(value.join);
        columns.push(`${value.expression} AS r${i}`);
      }
      steps.push(step);
      await connection.run(`CREATE TEMP TABLE ${step} AS SELECT s.*, ${columns.join(', ')} FROM ${source} s ${joins.join(' ')}`);
      if (source !== staging) await connection.run(`DROP TABLE ${source}`);
      source = step;
      for (const i of members.slice(from, from + MAX_VALUE_JOINS)) resolved.add(i);
    }
    // The rows the statement wrote (DuckDB answers INSERT, CREATE TABLE AS and COPY with their count).
    const reader = await connection.runAndReadAll(into(typeTableSelect(plan, source, decimals, dictionary, resolved, skipped, values)));
    return Number(reader.getRows()[0]?.[0] ?? 0);
  } finally {
    for (const step of steps) await connection.run(`DROP TABLE IF EXISTS ${step}`).catch(() => undefined);
  }
}

/**
 * DECIMAL(18, s) for a big-number type whose every value fits in 18 digits, DECIMAL(38, s) where
 * they fit in 38, else none (the column stays VARCHAR). The narrower type where it will do:
 * DuckDB's cast from text to a 38-digit decimal is about a hundred times slower (300,000 prices:
 * 800 ms against 5-8 ms), and sums of an 18-digit decimal are 38-digit ones anyway.
 */
function decimalTypes(shapes: DecimalShapes): Map<string, string> {
  const out = new Map<string, string>();
  for (const [typeName, shape] of shapes.byType) {
    if (shape.bad || shape.digits < 0) continue;
    if (shape.digits + shape.scale <= 18) out.set(typeName, `DECIMAL(18, ${shape.scale})`);
    else if (shape.digits + shape.scale <= 38) out.set(typeName, `DECIMAL(38, ${shape.scale})`);
  }
  return out;
}

async function describeColumns(connection: DuckDBConnection): Promise<Map<string, { name: string; type: string }[]>> {
  const reader = await connection.runAndReadAll(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`);
  const out = new Map<string, { name: string; type: string }[]>();
  for (const [table, column, type] of reader.getRows() as [string, string, string][]) {
    let list = out.get(table);
    if (list === undefined) out.set(table, (list = []));
    list.push({ name: column, type });
  }
  return out;
}

export { quoteText, sqlTypeOf };
