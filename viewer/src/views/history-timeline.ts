import type { Commit } from '../model/history-api.js';
import { h } from '../ui/dom.js';
import { groupDigits, humanBytes } from '../ui/format.js';

/**
 * The commits of one page of the history as columns, oldest on the left: the upper bar the bytes
 * the commit wrote, the lower one the objects it stored (new dark, updated light), both on the
 * page's own scale. A column is a link to its commit. Commits are spaced by order, not by time:
 * a batch of commits within a second would otherwise be one column.
 */
export function timeline(commits: readonly Commit[], selected: string | undefined, hrefOf: (timestamp: string) => string): HTMLElement {
  const oldestFirst = [...commits].reverse();
  const maxBytes = Math.max(1, ...oldestFirst.map((c) => c.bytes));
  const maxObjects = Math.max(1, ...oldestFirst.map((c) => c.objects));
  const columns = oldestFirst.map((c) => {
    const bytes = h('span', { class: 'ht-bytes' });
    bytes.style.height = `${Math.max(c.bytes > 0 ? 3 : 0, (100 * c.bytes) / maxBytes)}%`;
    const created = h('span', { class: 'ht-new' });
    created.style.height = `${(100 * c.newObjects) / maxObjects}%`;
    const updated = h('span', { class: 'ht-updated' });
    updated.style.height = `${(100 * c.updatedObjects) / maxObjects}%`;
    return h(
      'a',
      {
        class: `ht-col${c.timestamp === selected ? ' selected' : ''}${c.complete ? '' : ' incomplete'}`,
        href: hrefOf(c.timestamp),
        'data-commit': c.number,
        title: `commit ${c.number}, ${c.time.replace('T', ' ').replace('Z', ' UTC')}: ${humanBytes(c.bytes)}, ${groupDigits(c.objects)} objects (${groupDigits(c.newObjects)} new, ${groupDigits(c.updatedObjects)} updated)${c.complete ? '' : '; housekeeping has removed some of its bytes'}`,
      },
      h('span', { class: 'ht-upper' }, bytes),
      h('span', { class: 'ht-lower' }, updated, created),
    );
  });
  const first = oldestFirst[0];
  const last = oldestFirst[oldestFirst.length - 1];
  return h(
    'div',
    { class: 'ht-timeline' },
    h(
      'div',
      { class: 'legend' },
      h('span', null, h('span', { class: 'swatch live' }), `bytes written (up to ${humanBytes(maxBytes)})`),
      oldestFirst.every((c) => c.complete) ? null : h('span', null, h('span', { class: 'swatch ht-swatch-incomplete' }), 'partly removed by housekeeping'),
      h('span', null, h('span', { class: 'swatch ht-swatch-new' }), 'new objects'),
      h('span', null, h('span', { class: 'swatch ht-swatch-updated' }), `updated (up to ${groupDigits(maxObjects)})`),
    ),
    h('div', { class: 'ht-columns', role: 'list', 'aria-label': 'Commits, oldest on the left: bytes written and objects stored' }, columns.map((c) => h('span', { role: 'listitem', class: 'ht-item' }, c))),
    first === undefined || last === undefined
      ? null
      : h('div', { class: 'ht-axis' }, h('span', null, `#${first.number} ${shortTime(first.time)}`), h('span', null, `#${last.number} ${shortTime(last.time)}`)),
  );
}

/** `2026-11-22 04:02:26` from the ISO text (UTC, as the API gives it). */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}
