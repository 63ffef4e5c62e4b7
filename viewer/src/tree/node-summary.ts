import type { ObjectDescription } from '../model/api.js';
import { enumOrdinalIndex, isReferenceMember, PRIMITIVE_TYPES, readableTypeName, shortTypeName, type TypeDictionary, type TypeEntry } from '../model/dictionary.js';
import { escapeControls, groupDigits, quote } from '../ui/format.js';
import type { TreeNode } from './tree-node.js';

/**
 * What the tree shows of a node besides its name: the value column's summary (inline previews of
 * referenced objects, collection sizes, enum constants, cycles), the type column and path labels.
 */

/** Texts are cut to this many UTF-16 units in the tree; the detail panel loads them in full. */
export const VALUE_LENGTH = 200;

/** A number from a description's text field (0 when absent or not a number). */
export function int(text: string | undefined): number {
  const n = Number(text ?? '0');
  return Number.isFinite(n) ? n : 0;
}

export function referenceMap(desc: ObjectDescription): Map<string, ObjectDescription> {
  const map = new Map<string, ObjectDescription>();
  for (const ref of desc.references ?? []) if (ref !== null) map.set(ref.objectId, ref);
  return map;
}

/** The Lazy reference of each generation (one member, `subject`): shown as what it holds. */
export const LAZY_TYPES: ReadonlySet<string> = new Set(['one.microstream.reference.Lazy$Default', 'org.eclipse.serializer.reference.Lazy$Default']);

/** The JDK's and the collections libraries' shared empty collections (as the server's `isEmptyCollectionType`). */
const EMPTY_COLLECTION = /^java\.util\.Collections\$Empty(List|Set|Map)$|^(one\.microstream|org\.eclipse\.serializer)\.collections\.Empty(Table)?$/;

/** A class with fields (not a collection, enum, value type or Lazy). */
export function isPlainObjectType(type: TypeEntry): boolean {
  return type.variable.length === 0 && type.enumConstants.length === 0 && type.fixed.length > 0 && !LAZY_TYPES.has(type.name);
}

/** `title: "Dune"` texts for the first fields with a simple value (strings, numbers, enums). */
export function peekTexts(desc: ObjectDescription, type: TypeEntry, types: TypeDictionary): string[] {
  const refs = referenceMap(desc);
  const texts: string[] = [];
  const nulls: string[] = [];
  // Fields that usually name the object come first.
  const order = type.fixed.map((m, i) => ({ m, i })).sort((a, b) => labelRank(a.m.name) - labelRank(b.m.name) || a.i - b.i);
  order.forEach(({ m, i }) => {
    if (texts.length >= 3) return;
    const raw = desc.data[i];
    if (typeof raw !== 'string') return;
    if (raw === '0' && isReferenceMember(m)) {
      nulls.push(`${m.name}: null`);
      return;
    }
    if (!isReferenceMember(m)) {
      texts.push(`${m.name}: ${m.typeName === 'char' ? `'${raw}'` : raw}`);
      return;
    }
    const target = refs.get(raw);
    if (target === undefined) return;
    const targetType = types.get(target.typeId);
    if (target.simplified) {
      const text = typeof target.data[0] === 'string' ? target.data[0] : '';
      texts.push(`${m.name}: ${targetType !== undefined && STRING_TYPES.has(targetType.name) ? quote(text, 40) : text.length > 40 ? `${text.slice(0, 40)}…` : text}`);
      return;
    }
    const constant = enumConstantName(target, targetType);
    if (constant !== undefined) texts.push(`${m.name}: ${constant}`);
  });
  return [...texts, ...nulls].slice(0, 3);
}

const LABEL_FIELDS = ['name', 'title', 'label', 'displayname', 'code', 'key', 'firstname', 'lastname', 'number', 'id'];

function labelRank(name: string): number {
  const i = LABEL_FIELDS.indexOf(name.toLowerCase());
  return i < 0 ? LABEL_FIELDS.length : i;
}

export function isExpandable(desc: ObjectDescription): boolean {
  return !desc.simplified && (int(desc.length) > 0 || (desc.variableLength ?? []).some((c) => c !== '0'));
}

export interface Summary {
  readonly text: string;
  readonly cls: string;
  readonly title?: string | undefined;
}

/** What the value column shows for a node. */
export function summarize(node: TreeNode, types: TypeDictionary): Summary {
  if (node.error !== undefined && node.kind === 'object') return { text: `⚠ ${node.error}`, cls: 'v-error', title: node.error };
  switch (node.kind) {
    case 'null':
      return { text: 'null', cls: 'v-null' };
    case 'value':
      return primitiveSummary(node);
    case 'range': {
      const count = (node.to ?? 0) - (node.from ?? 0) + 1;
      return { text: `${groupDigits(count)} elements`, cls: 'v-meta' };
    }
    case 'entry':
      return entrySummary(node, types);
    case 'member': {
      const count = (node.to ?? -1) + 1;
      const member = node.member;
      if (member?.kind === 'char' && node.inline === undefined) return { text: `${groupDigits(count)} chars`, cls: 'v-meta' };
      return { text: count === 0 ? 'empty' : `${groupDigits(count)} ${count === 1 ? 'element' : 'elements'}`, cls: 'v-meta' };
    }
    case 'message':
      return { text: node.label, cls: 'v-meta' };
    case 'object':
      return objectSummary(node, types);
  }
}

