import type { TypeDictionary } from '../model/dictionary.js';
import { h } from '../ui/dom.js';
import { escapeInvisible, setVisibleText } from '../ui/invisible.js';
import { placeRows } from '../ui/dom-patch.js';
import { isConstantId, type TreeNode } from './tree-node.js';
import { nodeType, summarize } from './node-summary.js';

/**
 * The tree grid of the data view (WAI-ARIA treegrid): columns name, value, type, object id.
 * Rows are the visible nodes in depth-first order; keyboard: arrows, Home/End, Page Up/Down,
 * Enter opens the selected object on its own, `*` expands all siblings.
 */

export interface TreeHost {
  types(): TypeDictionary;
  select(node: TreeNode): void;
  toggle(node: TreeNode): void;
  /** Enter / double click: open the object as the root of its own view. */
  open(node: TreeNode): void;
  retry(node: TreeNode): void;
}

type Row = { readonly node: TreeNode; readonly pseudo?: 'loading' | 'error' };

let rowIds = 0;

export class TreeGrid {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private root: TreeNode | undefined;
  private rows: Row[] = [];
  private readonly rowElements = new Map<string, { el: HTMLElement; version: number; epoch: number }>();
  private epoch = 0;
  selected: TreeNode | undefined;

  constructor(private readonly host: TreeHost) {
    this.body = h('div', { class: 'tree-body', role: 'rowgroup' });
    this.element = h(
      'div',
      { class: 'tree', role: 'treegrid', tabindex: 0, 'aria-label': 'Objects', 'aria-multiselectable': 'false' },
      h(
        'div',
        { class: 'tree-head', role: 'row' },
        h('div', { class: 'c-name', role: 'columnheader' }, 'Name'),
        h('div', { class: 'c-value', role: 'columnheader' }, 'Value'),
        h('div', { class: 'c-type', role: 'columnheader' }, 'Type'),
        h('div', { class: 'c-oid', role: 'columnheader' }, 'Object id'),
      ),
      this.body,
    );
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.body.addEventListener('click', (event) => this.onClick(event));
    this.body.addEventListener('dblclick', (event) => {
      const node = this.nodeAt(event.target);
      if (node !== undefined && node.kind === 'object') host.open(node);
    });
  }

  setRoot(root: TreeNode): void {
    this.root = root;
    this.rowElements.clear();
    this.render();
  }

  /** Draw rows whose nodes changed; `all` after the dictionary changed. */
  render(all = false): void {
    if (all) this.epoch++;
    const rows: Row[] = [];
    const walk = (node: TreeNode): void => {
      rows.push({ node });
      if (!node.expanded) return;
      // A definite "not found" is said once, in the node's own row: nothing to retry.
      if (node.error !== undefined && node.errorKind === 'not-found' && node.kind === 'object') return;
      if (node.error !== undefined && node.kind !== 'object') rows.push({ node, pseudo: 'error' });
      else if (node.error !== undefined && node.children === undefined) rows.push({ node, pseudo: 'error' });
      else if (node.loading && node.children === undefined) rows.push({ node, pseudo: 'loading' });
      for (const child of node.children ?? []) walk(child);
    };
    if (this.root !== undefined) walk(this.root);
    this.rows = rows;
    const seen = new Set<string>();
    const elements: HTMLElement[] = [];
    for (const row of rows) {
      const id = row.pseudo === undefined ? row.node.key : `${row.node.key}\u0000${row.pseudo}`;
      seen.add(id);
      let cached = this.rowElements.get(id);
      if (cached === undefined || cached.version !== row.node.version || cached.epoch !== this.epoch) {
        const el = this.drawRow(row, cached?.el);
        cached = { el, version: row.node.version, epoch: this.epoch };
        this.rowElements.set(id, cached);
      }
      elements.push(cached.el);
    }
    for (const id of [...this.rowElements.keys()]) if (!seen.has(id)) this.rowElements.delete(id);
    placeRows(this.body, elements);
    this.markSelected();
  }

