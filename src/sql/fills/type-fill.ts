import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../../errors.js';
import { layoutEntity, type EntityLayout } from '../../format/entity-layout.js';
import { forEachLatestRecord, type LatestHeaderVisitor, type LatestRecord } from '../../storage/records/latest-records.js';
import { SmallIdMap, smallIdsOf } from '../../storage/records/small-id-table.js';
import type { Storage } from '../../storage/storage.js';
import { quoteIdent, type TypeTablePlan } from '../tables/column-model.js';
import type { DuckModule } from '../duck-module.js';
import { inOneTransaction } from '../tables/chunk-appender.js';
import { appendEntity } from '../tables/entity-rows.js';
import { makeTypeRows } from '../tables/finish-tables.js';
import { createStaging, type Staging } from '../tables/staging.js';
import { appendWhereItLies, fillTargetOf, type FillTarget } from './fill-target.js';
import type { PrestagedType } from './prestaged-types.js';

/**
 * The rows of entity types' tables, made when a statement first names them: one pass over the
 * files for all the types asked for at once, decoding only their records, into staging tables
 * that are then joined to `_values` into the (until then empty) type tables; members no
 * statement named yet may be left NULL, not read from the records (built-tables.ts completes
 * the table when one does). The base tables
 * (`_values`, enum and LocalDateTime tables) decode only value objects, so a
 * statement on one type does not wait for every other type's rows. The types the first statement
 * of a build names are staged by the base pass already (prestaged-types.ts): only joined here.
 */

let stagings = 0;

export async function fillTypeTables(
  duck: DuckModule,
  connection: DuckDBConnection,
  storage: Storage,
  plans: readonly TypeTablePlan[],
  decimals: ReadonlyMap<string, string>,
  onProblem?: (message: string) => void,
  /** Per plan, the members left NULL (not named by any statement yet). */
  skipped: ReadonlyMap<TypeTablePlan, ReadonlySet<number>> = new Map(),
  /**
   * Staging rows in temporary tables (staging.ts): a statement's few types. Every type at once
   * (an export) stages into the database file, whose appends write out full row groups as they
   * go, rather than hold all of them in memory.
   */
  temporary = false,
  /** `_values` complete (the build's big numbers moved in, open-built-tables.ts): waited for after the walk, before the join. */
  valuesReady: Promise<void> = Promise.resolve(),
  /**
   * What becomes of a staging table's rows once the records are walked, instead of filling the
   * type's table: an export that keeps no tables writes them straight into its file (built-tables.ts
   * `copyTypeTables`).
   */
  finish?: (staging: Staging) => Promise<void>,
  /** What the join reads the values from: `_values`, or it with the build's big numbers not moved in yet (table-build.ts `BigNumbersApart`). */
  values = '_values',
  /** Plans whose rows the base pass staged already (prestaged-types.ts): joined, not walked for. */
  prestaged: ReadonlyMap<TypeTablePlan, PrestagedType> = new Map(),
): Promise<void> {
  if (plans.length === 0) return;
  const byTypeId = new Map<bigint, FillTarget>();
  /** `byTypeId` of the type ids below 2^32 by number, for the header visitor. */
  const bySmallId = new SmallIdMap<FillTarget>(smallIdsOf(storage.dictionary.byId.keys()));
  /** Every staging table joined (and dropped) below; `walked` those this fill appends to. */
  const made: Staging[] = [];
  const walked: Staging[] = [];
  try {
    for (const plan of plans) {
      const staged = prestaged.get(plan);
      if (staged !== undefined) {
        made.push(staged.staging);
        for (const message of staged.problems) onProblem?.(message);
        continue;
      }
      const skip = skipped.get(plan);
      const staging = await createStaging(duck, connection, plan, `__fill_${++stagings}`, temporary, skip);
      made.push(staging);
      walked.push(staging);
      for (const entry of plan.entries) {
        const target = fillTargetOf(entry, plan, staging, skip);
        if (target === undefined) continue;
        byTypeId.set(entry.typeId, target);
        if (entry.typeId >= 0n && entry.typeId < 1n << 32n) bySmallId.set(Number(entry.typeId), target);
      }
    }
    if (walked.length > 0) await walk(storage, byTypeId, bySmallId, walked, connection, onProblem);
    await valuesReady;
    // A table filled before with fewer members (or kept so in the cache) is replaced whole, in one transaction.
    for (const staging of made) {
      if (finish !== undefined) {
        await finish(staging);
        continue;
      }
      const table = quoteIdent(staging.plan.typeName);
      await inOneTransaction(connection, async () => {
        await connection.run(`DELETE FROM ${table}`);
        await makeTypeRows(connection, staging.plan, staging.table, decimals, storage.dictionary, (select) => `INSERT INTO ${table} ${select}`, skipped.get(staging.plan), values);
      });
    }
  } finally {
    for (const staging of made) await connection.run(`DROP TABLE IF EXISTS ${staging.table}`).catch(() => undefined);
  }
}

/**
 * The walk of a fill over the latest records of its targets' types, in one transaction: a record
 * of a fixed layout, or of one list alone, appended where it lies (`visit`), any other laid out
 * (`handle`); the appenders of `walked` closed after it.
 */
async function walk(
  storage: Storage,
  byTypeId: ReadonlyMap<bigint, FillTarget>,
  bySmallId: SmallIdMap<FillTarget>,
  walked: readonly Staging[],
  connection: DuckDBConnection,
  onProblem: ((message: string) => void) | undefined,
): Promise<void> {
  const visit: LatestHeaderVisitor = (idLow, idHigh, typeLow, typeHigh, _file, _offset, length, view, contentAt) => {
    const target = typeHigh === 0 ? bySmallId.get(typeLow >>> 0) : undefined;
    return target === undefined || appendWhereItLies(target, view, contentAt, length, idLow, idHigh, typeLow, typeHigh);
  };
  const handle = (record: LatestRecord): void => {
    const target = byTypeId.get(record.typeId);
    if (target === undefined) return;
    let layout: EntityLayout;
    try {
      layout = layoutEntity(target.entry, record.content, { file: record.file, offset: record.offset + 24 });
    } catch (error) {
      if (!isAppError(error)) throw error;
      onProblem?.(error.message);
      return;
    }
    appendEntity(target.staging, target.columns, record, layout);
  };
  // Borrowed read buffers (see table-build.ts).
  await inOneTransaction(connection, async () => {
    try {
      await forEachLatestRecord(storage, new Set(byTypeId.keys()), handle, undefined, true, visit);
    } finally {
      for (const staging of walked) staging.appender.closeSync();
    }
  });
}
