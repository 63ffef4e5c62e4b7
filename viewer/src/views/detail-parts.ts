import type { ObjectDescription } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { readableTypeName, shortTypeName } from '../model/dictionary.js';
import { h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';
import { nodeType, pathLabel } from '../tree/node-summary.js';
import { isConstantId, type TreeNode } from '../tree/tree-node.js';

/**
 * The parts of the data view's detail panel that only depend on the selected node: its property
 * rows, its qualified label and its JSON (data-detail.ts lays them out, data-view.ts keeps the state).
 */

type Types = ReturnType<ViewHost['types']['current']>;

/** Path, declaration, type, object id, size and element count of a node. */
export function detailRows(node: TreeNode, app: ViewHost, rootLabel: string): [string, Node | string][] {
  const type = nodeType(node, app.types.current());
  const rows: [string, Node | string][] = [];
  rows.push(['Path', pathLabel(node) === '' ? node.label : `${rootLabel} › ${pathLabel(node)}`]);
  const m = node.member;
  if (m !== undefined && m.kind === 'field') {
    rows.push(['Declared', h('code', null, `${readableTypeName(m.typeName)} ${m.qualifier === undefined ? '' : `${shortTypeName(m.qualifier)}.`}${m.name}`)]);
  }
  if (node.kind === 'object' && node.desc !== undefined) {
    const link = type.typeId === undefined ? type.full : h('a', { href: app.href({ view: 'dictionary', instance: undefined, typeId: type.typeId, query: '' }) }, type.full);
    rows.push(['Type', link]);
  } else if (type.full !== '') {
    rows.push(['Type', type.full]);
  }
  if (node.kind === 'object' && node.oid !== undefined) {
    const oid = node.oid;
    rows.push([
      'Object id',
      h(
        'span',
        { class: 'oid-line' },
        h('a', { class: 'oid-link', href: app.href({ view: 'data', instance: undefined, oid, path: [] }), title: 'Open this object on its own (deep link)' }, oid),
        ' ',
        h('button', { type: 'button', class: 'link small', onclick: () => void copy(oid) }, 'copy'),
        isConstantId(oid) ? h('span', { class: 'hint' }, ' JDK constant') : null,
      ),
    ]);
  }
  const desc = node.desc;
  if (desc !== undefined && !desc.simplified) {
    const counts = desc.variableLength ?? [];
    const text = `${desc.length} fixed member${desc.length === '1' ? '' : 's'}${counts.length > 0 ? `, ${counts.map((c) => groupDigits(c)).join(' + ')} element${counts.length === 1 && counts[0] === '1' ? '' : 's'}` : ''}`;
    rows.push(['Size', text]);
  }
  if (node.kind === 'range' || node.kind === 'member') {
    rows.push(['Elements', `${groupDigits((node.to ?? -1) - (node.from ?? 0) + 1)}${node.kind === 'range' ? ` (indices ${groupDigits(node.from ?? 0)} to ${groupDigits(node.to ?? 0)})` : ''}`]);
  }
  return rows;
}

/** The node's JSON as the REST API answered it, with the request that did. */
export function jsonSection(node: TreeNode): HTMLElement | null {
  const raw = rawJson(node);
  if (raw === undefined) return null;
  return h(
    'section',
    { class: 'json-section' },
    h('h3', null, 'JSON', raw.url === undefined ? null : h('a', { class: 'small request', href: raw.url, target: '_blank', rel: 'noopener' }, 'GET ' + shortUrl(raw.url))),
    h('pre', { class: 'json-box' }, raw.text),
  );
}

/** `Book.title`, `ArrayList[49999]`, `HashMap[2].key`: owner type and member. */
export function qualifiedLabel(node: TreeNode, types: Types): string {
  if (node.parent === undefined) return node.label;
  if (node.kind === 'range') return `${ownerName(node, types)}${node.label}`;
  const parent = node.parent;
  if (node.label.startsWith('[')) return `${ownerName(node, types)}${node.label}`;
  if (parent.kind === 'entry') return `${qualifiedLabel(parent, types)}.${node.label}`;
  const owner = node.ownerType !== undefined ? shortTypeName(node.ownerType.name) : ownerName(node, types);
  return `${owner}.${node.label}`;
}

function ownerName(node: TreeNode, types: Types): string {
  for (let p = node.parent; p !== undefined; p = p.parent) {
    if (p.kind === 'object' && p.desc !== undefined) {
      const type = types.get(p.desc.typeId);
      return type === undefined ? p.label : shortTypeName(type.name);
    }
    if (p.kind === 'member') return `${ownerName(p, types)}.${p.label}`;
  }
  return '';
}

function rawJson(node: TreeNode): { text: string; url?: string } | undefined {
  if (node.kind === 'object' && node.desc !== undefined) {
    const desc = stripReferences(node.desc);
    return { text: prettyJson(desc), ...(node.descUrl === undefined ? {} : { url: node.descUrl }) };
  }
  if (node.kind === 'null') return { text: '"0"' };
  if (node.kind === 'value') return { text: JSON.stringify(node.value ?? '') };
  return undefined;
}

/** The description without the (long) descriptions of its references, which the request link shows. */
function stripReferences(desc: ObjectDescription): unknown {
  if (desc.references === null || desc.references.length === 0) return desc;
  const n = desc.references.length;
  return { ...desc, references: `‹${n} referenced object${n === 1 ? '' : 's'} described, see the request›` };
}

/** JSON with nested arrays of short values kept on one line, like a compact pretty printer. */
function prettyJson(value: unknown): string {
  const lines = JSON.stringify(value, null, 2);
  return lines.replace(/\[\s+("(?:[^"\\]|\\.)*"(?:,\s+"(?:[^"\\]|\\.)*")*)\s+\]/g, (_match, inner: string) => {
    const compact = `[${inner.split(/,\s+/).join(', ')}]`;
    return compact.length <= 100 ? compact : _match;
  });
}

function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

async function copy(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // not allowed here (insecure origin): nothing to do
  }
}
