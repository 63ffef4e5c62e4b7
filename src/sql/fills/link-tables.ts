import type { DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../../errors.js';
import { layoutEntity, primitiveText, variableElements, type EntityLayout, type MemberValue, type VariableSlot } from '../../format/entity-layout.js';
import { classifyId, isObjectIdHalves } from '../../format/ids.js';
import { forEachLatestRecord, type LatestHeaderVisitor, type LatestRecord, type LatestRecordsSource } from '../../storage/records/latest-records.js';
import { SmallIdMap, smallIdsOf } from '../../storage/records/small-id-table.js';
import type { Storage } from '../../storage/storage.js';
import { ChunkAppender, inOneTransaction } from '../tables/chunk-appender.js';
import type { TypeTablePlan } from '../tables/column-model.js';
import type { DuckModule } from '../duck-module.js';
import { fixedLayoutFor, singleListCount, type FixedLayout } from '../tables/entity-rows.js';
import type { LinkRowSink, LinkRowSinks, LinkType } from './link-types.js';
import { appendPrimitiveArray, appendReferenceElements, BYTE_TEXTS, primitiveArrayTypes, type PrimitiveArrayType } from './link-element-rows.js';

/**
 * `_references` and `_elements`, built by a pass of their own over the entity records when a
 * statement first names them (half of what a build appends is theirs; most statements never
 * need them). Elements that are texts or primitives (every element of a primitive array: most of
 * the rows) go straight into `_elements`; those naming an object are staged with members as small
 * integer codes and get the texts of value objects (a String in a list) from `_values` inside
 * DuckDB. `_references` is appended as it is.
 */

export type { LinkRowSink, LinkRowSinks, LinkType } from './link-types.js';

/** The two tables' definitions (an export writes the same columns: link-parquet.ts). */
export const LINK_TABLES = `
CREATE TABLE _elements (owner BIGINT, position BIGINT, key_text VARCHAR, key_oid BIGINT, value_text VARCHAR, value_oid BIGINT, member VARCHAR);
CREATE TABLE _references (from_oid BIGINT, to_oid BIGINT, member VARCHAR);
`;

/**
 * Fills `_elements` and `_references` through DuckDB's appender (an export writes them as
 * Parquet instead: link-parquet.ts). The texts of value objects come from `_values`.
 */
export async function buildLinkTables(duck: DuckModule, connection: DuckDBConnection, storage: Storage, types: ReadonlyMap<bigint, LinkType>): Promise<void> {
  const appender = (table: string) => connection.createAppender(table);
  await connection.run(`
CREATE OR REPLACE TABLE __elements (owner BIGINT, position BIGINT, key_text VARCHAR, key_oid BIGINT, value_text VARCHAR, value_oid BIGINT, member INTEGER);
CREATE OR REPLACE TABLE __members (code INTEGER, name VARCHAR);`);
  const sinks = {
    direct: new ChunkAppender(duck, await appender('_elements')),
    staged: new ChunkAppender(duck, await appender('__elements')),
    // References go straight into their table, the member by name (most names fit in a string
    // slot, no native call): no staging table to compress and copy again.
    references: new ChunkAppender(duck, await appender('_references')),
  };
  await inOneTransaction(connection, async () => {
    let members: ReadonlyMap<string, number>;
    try {
      members = await linkPass(storage, types, sinks);
    } finally {
      sinks.direct.closeSync();
      sinks.staged.closeSync();
      sinks.references.closeSync();
    }
    const names = new ChunkAppender(duck, await appender('__members'));
    for (const [name, code] of members) {
      names.appendInteger(code);
      names.appendVarchar(name);
      names.endRow();
    }
    names.closeSync();
  });
  await connection.run(`
INSERT INTO _elements ${stagedElementsSelect('__elements', '__members')};
DROP TABLE __elements;
DROP TABLE __members;`);
}

/**
 * `_elements`' rows of the staged elements (`staged`, members as codes named in `members`), the
 * texts of the value objects they name taken from `_values`.
 */
export function stagedElementsSelect(staged: string, members: string): string {
  return `WITH texts AS MATERIALIZED (SELECT oid, any_value(text) AS text FROM _values WHERE oid IN (SELECT key_oid FROM ${staged} UNION SELECT value_oid FROM ${staged}) GROUP BY oid)
  SELECT e.owner, e.position, coalesce(e.key_text, k.text) AS key_text, e.key_oid, coalesce(e.value_text, v.text) AS value_text, e.value_oid, m.name AS member
  FROM ${staged} e LEFT JOIN ${members} m ON m.code = e.member LEFT JOIN texts k ON k.oid = e.key_oid LEFT JOIN texts v ON v.oid = e.value_oid`;
}

/** The pass over the entity records: every link row into `sinks`; the staged rows' member codes, by name. */
export async function linkPass(storage: LatestRecordsSource, types: ReadonlyMap<bigint, LinkType>, sinks: LinkRowSinks): Promise<ReadonlyMap<string, number>> {
  const pass = linkRecordPass(types, sinks, memberCodesOf(types));
  await forEachLatestRecord(storage, pass.typeIds, pass.handle, undefined, true, pass.visit);
  return pass.members;
}

/**
 * The staged rows' member codes, by name: every column name of the types' plans numbered in the
 * order of `types`, so that passes over parts of the files (in other threads) agree.
 */
export function memberCodesOf(types: ReadonlyMap<bigint, LinkType>): Map<string, number> {
  const members = new Map<string, number>();
  for (const type of types.values()) for (const column of type.plan.columns) if (!members.has(column.name)) members.set(column.name, members.size);
  return members;
}

/** What `forEachLatestRecord` is given for the link pass over some files. */
export interface LinkRecordPass {
  readonly typeIds: ReadonlySet<bigint>;
  readonly handle: (record: LatestRecord) => void;
  readonly visit: LatestHeaderVisitor;
  readonly members: ReadonlyMap<string, number>;
}

/** The link pass's record handlers, writing every link row into `sinks`, staged members coded by `members`. */
export function linkRecordPass(types: ReadonlyMap<bigint, LinkType>, sinks: LinkRowSinks, members: Map<string, number>): LinkRecordPass {
  const references = sinks.references;
  const codesOf = new Map<TypeTablePlan, Int32Array>();
  const memberCodes = (plan: TypeTablePlan): Int32Array => {
    let codes = codesOf.get(plan);
    if (codes === undefined) {
      codes = new Int32Array(plan.columns.length);
      plan.columns.forEach((c, i) => {
        let code = members.get(c.name);
        if (code === undefined) members.set(c.name, (code = members.size));
        codes![i] = code;
      });
      codesOf.set(plan, codes);
    }
    return codes;
  };
  // Versions of a fixed layout (references and primitives only): their references are read where the record lies.
  const fixedOf = new Map<number, { type: LinkType; fixed: FixedLayout; references: Int32Array; names: string[] }>();
  for (const [typeId, type] of types) {
    const fixed = fixedLayoutFor(type.entry, type.plan, type.fieldOfColumn);
    if (fixed === undefined || typeId < 0n || typeId >= 1n << 32n) continue;
    const columns = type.plan.columns.map((_c, i) => i).filter((i) => type.fieldOfColumn[i]! >= 0 && type.plan.columns[i]!.role.kind !== 'primitive');
    fixedOf.set(Number(typeId), {
      type,
      fixed,
      references: Int32Array.from(columns, (c) => fixed.offsets[type.fieldOfColumn[c]!]!),
      names: columns.map((c) => type.plan.columns[c]!.name),
    });
  }
  const arrays = primitiveArrayTypes(types);
  const lists = referenceListTypes(types, memberCodes);
  // What the visitor does with a type id, in one lookup by index per record (small-id-table.ts), not three hashed ones.
  const shapes = new SmallIdMap<LinkShape>(smallIdsOf(types.keys()));
  for (const typeId of new Set([...arrays.keys(), ...lists.keys(), ...fixedOf.keys()])) shapes.set(typeId, { array: arrays.get(typeId), list: lists.get(typeId), fixed: fixedOf.get(typeId) });
  const visit: LatestHeaderVisitor = (idLow, idHigh, typeLow, typeHigh, _file, _offset, length, view, contentAt) => {
    const shape = typeHigh === 0 ? shapes.get(typeLow >>> 0) : undefined;
    if (shape === undefined) return true;
    {
      const array = shape.array;
      if (array !== undefined) return !appendPrimitiveArray(sinks.direct, array, idLow, idHigh, view, contentAt, length - 24);
      const list = shape.list;
      if (list !== undefined) {
        // Another shape: the general path passes it over as the tables' pass reported it.
        const count = singleListCount(view, contentAt, length - 24, list.size);
        if (count < 0) return true;
        for (let c = 0; c < list.codes.length; c++) appendReferenceElements(sinks.staged, references, idLow, idHigh, list.codes[c]!, list.names[c]!, view, contentAt + 16, count, list.size, list.pair);
        return false;
      }
    }
    const known = shape.fixed;
    // Another length: the general path passes it over as the tables' pass reported it.
    if (known === undefined || length - 24 !== known.fixed.length) return true;
    for (let r = 0; r < known.references.length; r++) {
      const at = contentAt + known.references[r]!;
      const low = view.getInt32(at, true);
      const high = view.getInt32(at + 4, true);
      if (!isObjectIdHalves(low, high)) continue;
      references.appendBigIntHalves(idLow, idHigh);
      references.appendBigIntHalves(low, high);
      references.appendVarchar(known.names[r]!);
      references.endRow();
    }
    return false;
  };
  const handle = (record: LatestRecord): void => {
    const type = types.get(record.typeId);
    if (type === undefined) return;
    let layout: EntityLayout;
    try {
      layout = layoutEntity(type.entry, record.content, { file: record.file, offset: record.offset + 24 });
    } catch (error) {
      // Counted and reported by the tables' own pass already.
      if (isAppError(error)) return;
      throw error;
    }
    const codes = memberCodes(type.plan);
    const columns = type.plan.columns;
    for (let c = 0; c < columns.length; c++) {
      const field = type.fieldOfColumn[c]!;
      const slot = field < 0 ? undefined : layout.slots[field];
      if (slot === undefined) continue;
      const kind = columns[c]!.role.kind;
      if (kind === 'reference' || kind === 'value') {
        const id = layout.view.getBigInt64(slot.offset, true);
        if (id !== 0n && classifyId(id) === 'object') appendReference(references, record.objectId, id, columns[c]!.name);
      } else if (kind === 'list') appendElements(sinks, references, record.objectId, codes[c]!, columns[c]!.name, layout, slot as VariableSlot);
    }
  };
  return { typeIds: new Set(types.keys()), handle, visit, members };
}

/** What the link pass's header visitor does with a type id's records: at most one of the three is there (an array before a list before a fixed layout). */
interface LinkShape {
  readonly array: PrimitiveArrayType | undefined;
  readonly list: ReferenceListType | undefined;
  readonly fixed: { readonly fixed: FixedLayout; readonly references: Int32Array; readonly names: readonly string[] } | undefined;
}

interface ReferenceListType {
  readonly pair: boolean;
  readonly size: number;
  readonly codes: number[];
  readonly names: string[];
}

/**
 * The types (ids below 2^32) whose one member is a list of one reference or a pair of references
 * each (an ArrayList's, a HashMap's entries) and whose every column filled is that list: their
 * rows are `appendReferenceElements`' for each such column, read where the record lies (at 10M
 * objects 1M HashMaps, each a record object, bigints and a layout on the general path).
 */
function referenceListTypes(types: ReadonlyMap<bigint, LinkType>, memberCodes: (plan: TypeTablePlan) => Int32Array): Map<number, { pair: boolean; size: number; codes: number[]; names: string[] }> {
  const out = new Map<number, { pair: boolean; size: number; codes: number[]; names: string[] }>();
  for (const [typeId, { entry, plan, fieldOfColumn }] of types) {
    if (typeId < 0n || typeId >= 1n << 32n || entry.fields.length !== 1) continue;
    const field = entry.fields[0]!;
    if (field.kind !== 'list' || (field.elements.length !== 1 && field.elements.length !== 2) || !field.elements.every((e) => e.kind === 'reference')) continue;
    const columns = plan.columns.map((_c, i) => i).filter((i) => fieldOfColumn[i]! >= 0);
    if (columns.some((c) => plan.columns[c]!.role.kind !== 'list')) continue;
    const codes = memberCodes(plan);
    out.set(Number(typeId), { pair: field.elements.length === 2, size: 8 * field.elements.length, codes: columns.map((c) => codes[c]!), names: columns.map((c) => plan.columns[c]!.name) });
  }
  return out;
}

function appendReference(references: LinkRowSink, from: bigint, to: bigint, member: string): void {
  references.appendBigInt(from);
  references.appendBigInt(to);
  references.appendVarchar(member);
  references.endRow();
}

/** Elements in batches, so a list of millions is never decoded at once. */
const ELEMENT_BATCH = 4096;

function appendElements(elements: LinkRowSinks, references: LinkRowSink, owner: bigint, member: number, memberName: string, layout: EntityLayout, slot: VariableSlot): void {
  const field = slot.field;
  // Elements without members hold no key, value or reference, and take no bytes: up to 2^31 - 1 of
  // them fit in a 16-byte list, so rows for them would stall the pass; the element count is the
  // member's column in its type's table.
  if (field.kind !== 'list' || field.elements.length === 0) return;
  const single = field.elements.length === 1 ? field.elements[0]! : undefined;
  if (single?.kind === 'primitive' && slot.elementSize !== undefined) {
    appendPrimitiveElements(elements.direct, owner, memberName, layout.view, slot, single.typeName);
    return;
  }
  const pair = field.elements.length === 2;
  if ((single !== undefined || pair) && slot.elementSize !== undefined && field.elements.every((e) => e.kind === 'reference')) {
    appendReferenceElements(elements.staged, references, Number(BigInt.asUintN(32, owner)) | 0, Number(BigInt.asIntN(32, owner >> 32n)), member, memberName, layout.view, slot.elementsOffset, slot.count, slot.elementSize, pair);
    return;
  }
  for (let from = 0; from < slot.count; from += ELEMENT_BATCH) {
    const batch = variableElements(layout.view, slot, from, Math.min(slot.count, from + ELEMENT_BATCH));
    for (let i = 0; i < batch.length; i++) {
      const element = batch[i]!;
      const [key, value] = pair && Array.isArray(element) ? [element[0]!, element[1]!] : [undefined, element];
      // An element naming an object is staged for its text (a String's, from `_values`), its member as a code.
      const staged = typeof key === 'bigint' || typeof value === 'bigint';
      const rows = staged ? elements.staged : elements.direct;
      rows.appendBigInt(owner);
      rows.appendBigIntNumber(from + i);
      appendPart(rows, key);
      appendPart(rows, value);
      if (staged) rows.appendInteger(member);
      else rows.appendVarchar(memberName);
      rows.endRow();
      collectReferences(references, owner, memberName, element);
    }
  }
}

/**
 * A list of one primitive each (every primitive array): texts made straight from the record's
 * bytes as `variableElements` makes them, no element objects; no references.
 */
function appendPrimitiveElements(direct: LinkRowSink, owner: bigint, memberName: string, view: DataView, slot: VariableSlot, type: Parameters<typeof primitiveText>[0]): void {
  const size = slot.elementSize!;
  // The owner as 32-bit halves once, not a bigint taken apart per element; a byte's text from a
  // table (most elements are bytes), not a string made per element.
  const low = Number(BigInt.asUintN(32, owner)) | 0;
  const high = Number(BigInt.asIntN(32, owner >> 32n));
  const bytes = type === 'byte';
  for (let i = 0, at = slot.elementsOffset; i < slot.count; i++, at += size) {
    direct.appendBigIntHalves(low, high);
    direct.appendBigIntNumber(i);
    direct.appendNull();
    direct.appendNull();
    direct.appendVarchar(bytes ? BYTE_TEXTS[view.getInt8(at) + 128]! : primitiveText(type, view, at));
    direct.appendNull();
    direct.appendVarchar(memberName);
    direct.endRow();
  }
}

/** A key or value: as text (primitives, texts, nested lists as JSON) and as object id (references); none: both NULL. */
function appendPart(elements: LinkRowSink, value: MemberValue | undefined): void {
  if (value === undefined) {
    elements.appendNull();
    elements.appendNull();
  } else if (typeof value === 'bigint') {
    elements.appendNull();
    if (value === 0n) elements.appendNull();
    else elements.appendBigInt(value);
  } else {
    elements.appendVarchar(typeof value === 'string' ? value : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
    elements.appendNull();
  }
}

function collectReferences(references: LinkRowSink, owner: bigint, member: string, value: MemberValue): void {
  if (typeof value === 'bigint') {
    if (classifyId(value) === 'object') appendReference(references, owner, value, member);
  } else if (Array.isArray(value)) for (const v of value as readonly MemberValue[]) collectReferences(references, owner, member, v);
}
