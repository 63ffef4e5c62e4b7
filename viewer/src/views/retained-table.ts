import { errorMessage } from '../model/api.js';
import type { ApiV1 } from '../model/api-v1.js';
import { displayTypeName, shortTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes, percent } from '../ui/format.js';
import type { Route } from '../shell/router.js';
import { dominatorPage, type RetainerEntry } from './retained-api.js';

/**
 * The dominator tree as an expandable table, like Eclipse MAT's: one row per object with its
 * summary, type, own bytes, retained bytes with their share of the reachable bytes as a bar, and
 * retained objects. A row's children (the objects it alone keeps alive, largest first) are loaded
 * a page at a time when it is opened. Only what was opened is held here, never the whole tree.
 */

export const CHILD_PAGE = 25;

interface Node {
  readonly entry: RetainerEntry;
  readonly parent: Node | undefined;
  readonly depth: number;
  /** Loaded children, largest first; undefined until first opened. */
  children: Node[] | undefined;
  /** Children the server has for it (known once a page was loaded). */
  total: number;
  expanded: boolean;
  loading: boolean;
  error: string | undefined;
  /** Shown although not among the loaded pages: a step towards the object the route names. */
  pinned: boolean;
  row: HTMLTableRowElement | undefined;
}

export class RetainedTable {
  readonly element: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private top: Node | undefined;
  private reachableBytes = 0;
  private focusedId: string | undefined;
  private readonly nodes = new WeakMap<HTMLTableRowElement, Node>();

