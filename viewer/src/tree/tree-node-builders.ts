import type { Json, ObjectDescription } from '../model/api.js';
import { isReferenceMember, PRIMITIVE_TYPES, type Member, type TypeEntry } from '../model/dictionary.js';
import { makeNode, type TreeNode, type ValueSource, type VarSlot } from './tree-node.js';
import { int, isExpandable, VALUE_LENGTH } from './node-summary.js';

/**
 * The tree's nodes made from answers the loader (tree-loader.ts) already has: an object's members,
 * the elements of a page, ranges of big lists, map entries and values. Nothing here fetches, so
 * what a description becomes can be read apart from when and how it is loaded.
 */

/** Elements per level: lists longer than this are split into nested ranges. */
export const PAGE = 100;

export function objectChildren(node: TreeNode, desc: ObjectDescription, type: TypeEntry, refs: ReadonlyMap<string, ObjectDescription>): TreeNode[] {
  const oid = desc.objectId;
  const fixedCount = int(desc.length);
  const counts = desc.variableLength ?? [];
  const namedFixed = type.fixed.length === fixedCount;
  const namedVariable = type.variable.length === counts.length;
  const children: TreeNode[] = [];
  for (let i = 0; i < fixedCount; i++) {
    const member = namedFixed ? type.fixed[i] : undefined;
    const label = member?.name ?? `#${i}`;
    const raw = desc.data[i];
    children.push(valueNode(node, label, label, member, type, raw, refs, { oid, fixedIndex: i }));
  }
  for (let k = 0; k < counts.length; k++) {
    const member: Member = (namedVariable ? type.variable[k] : undefined) ?? { kind: 'list', typeName: '[list]', qualifier: undefined, name: `#${fixedCount + k}`, nested: [] };
    const window = desc.data[fixedCount + k];
    const count = int(counts[k]);
    const slot: VarSlot = {
      oid,
      type,
      index: k,
      member,
      count,
      firstPage: Array.isArray(window) && window.length >= Math.min(count, PAGE) ? window : undefined,
      firstRefs: refs,
    };
    if (type.instanceMembers.length === 1 && counts.length === 1) {
      // A plain collection or array: its elements are the object's children.
      return rangeChildren(node, slot, 0, count - 1, refs);
    }
    children.push(
      makeNode(node, member.name, 'member', member.name, { member, ownerType: type, slot, from: 0, to: count - 1, expandable: count > 0 }),
    );
  }
  return children;
}

/** Children for elements [from, to] of a slot: ranges when too many, else the elements. */
export function rangeChildren(parent: TreeNode, slot: VarSlot, from: number, to: number, refs?: ReadonlyMap<string, ObjectDescription>): TreeNode[] {
  const n = to - from + 1;
  if (n <= 0) return [];
  if (n > PAGE) {
    let chunk = PAGE;
    while (Math.ceil(n / chunk) > PAGE) chunk *= PAGE;
    const ranges: TreeNode[] = [];
    for (let start = from; start <= to; start += chunk) {
      const end = Math.min(to, start + chunk - 1);
      const label = `[${start}..${end}]`;
      ranges.push(makeNode(parent, label, 'range', label, { slot, from: start, to: end, expandable: true }));
    }
    return ranges;
  }
  if (from === 0 && slot.firstPage !== undefined && refs !== undefined) {
    return elementNodes(parent, slot, slot.firstPage, 0, refs);
  }
  return [];
}

export function elementNodes(parent: TreeNode, slot: VarSlot, window: readonly Json[], from: number, refs: ReadonlyMap<string, ObjectDescription>): TreeNode[] {
  const nodes: TreeNode[] = [];
  const member = slot.member;
  window.forEach((raw, i) => {
    const index = from + i;
    const label = `[${index}]`;
    const source: ValueSource = { oid: slot.oid, varIndex: slot.index, element: index };
    if (member.kind === 'char' || member.kind === 'byte') {
      nodes.push(primitiveNode(parent, label, member.kind, raw, source));
      return;
    }
    const nested = member.nested;
    if (nested.length === 1) {
      nodes.push(valueNode(parent, label, label, nested[0], slot.type, raw, refs, source));
      return;
    }
    nodes.push(entryNode(parent, label, nested, slot.type, raw, refs, source));
  });
  return nodes;
}

