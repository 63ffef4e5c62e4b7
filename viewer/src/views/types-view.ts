import { errorMessage } from '../model/api.js';
import type { Progress, TypeInfo } from '../model/api-v1.js';
import { displayTypeName } from '../model/dictionary.js';
import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes } from '../ui/format.js';
import type { GridState } from '../shell/router.js';
import { TypeGrid } from '../grid/type-grid.js';
import { splitter } from '../ui/splitter.js';
import { legendOf, stackedBar } from './charts.js';
import { machineryLabel, machineryOf, machineryText } from './gigamap-machinery.js';

/**
 * What takes the space: every type with instances, largest first, with bars of the bytes of its
 * objects' latest records (reachable and garbage), opening a type's instances: as a grid of its
 * SQL table where the server runs SQL, else as a paged list of ids with summaries; both can show
 * the unreachable ones only.
 */

const PAGE = 100;

/**
 * A type's name for a narrow list: the package part gives way first (cut with an ellipsis in the
 * middle of the name), the simple name stays whole (`one.microstream.persist…PersistenceRoots$Default`).
 */
function middleCutName(name: string): HTMLElement {
  const dot = name.replace(/\[\]/g, '').lastIndexOf('.');
  return h('span', { class: 'name-cut' }, h('span', { class: 'name-package' }, name.slice(0, dot + 1)), h('span', { class: 'name-simple' }, name.slice(dot + 1)));
}

export class TypesView {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly instances: HTMLElement;
  private readonly filter: HTMLInputElement;
  private types: readonly TypeInfo[] | undefined;
  private shown: { typeId: string | undefined; offset: number; reachable: boolean | undefined } = { typeId: undefined, offset: 0, reachable: undefined };
  private grid: TypeGrid | undefined;

  constructor(private readonly app: ViewHost) {
    this.filter = h('input', { type: 'search', class: 'filter-input', placeholder: 'Filter types…', 'aria-label': 'Filter types', spellcheck: 'false' });
    this.filter.addEventListener('input', () => this.renderTypes());
    this.list = h('div', { class: 'types-list' });
    this.instances = h('aside', { class: 'instances', 'aria-label': 'Instances' });
    this.element = h('section', { class: 'view types-view', 'aria-label': 'Types' }, h('div', { class: 'types-main page-view' }, h('div', { class: 'stats-toolbar' }, h('h2', null, 'Types by bytes'), this.filter), this.list));
    this.element.append(splitter(this.element, 'types', '--types-width', 'first', 220), this.instances);
  }

  async show(typeId: string | undefined, offset: number, reachable: boolean | undefined, grid: GridState | undefined): Promise<void> {
    this.shown = { typeId, offset, reachable };
    this.element.classList.toggle('with-instances', typeId !== undefined);
    if (this.types === undefined) await this.refresh();
    else this.renderTypes();
    if (typeId !== undefined && (await this.showGrid(typeId, reachable, grid ?? {}))) return;
    await this.showInstances(typeId, offset, reachable);
  }

  /** The grid of the type's SQL table, when the server runs SQL and has one for it. */
  private async showGrid(typeId: string, reachable: boolean | undefined, state: GridState): Promise<boolean> {
    let tables;
    try {
      if (!this.app.sqlAvailable) return false;
      tables = await this.app.sql.schema();
    } catch {
      return false;
    }
    const table = tables.find((t) => t.kind === 'type' && t.typeIds.includes(typeId));
    if (table === undefined) return false;
    this.grid ??= new TypeGrid(this.app, this.app.sql);
    const back = h('a', { class: 'button small close-instances', href: this.app.href({ view: 'types', instance: undefined, typeId: undefined, offset: 0 }) }, '× Close');
    const heading = h('div', { class: 'instances-head' }, h('h3', null, displayTypeName(table.typeName ?? table.name)), this.dictionaryLink(typeId), back);
    clear(this.instances, heading, this.grid.element);
    await this.grid.show(typeId, table, state, reachable);
    return true;
  }

  private dictionaryLink(typeId: string): HTMLElement {
    return h('a', { class: 'hint', href: this.app.href({ view: 'dictionary', instance: undefined, typeId, query: '' }) }, 'in the dictionary');
  }

  async refresh(): Promise<void> {
    clear(this.list, h('p', { class: 'hint' }, 'Loading the types…'));
    try {
      const answer = await this.app.v1.get<{ types: TypeInfo[] }>('/types?sort=bytes&limit=10000', 'the types', (p) => this.waiting(this.list, p));
      this.types = answer.types.filter((t) => t.instances > 0);
      this.renderTypes();
    } catch (error) {
      clear(this.list, h('div', { class: 'problem', role: 'alert' }, h('strong', null, 'Cannot load the types. '), errorMessage(error)));
    }
  }

  private waiting(target: HTMLElement, p: Progress): void {
    clear(target, h('p', { class: 'hint building' }, `The server is building its graph index (${p.phase}, ${p.percent} %). This view appears when it is ready.`));
  }

