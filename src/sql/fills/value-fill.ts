import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../../errors.js';
import { charsText, layoutEntity, type EntityLayout } from '../../format/entity-layout.js';
import type { TypeDictionary, TypeEntry } from '../../format/type-dictionary.js';
import { forEachLatestRecord, type LatestHeaderVisitor, type LatestRecord } from '../../storage/records/latest-records.js';
import { SmallIdMap, smallIdsOf } from '../../storage/records/small-id-table.js';
import type { Storage } from '../../storage/storage.js';
import { ChunkAppender, inOneTransaction } from '../tables/chunk-appender.js';
import { valueKindOfEntry, valueTypeIdsOf, type ValueKind } from '../tables/column-model.js';
import type { DuckModule } from '../duck-module.js';
import { charsOfContent, textFromChars, valueOfObject, type DecimalShapes } from '../tables/value-records.js';

/**
 * The rows of `_values` by value type. The base pass (table-build.ts) decodes only the value
 * types the base tables cannot do without (`inBaseValues`): big numbers, whose texts decide their
 * columns' DECIMAL type before any type table exists, and LocalDate and LocalTime, of which
 * LocalDateTime is made. Every other value type (String above all: 2.25M of the 4.5M value
 * objects of the generated 10M-entity storage) is decoded by `fillValueTypes` when a statement
 * first needs it (a type column it names can hold it, its own view, `_values`, the link tables);
 * the few values the enum and LocalDateTime tables name (an enum constant's name) are read one by
 * one (`readNamedValues`) and removed again once those tables are made (table-build.ts), so that
 * their types' own pass does not make them twice.
 */

/**
 * Declared types whose members hold no value made after the build: big numbers are made by the
 * build, and no other value type extends them (a class of the application's that does is an
 * entity, without `_values` rows). Other non-final declared types (`Date`, `Number`) may hold
 * other value types, so all of them are made first.
 */
const NO_LATER_VALUES = new Set(['java.math.BigDecimal', 'java.math.BigInteger']);

/**
 * The value types whose rows a value member declared `declared` may join (base ones among them,
 * made anyway); undefined: any of them.
 */
export function valuesOfMember(declared: string, dictionary: TypeDictionary): readonly bigint[] | undefined {
  return NO_LATER_VALUES.has(declared) ? [] : valueTypeIdsOf(declared, dictionary);
}

/** Whether a value type's rows are made by the base pass. */
export function inBaseValues(typeName: string, kind: ValueKind): boolean {
  return kind === 'decimal' || typeName === 'java.time.LocalDate' || typeName === 'java.time.LocalTime';
}

/** Every value type of the dictionary, by type id, with its kind. */
export function valueTypesOf(dictionary: TypeDictionary): Map<bigint, { entry: TypeEntry; kind: ValueKind }> {
  const out = new Map<bigint, { entry: TypeEntry; kind: ValueKind }>();
  for (const entry of dictionary.byId.values()) {
    const kind = valueKindOfEntry(entry, dictionary);
    if (kind !== undefined) out.set(entry.typeId, { entry, kind });
  }
  return out;
}

/** The `_values` rows of the value types `typeIds` (none of them filled yet), in one pass and one transaction. */
export async function fillValueTypes(duck: DuckModule, connection: DuckDBConnection, storage: Storage, typeIds: ReadonlySet<bigint>, onProblem?: (message: string) => void): Promise<void> {
  if (typeIds.size === 0) return;
  const dictionary = storage.dictionary;
  const types = new Map<bigint, { entry: TypeEntry; kind: ValueKind; fromChars: ((chars: string) => string) | undefined }>();
  const bySmallId = new SmallIdMap<{ fromChars: ((chars: string) => string) | undefined }>(smallIdsOf(dictionary.byId.keys()));
  for (const typeId of typeIds) {
    const entry = dictionary.byId.get(typeId);
    const kind = entry === undefined ? undefined : valueKindOfEntry(entry, dictionary);
    if (entry === undefined || kind === undefined) continue;
    const type = { entry, kind, fromChars: kind === 'text' || kind === 'decimal' ? textFromChars(entry) : undefined };
    types.set(typeId, type);
    if (typeId >= 0n && typeId < 1n << 32n) bySmallId.set(Number(typeId), type);
  }
  await inOneTransaction(connection, async () => {
    const values = new ChunkAppender(duck, await connection.createAppender('_values'));
    // Strings (and the like) are made where their record lies, as in the base pass.
    const visit: LatestHeaderVisitor = (idLow, idHigh, typeLow, typeHigh, _file, _offset, length, view, contentAt) => {
      const fromChars = typeHigh === 0 ? bySmallId.get(typeLow >>> 0)?.fromChars : undefined;
      if (fromChars === undefined) return true;
      const chars = charsOfContent(view, contentAt, length - 24);
      if (chars === undefined) return true;
      let text: string;
      try {
        text = fromChars(chars);
      } catch {
        return true;
      }
      appendText(values, idLow, idHigh, typeLow, typeHigh, text);
      return false;
    };
    const handle = (record: LatestRecord): void => {
      const type = types.get(record.typeId);
      if (type === undefined) return;
      const layout = layoutOrProblem(type.entry, record, onProblem);
      if (layout !== undefined) appendValue(values, record, layout, type.kind, dictionary);
    };
    try {
      // Borrowed read buffers: every record is appended before its handler returns.
      await forEachLatestRecord(storage, new Set(types.keys()), handle, undefined, true, visit);
    } finally {
      values.closeSync();
    }
});
}

