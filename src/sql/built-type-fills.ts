import type { DuckDBConnection } from '@duckdb/node-api';
import type { Storage } from '../storage/storage.js';
import type { DuckModule } from './duck-module.js';
import type { FillLedger } from './fill-ledger.js';
import type { BigNumbersMove } from './fills/big-numbers-move.js';
import type { PrestagedTypes } from './fills/prestaged-types.js';
import { fillTypeTables } from './fills/type-fill.js';
import { fillValueTypes, inBaseValues, valuesOfMember, valueTypesOf } from './fills/value-fill.js';
import type { Sandbox } from './sandbox/sandbox.js';
import { quoteText, type TypeTablePlan } from './tables/column-model.js';
import { makeTypeRows, type SchemaTable } from './tables/finish-tables.js';
import { EXPORT_PARQUET_OPTIONS } from './tables/parquet-options.js';
import type { Staging } from './tables/staging.js';

/**
 * A build's entity types' tables and the `_values` rows of the value types the base pass left
 * for later, filled when a statement first needs them, and the type tables written straight
 * into Parquet for an export; what built-tables.ts holds of them (it has the ledger, the turns
 * and the storage's gate, given here as `TypeFillsContext`).
 */

/** What `copyTypeTables` tells while it works. */
export interface TypeCopyEvents {
  /** The records are walked: the copies start. */
  readonly walked?: () => void;
  /** A table's file is written with `rows` rows; what it throws ends the pass. */
  readonly written?: (table: string, rows: number) => void;
}

/** What the fills need of the build they belong to (built-tables.ts). */
export interface TypeFillsContext {
  readonly storage: Storage;
  readonly sandbox: Sandbox;
  readonly ledger: FillLedger;
  readonly decimals: ReadonlyMap<string, string>;
  /** Entity types' tables made empty, by lower-case full or simple name. */
  readonly deferred: ReadonlyMap<string, TypeTablePlan>;
  /** The build's big numbers apart from `_values` until something needs it whole. */
  readonly bigNumbers: BigNumbersMove;
  /** Resolves once `_values` holds every row of the build (the big numbers moved in). */
  readonly valuesComplete: () => Promise<void>;
  /** `work` run while the storage stays in the built state (false when it has moved on); `afterValues`: once `_values` is complete. */
  readonly inBuiltState: (work: (connection: DuckDBConnection) => Promise<void>, afterValues?: boolean) => Promise<boolean>;
  readonly onProblem: (message: string) => void;
}

export class BuiltTypeFills {
  /** Every value type of the dictionary. */
  private readonly valueTypes: ReturnType<typeof valueTypesOf>;
  /** The value types' views, by lower-case table name and alias: the type ids each shows. */
  private readonly valueViews = new Map<string, bigint[]>();
  /** The rows of the types the build's statement names, staged by its pass: taken (or dropped) by the first type fill. */
  private prestaged: PrestagedTypes | undefined;

  constructor(
    private readonly c: TypeFillsContext,
    tables: readonly SchemaTable[],
  ) {
    this.valueTypes = valueTypesOf(c.storage.dictionary);
    for (const table of tables) {
      if (table.kind !== 'type' || table.typeIds.length === 0 || !table.typeIds.every((id) => this.valueTypes.has(BigInt(id)))) continue;
      const ids = table.typeIds.map(BigInt);
      this.valueViews.set(table.name.toLowerCase(), ids);
      if (table.alias !== null) this.valueViews.set(table.alias.toLowerCase(), ids);
    }
  }

  /** The rows the build's pass staged for the statement it was made for (fills/prestaged-types.ts). */
  prestagedTypes(prestaged: PrestagedTypes): void {
    this.prestaged = prestaged;
  }

  /** The build made every value type's `_values` rows (`everyValue`): no value fill later. */
  everyValueMade(): void {
    this.c.ledger.valuesMade(this.laterValueTypes());
  }

  /** The build made the `_values` rows of these value types too (those its first statement needs): no value fill for them later. */
  valuesMade(typeIds: Iterable<bigint>): void {
    const later = this.laterValueTypes();
    this.c.ledger.valuesMade([...typeIds].filter((id) => later.has(id)));
  }

  /** The type ids a value type's view (lower-case name) shows, if `name` is one. */
  viewIds(name: string): readonly bigint[] {
    return this.valueViews.get(name) ?? [];
  }

  /** The value types whose rows the build left for later. */
  laterValueTypes(): Set<bigint> {
    return new Set([...this.valueTypes].filter(([, t]) => !inBaseValues(t.entry.typeName, t.kind)).map(([id]) => id));
  }

