import { errorMessage } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { detailRows, jsonSection, qualifiedLabel } from './detail-parts.js';
import { GIGAMAP_TYPE, GigaMapPanel } from './gigamap-view.js';
import { ObjectInsights } from './object-insights.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';
import { isConstantId, type TreeNode } from '../tree/tree-node.js';
import { summarize, VALUE_LENGTH } from '../tree/node-summary.js';
import { collectionTableSql } from '../grid/collection-table.js';
import { requestRun } from '../grid/run-request.js';

/** What the Data view has selected, asked each time the panel is drawn (it changes under it). */
export interface DetailSelection {
  readonly node: TreeNode | undefined;
  /** The label of the tree's root, which the panel's rows name. */
  readonly rootLabel: string;
}

/**
 * The detail panel beside the Data view's tree (data-view.ts): the selected node's head, rows,
 * full value, object insights and JSON. Kept apart from the tree's navigation because it holds
 * state of its own (full values loaded, the panels it reuses) that the tree never touches.
 */
export class DataDetail {
  readonly element: HTMLElement;
  private readonly fullValues = new Map<string, string>();
  /** Version of the node the detail panel was drawn for. */
  private detailVersion = -1;
  /** Path, referrers and versions of the selected object (storage-inspector's own API). */
  private insights: ObjectInsights | undefined;
  private gigaMap: GigaMapPanel | undefined;

  constructor(
    private readonly app: ViewHost,
    private readonly selection: () => DetailSelection,
  ) {
    this.element = h('aside', { class: 'detail', 'aria-label': 'Selected node' });
  }

  /** Whether `node` changed since the panel was drawn (its version moved on). */
  isStale(node: TreeNode): boolean {
    return node.version !== this.detailVersion;
  }

  /** Forget the full values loaded: the storage changed. */
  forgetValues(): void {
    this.fullValues.clear();
  }

  /** Draws the panel for the node selected now (a hint when none is). */
  render(): void {
    const node = this.selection().node;
    this.detailVersion = node?.version ?? -1;
    if (node === undefined) {
      clear(this.element, h('p', { class: 'hint' }, 'Select a row to see its details.'));
      return;
    }
    const types = this.app.types.current();
    const summary = summarize(node, types);
    const title = qualifiedLabel(node, types);
    const showValue = node.kind !== 'range' && node.kind !== 'member' && node.error === undefined;
    const parts: (HTMLElement | null)[] = [];
    parts.push(
      h(
        'header',
        { class: 'detail-head' },
        h('h2', { class: 'detail-title' }, h('span', { class: 'qname' }, title), showValue ? h('span', { class: 'eq' }, ' = ') : null, showValue ? h('span', { class: summary.cls }, summary.text) : null),
        this.tableLink(node),
        h('a', { class: 'small json-jump', href: '#', onclick: (event: Event) => {
          event.preventDefault();
          this.element.querySelector('.json-section')?.scrollIntoView({ block: 'start' });
        } }, 'JSON ↓'),
      ),
    );
    const rows = detailRows(node, this.app, this.selection().rootLabel);
    parts.push(h('table', { class: 'props' }, h('tbody', null, rows.map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, v))))));

    // The full value of texts and other simple values.
    const fullText = this.valueText(node);
    if (fullText !== undefined) {
      const full = this.fullValues.get(node.key);
      const shown = full ?? fullText.text;
      const section = h('section', { class: 'value-section' }, h('h3', null, 'Value'), h('pre', { class: 'value-box' }, shown));
      if (full === undefined && fullText.maybeCut) {
        const button = h('button', { type: 'button', class: 'button' }, 'Load full value');
        button.addEventListener('click', () => {
          button.disabled = true;
          button.textContent = 'Loading…';
          this.app.loader.fullValue(node).then(
            (value) => {
              this.fullValues.set(node.key, value);
              if (this.selection().node === node) this.render();
            },
            (error: unknown) => {
              button.replaceWith(h('p', { class: 'v-error' }, errorMessage(error)));
            },
          );
        });
        section.append(h('p', { class: 'hint' }, `The tree shows the first ${VALUE_LENGTH} characters. `, button));
      } else if (full !== undefined) {
        section.append(h('p', { class: 'hint' }, `${groupDigits(full.length)} characters (UTF-16 units).`));
      }
      parts.push(section);
    }

    if (node.kind === 'object' && node.error !== undefined) parts.push(h('p', { class: 'problem', role: 'alert' }, node.error));
    if (node.kind === 'object' && node.oid !== undefined && !isConstantId(node.oid) && this.app.ownApi && node.errorKind !== 'not-found') {
      if (node.desc !== undefined && this.app.types.current().get(node.desc.typeId)?.name === GIGAMAP_TYPE) {
        this.gigaMap ??= new GigaMapPanel(this.app);
        this.gigaMap.show(node.oid);
        parts.push(this.gigaMap.element);
      }
      this.insights ??= new ObjectInsights(this.app);
      this.insights.show(node.oid);
      parts.push(this.insights.element);
    }

    parts.push(jsonSection(node));
    clear(this.element, parts);
  }

  /** "Open as table" for a collection with elements, where the server runs SQL. */
  private tableLink(node: TreeNode): HTMLElement | null {
    const oid = node.oid;
    const counts = node.desc?.variableLength ?? [];
    if (!this.app.sqlAvailable || node.kind !== 'object' || oid === undefined || isConstantId(oid) || counts.length !== 1 || counts[0] === '0') return null;
    const link = h('a', { class: 'small json-jump', href: '#' }, 'Open as table ›');
    link.addEventListener('click', (event) => {
      event.preventDefault();
      collectionTableSql(this.app, oid).then(
        (sql) => {
          requestRun(sql);
          this.app.navigate({ view: 'query', instance: undefined, sql });
        },
        (error: unknown) => link.replaceWith(h('span', { class: 'v-error' }, errorMessage(error))),
      );
    });
    return link;
  }

  /** Loads the selected object's path, referrers and versions again (the storage changed). */
  refreshInsights(): void {
    this.insights?.reload();
  }

  private valueText(node: TreeNode): { text: string; maybeCut: boolean } | undefined {
    if (node.kind === 'value') return { text: node.value ?? '', maybeCut: node.truncated === true };
    if (node.kind === 'object' && node.desc?.simplified === true) {
      const first = node.desc.data[0];
      const text = typeof first === 'string' ? first : '';
      return { text, maybeCut: text.length >= VALUE_LENGTH };
    }
    return undefined;
  }
}
