import { isElementsChange, type MemberChange, type Value } from '../model/history-api.js';
import { shortTypeName } from '../model/dictionary.js';
import { h } from '../ui/dom.js';
import { groupDigits, quote } from '../ui/format.js';

/**
 * What changed in one object, as the History view shows it for a commit and for a comparison
 * alike: plain members `old → new`, collections as the elements added, removed and moved and the
 * map values changed (never the elements that stayed), references as links to the objects.
 */

/** The link of an object id (in the storage the change belongs to). */
export type ObjectHref = (objectId: string) => string;

const TEXT_LENGTH = 80;

export function valueNode(value: Value, href: ObjectHref): Node {
  if (value === null || value === undefined) return h('span', { class: 'v-null' }, 'null');
  if (typeof value === 'string') return h('span', { class: 'v-string' }, quote(value, TEXT_LENGTH));
  if (typeof value === 'number' || typeof value === 'bigint') return h('span', { class: 'v-number' }, String(value));
  if (typeof value === 'boolean') return h('span', { class: 'v-keyword' }, String(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { class: 'v-other' }, 'empty');
    return h('span', null, '[', value.flatMap((v, i) => [i > 0 ? ', ' : '', valueNode(v, href)]), ']');
  }
  if (typeof value === 'object') {
    const ref = value as { objectId?: unknown; typeName?: unknown; text?: unknown; missing?: unknown; key?: unknown; value?: unknown };
    if (typeof ref.objectId === 'string') {
      const type = typeof ref.typeName === 'string' ? shortTypeName(ref.typeName) : 'missing';
      const label = typeof ref.text === 'string' ? quote(ref.text, TEXT_LENGTH) : `${type} ${ref.objectId}`;
      // Without a text (not a String or value type), the view adds what the object holds now (`data-summary`).
      return h('a', { class: 'ref-link', href: href(ref.objectId), title: `${typeof ref.typeName === 'string' ? ref.typeName : 'missing object'} ${ref.objectId}`, 'data-summary': typeof ref.text === 'string' || ref.missing === true ? null : ref.objectId }, label);
    }
    // A map entry: key → value.
    if ('key' in ref && 'value' in ref) return h('span', null, valueNode(ref.key, href), ' → ', valueNode(ref.value, href));
    return h('span', { class: 'v-other' }, JSON.stringify(value));
  }
  return h('span', { class: 'v-other' }, String(value));
}

/** One member's change as a list item. */
function memberItem(change: MemberChange, href: ObjectHref): HTMLElement {
  const name = h('span', { class: 'hc-member' }, change.member);
  if (!isElementsChange(change)) {
    return h('li', { class: 'hc-value' }, name, ': ', h('span', { class: 'hc-before' }, valueNode(change.before, href)), h('span', { class: 'hc-arrow', 'aria-label': 'becomes' }, ' → '), h('span', { class: 'hc-after' }, valueNode(change.after, href)));
  }
  const count = change.countBefore === change.countAfter ? `${groupDigits(change.countAfter)} elements` : `${groupDigits(change.countBefore)} → ${groupDigits(change.countAfter)} elements`;
  const lines: HTMLElement[] = [
    ...change.added.map((e) => h('li', { class: 'hc-added' }, h('span', { class: 'hc-mark' }, '+'), ` [${e.index}] `, valueNode(e.value, href))),
    ...change.removed.map((e) => h('li', { class: 'hc-removed' }, h('span', { class: 'hc-mark' }, '−'), ` [${e.index}] `, valueNode(e.value, href))),
    ...change.moved.map((e) => h('li', { class: 'hc-moved' }, h('span', { class: 'hc-mark' }, '~'), ` [${e.from}] → [${e.to}] `, valueNode(e.value, href))),
    ...change.changedValues.map((e) => h('li', { class: 'hc-moved' }, h('span', { class: 'hc-mark' }, '~'), ' ', valueNode(e.key, href), ': ', valueNode(e.before, href), ' → ', valueNode(e.after, href))),
  ];
  if (change.unlisted > 0) lines.push(h('li', { class: 'hint' }, `… and ${groupDigits(change.unlisted)} more elements changed`));
  const compared = change.comparedElements === undefined ? null : h('span', { class: 'hint' }, ` (the first ${groupDigits(change.comparedElements)} compared)`);
  return h('li', { class: 'hc-elements' }, name, `: ${count}`, compared, h('ul', { class: 'hc-element-list' }, lines));
}

export function memberChangeList(members: readonly MemberChange[], href: ObjectHref): HTMLElement {
  if (members.length === 0) return h('p', { class: 'hint hc-none' }, 'Stored again with the same values (no member differs).');
  return h('ul', { class: 'hc-members' }, members.map((m) => memberItem(m, href)));
}

/**
 * Adds to each reference without a text in `root` the one-line summary of the object as it is now
 * (an enum constant's name, a small object's first members), marked as today's.
 */
export async function addSummaries(root: Element, summaries: (ids: readonly string[]) => Promise<ReadonlyMap<string, string>>): Promise<void> {
  const links = [...root.querySelectorAll<HTMLElement>('a[data-summary]')];
  const ids = [...new Set(links.map((a) => a.dataset['summary']!))].slice(0, 1000);
  if (ids.length === 0) return;
  const texts = await summaries(ids).catch(() => new Map<string, string>());
  for (const a of links) {
    const text = texts.get(a.dataset['summary']!);
    delete a.dataset['summary'];
    // Summaries are one line, cut by the server already.
    if (text !== undefined) a.after(h('span', { class: 'hc-now', title: 'what this object holds now' }, ` ${text}`));
  }
}

/** The head line of a changed object: its change, type and id (a link). */
export function objectHead(change: string, typeName: string, objectId: string, href: ObjectHref): HTMLElement {
  return h(
    'div',
    { class: 'hc-head' },
    h('span', { class: `hc-badge ${change}` }, change),
    h('span', { class: 'c-type', title: typeName }, shortTypeName(typeName)),
    // A new object is one line: what it holds now follows its id.
    h('a', { class: 'ref-link', href: href(objectId), title: `open object ${objectId}`, 'data-summary': change === 'new' || change === 'added' ? objectId : null }, objectId),
  );
}
