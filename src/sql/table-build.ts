import type { DuckDBConnection } from '@duckdb/node-api';
import { ChunkAppender } from './chunk-appender.js';
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
import { buildGigaMapTables } from './gigamap-tables.js';
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

/**
 * The pass appends to staging tables whose repeated texts (type name, file, member) are small
 * integer codes: a text costs one native call per value, a code none (see chunk-appender.ts).
 * `finishSystemTables` turns them into the tables users see, inside DuckDB.
 */
export const SYSTEM_TABLES = `
CREATE TABLE __objects (oid BIGINT, type_id BIGINT, reachable BOOLEAN, bytes BIGINT, channel INTEGER, file INTEGER, "offset" BIGINT);
CREATE TABLE _values (oid BIGINT, type_id BIGINT, text VARCHAR, int BIGINT, num DOUBLE, bool BOOLEAN, ts TIMESTAMP, dt DATE, tm TIME);
CREATE TABLE __elements (owner BIGINT, position BIGINT, key_text VARCHAR, key_oid BIGINT, value_text VARCHAR, value_oid BIGINT, member INTEGER);
CREATE TABLE __references (from_oid BIGINT, to_oid BIGINT, member INTEGER);
CREATE TABLE __names (kind VARCHAR, code INTEGER, name VARCHAR);
CREATE TABLE __types (type_id BIGINT, type_name VARCHAR);
`;

/** The users' `_objects`, `_elements`, `_references` from the staging tables and their codes. */
export const FINISH_SYSTEM_TABLES = `
CREATE TABLE _objects AS SELECT o.oid, o.type_id, t.type_name, o.reachable, o.bytes, o.channel, f.name AS file, o."offset" FROM __objects o LEFT JOIN __types t ON t.type_id = o.type_id LEFT JOIN (SELECT code, name FROM __names WHERE kind = 'file') f ON f.code = o.file;
DROP TABLE __objects;
CREATE TABLE _elements AS SELECT e.owner, e.position, e.key_text, e.key_oid, e.value_text, e.value_oid, m.name AS member FROM __elements e LEFT JOIN (SELECT code, name FROM __names WHERE kind = 'member') m ON m.code = e.member;
DROP TABLE __elements;
CREATE TABLE _references AS SELECT r.from_oid, r.to_oid, m.name AS member FROM __references r LEFT JOIN (SELECT code, name FROM __names WHERE kind = 'member') m ON m.code = r.member;
DROP TABLE __references;
DROP TABLE __names;
DROP TABLE __types;
`;

/** Small integer codes for repeated texts, written to `__names` at the end. */
class Codes {
  readonly byName = new Map<string, number>();
  constructor(readonly kind: string) {}
  of(name: string): number {
    let code = this.byName.get(name);
    if (code === undefined) this.byName.set(name, (code = this.byName.size));
    return code;
  }
}

