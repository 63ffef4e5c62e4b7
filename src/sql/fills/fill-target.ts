import type { TypeEntry } from '../../format/type-dictionary.js';
import type { TypeTablePlan } from '../tables/column-model.js';
import { appendFixedEntity, appendSingleListEntity, fixedLayoutFor, singleListElementSize, type FixedLayout } from '../tables/entity-rows.js';
import { NOT_STAGED, type Staging } from '../tables/staging.js';

/**
 * A type version whose records are appended to an entity type's staging table: by a type fill
 * (type-fill.ts), or by the base pass for the types the first statement names (prestaged-types.ts).
 * Both walks append a record of a fixed layout, or of one list alone, where it lies, and hand any
 * other to their handler, which lays it out.
 */
export interface FillTarget {
  readonly entry: TypeEntry;
  readonly staging: Staging;
  /** The version's fields by column, the members not staged marked NOT_STAGED. */
  readonly columns: Int32Array;
  readonly fixed: FixedLayout | undefined;
  /** The element size of its one list if that is all it has (entity-rows.ts `singleListElementSize`); -1: not such a version. */
  readonly listElementSize: number;
}

/** The target of `entry`'s records in `staging` without the `skipped` columns; undefined for a version the plan has no columns of. */
export function fillTargetOf(entry: TypeEntry, plan: TypeTablePlan, staging: Staging, skipped: ReadonlySet<number> | undefined): FillTarget | undefined {
  const columns = withoutSkipped(plan.fieldOfColumn.get(entry.typeId), skipped);
  if (columns === undefined) return undefined;
  const fixed = fixedLayoutFor(entry, plan, columns);
  return { entry, staging, columns, fixed, listElementSize: fixed === undefined ? (singleListElementSize(entry, plan, columns) ?? -1) : -1 };
}

/**
 * Appends a record where it lies (a header visitor's arguments) when its version allows;
 * true when it must go to the handler instead (another shape, or a content of another length,
 * whose layout says what is wrong with it).
 */
export function appendWhereItLies(target: FillTarget, view: DataView, contentAt: number, length: number, idLow: number, idHigh: number, typeLow: number, typeHigh: number): boolean {
  if (target.listElementSize >= 0) return !appendSingleListEntity(target.staging, target.columns, target.listElementSize, view, contentAt, length - 24, idLow, idHigh, typeLow, typeHigh);
  const fixed = target.fixed;
  if (fixed === undefined || length - 24 !== fixed.length) return true;
  appendFixedEntity(target.staging, target.columns, fixed, view, contentAt, idLow, idHigh, typeLow, typeHigh);
  return false;
}

/** A version's fields by column with the skipped columns taken out (NOT_STAGED: not in the staging table). */
function withoutSkipped(fieldOfColumn: Int32Array | undefined, skip: ReadonlySet<number> | undefined): Int32Array | undefined {
  if (fieldOfColumn === undefined || skip === undefined || skip.size === 0) return fieldOfColumn;
  const out = fieldOfColumn.slice();
  for (const c of skip) out[c] = NOT_STAGED;
  return out;
}
