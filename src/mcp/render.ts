import type { ObjectViewWithGigaMapJson } from '../api-contract/gigamap-schemas.js';
import type { ObjectViewJson, ReferenceJson, ViaJson } from '../api-contract/schemas.js';
import { readableTypeName, shortReadableTypeName } from '../inspect/type-names.js';
import { short, TextBudget, truncationMarker } from './budget.js';

/**
 * The compact text of API answers, for the model to read: one line per member, reference or
 * step, ids always given (the next question needs them), type names without their package,
 * values shortened.
 */

/** `com.acme.Customer` -> `Customer`, `java.util.HashMap$Node` -> `HashMap$Node`, `[Ljava.lang.Object;` -> `Object[]` (as the viewer shows them). */
export function simpleName(typeName: string | null): string {
  return typeName === null ? '?' : shortReadableTypeName(typeName);
}

/** A full type name for reading: arrays in Java's source form (`int[]`, `java.lang.String[]`). */
export const fullName = readableTypeName;

function isReference(value: unknown): value is ReferenceJson {
  return typeof value === 'object' && value !== null && typeof (value as { objectId?: unknown }).objectId === 'string' && 'typeName' in value;
}

/** One reference on one line: `→ 1000000000000000029 String "Chapter & Verse"`. */
export function referenceText(ref: ReferenceJson): string {
  if (ref.missing === true) return `→ ${ref.objectId} (missing: referenced, not stored)`;
  const text = ref.text === undefined ? '' : ` ${JSON.stringify(short(ref.text))}`;
  return `→ ${ref.objectId} ${simpleName(ref.typeName)}${text}`;
}

/** A member value or list element: primitives as JSON, references as one line, element objects as `key: … value: …`. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (isReference(value)) return referenceText(value);
  if (typeof value === 'string') return JSON.stringify(short(value));
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(valueText).join(', ')}]`;
  return Object.entries(value as Record<string, unknown>)
    .map(([key, v]) => `${key}: ${valueText(v)}`)
    .join('  ');
}

export function viaText(via: ViaJson | null): string {
  if (via === null) return '';
  const key = via.key === undefined ? '' : ` (key ${referenceText(via.key).slice(2)})`;
  return ` via ${via.text}${key}`;
}

/** The header of an object: type, id and what the graph knows about it. */
export function objectHeader(view: ObjectViewJson): string {
  const facts = [
    `type id ${view.typeId}${view.typeVersions > 1 ? `, version ${view.typeVersion} of ${view.typeVersions}${view.currentType ? '' : ', not the current one'}` : ''}`,
    view.constant === true ? 'JDK constant' : view.reachable ? 'reachable' : 'UNREACHABLE (garbage)',
    `${view.referrers} referrer${view.referrers === 1 ? '' : 's'}`,
  ];
  const text = view.text === undefined ? '' : ` = ${JSON.stringify(short(view.text))}`;
  return `${fullName(view.typeName)} ${view.objectId}${text} (${facts.join(', ')})`;
}

/**
 * An object view's members into `out`, list members with their window; returns the offset of the
 * next page when some list member has more elements than shown (undefined when none has).
 */
export function renderView(view: ObjectViewJson, out: TextBudget, indent = ''): number | undefined {
  out.add(`${indent}${objectHeader(view)}`);
  const gigamap = (view as ObjectViewWithGigaMapJson).gigamap;
  if (gigamap !== undefined) return renderGigaMap(gigamap, out, indent);
  let next: number | undefined;
  let more = 0;
  for (const member of view.members) {
    const name = member.declaringClass === undefined ? member.name : `${member.declaringClass}#${member.name}`;
    if (member.elements === undefined) {
      out.add(`${indent}  ${name}: ${simpleName(member.type)} = ${valueText(member.value)}`);
      continue;
    }
    const offset = member.offset ?? 0;
    const count = member.count ?? member.elements.length;
    const shown = member.elements.length;
    out.add(`${indent}  ${name}: ${member.type} with ${count} element${count === 1 ? '' : 's'}${shown < count ? `, showing ${offset}..${offset + shown - 1}` : ''}${shown === 0 && count > 0 ? ' (none in this page)' : ''}`);
    member.elements.forEach((element, i) => out.add(`${indent}    [${offset + i}] ${valueText(element)}`));
    const rest = count - offset - shown;
    if (rest > 0) {
      more = Math.max(more, rest);
      next = offset + shown;
    }
  }
  if (next !== undefined) out.addAlways(`${indent}${truncationMarker(more, next, 'elements')}`);
  return next;
}

type GigaMapPart = NonNullable<ObjectViewWithGigaMapJson['gigamap']>;

/**
 * A GigaMap as the viewer and the API show it: its entities (the page asked for) and its indices,
 * not its members (the segments and levels it keeps them in, which say nothing about the data).
 */
function renderGigaMap(map: GigaMapPart, out: TextBudget, indent: string): number | undefined {
  const size = map.size === null ? 'unreadable' : `${map.size} entit${map.size === '1' ? 'y' : 'ies'}`;
  out.add(`${indent}  GigaMap of ${size}${map.damaged ? ' (DAMAGED)' : ''}${map.entities.length < map.listed ? `, showing ${map.offset}..${map.offset + map.entities.length - 1}` : ''}`);
  for (const problem of map.problems) out.add(`${indent}  problem: ${short(problem)}`);
  out.add(`${indent}  indexed by: ${map.indices.length === 0 ? 'no index' : map.indices.map((i) => `${i.name} (${i.kind}${i.unique ? ', unique' : ''}, ${i.objectId})`).join('; ')}`);
  // The summary starts with the simple type name.
  for (const entity of map.entities) out.add(`${indent}    [${entity.entityId}] → ${entity.objectId} ${short(entity.summary)}`);
  const next = map.offset + map.entities.length;
  const rest = map.listed - next;
  if (rest <= 0) return undefined;
  out.addAlways(`${indent}${truncationMarker(rest, next, 'entities')}`);
  return next;
}
