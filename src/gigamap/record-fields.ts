import { FormatError } from '../errors.js';
import { layoutEntity, type EntityLayout, type MemberSlot, type VariableSlot } from '../format/entity-layout.js';
import { resolveJdkConstant } from '../format/ids.js';
import { UTC } from '../javatext/java-time-zones.js';
import type { TypeDictionary } from '../format/type-dictionary.js';
import { simplifiedRenderer } from '../inspect/simplified-value.js';
import type { StoredEntity } from '../storage/storage-types.js';

/**
 * Reading the members of GigaMap records by name: the dictionary says where each one is (the
 * GigaMap classes have custom handlers, but their layouts are ordinary dictionary entries).
 */

/** What the GigaMap reader needs of a storage (a `Storage` is one). */
export interface RecordSource {
  readonly dictionary: TypeDictionary;
  readEntity(objectId: bigint): Promise<StoredEntity | undefined>;
}

export interface ReadRecord {
  readonly objectId: bigint;
  readonly typeName: string;
  readonly layout: EntityLayout;
  readonly file: string;
  /** Offset of the record's content in its file. */
  readonly contentOffset: number;
  readonly bytes: number;
}

export async function readRecord(source: RecordSource, objectId: bigint): Promise<ReadRecord | undefined> {
  if (objectId === 0n) return undefined;
  const entity = await source.readEntity(objectId);
  if (entity === undefined) return undefined;
  const entry = source.dictionary.byId.get(entity.typeId);
  if (entry === undefined) {
    throw new FormatError('FORMAT_UNKNOWN_TYPE_ID', `object ${objectId} has type id ${entity.typeId}, which the type dictionary lacks`, { file: entity.file, offset: entity.offset + 8 });
  }
  const layout = layoutEntity(entry, entity.content, { file: entity.file, offset: entity.offset + 24 });
  return { objectId, typeName: entry.typeName, layout, file: entity.file, contentOffset: entity.offset + 24, bytes: entity.content.length + 24 };
}

/** A record that must exist and be of one of the given types (else a FormatError naming it). */
export async function requireRecord(source: RecordSource, objectId: bigint, what: string, typeNames?: readonly string[]): Promise<ReadRecord> {
  const record = await readRecord(source, objectId);
  if (record === undefined) throw new FormatError('FORMAT_BAD_RECORD', `${what} ${objectId} is not stored`);
  if (typeNames !== undefined && !typeNames.includes(record.typeName)) {
    throw new FormatError('FORMAT_BAD_RECORD', `${what} ${objectId} is a ${record.typeName}, not ${typeNames.join(' or ')}`, { file: record.file, offset: record.contentOffset });
  }
  return record;
}

function slotOf(record: ReadRecord, name: string): MemberSlot {
  const slot = record.layout.slots.find((s) => s.field.name === name);
  if (slot === undefined) throw new FormatError('FORMAT_BAD_RECORD', `${record.typeName} ${record.objectId} has no member ${name}`, { file: record.file, offset: record.contentOffset });
  return slot;
}

export function hasMember(record: ReadRecord, name: string): boolean {
  return record.layout.slots.some((s) => s.field.name === name);
}

export function referenceMember(record: ReadRecord, name: string): bigint {
  const slot = slotOf(record, name);
  if (slot.variable || slot.field.kind !== 'reference') throw notKind(record, name, 'a reference');
  return record.layout.view.getBigInt64(slot.offset, true);
}

export function intMember(record: ReadRecord, name: string): number {
  const slot = slotOf(record, name);
  if (slot.variable || slot.field.typeName !== 'int') throw notKind(record, name, 'an int');
  return record.layout.view.getInt32(slot.offset, true);
}

export function longMember(record: ReadRecord, name: string): bigint {
  const slot = slotOf(record, name);
  if (slot.variable || slot.field.typeName !== 'long') throw notKind(record, name, 'a long');
  return record.layout.view.getBigInt64(slot.offset, true);
}

/** A `[byte]` member as a view on the record's bytes, with its offset in the file. */
export function bytesMember(record: ReadRecord, name: string): { readonly data: Uint8Array; readonly fileOffset: number } {
  const slot = variableSlot(record, name);
  if (slot.field.kind !== 'bytes') throw notKind(record, name, 'a [byte] list');
  const view = record.layout.view;
  return { data: new Uint8Array(view.buffer, view.byteOffset + slot.elementsOffset, slot.count), fileOffset: record.contentOffset + slot.elementsOffset };
}

/**
 * The references of a `[list]` member whose elements are references only: column `column` of
 * each element (0 for a one-reference list, 0/1 for key/value pairs).
 */
export function referenceColumn(record: ReadRecord, name: string, column = 0): BigInt64Array {
  const slot = variableSlot(record, name);
  const field = slot.field;
  const width = field.kind === 'list' ? field.elements.length : 0;
  if (field.kind !== 'list' || width === 0 || field.elements.some((e) => e.kind !== 'reference') || column >= width) throw notKind(record, name, 'a list of references');
  const out = new BigInt64Array(slot.count);
  const view = record.layout.view;
  if (slot.elementsOffset + slot.count * width * 8 > slot.end) throw notKind(record, name, `a list of ${slot.count} elements that fit`);
  for (let i = 0; i < slot.count; i++) out[i] = view.getBigInt64(slot.elementsOffset + (i * width + column) * 8, true);
  return out;
}

function variableSlot(record: ReadRecord, name: string): VariableSlot {
  const slot = slotOf(record, name);
  if (!slot.variable) throw notKind(record, name, 'a list');
  return slot;
}

function notKind(record: ReadRecord, name: string, kind: string): FormatError {
  return new FormatError('FORMAT_BAD_RECORD', `member ${name} of ${record.typeName} ${record.objectId} is not ${kind}`, { file: record.file, offset: record.contentOffset });
}

/**
 * The Java text of a key object (String, Integer, LocalDate, ...): JDK constants by their id,
 * value types by their stored bytes. A plain `java.lang.Object` is EclipseStore's stand-in for a
 * null key part and reads `null`; anything else reads `Type@objectId`.
 */
export async function keyText(source: RecordSource, objectId: bigint): Promise<string> {
  if (objectId === 0n) return 'null';
  const constant = resolveJdkConstant(objectId);
  if (constant !== undefined) return constant.text;
  const record = await readRecord(source, objectId);
  if (record === undefined) return `missing@${objectId}`;
  if (record.typeName === 'java.lang.Object') return 'null';
  const renderer = simplifiedRenderer(record.layout.entry, source.dictionary);
  if (renderer === undefined) return `${record.typeName}@${objectId}`;
  try {
    return renderer(record.layout, { dictionary: source.dictionary, timeZone: UTC, objectId });
  } catch {
    return `${record.typeName}@${objectId}`;
  }
}