  private drawRow(row: Row, reuse: HTMLElement | undefined): HTMLElement {
    const node = row.node;
    const el = reuse ?? h('div', { role: 'row', id: `row-${++rowIds}` });
    const indent = `${(node.depth + (row.pseudo === undefined ? 0 : 1)) * 16 + 4}px`;
    if (row.pseudo !== undefined) {
      el.replaceChildren();
      el.className = `row pseudo ${row.pseudo}`;
      el.removeAttribute('aria-expanded');
      el.setAttribute('aria-level', String(node.depth + 2));
      const name = h('div', { class: 'c-name c-message', role: 'gridcell' });
      name.style.paddingLeft = indent;
      if (row.pseudo === 'loading') name.append(h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'loading…');
      else {
        name.append(h('span', { class: 'v-error' }, `⚠ ${node.error ?? ''}`));
        if (node.errorKind !== 'not-found') name.append(' ', h('button', { class: 'link', type: 'button', 'data-retry': '1' }, 'retry'));
      }
      el.append(name);
      delete el.dataset['key'];
      el.dataset['parentKey'] = node.key;
      el.dataset['pseudo'] = row.pseudo;
      return el;
    }
    delete el.dataset['pseudo'];
    delete el.dataset['parentKey'];
    el.dataset['key'] = node.key;
    el.className = `row k-${node.kind}`;
    el.setAttribute('aria-level', String(node.depth + 1));
    if (node.expandable) el.setAttribute('aria-expanded', String(node.expanded));
    else el.removeAttribute('aria-expanded');
    const types = this.host.types();
    const summary = summarize(node, types);
    const type = nodeType(node, types);
    const oid = node.kind === 'object' ? (node.oid ?? '') : '';
    const constant = isConstantId(oid);
    // The row's cells are updated in place, never replaced: a row redrawn between a press and its
    // release (a summary arriving in the background) would otherwise lose the click, as the browser
    // sends none when the pressed element left the document.
    const cells = rowCells(el);
    cells.name.title = escapeInvisible(nameTitle(node));
    cells.name.style.paddingLeft = indent;
    setText(cells.twisty, `twisty${node.expandable ? '' : ' leaf'}`, node.expandable ? (node.expanded ? '▾' : '▸') : '');
    setText(cells.label, node.kind === 'range' || node.label.startsWith('[') ? 'label index' : 'label', node.label);
    cells.value.title = escapeInvisible(summary.title ?? summary.text);
    setText(cells.summary, summary.cls, summary.text);
    cells.type.title = escapeInvisible(type.full);
    setVisibleText(cells.type, type.short);
    cells.oid.className = `c-oid${constant ? ' constant' : ''}`;
    cells.oid.title = constant ? 'JDK constant (a value cached by the JVM, not stored in the files)' : '';
    cells.oid.textContent = oid;
    return el;
  }

  private markSelected(): void {
    const selectedKey = this.selected?.key;
    let activeId: string | undefined;
    for (const [id, { el }] of this.rowElements) {
      const on = id === selectedKey;
      if (el.getAttribute('aria-selected') === 'true' && !on) el.setAttribute('aria-selected', 'false');
      if (on) {
        el.setAttribute('aria-selected', 'true');
        activeId = el.id;
      } else if (!el.hasAttribute('aria-selected')) el.setAttribute('aria-selected', 'false');
    }
    if (activeId !== undefined) this.element.setAttribute('aria-activedescendant', activeId);
    else this.element.removeAttribute('aria-activedescendant');
  }

  /** Select without asking the host (the host calls this after its own bookkeeping). */
  setSelected(node: TreeNode | undefined, scroll = true): void {
    this.selected = node;
    this.markSelected();
    if (scroll && node !== undefined) this.rowElements.get(node.key)?.el.scrollIntoView({ block: 'nearest' });
  }

  focus(): void {
    this.element.focus({ preventScroll: true });
  }

  private nodeAt(target: EventTarget | null): TreeNode | undefined {
    const el = target instanceof Element ? target.closest<HTMLElement>('.row') : null;
    if (el === null) return undefined;
    const key = el.dataset['key'];
    return this.rows.find((r) => r.pseudo === undefined && r.node.key === key)?.node;
  }