function primitiveSummary(node: TreeNode): Summary {
  const value = node.value ?? '';
  switch (node.valueKind) {
    case 'string':
    case 'chars':
      return { text: quote(value, 120), cls: 'v-string', title: node.truncated ? `cut to the first ${VALUE_LENGTH} characters; select it to load it all` : undefined };
    case 'char':
      return { text: `'${value === "'" ? "\\'" : quote(value).slice(1, -1)}'`, cls: 'v-string' };
    case 'boolean':
      return { text: value, cls: 'v-keyword' };
    case 'number':
      return { text: value, cls: 'v-number' };
    default:
      return { text: value, cls: 'v-other' };
  }
}

function entrySummary(node: TreeNode, types: TypeDictionary): Summary {
  const parts = (node.children ?? []).map((c) => summarize(c, types).text);
  return { text: parts.join(' → '), cls: 'v-entry' };
}

const STRING_TYPES = new Set(['java.lang.String', 'java.lang.StringBuilder', 'java.lang.StringBuffer']);

/** Summary of an object from its description (referenced or own). */
export function objectSummary(node: TreeNode, types: TypeDictionary): Summary {
  const desc = node.desc;
  if (desc === undefined) return { text: node.loading ? 'loading…' : '', cls: 'v-meta' };
  const type = types.get(desc.typeId);
  const cycle = cycleOf(node);
  const suffix = cycle === undefined ? '' : `  ↻ same object as ${cycle}`;
  const done = (s: Summary): Summary => (suffix === '' ? s : { ...s, text: s.text + suffix });
  if (desc.simplified) {
    const text = typeof desc.data[0] === 'string' ? desc.data[0] : '';
    if (type !== undefined && STRING_TYPES.has(type.name)) return { text: quote(text, 120), cls: 'v-string' };
    if (type?.name === 'java.lang.Character') return { text: `'${quote(text).slice(1, -1)}'`, cls: 'v-string' };
    const numeric = /^-?[\d.]+(E-?\d+)?$|^(NaN|-?Infinity)$/.test(text);
    const keyword = type?.name === 'java.lang.Boolean';
    return { text: text.length > 120 ? `${text.slice(0, 120)}…` : text, cls: numeric ? 'v-number' : keyword ? 'v-keyword' : 'v-other' };
  }
  if (type === undefined) return { text: `type ${desc.typeId}`, cls: 'v-meta' };
  const constant = enumConstantName(desc, type);
  if (constant !== undefined) return done({ text: constant, cls: 'v-enum', title: `enum constant ${readableTypeName(type.name)}.${constant}` });
  const counts = desc.variableLength ?? [];
  if (LAZY_TYPES.has(type.name)) {
    const subject = desc.data[0];
    if (subject === '0' || subject === undefined) return done({ text: 'Lazy (empty)', cls: 'v-meta' });
    // Transparent where the server summarizes what it holds; its id otherwise (a Java REST service).
    if (node.subjectSummary !== undefined) return done({ text: node.subjectSummary, cls: 'v-meta', title: `${node.subjectSummary} (held by a Lazy: object ${String(subject)})` });
    return done({ text: `Lazy → ${String(subject)}`, cls: 'v-meta' });
  }
  // One way for every empty collection: a shared empty one, or one whose every list is empty.
  if (EMPTY_COLLECTION.test(type.name) || (counts.length > 1 && type.fixed.length === 0 && counts.every((c) => c === '0'))) return done({ text: 'empty', cls: 'v-meta' });
  if (counts.length === 1 && type.variable.length === 1) {
    const count = int(counts[0]);
    const member = type.variable[0];
    const window = desc.data[int(desc.length)];
    const primitiveElements = member !== undefined && member.kind === 'list' && member.nested.length === 1 && member.nested[0] !== undefined && PRIMITIVE_TYPES.has(member.nested[0].typeName);
    if (count === 0) return done({ text: 'empty', cls: 'v-meta' });
    if (primitiveElements && Array.isArray(window) && window.length > 0 && desc.data.length > 0) {
      const isChar = member.nested[0]?.typeName === 'char';
      const shown = window.slice(0, 8).map((v) => (typeof v !== 'string' ? '…' : isChar ? `'${escapeControls(v)}'` : v));
      const text = `[${shown.join(', ')}${count > shown.length ? ', …' : ''}]  (${groupDigits(count)})`;
      return done({ text, cls: 'v-number' });
    }
    const entries = member?.kind === 'list' && member.nested.length === 2;
    return done({ text: `${groupDigits(count)} ${entries ? (count === 1 ? 'entry' : 'entries') : count === 1 ? 'element' : 'elements'}`, cls: 'v-meta' });
  }
  if (counts.length > 1) {
    const parts = type.variable.map((m, k) => `${m.name}: ${groupDigits(counts[k] ?? '0')}`);
    return done({ text: `{${parts.join(', ')}}`, cls: 'v-meta' });
  }
  // A plain object: a few field values, from its loaded children or its own primitives.
  const parts: string[] = [];
  if (node.children !== undefined) {
    const ordered = [...node.children].sort((a, b) => labelRank(a.label) - labelRank(b.label));
    for (const child of ordered) {
      if (parts.length >= 3) break;
      if (child.kind === 'value' || (child.kind === 'object' && child.desc !== undefined && (child.desc.simplified || enumConstantName(child.desc, types.get(child.desc.typeId)) !== undefined))) {
        parts.push(`${child.label}: ${summarize(child, types).text}`);
      }
    }
  } else if (node.peek !== undefined) {
    parts.push(...node.peek);
  } else {
    type.fixed.forEach((m, i) => {
      if (parts.length < 3 && PRIMITIVE_TYPES.has(m.typeName)) parts.push(`${m.name}: ${String(desc.data[i] ?? '')}`);
    });
  }
  if (type.instanceMembers.length === 0) return done({ text: type.enumConstants.length === 1 ? (type.enumConstants[0] ?? '') : '{}', cls: 'v-meta' });
  const more = parts.length < type.instanceMembers.length ? ', …' : '';
  return done({ text: parts.length === 0 ? '{…}' : `{${parts.join(', ')}${more}}`, cls: 'v-meta' });
}

