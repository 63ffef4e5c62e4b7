import { charsText, primitiveText } from '../format/entity-layout.js';
import { resolveJdkConstant } from '../format/ids.js';
import { keyText, readRecord, type RecordSource } from './record-fields.js';

/**
 * One line about an entity of a GigaMap: `Person{name=Ada, city=Graz, id=100000}`: the simple
 * type name and its members, value types (String, Integer, LocalDate, ...) as their Java text,
 * other references as `Type@id`, lists by their length; cut at a length.
 */

export const SUMMARY_LENGTH = 200;

export interface EntitySummary {
  readonly typeName: string | null;
  readonly summary: string;
}

export async function summarizeEntity(source: RecordSource, objectId: bigint): Promise<EntitySummary> {
  const constant = resolveJdkConstant(objectId);
  if (constant !== undefined) return { typeName: constant.typeName, summary: constant.text };
  const record = await readRecord(source, objectId);
  if (record === undefined) return { typeName: null, summary: `missing object ${objectId}` };
  const simpleName = record.typeName.slice(record.typeName.lastIndexOf('.') + 1);
  const parts: string[] = [];
  let length = simpleName.length;
  for (const slot of record.layout.slots) {
    if (length > SUMMARY_LENGTH) break;
    const field = slot.field;
    let value: string;
    if (!slot.variable) {
      if (field.kind === 'primitive') value = primitiveText(field.typeName, record.layout.view, slot.offset);
      else value = await referenceText(source, record.layout.view.getBigInt64(slot.offset, true));
    } else if (field.kind === 'chars') {
      value = charsText(record.layout.view, slot.elementsOffset, Math.min(slot.count, SUMMARY_LENGTH));
    } else {
      value = `[${slot.count}]`;
    }
    parts.push(`${field.name}=${value}`);
    length += field.name.length + value.length + 3;
  }
  const summary = `${simpleName}{${parts.join(', ')}}`;
  return { typeName: record.typeName, summary: summary.length > SUMMARY_LENGTH ? `${summary.slice(0, SUMMARY_LENGTH)}…` : summary };
}

async function referenceText(source: RecordSource, id: bigint): Promise<string> {
  if (id === 0n) return 'null';
  const text = await keyText(source, id);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
