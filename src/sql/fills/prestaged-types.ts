import type { DuckDBConnection } from '@duckdb/node-api';
import type { TypeEntry } from '../../format/type-dictionary.js';
import { readableTypeName } from '../../inspect/type-names.js';
import type { Storage } from '../../storage/storage.js';
import type { DuckModule } from '../duck-module.js';
import { ChunkAppender } from '../tables/chunk-appender.js';
import { membersNamed, planTypeTable, simpleNameOf, valueKindOfEntry, type TypeTablePlan } from '../tables/column-model.js';
import { stagedWithBase, stagingColumns, type Staging } from '../tables/staging.js';
import { fillTargetOf, type FillTarget } from './fill-target.js';
import { valuesOfMember, valueTypesOf } from './value-fill.js';

/**
 * The rows of the entity types the first statement names, staged by the base pass as it meets
 * their records (base-pass.ts), so that the statement's type fill (type-fill.ts) only joins them
 * to `_values`: without this the fill walks every record of the storage a second time, on the
 * JavaScript thread, before its join can start (10M objects, books per tag: 0.5-0.6 s of the
 * walk's 0.7-1.0 s is the walk itself, not the books' rows).
 *
 * What the statement names is a hint taken from DuckDB's parse before the tables exist
 * (open-built-tables.ts): the fill uses a type's staged rows only when the statement, checked for
 * real against the built tables, asks for exactly that plan with exactly those members
 * (`takeFor`); rows not taken are dropped with the rest when the first fill is done (`drop`), and
 * the table is then filled by its own walk as before.
 *
 * The staging tables lie in an in-memory catalog attached for them (a build's connection closes
 * after the build, taking temporary tables with it; a table of the database file would be
 * written out and compressed as the pass goes), appended through a connection of their own (one
 * transaction writes into one catalog, and the pass's writes `_values`).
 */

const CATALOG = '__prestaged';
/** Staging tables made so far (their names, unique in the process as the type fills' are). */
let stagings = 0;

/** What the statement names, as statement-check.ts gives it: tables (lower case) and the names it may read columns by (undefined: any). */
export interface StatementHint {
  readonly tables: ReadonlySet<string>;
  readonly columns: ReadonlySet<string> | undefined;
}

/** One type's staged rows: its plan, the members left out (as the ledger would leave them out for the statement), and the problems its records had. */
export interface PrestagedType {
  readonly plan: TypeTablePlan;
  readonly skipped: ReadonlySet<number>;
  readonly staging: Staging;
  /** One message per unreadable record, told when the rows are taken (a fill walking instead tells its own). */
  readonly problems: string[];
}

/** A version's target in a prestaged type's staging table. */
export interface PrestagedTarget extends FillTarget {
  readonly type: PrestagedType;
}

export class PrestagedTypes {
  private readonly byName = new Map<string, PrestagedType>();
  /** The appenders' connection, until `close`. */
  private connection: DuckDBConnection | undefined;

  /**
   * Staging tables for the entity types `hint` names whose tables a statement fills (not value
   * types, enums or LocalDateTime, which the base pass makes anyway); undefined when it names none.
   * `connection`: the build's, which attaches the catalog; `connect`: another of the same instance.
   */
  static async make(duck: DuckModule, connection: DuckDBConnection, connect: () => Promise<DuckDBConnection>, storage: Storage, hint: StatementHint): Promise<PrestagedTypes | undefined> {
    const dictionary = storage.dictionary;
    const plans: TypeTablePlan[] = [];
    for (const typeName of typeNamesNamed(storage, hint.tables)) {
      const plan = planTypeTable(typeName, dictionary.entries.filter((e) => e.typeName === typeName), dictionary);
      if (!stagedWithBase(plan)) plans.push(plan);
    }
    if (plans.length === 0) return undefined;
    const made = new PrestagedTypes();
    await connection.run(`ATTACH ':memory:' AS ${CATALOG}`);
    const appending = await connect();
    made.connection = appending;
    try {
      for (const plan of plans) {
        const all = membersNamed(plan, undefined);
        const wanted = membersNamed(plan, hint.columns);
        const skipped = new Set([...all].filter((i) => !wanted.has(i)));
        const name = `__prestaged_${++stagings}`;
        await appending.run(`CREATE TABLE ${CATALOG}.${name} ${stagingColumns(plan, skipped)}`);
        const staging: Staging = { plan, table: `${CATALOG}.${name}`, appender: new ChunkAppender(duck, await appending.createAppender(name, 'main', CATALOG)) };
        made.byName.set(plan.typeName, { plan, skipped, staging, problems: [] });
      }
    } catch (error) {
      made.close();
      throw error;
    }
    return made;
  }

