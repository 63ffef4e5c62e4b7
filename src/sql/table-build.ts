import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../errors.js';
import { charsText, layoutEntity, variableElements, type EntityLayout, type MemberValue, type VariableSlot } from '../format/entity-layout.js';
import { channelOf, classifyId } from '../format/ids.js';
import type { TypeEntry } from '../format/type-dictionary.js';
import type { GraphIndex } from '../graph/graph-index.js';
import { forEachLatestRecord, type LatestRecord, type RecordPassProgress } from '../graph/latest-records.js';
import type { Storage } from '../storage/storage.js';
import { planTypeTable, sqlTypeOf, valueKindOfEntry, type TypeTablePlan, type ValueKind } from './column-model.js';
import type { DuckModule } from './duck-module.js';
import { finishTables, type BuiltSchema } from './finish-tables.js';
import { valueOfObject } from './value-records.js';

/**
 * Streams the latest record of every object once into DuckDB through appenders (never row by
 * row SQL): `_objects`, `_values` (the value of every value-type object), `_elements`,
 * `_references`, and one staging table per entity type that finish-tables.ts turns into the
 * type's table. What is kept per type is its plan and one appender; per object nothing.
 */

export interface TableBuildOptions {
  readonly onProgress?: ((progress: RecordPassProgress) => void) | undefined;
  /** Receives one message per unreadable record (file and offset); the rest is still built. */
  readonly onProblem?: ((message: string) => void) | undefined;
}

export interface TableBuildResult extends BuiltSchema {
  readonly objects: number;
  readonly problems: number;
}

export const SYSTEM_TABLES = `
CREATE TABLE _objects (oid BIGINT, type_id BIGINT, type_name VARCHAR, reachable BOOLEAN, bytes BIGINT, channel INTEGER, file VARCHAR, "offset" BIGINT);
CREATE TABLE _values (oid BIGINT, type_id BIGINT, text VARCHAR, int BIGINT, num DOUBLE, bool BOOLEAN, ts TIMESTAMP, dt DATE, tm TIME);
CREATE TABLE _elements (owner BIGINT, position BIGINT, key_text VARCHAR, key_oid BIGINT, value_text VARCHAR, value_oid BIGINT, member VARCHAR);
CREATE TABLE _references (from_oid BIGINT, to_oid BIGINT, member VARCHAR);
`;

/** A type name's staging table with its appender. */
export interface Staging {
  readonly plan: TypeTablePlan;
  readonly table: string;
  readonly appender: DuckDBAppender;
}

interface PerType {
  readonly entry: TypeEntry;
  readonly value: ValueKind | undefined;
  readonly staging: Staging | undefined;
  readonly columns: Int32Array | undefined;
}

export async function buildTables(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined, options: TableBuildOptions = {}): Promise<TableBuildResult> {
  const dictionary = storage.dictionary;
  await connection.run(SYSTEM_TABLES);
  const objects = await connection.createAppender('_objects');
  const values = await connection.createAppender('_values');
  const elements = await connection.createAppender('_elements');
  const references = await connection.createAppender('_references');
  const stagings = new Map<string, Staging>();
  const perType = new Map<bigint, PerType | null>();
  const fileNames = new Map<string, string>();
  let count = 0;
  let problems = 0;

  const typeOf = async (typeId: bigint): Promise<PerType | null> => {
    let known = perType.get(typeId);
    if (known !== undefined) return known;
    const entry = dictionary.byId.get(typeId);
    if (entry === undefined) {
      perType.set(typeId, null);
      return null;
    }
    const value = valueKindOfEntry(entry, dictionary);
    let staging: Staging | undefined;
    if (value === undefined) {
      staging = stagings.get(entry.typeName);
      if (staging === undefined) {
        const plan = planTypeTable(entry.typeName, dictionary.entries.filter((e) => e.typeName === entry.typeName), dictionary);
        const table = `__stage_${stagings.size}`;
        const columns = plan.columns.map((c, i) => `c${i} ${c.role.kind === 'value' ? 'BIGINT' : sqlTypeOf(c.role)}`);
        await connection.run(`CREATE TABLE ${table} (_oid BIGINT, _type_id BIGINT${columns.map((c) => `, ${c}`).join('')})`);
        staging = { plan, table, appender: await connection.createAppender(table) };
        stagings.set(entry.typeName, staging);
      }
    }
    known = { entry, value, staging, columns: staging?.plan.fieldOfColumn.get(typeId) };
    perType.set(typeId, known);
    return known;
  };

  const fileName = (path: string): string => {
    let name = fileNames.get(path);
    if (name === undefined) fileNames.set(path, (name = path.split(/[\\/]/).slice(-2).join('/')));
    return name;
  };

  const handle = async (record: LatestRecord): Promise<void> => {
    count++;
    const type = await typeOf(record.typeId);
    objects.appendBigInt(record.objectId);
    objects.appendBigInt(record.typeId);
    if (type === null) objects.appendNull();
    else objects.appendVarchar(type.entry.typeName);
    const node = graph?.nodes.nodeOfId(record.objectId) ?? -1;
    if (graph === undefined || node < 0) objects.appendNull();
    else objects.appendBoolean(graph.isReachable(node));
    objects.appendBigInt(BigInt(record.content.length + 24));
    objects.appendInteger(channelOf(record.objectId, storage.channels.length));
    objects.appendVarchar(fileName(record.file));
    objects.appendBigInt(BigInt(record.offset));
    objects.endRow();
    if (type === null) return;
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
      appendValue(duck, values, record, layout, type.value, storage);
      return;
    }
    appendEntity(type.staging!, type.columns!, record, layout, elements, references);
  };

  try {
    await forEachLatestRecord(storage, new Set(dictionary.byId.keys()), handle, options.onProgress);
  } finally {
    for (const appender of [objects, values, elements, references, ...[...stagings.values()].map((s) => s.appender)]) appender.closeSync();
  }
  const schema = await finishTables(connection, dictionary, [...stagings.values()], perType);
  return { ...schema, objects: count, problems };
}

