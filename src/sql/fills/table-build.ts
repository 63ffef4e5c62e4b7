import type { DuckDBConnection } from '@duckdb/node-api';
import { ChunkAppender, inOneTransaction } from '../tables/chunk-appender.js';
import { isAppError } from '../../errors.js';
import { layoutEntity, type EntityLayout } from '../../format/entity-layout.js';
import type { TypeEntry } from '../../format/type-dictionary.js';
import type { GraphIndex } from '../../graph/model/graph-index.js';
import { forEachLatestRecord, type LatestHeaderVisitor, type LatestRecord, type RecordPassProgress } from '../../storage/records/latest-records.js';
import type { Storage } from '../../storage/storage.js';
import { planTypeTable, valueKindOfEntry, type TypeTablePlan, type ValueKind } from '../tables/column-model.js';
import type { DuckModule } from '../duck-module.js';
import { finishTables, type BuiltSchema } from '../tables/finish-tables.js';
import { buildGigaMapTables } from './gigamap-tables.js';
import { LINK_TABLES, type LinkType } from './link-tables.js';
import { OBJECTS_TABLE } from './object-rows.js';
import { COMMITS_TABLE } from './commit-rows.js';
import { appendEntity } from '../tables/entity-rows.js';
import { createStaging, stagedWithBase, type Staging } from '../tables/staging.js';
import { charsOfContent, DecimalShapes, textFromChars } from '../tables/value-records.js';
import { appendText, appendValue, inBaseValues, readNamedValues } from './value-fill.js';

/**
 * Streams the latest record of every object once into DuckDB through appenders (never row by
 * row SQL): `_values` (the value of every value-type object of the types value-fill.ts
 * `inBaseValues` names; the others' when a statement first needs them), and the staging tables of enums
 * and LocalDateTime that finish-tables.ts turns into their tables. Other entity types' records
 * are not decoded here: their tables are made empty and filled when a statement first names them
 * (type-fill.ts); `_objects` (object-rows.ts), `_elements` and `_references` (link-tables.ts)
 * likewise. What is kept per type is its plan and at most one appender; per object nothing.
 */

export interface TableBuildOptions {
  readonly onProgress?: ((progress: RecordPassProgress) => void) | undefined;
  /** Receives one message per unreadable record (file and offset); the rest is still built. */
  readonly onProblem?: ((message: string) => void) | undefined;
  /** Every value type's `_values` rows, not only those the base tables need (value-fill.ts `inBaseValues`). */
  readonly everyValue?: boolean | undefined;
}

export interface TableBuildResult extends BuiltSchema {
  readonly objects: number;
  readonly problems: number;
  /** For the pass that fills `_elements` and `_references` when a statement first names them. */
  readonly linkTypes: ReadonlyMap<bigint, LinkType>;
  /** Entity types (by name) whose tables exist empty until a statement first names them. */
  readonly deferred: ReadonlyMap<string, TypeTablePlan>;
}

/** `_values`, and `_objects` and `_commits` empty until a statement names them (object-rows.ts, commit-rows.ts); the empty link tables come after the pass. */
export const SYSTEM_TABLES = `${OBJECTS_TABLE}
${COMMITS_TABLE}
CREATE TABLE _values (oid BIGINT, type_id BIGINT, text VARCHAR, int BIGINT, num DOUBLE, bool BOOLEAN, ts TIMESTAMP, dt DATE, tm TIME);
`;

/** What the pass knows of a type id: a value type's kind, or an entity type's plan and (made with the base tables) staging. */
interface PerType {
  readonly entry: TypeEntry;
  readonly value: ValueKind | undefined;
  readonly plan: TypeTablePlan | undefined;
  readonly staging: Staging | undefined;
  readonly columns: Int32Array | undefined;
  /** A String or BigDecimal: its text made where its record lies (value-records.ts `textFromChars`). */
  readonly fromChars: ((chars: string) => string) | undefined;
  /** A value type whose rows are made when a statement first needs them (value-fill.ts): passed over here. */
  readonly later: boolean;
}