  /** The types staged, each with the members it stages. */
  get types(): Iterable<PrestagedType> {
    return this.byName.values();
  }

  /** The plan made for `typeName`, if it is staged here: the build's plan of the type (its identity is how a fill finds the rows). */
  planOf(typeName: string): TypeTablePlan | undefined {
    return this.byName.get(typeName)?.plan;
  }

  /** Where the pass appends `entry`'s records; undefined when its type is not staged here. */
  targetOf(entry: TypeEntry, plan: TypeTablePlan): PrestagedTarget | undefined {
    const type = this.byName.get(entry.typeName);
    if (type === undefined || type.plan !== plan) return undefined;
    const target = fillTargetOf(entry, plan, type.staging, type.skipped);
    return target === undefined ? undefined : { ...target, type };
  }

  /** The appenders closed (the pass is over, or failed) and their connection. */
  close(): void {
    if (this.connection === undefined) return;
    try {
      for (const type of this.byName.values()) type.staging.appender.closeSync();
    } finally {
      this.connection?.closeSync();
      this.connection = undefined;
    }
  }

  /**
   * The staged rows of those of `plans` that a fill asks for with exactly the members staged
   * (`skipped`, the fill's plan of them); the others are left for `drop`.
   */
  takeFor(plans: readonly TypeTablePlan[], skipped: ReadonlyMap<TypeTablePlan, ReadonlySet<number>>): Map<TypeTablePlan, PrestagedType> {
    const taken = new Map<TypeTablePlan, PrestagedType>();
    for (const plan of plans) {
      const type = this.byName.get(plan.typeName);
      const skip = skipped.get(plan) ?? new Set<number>();
      if (type === undefined || type.plan !== plan || type.skipped.size !== skip.size || ![...skip].every((i) => type.skipped.has(i))) continue;
      this.byName.delete(plan.typeName);
      taken.set(plan, type);
    }
    return taken;
  }

  /** The catalog detached with every staged row not taken (after the first fill, which dropped the tables it took). */
  async drop(connect: () => Promise<DuckDBConnection>): Promise<void> {
    this.byName.clear();
    const connection = await connect();
    try {
      await connection.run(`DETACH DATABASE IF EXISTS ${CATALOG}`);
    } finally {
      connection.closeSync();
    }
  }
}

/**
 * The value types whose `_values` rows the statement needs beyond the base pass's (value-fill.ts
 * `inBaseValues`), for the pass to make them too instead of a value fill's pass of its own after
 * it: every value type for `_values` or the link tables (whose texts come from there), a value
 * type's own for its view, and those a staged member may hold (every one for a member that may
 * hold any). The few an enum's table names are read by themselves as before (table-build.ts).
 */
export function valuesNeeded(storage: Storage, hint: StatementHint, prestaged: PrestagedTypes | undefined): Set<bigint> {
  const dictionary = storage.dictionary;
  const all = valueTypesOf(dictionary);
  if (['_values', '_elements', '_references'].some((table) => hint.tables.has(table))) return new Set(all.keys());
  const out = new Set<bigint>();
  for (const [typeId, { entry }] of all) {
    if (hint.tables.has(entry.typeName.toLowerCase()) || hint.tables.has(simpleNameOf(entry.typeName).toLowerCase())) out.add(typeId);
  }
  for (const type of prestaged?.types ?? []) {
    for (const [i, column] of type.plan.columns.entries()) {
      if (type.skipped.has(i) || column.role.kind !== 'value') continue;
      const ids = valuesOfMember(column.role.declared, dictionary);
      if (ids === undefined) return new Set(all.keys());
      for (const id of ids) out.add(id);
    }
  }
  return out;
}

/**
 * The entity types a statement's table names may stand for, as finish-tables.ts names their
 * tables: the full name, the simple name when one type alone has it, an array's readable name.
 * A name that turns out to be another table's costs a staging table that is not taken.
 */
function typeNamesNamed(storage: Storage, tables: ReadonlySet<string>): Set<string> {
  const dictionary = storage.dictionary;
  const entityTypes = new Set(dictionary.entries.filter((entry) => valueKindOfEntry(entry, dictionary) === undefined).map((entry) => entry.typeName));
  const bySimple = new Map<string, number>();
  for (const typeName of entityTypes) bySimple.set(simpleNameOf(typeName).toLowerCase(), (bySimple.get(simpleNameOf(typeName).toLowerCase()) ?? 0) + 1);
  const names = new Set<string>();
  for (const typeName of entityTypes) {
    const simple = simpleNameOf(typeName).toLowerCase();
    if (tables.has(typeName.toLowerCase()) || tables.has(readableTypeName(typeName).toLowerCase()) || (tables.has(simple) && bySimple.get(simple) === 1)) names.add(typeName);
  }
  return names;
}