export function enumConstantName(desc: ObjectDescription, type: TypeEntry | undefined): string | undefined {
  if (type === undefined || type.enumConstants.length === 0 || desc.simplified) return undefined;
  const index = enumOrdinalIndex(type);
  if (index < 0) return type.enumConstants.length === 1 && type.instanceMembers.length === 0 ? type.enumConstants[0] : undefined;
  const ordinal = Number(desc.data[index]);
  return Number.isInteger(ordinal) ? type.enumConstants[ordinal] : undefined;
}

function cycleOf(node: TreeNode): string | undefined {
  for (let p = node.parent; p !== undefined; p = p.parent) {
    if (p.kind === 'object' && p.oid === node.oid) return p.parent === undefined ? p.label : pathLabel(p);
  }
  return undefined;
}

/** `books › [3] › author` for a node (without the root); a Lazy's `subject` is no step of its own. */
export function pathLabel(node: TreeNode): string {
  const parts: string[] = [];
  for (let n: TreeNode | undefined = node; n?.parent !== undefined; n = n.parent) {
    if (isLazySubject(n)) continue;
    parts.unshift(n.label);
  }
  return parts.join(' › ');
}

const LAZY_TYPE = /\.reference\.Lazy(\$Default)?$/;

/** The `subject` member of a Lazy reference. */
export function isLazySubject(node: TreeNode): boolean {
  return node.label === 'subject' && node.parent !== undefined && LAZY_TYPE.test(node.parent.declaredType ?? '');
}

/** The type to show for a node: the actual type when known, else the declared one. */
export function nodeType(node: TreeNode, types: TypeDictionary): { short: string; full: string; typeId?: string } {
  if (node.kind === 'object' && node.desc !== undefined) {
    const type = types.get(node.desc.typeId);
    if (type !== undefined) return { short: shortTypeName(type.name), full: `${readableTypeName(type.name)} (type id ${type.id})`, typeId: type.id };
    return { short: `#${node.desc.typeId}`, full: `type id ${node.desc.typeId} (not in the dictionary)` };
  }
  if (node.kind === 'member') {
    const m = node.member;
    if (m?.kind === 'list') {
      const inner = m.nested.map((n) => shortTypeName(n.kind === 'field' ? n.typeName : n.typeName)).join(', ');
      return { short: `list of ${inner}`, full: `variable-length member: list of (${m.nested.map((n) => `${n.typeName} ${n.name}`).join(', ')})` };
    }
    if (m?.kind === 'char') return { short: 'char list', full: 'variable-length member: characters' };
    if (m?.kind === 'byte') return { short: 'byte list', full: 'variable-length member: bytes' };
  }
  if (node.kind === 'entry') {
    const names = (node.children ?? []).map((c) => c.label).join(', ');
    return { short: 'entry', full: `entry (${names})` };
  }
  const declared = node.declaredType ?? node.member?.typeName ?? '';
  return { short: shortTypeName(declared), full: readableTypeName(declared) };
}