export async function buildTables(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined, options: TableBuildOptions = {}): Promise<TableBuildResult> {
  const dictionary = storage.dictionary;
  await connection.run(SYSTEM_TABLES);
  const values = new ChunkAppender(duck, await connection.createAppender('_values'));
  const stagings = new Map<string, Staging>();
  /** Entity types whose tables are filled when a statement first names them. */
  const deferred = new Map<string, TypeTablePlan>();
  const perType = new Map<bigint, PerType | null>();
  /** `perType` of the type ids below 2^32 by number: what the header visitor asks per record. */
  const perSmallType = new Map<number, PerType | null>();
  const shapes = new DecimalShapes();
  let problems = 0;
  /** Current objects of the dictionary's types (what `_objects` will hold). */
  let objects = 0;

  const typeOf = async (typeId: bigint): Promise<PerType | null> => {
    let known = perType.get(typeId);
    if (known !== undefined) return known;
    const entry = dictionary.byId.get(typeId);
    if (entry === undefined) {
      remember(typeId, null);
      return null;
    }
    const value = valueKindOfEntry(entry, dictionary);
    let staging: Staging | undefined;
    let plan: TypeTablePlan | undefined;
    if (value === undefined) {
      staging = stagings.get(entry.typeName);
      plan = staging?.plan ?? deferred.get(entry.typeName);
      if (plan === undefined) {
        plan = planTypeTable(entry.typeName, dictionary.entries.filter((e) => e.typeName === entry.typeName), dictionary);
        if (stagedWithBase(plan)) {
          staging = await createStaging(duck, connection, plan, `__stage_${stagings.size}`);
          stagings.set(entry.typeName, staging);
        } else deferred.set(entry.typeName, plan);
      }
    }
    known = { entry, value, plan, staging, columns: plan?.fieldOfColumn.get(typeId), fromChars: value === 'text' || value === 'decimal' ? textFromChars(entry) : undefined, later: value !== undefined && options.everyValue !== true && !inBaseValues(entry.typeName, value) };
    remember(typeId, known);
    return known;
  };
  const remember = (typeId: bigint, type: PerType | null): void => {
    perType.set(typeId, type);
    if (typeId >= 0n && typeId < 1n << 32n) perSmallType.set(Number(typeId), type);
  };

  /**
   * Only value types and staged entities are decoded, Strings and BigDecimals right here, where
   * their record lies, without a record object, bigint or layout (10M objects: base tables 8.5
   * -> 6.0-6.2 s); every other record is passed over having been counted.
   */
  const visit: LatestHeaderVisitor = (idLow, idHigh, typeLow, typeHigh, _file, _offset, length, view, contentAt) => {
    objects++;
    const type = typeHigh === 0 ? perSmallType.get(typeLow >>> 0) : undefined;
    // A type not met yet (or a type id of 2^32 and more) goes to the handler, which learns it.
    if (type === undefined) return true;
    if (type === null || type.later) return false;
    if (type.fromChars !== undefined) {
      const chars = charsOfContent(view, contentAt, length - 24);
      // Not the usual shape: the handler's layout says what is wrong with it.
      if (chars === undefined) return true;
      let text: string;
      try {
        text = type.fromChars(chars);
      } catch {
        return true; // a text Java cannot read as a number: the handler's renderer decides
      }
      if (type.value === 'decimal') shapes.note(type.entry.typeName, text);
      appendText(values, idLow, idHigh, typeLow, typeHigh, text);
      return false;
    }
    return type.value !== undefined || type.staging !== undefined;
  };

  const handle = (record: LatestRecord): Promise<void> | void => {
    const known = perType.get(record.typeId);
    if (known === undefined) return typeOf(record.typeId).then((type) => append(record, type));
    append(record, known);
  };

  const append = (record: LatestRecord, type: PerType | null): void => {
    // An entity whose table is filled later is not decoded now (type-fill.ts does, and reports its problems).
    if (type === null || type.later || (type.value === undefined && type.staging === undefined)) return;
    let layout: EntityLayout;
    try {
      layout = layoutEntity(type.entry, record.content, { file: record.file, offset: record.offset + 24 });
    } catch (error) {
      if (!isAppError(error)) throw error;
      problems++;
      options.onProblem?.(error.message);
      return;
    }
    if (type.value !== undefined) {
      appendValue(values, record, layout, type.value, storage.dictionary, shapes);
      return;
    }
    appendEntity(type.staging!, type.columns!, record, layout);
  };

  await inOneTransaction(connection, async () => {
    try {
      // Every record is appended (texts made, blobs copied) before its handler settles: borrowed.
      await forEachLatestRecord(storage, new Set(dictionary.byId.keys()), handle, options.onProgress, true, visit);
    } finally {
      for (const appender of [values, ...[...stagings.values()].map((s) => s.appender)]) appender.closeSync();
    }
  });
  // The values the enum and LocalDateTime tables name that the pass left for later (an enum constant's name: a String).
  const named = await namedLaterValues(connection, [...stagings.values()]);
  await readNamedValues(duck, connection, storage, named, (message) => {
    problems++;
    options.onProblem?.(message);
  });
  await connection.run(LINK_TABLES);
  try {
    await buildGigaMapTables(duck, connection, storage, graph);
  } catch (error) {
    if (!isAppError(error)) throw error;
    problems++;
    options.onProblem?.(error.message);
  }
  const schema = await finishTables(connection, [...stagings.values()], [...deferred.values()], perType, shapes, dictionary);
  // Their rows served the enum and LocalDateTime tables just made; their types' own pass makes them again (not twice).
  if (named.length > 0) await connection.run(`DELETE FROM _values WHERE oid IN (${named.join(', ')})`);
  const linkTypes = new Map<bigint, LinkType>();
  for (const [typeId, t] of perType) if (t !== null && t.plan !== undefined && t.columns !== undefined) linkTypes.set(typeId, { entry: t.entry, plan: t.plan, fieldOfColumn: t.columns });
  return { ...schema, objects, problems, linkTypes, deferred };
}

/** The objects the staged tables' value members name that `_values` lacks (enums have a few constants each). */
async function namedLaterValues(connection: DuckDBConnection, stagings: readonly Staging[]): Promise<bigint[]> {
  const selects: string[] = [];
  for (const staging of stagings) staging.plan.columns.forEach((column, i) => column.role.kind === 'value' && selects.push(`SELECT c${i} AS oid FROM ${staging.table}`));
  if (selects.length === 0) return [];
  const reader = await connection.runAndReadAll(`SELECT DISTINCT oid FROM (${selects.join(' UNION ALL ')}) WHERE oid IS NOT NULL AND oid NOT IN (SELECT oid FROM _values) ORDER BY oid`);
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
