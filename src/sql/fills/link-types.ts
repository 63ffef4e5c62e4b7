import type { TypeEntry } from '../../format/type-dictionary.js';
import type { TypeTablePlan } from '../tables/column-model.js';

/** What the link pass (link-tables.ts) reads and where it writes: the types and the sinks. */

/** What the link pass needs of an entity type: its entry and its table's plan. */
export interface LinkType {
  readonly entry: TypeEntry;
  readonly plan: TypeTablePlan;
  /** Per column of the plan, the field of this version (-1: the version lacks it). */
  readonly fieldOfColumn: Int32Array;
}

/**
 * Where the link pass puts its rows, one value per column in order (DuckDB's chunk appenders, or
 * Parquet files of our own for an export): `direct`, `_elements`' rows as they are; `staged`,
 * elements naming an object, their member as a code; `references`, `_references`' rows.
 */
export interface LinkRowSink {
  appendNull(): void;
  appendBigInt(value: bigint): void;
  appendBigIntHalves(low: number, high: number): void;
  appendBigIntNumber(value: number): void;
  appendInteger(value: number): void;
  appendVarchar(value: string): void;
  endRow(): void;
}

export interface LinkRowSinks {
  readonly direct: LinkRowSink;
  readonly staged: LinkRowSink;
  readonly references: LinkRowSink;
}