function appendValue(duck: DuckModule, values: DuckDBAppender, record: LatestRecord, layout: EntityLayout, kind: ValueKind, storage: Storage): void {
  const value = valueOfObject(layout, kind, storage.dictionary, record.objectId);
  values.appendBigInt(record.objectId);
  values.appendBigInt(record.typeId);
  if (value.text === null) values.appendNull();
  else values.appendVarchar(value.text);
  const typed = value.typed;
  const slot = kind === 'tinyint' || kind === 'smallint' || kind === 'integer' || kind === 'bigint' ? 0 : kind === 'float' || kind === 'double' ? 1 : kind === 'boolean' ? 2 : kind === 'timestamp' ? 3 : kind === 'date' ? 4 : kind === 'time' ? 5 : -1;
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
        values.appendTimestamp(duck.timestampValue(typed as bigint));
        break;
      case 4:
        values.appendDate(duck.dateValue(typed as number));
        break;
      case 5:
        values.appendTime(duck.timeValue(typed as bigint));
        break;
    }
  }
  values.endRow();
}

function appendEntity(staging: Staging, fieldOfColumn: Int32Array, record: LatestRecord, layout: EntityLayout, elements: DuckDBAppender, references: DuckDBAppender): void {
  const appender = staging.appender;
  const view = layout.view;
  appender.appendBigInt(record.objectId);
  appender.appendBigInt(record.typeId);
  const columns = staging.plan.columns;
  for (let c = 0; c < columns.length; c++) {
    const field = fieldOfColumn[c]!;
    const slot = field < 0 ? undefined : layout.slots[field];
    if (slot === undefined) {
      appender.appendNull();
      continue;
    }
    const role = columns[c]!.role;
    const at = slot.offset;
    switch (role.kind) {
      case 'primitive':
        switch (role.type) {
          case 'boolean':
            appender.appendBoolean(view.getUint8(at) !== 0);
            break;
          case 'byte':
            appender.appendTinyInt(view.getInt8(at));
            break;
          case 'short':
            appender.appendSmallInt(view.getInt16(at, true));
            break;
          case 'char':
            appender.appendVarchar(String.fromCharCode(view.getUint16(at, true)));
            break;
          case 'int':
            appender.appendInteger(view.getInt32(at, true));
            break;
          case 'long':
            appender.appendBigInt(view.getBigInt64(at, true));
            break;
          case 'float':
            appender.appendFloat(view.getFloat32(at, true));
            break;
          case 'double':
            appender.appendDouble(view.getFloat64(at, true));
            break;
        }
        break;
      case 'reference':
      case 'value': {
        const id = view.getBigInt64(at, true);
        if (id === 0n) appender.appendNull();
        else {
          appender.appendBigInt(id);
          if (classifyId(id) === 'object') appendReference(references, record.objectId, id, columns[c]!.name);
        }
        break;
      }
      case 'chars': {
        const s = slot as VariableSlot;
        appender.appendVarchar(charsText(view, s.elementsOffset, s.count));
        break;
      }
      case 'bytes': {
        const s = slot as VariableSlot;
        appender.appendBlob(new Uint8Array(view.buffer, view.byteOffset + s.elementsOffset, s.count));
        break;
      }
      case 'list': {
        const s = slot as VariableSlot;
        appender.appendBigInt(BigInt(s.count));
        appendElements(elements, references, record.objectId, columns[c]!.name, layout, s);
        break;
      }
    }
  }
  appender.endRow();
}

function appendReference(references: DuckDBAppender, from: bigint, to: bigint, member: string): void {
  references.appendBigInt(from);
  references.appendBigInt(to);
  references.appendVarchar(member);
  references.endRow();
}

/** Elements in batches, so a list of millions is never decoded at once. */
const ELEMENT_BATCH = 4096;

function appendElements(elements: DuckDBAppender, references: DuckDBAppender, owner: bigint, member: string, layout: EntityLayout, slot: VariableSlot): void {
  const field = slot.field;
  if (field.kind !== 'list') return;
  const pair = field.elements.length === 2;
  for (let from = 0; from < slot.count; from += ELEMENT_BATCH) {
    const batch = variableElements(layout.view, slot, from, Math.min(slot.count, from + ELEMENT_BATCH));
    for (let i = 0; i < batch.length; i++) {
      const element = batch[i]!;
      elements.appendBigInt(owner);
      elements.appendBigInt(BigInt(from + i));
      if (pair && Array.isArray(element)) {
        appendPart(elements, element[0]!);
        appendPart(elements, element[1]!);
      } else {
        elements.appendNull();
        elements.appendNull();
        appendPart(elements, element);
      }
      elements.appendVarchar(member);
      elements.endRow();
      collectReferences(references, owner, member, element);
    }
  }
}

/** A key or value: as text (primitives, texts, nested lists as JSON) and as object id (references). */
function appendPart(elements: DuckDBAppender, value: MemberValue): void {
  if (typeof value === 'bigint') {
    elements.appendNull();
    if (value === 0n) elements.appendNull();
    else elements.appendBigInt(value);
  } else {
    elements.appendVarchar(typeof value === 'string' ? value : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
    elements.appendNull();
  }
}

function collectReferences(references: DuckDBAppender, owner: bigint, member: string, value: MemberValue): void {
  if (typeof value === 'bigint') {
    if (classifyId(value) === 'object') appendReference(references, owner, value, member);
  } else if (Array.isArray(value)) for (const v of value as readonly MemberValue[]) collectReferences(references, owner, member, v);
}
