import type { TypeEntry } from '../../format/type-dictionary.js';
import type { JsonValue, ObjectView } from '../../inspect/object-view.js';
import { csvText, type CsvCells } from '../../sql/answers/result-values.js';

/**
 * CSV of object views (RFC 4180: commas, CRLF, quotes doubled): `objectId`, `typeId`, then one
 * column per member of the exported type versions (the newest version's members first, members
 * only older versions have after them). References become their object ids (JDK values their text), list members a JSON
 * array of their elements (references as ids), Java value types their text in a `text` column.
 * Cells a spreadsheet would run as a formula are neutralised unless `raw` (see result-values.ts).
 */

export interface ExportColumns {
  readonly members: readonly string[];
  readonly text: boolean;
}

function memberKey(name: string, declaringClass: string | undefined, repeated: boolean): string {
  return repeated && declaringClass !== undefined ? `${declaringClass}#${name}` : name;
}

/** Columns for entries given newest first. */
export function exportColumns(entries: readonly TypeEntry[]): ExportColumns {
  const members: string[] = [];
  for (const entry of entries) {
    const counts = new Map<string, number>();
    for (const f of entry.fields) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
    for (const f of entry.fields) {
      const key = memberKey(f.name, f.qualifier, (counts.get(f.name) ?? 0) > 1);
      if (!members.includes(key)) members.push(key);
    }
  }
  return { members, text: true };
}

export function csvHeader(columns: ExportColumns, cells: CsvCells = 'safe'): string {
  return `${['objectId', 'typeId', ...(columns.text ? ['text'] : []), ...columns.members].map((t) => csvText(t, cells)).join(',')}\r\n`;
}

export function csvRow(columns: ExportColumns, view: ObjectView, cells: CsvCells = 'safe'): string {
  const values = new Map<string, string>();
  for (const m of view.members) {
    const key = memberKey(m.name, m.declaringClass, m.declaringClass !== undefined);
    values.set(key, m.elements !== undefined ? JSON.stringify(m.elements.map(idsOnly)) : plain(m.value ?? null));
  }
  const texts = [view.objectId, view.typeId, ...(columns.text ? [view.text ?? ''] : []), ...columns.members.map((k) => values.get(k) ?? '')];
  return `${texts.map((t) => csvText(t, cells)).join(',')}\r\n`;
}

function isReference(value: JsonValue): value is { readonly objectId: string } {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as { objectId?: unknown }).objectId === 'string';
}

function idsOnly(value: JsonValue): JsonValue {
  if (isReference(value)) return value.objectId;
  if (Array.isArray(value)) return value.map(idsOnly);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = idsOnly(v);
    return out;
  }
  return value;
}

function plain(value: JsonValue): string {
  if (value === null) return '';
  // A JDK value (String, BigDecimal, Date...) is its text: an author's name, not its id.
  if (isReference(value)) return typeof (value as { text?: unknown }).text === 'string' ? (value as unknown as { text: string }).text : value.objectId;
  if (typeof value === 'object') return JSON.stringify(idsOnly(value));
  return String(value);
}