/**
 * The `_values` rows of the objects `oids` that `_values` lacks and that are of a value type not
 * filled by the base pass, each read by itself (an enum constant's name: a few per enum).
 */
export async function readNamedValues(duck: DuckModule, connection: DuckDBConnection, storage: Storage, oids: readonly bigint[], onProblem?: (message: string) => void): Promise<void> {
  if (oids.length === 0) return;
  const dictionary = storage.dictionary;
  const values = new ChunkAppender(duck, await connection.createAppender('_values'));
  try {
    for (const oid of oids) {
      const record = await storage.readEntity(oid);
      const entry = record === undefined ? undefined : dictionary.byId.get(record.typeId);
      const kind = entry === undefined ? undefined : valueKindOfEntry(entry, dictionary);
      if (record === undefined || entry === undefined || kind === undefined || inBaseValues(entry.typeName, kind)) continue;
      const layout = layoutOrProblem(entry, record, onProblem);
      if (layout !== undefined) appendValue(values, { objectId: record.objectId, typeId: record.typeId }, layout, kind, dictionary);
    }
  } finally {
    values.closeSync();
  }
}

function layoutOrProblem(entry: TypeEntry, record: Pick<LatestRecord, 'content' | 'file' | 'offset'>, onProblem: ((message: string) => void) | undefined): EntityLayout | undefined {
  try {
    return layoutEntity(entry, record.content, { file: record.file, offset: record.offset + 24 });
  } catch (error) {
    if (!isAppError(error)) throw error;
    onProblem?.(error.message);
    return undefined;
  }
}

/** A value object's `_values` row from its layout (or, for a text alone, a row of a table of `_values`' first three columns). */
export function appendValue(values: ChunkAppender, record: { readonly objectId: bigint; readonly typeId: bigint }, layout: EntityLayout, kind: ValueKind, dictionary: TypeDictionary, shapes?: DecimalShapes): void {
  const value = valueOfObject(layout, kind, dictionary, record.objectId);
  if (kind === 'decimal' && value.text !== null) shapes?.note(layout.entry.typeName, value.text);
  values.appendBigInt(record.objectId);
  values.appendBigInt(record.typeId);
  if (value.text === null) values.appendNull();
  else values.appendVarchar(value.text);
  const typed = value.typed;
  const slot = kind === 'tinyint' || kind === 'smallint' || kind === 'integer' || kind === 'bigint' ? 0 : kind === 'float' || kind === 'double' ? 1 : kind === 'boolean' ? 2 : kind === 'timestamp' ? 3 : kind === 'date' ? 4 : kind === 'time' ? 5 : -1;
  // A text alone (a String, a big number): the big numbers' staging table has no typed columns.
  if (slot < 0 || typed === null) {
    values.appendNullsToEnd();
    values.endRow();
    return;
  }
  for (let i = 0; i < 6; i++) {
    if (i !== slot || typed === null) {
      values.appendNull();
      continue;
    }
    switch (i) {
      case 0:
        values.appendBigInt(typed as bigint);
        break;
      case 1:
        values.appendDouble(typed as number);
        break;
      case 2:
        values.appendBoolean(typed as boolean);
        break;
      case 3:
        values.appendTimestamp(typed as bigint);
        break;
      case 4:
        values.appendDate(typed as number);
        break;
      case 5:
        values.appendTime(typed as bigint);
        break;
    }
  }
  values.endRow();
}

/** A `_values` row of a text of ASCII characters where a record lies (value-records.ts `plainDecimalAt` found them), as `appendText` makes it. */
export function appendPlainText(values: ChunkAppender, idLow: number, idHigh: number, typeLow: number, typeHigh: number, view: DataView, at: number, count: number): void {
  values.appendBigIntHalves(idLow, idHigh);
  values.appendBigIntHalves(typeLow, typeHigh);
  if (count <= 12) values.appendAsciiUnits(view, at, count);
  else values.appendVarchar(charsText(view, at, count));
  values.appendNullsToEnd();
  values.endRow();
}

/** A text value's `_values` row (the typed columns NULL, where the table has them), as `appendValue` makes it for a String or BigDecimal. */
export function appendText(values: ChunkAppender, idLow: number, idHigh: number, typeLow: number, typeHigh: number, text: string): void {
  values.appendBigIntHalves(idLow, idHigh);
  values.appendBigIntHalves(typeLow, typeHigh);
  values.appendVarchar(text);
  values.appendNullsToEnd();
  values.endRow();
}