  constructor(
    private readonly v1: ApiV1,
    private readonly href: (route: Route) => string,
  ) {
    this.body = h('tbody');
    const head = h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col', class: 'rt-name' }, 'Object'),
        h('th', { scope: 'col', class: 'rt-type' }, 'Type'),
        h('th', { scope: 'col', class: 'rt-num rt-own', title: "bytes of the object's own record" }, 'Own'),
        h('th', { scope: 'col', class: 'rt-num rt-retained', title: 'bytes of the object and of everything only it keeps alive' }, 'Retained'),
        h('th', { scope: 'col', class: 'rt-share', title: 'retained bytes as a share of every reachable object' }, 'Share'),
        h('th', { scope: 'col', class: 'rt-num rt-objects', title: 'objects that would become garbage with it' }, 'Objects'),
      ),
    );
    this.element = h('div', { class: 'rt-wrap' }, h('table', { class: 'retained-table', 'aria-label': 'Dominator tree' }, head, this.body));
    this.body.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** Starts again at `top` (its first page of children loaded and shown). */
  start(top: RetainerEntry, reachableBytes: number, first: { total: number; children: readonly RetainerEntry[] }): void {
    this.reachableBytes = reachableBytes;
    const node = newNode(top, undefined);
    node.children = first.children.map((c) => newNode(c, node));
    node.total = first.total;
    node.expanded = true;
    this.top = node;
    this.focusedId = undefined;
    this.render();
  }

  /**
   * Opens the tree along `chain` (the roots object first, the object last) and marks the object:
   * a step not in its parent's first page is shown pinned below that page.
   */
  async reveal(chain: readonly RetainerEntry[]): Promise<void> {
    let node = this.top;
    if (node === undefined || chain[0]?.objectId !== node.entry.objectId) return;
    for (const step of chain.slice(1)) {
      if (node.children === undefined) await this.loadMore(node);
      node.expanded = true;
      const children: Node[] = node.children ?? [];
      let next = children.find((c) => c.entry.objectId === step.objectId);
      if (next === undefined) {
        next = newNode(step, node);
        next.pinned = true;
        children.push(next);
        node.children = children;
      }
      node = next;
    }
    this.focusedId = node.entry.objectId;
    this.render();
    node.row?.scrollIntoView({ block: 'nearest' });
    node.row?.querySelector<HTMLElement>('.rt-link')?.focus({ preventScroll: true });
  }

  /** The object the tree was last opened down to, if any. */
  get focused(): string | undefined {
    return this.focusedId;
  }

  private async toggle(node: Node): Promise<void> {
    if (node.expanded) {
      node.expanded = false;
      this.render();
      node.row?.querySelector<HTMLElement>('.rt-twisty')?.focus();
      return;
    }
    node.expanded = true;
    if (node.children === undefined) await this.loadMore(node);
    this.render();
    node.row?.querySelector<HTMLElement>('.rt-twisty')?.focus();
  }

  private async loadMore(node: Node): Promise<void> {
    node.loading = true;
    node.error = undefined;
    this.render();
    const loaded = (node.children ?? []).filter((c) => !c.pinned);
    try {
      const page = await dominatorPage(this.v1, node.entry.objectId, loaded.length, CHILD_PAGE);
      const pinned = (node.children ?? []).filter((c) => c.pinned);
      // A pinned step that the new page lists takes its place there (opened as it was).
      const fresh = page.children.map((c) => {
        const step = pinned.find((p) => p.entry.objectId === c.objectId);
        if (step === undefined) return newNode(c, node);
        step.pinned = false;
        return step;
      });
      const listed = new Set(fresh.map((c) => c.entry.objectId));
      node.children = [...loaded, ...fresh, ...pinned.filter((p) => !listed.has(p.entry.objectId))];
      node.total = page.total;
    } catch (error) {
      node.error = errorMessage(error);
    } finally {
      node.loading = false;
    }
    this.render();
  }

  private render(): void {
    const rows: HTMLTableRowElement[] = [];
    const walk = (node: Node): void => {
      rows.push(this.rowOf(node));
      if (!node.expanded) return;
      for (const child of node.children ?? []) walk(child);
      const listed = (node.children ?? []).filter((c) => !c.pinned).length;
      if (node.loading) rows.push(this.noteRow(node, h('span', { class: 'hint' }, 'Loading…')));
      else if (node.error !== undefined) rows.push(this.noteRow(node, h('span', { class: 'v-error' }, node.error), h('button', { type: 'button', class: 'button small', onclick: () => void this.loadMore(node) }, 'Try again')));
      else if (listed < node.total) {
        const next = Math.min(CHILD_PAGE, node.total - listed);
        rows.push(this.noteRow(node, h('button', { type: 'button', class: 'button small rt-more', onclick: () => void this.loadMore(node) }, `Show ${groupDigits(next)} more`), h('span', { class: 'hint' }, ` ${groupDigits(listed)} of ${groupDigits(node.total)} shown`)));
      }
    };
    if (this.top !== undefined) walk(this.top);
    this.body.replaceChildren(...rows);
  }

  private noteRow(parent: Node, ...content: HTMLElement[]): HTMLTableRowElement {
    const cell = h('td', { colspan: 6, class: 'rt-note' }, content);
    cell.style.paddingLeft = indent(parent.depth + 1);
    return h('tr', { class: 'rt-note-row', 'data-parent': parent.entry.objectId }, cell);
  }

  private rowOf(node: Node): HTMLTableRowElement {
    const e = node.entry;
    // Objects retaining only themselves dominate nothing: no twisty.
    const leaf = e.retainedObjects <= 1 || (node.children !== undefined && node.total === 0);
    const twisty = leaf
      ? h('span', { class: 'rt-twisty leaf', 'aria-hidden': 'true' })
      : h('button', { type: 'button', class: 'rt-twisty', 'aria-expanded': String(node.expanded), 'aria-label': `${node.expanded ? 'Close' : 'Open'} what ${shortTypeName(e.typeName)} ${e.objectId} keeps alive`, onclick: () => void this.toggle(node) }, node.expanded ? '▾' : '▸');
    const label = e.summary === undefined || e.summary === '{…}' ? shortTypeName(e.typeName) : e.summary;
    const link = h('a', { class: 'rt-link', href: this.href({ view: 'data', instance: undefined, oid: e.objectId, path: [] }), title: `object ${e.objectId}: ${displayTypeName(e.typeName)}${e.summary === undefined ? '' : ` ${e.summary}`}` }, label);
    const inner = h('div', { class: 'rt-name-inner' }, twisty, h('span', { class: 'rt-label' }, link, h('span', { class: 'rt-oid' }, e.objectId), h('span', { class: 'rt-type-inline' }, shortTypeName(e.typeName))), node.pinned ? h('span', { class: 'badge', title: 'not among the largest listed: shown as a step towards the object asked for' }, 'on the way') : null);
    inner.style.paddingLeft = indent(node.depth);
    const name = h('td', { class: 'rt-name' }, inner);
    const bar = h('div', { class: 'rt-bar' }, h('div', { class: 'rt-bar-fill bar-live' }));
    (bar.firstElementChild as HTMLElement).style.width = `${Math.max(0.5, Math.min(100, 100 * e.share))}%`;
    const row = h(
      'tr',
      { class: `rt-row${this.focusedId === e.objectId ? ' focused' : ''}`, 'data-oid': e.objectId, 'data-depth': node.depth },
      name,
      h('td', { class: 'rt-type', title: displayTypeName(e.typeName) }, shortTypeName(e.typeName)),
      h('td', { class: 'rt-num rt-own', title: `${groupDigits(e.ownBytes)} bytes` }, humanBytes(e.ownBytes)),
      h('td', { class: 'rt-num rt-retained', title: `${groupDigits(e.retainedBytes)} bytes` }, humanBytes(e.retainedBytes)),
      h('td', { class: 'rt-share', title: `${percent(e.retainedBytes, this.reachableBytes)} of ${groupDigits(this.reachableBytes)} reachable bytes` }, bar, h('span', { class: 'rt-percent' }, percent(e.retainedBytes, this.reachableBytes))),
      h('td', { class: 'rt-num rt-objects' }, groupDigits(e.retainedObjects)),
    );
    node.row = row;
    this.nodes.set(row, node);
    return row;
  }

  /** ↑ ↓ move between rows, → opens a row (or goes to its first child), ← closes it (or goes to its parent). */
  private onKey(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const row = (event.target as Element | null)?.closest('tr');
    const node = row instanceof HTMLTableRowElement ? this.nodes.get(row) : undefined;
    if (node === undefined) return;
    const focusRow = (target: Element | null | undefined): void => {
      if (target instanceof HTMLTableRowElement) target.querySelector<HTMLElement>('.rt-link')?.focus();
    };
    const rows = [...this.body.querySelectorAll('tr.rt-row')];
    const at = rows.indexOf(row as HTMLTableRowElement);
    const expandable = node.row?.querySelector('button.rt-twisty') !== null;
    switch (event.key) {
      case 'ArrowDown':
        focusRow(rows[at + 1]);
        break;
      case 'ArrowUp':
        focusRow(rows[at - 1]);
        break;
      case 'ArrowRight':
        if (expandable && !node.expanded) void this.toggle(node).then(() => focusRow(node.row));
        else if (node.expanded) focusRow(node.children?.[0]?.row);
        break;
      case 'ArrowLeft':
        if (node.expanded && expandable) void this.toggle(node).then(() => focusRow(node.row));
        else focusRow(node.parent?.row);
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  /** Shows a problem instead of the rows. */
  fail(message: string): void {
    this.top = undefined;
    clear(this.body, h('tr', null, h('td', { colspan: 6, class: 'v-error' }, message)));
  }
}

function newNode(entry: RetainerEntry, parent: Node | undefined): Node {
  return { entry, parent, depth: parent === undefined ? 0 : parent.depth + 1, children: undefined, total: 0, expanded: false, loading: false, error: undefined, pinned: false, row: undefined };
}

/** Indentation of a row at `depth`; deep trees keep a readable name column (at most 16 steps). */
function indent(depth: number): string {
  return `calc(4px + ${Math.min(depth, 16)} * var(--rt-indent, 16px))`;
}