  private renderTypes(): void {
    const types = this.types;
    if (types === undefined) return;
    const needle = this.filter.value.trim().toLowerCase();
    const visible = needle === '' ? types : types.filter((t) => displayTypeName(t.typeName).toLowerCase().includes(needle) || t.typeName.toLowerCase().includes(needle) || t.typeId === needle);
    const max = Math.max(1, ...types.map((t) => t.liveBytes));
    const total = types.reduce((n, t) => n + t.liveBytes, 0);
    clear(
      this.list,
      h(
        'p',
        { class: 'hint' },
        visible.length === types.length
          ? `${groupDigits(types.length)} types with instances, ${humanBytes(total)} in the latest records of their objects. Click a type for its instances.`
          : `${groupDigits(visible.length)} of ${groupDigits(types.length)} types with instances match the filter.`,
      ),
      ((m) => (m === undefined ? null : h('p', { class: 'hint gigamap-machinery' }, machineryText(m))))(machineryOf(types)),
      legendOf([
        ['live', 'reachable from the root'],
        ['garbage', 'unreachable (garbage)'],
      ]),
      h(
        'div',
        { class: 'chart types-chart', role: 'list', 'aria-label': 'Types by bytes' },
        visible.map((t) => {
          const garbage = t.liveBytes - t.reachableBytes;
          const title = `${displayTypeName(t.typeName)} (type id ${t.typeId}): ${groupDigits(t.instances)} instances, ${groupDigits(t.liveBytes)} bytes; ${groupDigits(t.instances - t.reachable)} unreachable, ${groupDigits(garbage)} bytes${((label) => (label === undefined ? '' : `; ${label}`))(machineryLabel(t))}`;
          return h(
            'a',
            {
              class: `bar-row type-row${t.typeId === this.shown.typeId ? ' selected' : ''}`,
              role: 'listitem',
              href: this.app.href({ view: 'types', instance: undefined, typeId: t.typeId, offset: 0 }),
              title,
              'data-type-id': t.typeId,
            },
            h(
              'div',
              { class: 'bar-label' },
              // First, where a long name's end is cut off.
              ((label) => (label === undefined ? null : h('span', { class: 'machinery-tag', title: label }, 'GigaMap')))(machineryLabel(t)),
              middleCutName(displayTypeName(t.typeName)),
              t.current ? null : h('span', { class: 'hint' }, ` v${t.version}`),
            ),
            stackedBar(
              [
                { value: t.reachableBytes, kind: 'live' },
                { value: garbage, kind: 'garbage' },
              ],
              max,
              title,
            ),
            h('div', { class: 'bar-figures' }, humanBytes(t.liveBytes), h('span', { class: 'ratio' }, `${groupDigits(t.instances)} obj`)),
          );
        }),
      ),
    );
  }

  private async showInstances(typeId: string | undefined, offset: number, reachable: boolean | undefined): Promise<void> {
    if (typeId === undefined) {
      clear(this.instances, h('p', { class: 'hint' }, 'Select a type to list its instances.'));
      return;
    }
    clear(this.instances, h('p', { class: 'hint' }, 'Loading…'));
    try {
      const filter = reachable === undefined ? '' : `&reachable=${reachable}`;
      const page = await this.app.v1.get<{ typeName: string; total: number; objectIds: string[]; summaries: (string | null)[] }>(
        `/types/${typeId}/instances?offset=${offset}&limit=${PAGE}&summaries=true${filter}`,
        `the instances of type ${typeId}`,
      );
      if (this.shown.typeId !== typeId || this.shown.offset !== offset || this.shown.reachable !== reachable) return;
      const route = (to: number, only: boolean | undefined = reachable) => this.app.href({ view: 'types', instance: undefined, typeId, offset: to, ...(only === undefined ? {} : { reachable: only }) });
      const pager = (to: number, label: string, enabled: boolean): HTMLElement =>
        enabled ? h('a', { class: 'button', href: route(to) }, label) : h('span', { class: 'button disabled', 'aria-disabled': 'true' }, label);
      const last = Math.max(0, Math.floor((page.total - 1) / PAGE) * PAGE);
      const name = displayTypeName(page.typeName);
      const toggle = h('input', { type: 'checkbox', class: 'unreachable-only', checked: reachable === false });
      toggle.addEventListener('change', () => this.app.navigate({ view: 'types', instance: undefined, typeId, offset: 0, ...(toggle.checked ? { reachable: false } : {}) }));
      clear(
        this.instances,
        h('div', { class: 'instances-head' }, h('h3', null, name), this.dictionaryLink(typeId), h('a', { class: 'button small close-instances', href: this.app.href({ view: 'types', instance: undefined, typeId: undefined, offset: 0 }) }, '× Close')),
        h(
          'p',
          { class: 'hint' },
          `${groupDigits(page.total)} ${reachable === false ? 'unreachable ' : reachable === true ? 'reachable ' : ''}instances (type id ${typeId}), ascending ids. `,
          h('a', { class: 'export-link', href: this.app.v1.url(`/types/${typeId}/instances.ndjson`), download: `${name}.ndjson` }, 'Export all as NDJSON'),
        ),
        h('label', { class: 'check' }, toggle, ' unreachable only'),
        h(
          'div',
          { class: 'pager' },
          pager(0, '« First', offset > 0),
          pager(Math.max(0, offset - PAGE), '‹ Previous', offset > 0),
          h('span', { class: 'hint' }, page.total === 0 ? 'none' : `${groupDigits(offset + 1)}–${groupDigits(Math.min(page.total, offset + PAGE))} of ${groupDigits(page.total)}`),
          pager(offset + PAGE, 'Next ›', offset + PAGE < page.total),
          pager(last, 'Last »', offset + PAGE < page.total),
        ),
        h(
          'ol',
          { class: 'instance-list', start: offset + 1 },
          page.objectIds.map((oid, i) =>
            h(
              'li',
              null,
              h('a', { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid, path: [] }) }, oid),
              page.summaries[i] === null || page.summaries[i] === undefined ? null : h('span', { class: 'summary' }, ` ${page.summaries[i]}`),
            ),
          ),
        ),
      );
    } catch (error) {
      clear(this.instances, h('div', { class: 'problem', role: 'alert' }, errorMessage(error)));
    }
  }
}