function entryNode(parent: TreeNode, label: string, nested: readonly Member[], type: TypeEntry, raw: Json | undefined, refs: ReadonlyMap<string, ObjectDescription>, source: ValueSource): TreeNode {
  const entry = makeNode(parent, label, 'entry', label, { expandable: true, ownerType: type });
  const values = Array.isArray(raw) ? raw : [];
  entry.children = nested.map((m, j) =>
    valueNode(entry, m.name, m.name, m, type, values[j], refs, { ...source, path: [...(source.path ?? []), j] }),
  );
  return entry;
}

/** The node for one stored value of a member: a reference, a primitive, or a nested array. */
function valueNode(
  parent: TreeNode,
  segment: string,
  label: string,
  member: Member | undefined,
  ownerType: TypeEntry,
  raw: Json | undefined,
  refs: ReadonlyMap<string, ObjectDescription>,
  source: ValueSource,
): TreeNode {
  if (member !== undefined && isReferenceMember(member) && typeof raw === 'string') {
    if (raw === '0') return makeNode(parent, segment, 'null', label, { member, ownerType, declaredType: member.typeName, oid: '0' });
    const desc = refs.get(raw);
    const node = makeNode(parent, segment, 'object', label, { member, ownerType, oid: raw, desc, declaredType: member.typeName, expandable: true });
    if (desc !== undefined) node.expandable = isExpandable(desc);
    return node;
  }
  if (member === undefined) {
    // An unnamed value (dictionary and description disagree): show it as it came.
    return primitiveNode(parent, label, 'unknown', raw, source, segment);
  }
  if (member.kind === 'list' && Array.isArray(raw)) {
    const node = makeNode(parent, segment, 'member', label, { member, ownerType, inline: raw, from: 0, to: raw.length - 1, expandable: raw.length > 0 });
    node.children = raw.map((item, i) => {
      const itemSource: ValueSource = { ...source, path: [...(source.path ?? []), i] };
      const itemLabel = `[${i}]`;
      if (member.nested.length === 1) return valueNode(node, itemLabel, itemLabel, member.nested[0], ownerType, item, refs, itemSource);
      return entryNode(node, itemLabel, member.nested, ownerType, item, refs, itemSource);
    });
    return node;
  }
  const node = primitiveNode(parent, label, member.kind === 'field' ? member.typeName : member.kind, raw, source, segment);
  return Object.assign(node, { member, ownerType });
}

function primitiveNode(parent: TreeNode, label: string, typeName: string, raw: Json | undefined, source: ValueSource, segment = label): TreeNode {
  let value: string;
  let valueKind: TreeNode['valueKind'];
  if (Array.isArray(raw)) {
    // A nested [char] or [byte] inside an entry: an array of single values.
    const parts = raw.map((p) => (typeof p === 'string' ? p : JSON.stringify(p)));
    value = typeName === 'char' ? parts.join('') : `[${parts.join(', ')}]`;
    valueKind = typeName === 'char' ? 'chars' : 'bytes';
  } else {
    value = raw ?? '';
    valueKind =
      typeName === 'char' ? (typeof raw === 'string' && raw.length > 1 ? 'string' : 'char')
      : typeName === 'boolean' ? 'boolean'
      : PRIMITIVE_TYPES.has(typeName) || typeName === 'byte' ? 'number'
      : typeName === 'unknown' ? 'other'
      : 'string';
  }
  const declaredType = typeName === 'char' && valueKind === 'string' ? 'java.lang.String' : typeName === 'unknown' ? '' : typeName;
  return makeNode(parent, segment, 'value', label, {
    value,
    valueKind,
    declaredType,
    source,
    truncated: (valueKind === 'string' || valueKind === 'chars') && value.length >= VALUE_LENGTH,
  });
}