  private onClick(event: MouseEvent): void {
    const target = event.target instanceof Element ? event.target : null;
    const rowEl = target?.closest<HTMLElement>('.row');
    if (rowEl === null || rowEl === undefined) return;
    const parentKey = rowEl.dataset['parentKey'];
    if (parentKey !== undefined) {
      const owner = this.rows.find((r) => r.pseudo === undefined && r.node.key === parentKey);
      if (owner !== undefined && target?.closest('[data-retry]') != null) this.host.retry(owner.node);
      return;
    }
    const key = rowEl.dataset['key'];
    const row = this.rows.find((r) => r.pseudo === undefined && r.node.key === key);
    if (row === undefined) return;
    this.host.select(row.node);
    if (target?.closest('.twisty') != null && row.node.expandable) this.host.toggle(row.node);
    this.focus();
  }

  private visibleNodes(): TreeNode[] {
    return this.rows.filter((r) => r.pseudo === undefined).map((r) => r.node);
  }

  private onKey(event: KeyboardEvent): void {
    const nodes = this.visibleNodes();
    if (nodes.length === 0) return;
    const current = this.selected;
    const index = current === undefined ? -1 : nodes.findIndex((n) => n.key === current.key);
    const pageRows = Math.max(1, Math.floor(this.body.clientHeight / 22) - 1);
    const go = (i: number): void => {
      const target = nodes[Math.max(0, Math.min(nodes.length - 1, i))];
      if (target !== undefined) this.host.select(target);
    };
    switch (event.key) {
      case 'ArrowDown':
        go(index + 1);
        break;
      case 'ArrowUp':
        go(index < 0 ? 0 : index - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(nodes.length - 1);
        break;
      case 'PageDown':
        go(index + pageRows);
        break;
      case 'PageUp':
        go(index - pageRows);
        break;
      case 'ArrowRight':
        if (current === undefined) go(0);
        else if (current.expandable && !current.expanded) this.host.toggle(current);
        else if (current.expanded && current.children !== undefined && current.children.length > 0) go(index + 1);
        break;
      case 'ArrowLeft':
        if (current === undefined) go(0);
        else if (current.expanded) this.host.toggle(current);
        else if (current.parent !== undefined) this.host.select(current.parent);
        break;
      case 'Enter':
        if (current !== undefined && current.kind === 'object') this.host.open(current);
        else if (current?.expandable === true) this.host.toggle(current);
        break;
      case ' ':
        if (current?.expandable === true) this.host.toggle(current);
        break;
      case '*':
        if (current?.parent !== undefined) for (const sibling of current.parent.children ?? []) if (sibling.expandable && !sibling.expanded) this.host.toggle(sibling);
        break;
      default:
        return;
    }
    event.preventDefault();
  }
}

function nameTitle(node: TreeNode): string {
  const m = node.member;
  if (m === undefined) return node.label;
  if (m.kind === 'field') return `${m.typeName} ${m.qualifier === undefined ? '' : `${m.qualifier}#`}${m.name}`;
  return `${m.typeName} ${m.name}`;
}

interface RowCells {
  readonly name: HTMLElement;
  readonly twisty: HTMLElement;
  readonly label: HTMLElement;
  readonly value: HTMLElement;
  readonly summary: HTMLElement;
  readonly type: HTMLElement;
  readonly oid: HTMLElement;
}

const rowCellsOf = new WeakMap<HTMLElement, RowCells>();

/** The cells of a node's row, made once per row element. */
function rowCells(el: HTMLElement): RowCells {
  let cells = rowCellsOf.get(el);
  if (cells === undefined || cells.name.parentNode !== el) {
    const twisty = h('span', { class: 'twisty', 'aria-hidden': 'true' });
    const label = h('span', { class: 'label' });
    const summary = h('span');
    cells = {
      name: h('div', { class: 'c-name', role: 'gridcell' }, twisty, label),
      twisty,
      label,
      value: h('div', { class: 'c-value', role: 'gridcell' }, summary),
      summary,
      type: h('div', { class: 'c-type', role: 'gridcell' }),
      oid: h('div', { class: 'c-oid', role: 'gridcell' }),
    };
    rowCellsOf.set(el, cells);
    el.replaceChildren(cells.name, cells.value, cells.type, cells.oid);
  }
  return cells;
}

function setText(element: HTMLElement, className: string, text: string): void {
  if (element.className !== className) element.className = className;
  setVisibleText(element, text);
}