  /** The `_values` rows of the value types `typeIds` made (one pass for those missing); false when the storage is no longer in the built state. */
  async values(duck: DuckModule, typeIds: ReadonlySet<bigint>): Promise<boolean> {
    const { ledger, storage } = this.c;
    const valueFills = ledger.valueFills;
    const missing = new Set([...typeIds].filter((id) => !valueFills.has(id) && this.valueTypes.has(id) && !inBaseValues(this.valueTypes.get(id)!.entry.typeName, this.valueTypes.get(id)!.kind)));
    if (missing.size > 0) ledger.valuesFilling(missing, this.c.inBuiltState((connection) => fillValueTypes(duck, connection, storage, missing, this.c.onProblem)));
    for (const id of typeIds) if (!((await valueFills.get(id)) ?? true)) return false;
    return true;
  }

  /**
   * Fills the tables of `plans` not filled yet, or filled without a member `columns`
   * names, in one pass; false when the storage is no longer in the built state. Tables being
   * filled for another statement are waited for (and then filled again if that fill lacks a member).
   * `temporary`: staged in temporary tables (a statement's types; type-fill.ts).
   */
  async fill(duck: DuckModule, plans: ReadonlySet<TypeTablePlan>, columns: ReadonlySet<string> | undefined, temporary: boolean): Promise<boolean> {
    const { ledger, storage, decimals, onProblem } = this.c;
    const fill = ledger.planTypeFill(plans, columns, (declared) => valuesOfMember(declared, storage.dictionary) ?? this.laterValueTypes());
    if (fill.missing.length > 0) {
      // The first fill takes the rows the build staged for it, if they are what it needs.
      const prestaged = this.prestaged;
      this.prestaged = undefined;
      const staged = prestaged?.takeFor(fill.missing, fill.skipped) ?? new Map();
      ledger.typesFilling(
        fill,
        (async () => {
          // A fill of the same table under way finishes first (the new one replaces its rows).
          await Promise.all(fill.before);
          if (!(await this.values(duck, fill.valueIds))) return false;
          // The build's big numbers not moved into `_values` yet are joined where they are (the
          // move, when something asks for it, waits for this join); once a move is under way the
          // walk goes beside it and the join waits for it.
          const apart = this.c.bigNumbers.readApart((values) =>
            this.c.inBuiltState((connection) => fillTypeTables(duck, connection, storage, fill.missing, decimals, onProblem, fill.skipped, temporary, undefined, undefined, values, staged), false),
          );
          if (apart !== undefined) return apart;
          const moved = this.c.valuesComplete();
          return this.c.inBuiltState((connection) => fillTypeTables(duck, connection, storage, fill.missing, decimals, onProblem, fill.skipped, temporary, moved, undefined, undefined, staged), false);
        })().finally(() => prestaged?.drop(() => this.c.sandbox.instance.connect()).catch(() => undefined)),
      );
    }
    for (const plan of plans) if (!(await ledger.fills.get(plan.typeName)!)) return false;
    return true;
  }

  /**
   * Entity types' tables written as Parquet (`files`, by full type name; an export that keeps no
   * tables) straight from the type fill's staged rows: the SELECT that would fill the table
   * (joined to `_values`) is COPY's, so the rows are not written into the database and read back.
   * One pass over the records for them all; `walked` is called once the records are walked (before
   * the first copy: the caller's next pass may start beside the copies), `written` after each
   * table's copy (what it throws ends the pass, the tables not copied yet left). A table a statement has
   * filled (or is filling) and the names of no entity type's table are left to the caller; the
   * tables stay unfilled for statements. Rows per table written; undefined when the storage is no
   * longer in the built state.
   */
  async copyTypeTables(duck: DuckModule, files: ReadonlyMap<string, string>, told: TypeCopyEvents = {}): Promise<Map<string, number> | undefined> {
    const { ledger, storage, decimals, onProblem } = this.c;
    const plans = [...new Set(this.c.deferred.values())].filter((plan) => files.has(plan.typeName) && !ledger.fills.has(plan.typeName));
    const rows = new Map<string, number>();
    if (!(await this.values(duck, this.laterValueTypes()))) return undefined;
    let walked = false;
    const tell = (): void => {
      if (walked) return;
      walked = true;
      told.walked?.();
    };
    const finish = async (connection: DuckDBConnection, staging: Staging): Promise<void> => {
      tell();
      const file = files.get(staging.plan.typeName)!;
      const count = await makeTypeRows(connection, staging.plan, staging.table, decimals, storage.dictionary, (select) => `COPY (${select}) TO ${quoteText(file)} (${EXPORT_PARQUET_OPTIONS})`);
      rows.set(staging.plan.typeName, count);
      told.written?.(staging.plan.typeName, count);
    };
    const done = await this.c.inBuiltState((connection) => fillTypeTables(duck, connection, storage, plans, decimals, onProblem, new Map(), false, this.c.valuesComplete(), (staging) => finish(connection, staging)), false);
    tell();
    return done ? rows : undefined;
  }
}