/** A type name's staging table with its appender. */
export interface Staging {
  readonly plan: TypeTablePlan;
  readonly table: string;
  readonly appender: ChunkAppender;
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
  const objects = new ChunkAppender(duck, await connection.createAppender('__objects'));
  const values = new ChunkAppender(duck, await connection.createAppender('_values'));
  const members = new Codes('member');
  const files = new Codes('file');
  const elements = new ChunkAppender(duck, await connection.createAppender('__elements'));
  const references = new ChunkAppender(duck, await connection.createAppender('__references'));
  const stagings = new Map<string, Staging>();
  const perType = new Map<bigint, PerType | null>();
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
        staging = { plan, table, appender: new ChunkAppender(duck, await connection.createAppender(table)) };
        stagings.set(entry.typeName, staging);
      }
    }
    known = { entry, value, staging, columns: staging?.plan.fieldOfColumn.get(typeId) };
    perType.set(typeId, known);
    return known;
  };

  const fileCode = (path: string): number => files.of(path);

  const handle = async (record: LatestRecord): Promise<void> => {
    count++;
    const type = await typeOf(record.typeId);
    objects.appendBigInt(record.objectId);
    objects.appendBigInt(record.typeId);
    const node = graph?.nodes.nodeOfId(record.objectId) ?? -1;
    if (graph === undefined || node < 0) objects.appendNull();
    else objects.appendBoolean(graph.isReachable(node));
    objects.appendBigInt(BigInt(record.content.length + 24));
    objects.appendInteger(channelOf(record.objectId, storage.channels.length));
    objects.appendInteger(fileCode(record.file));
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
    appendEntity(type.staging!, type.columns!, record, layout, elements, references, members);
  };

  try {
    await forEachLatestRecord(storage, new Set(dictionary.byId.keys()), handle, options.onProgress);
  } finally {
    for (const appender of [objects, values, elements, references, ...[...stagings.values()].map((s) => s.appender)]) appender.closeSync();
  }
  const names = new ChunkAppender(duck, await connection.createAppender('__names'));
  for (const codes of [members, files]) {
    for (const [name, code] of codes.byName) {
      names.appendVarchar(codes.kind);
      names.appendInteger(code);
      names.appendVarchar(codes === files ? name.split(/[\\/]/).slice(-2).join('/') : name);
      names.endRow();
    }
  }
  names.closeSync();
  const types = new ChunkAppender(duck, await connection.createAppender('__types'));
  for (const entry of dictionary.entries) {
    types.appendBigInt(entry.typeId);
    types.appendVarchar(entry.typeName);
    types.endRow();
  }
  types.closeSync();
  await connection.run(FINISH_SYSTEM_TABLES);
  try {
    await buildGigaMapTables(duck, connection, storage, graph);
  } catch (error) {
    if (!isAppError(error)) throw error;
    problems++;
    options.onProblem?.(error.message);
  }
  const schema = await finishTables(connection, dictionary, [...stagings.values()], perType);
  return { ...schema, objects: count, problems };
}

function appendValue(duck: DuckModule, values: ChunkAppender, record: LatestRecord, layout: EntityLayout, kind: ValueKind, storage: Storage): void {
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

function appendEntity(staging: Staging, fieldOfColumn: Int32Array, record: LatestRecord, layout: EntityLayout, elements: ChunkAppender, references: ChunkAppender, members: Codes): void {
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
          if (classifyId(id) === 'object') appendReference(references, record.objectId, id, members.of(columns[c]!.name));
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
        appendElements(elements, references, record.objectId, members.of(columns[c]!.name), layout, s);
        break;
      }
    }
  }
  appender.endRow();
}

function appendReference(references: ChunkAppender, from: bigint, to: bigint, member: number): void {
  references.appendBigInt(from);
  references.appendBigInt(to);
  references.appendInteger(member);
  references.endRow();
}

/** Elements in batches, so a list of millions is never decoded at once. */
const ELEMENT_BATCH = 4096;

function appendElements(elements: ChunkAppender, references: ChunkAppender, owner: bigint, member: number, layout: EntityLayout, slot: VariableSlot): void {
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
      elements.appendInteger(member);
      elements.endRow();
      collectReferences(references, owner, member, element);
    }
  }
}

/** A key or value: as text (primitives, texts, nested lists as JSON) and as object id (references). */
function appendPart(elements: ChunkAppender, value: MemberValue): void {
  if (typeof value === 'bigint') {
    elements.appendNull();
    if (value === 0n) elements.appendNull();
    else elements.appendBigInt(value);
  } else {
    elements.appendVarchar(typeof value === 'string' ? value : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
    elements.appendNull();
  }
}

function collectReferences(references: ChunkAppender, owner: bigint, member: number, value: MemberValue): void {
  if (typeof value === 'bigint') {
    if (classifyId(value) === 'object') appendReference(references, owner, value, member);
  } else if (Array.isArray(value)) for (const v of value as readonly MemberValue[]) collectReferences(references, owner, member, v);
}
