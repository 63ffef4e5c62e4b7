import type { DuckDBConnection } from '@duckdb/node-api';
import { ChunkAppender } from './chunk-appender.js';
import { sqlTypeOf, type TypeTablePlan } from './column-model.js';
import type { DuckModule } from '../duck-module.js';

/**
 * A type's staging table while its table is made: its columns' plan and the appender filling it
 * (table-build.ts and type-fill.ts fill it, finish-tables.ts turns it into the type's table).
 * Value members are object ids here; the table gets their values from `_values`.
 */
export interface Staging {
  readonly plan: TypeTablePlan;
  readonly table: string;
  readonly appender: ChunkAppender;
}

/**
 * A column of the plan that a fill leaves out of its staging table (in a version's fields by
 * column, beside -1: the version lacks the member, NULL appended): a member no statement has named
 * yet, NULL in the type's table (finish-tables.ts `typeTableSelect` reads no `c<i>` for it).
 */
export const NOT_STAGED = -2;

/**
 * The column list of a plan's staging table (`c<i>` for the plan's column i), without the
 * `skipped` columns: each column costs the appends of every row (10M objects, a statement naming
 * 2 of `gen.Book`'s 9 members: its staging's chunks handed over in about 180 ms instead of 430).
 */
export function stagingColumns(plan: TypeTablePlan, skipped: ReadonlySet<number> = new Set()): string {
  const columns = plan.columns.flatMap((c, i) => (skipped.has(i) ? [] : [`c${i} ${c.role.kind === 'value' ? 'BIGINT' : sqlTypeOf(c.role)}`]));
  return `(_oid BIGINT, _type_id BIGINT${columns.map((c) => `, ${c}`).join('')})`;
}

/**
 * `temporary`: a table of the connection alone, kept in memory (spilled to the sandbox's
 * temporary directory past the memory limit), never written to the database file: a type fill's
 * staging rows are read once and dropped (10M objects, the 1.79M rows of `gen.Book`: the fill 3.1-3.7
 * -> 2.8-2.9 s of CPU).
 */
export async function createStaging(duck: DuckModule, connection: DuckDBConnection, plan: TypeTablePlan, table: string, temporary = false, skipped?: ReadonlySet<number>): Promise<Staging> {
  await connection.run(`CREATE ${temporary ? 'TEMP ' : ''}TABLE ${table} ${stagingColumns(plan, skipped)}`);
  return { plan, table, appender: new ChunkAppender(duck, await connection.createAppender(table)) };
}

/**
 * Whether a type's rows are made with the base tables: enum constants (their names are values
 * other tables show) and LocalDateTime (its value is made of its date and time). Every other
 * type's table is filled when a statement first names it (type-fill.ts).
 */
export function stagedWithBase(plan: TypeTablePlan): boolean {
  return plan.typeName === 'java.time.LocalDateTime' || isEnumPlan(plan);
}

/** Enum constants, constant-specific bodies (`Op$1`) too. */
export function isEnumPlan(plan: TypeTablePlan): boolean {
  return plan.entries.some((e) => e.enumConstants.length > 0 || e.fields.some((f) => f.name === 'name' && f.qualifier === 'java.lang.Enum'));
}
