import { clear, h } from '../ui/dom.js';
import { morph, placeRows } from '../ui/dom-patch.js';
import { quote } from '../ui/format.js';
import type { GridState } from '../shell/router.js';
import { ColumnWidths, OWN_ID_COLUMNS } from './column-widths.js';
import type { SqlColumn, SqlValue } from './sql-api.js';

/**
 * A grid of rows with one column per field: virtualized (only the rows in view are in the page,
 * fetched a page at a time, so millions scroll), sort by a column header, a filter row (one text
 * per column), columns resized by dragging and hidden from a menu, object ids as links with a
 * summary of the object. Keyboard: arrows, Page Up/Down, Home/End (Ctrl: first/last row), Enter
 * opens the object of the cell. What it shows (sort, filters, hidden columns) is the owner's
 * state: changes go to `onState`, which rebuilds the source.
 */

export interface GridColumn extends SqlColumn {
  /** Holds object ids: shown as links to the Data view with a summary. */
  readonly objectId: boolean;
}

export interface GridSource {
  readonly columns: readonly GridColumn[];
  /** Rows in all (undefined: not known yet). */
  readonly total: number;
  /** Rows `[offset, offset + limit)`. */
  rows(offset: number, limit: number): Promise<readonly (readonly SqlValue[])[]>;
}

export interface GridOptions {
  readonly label: string;
  /** Sorting and filtering happen in the source (SQL): off for a fixed result. */
  readonly sortable: boolean;
  readonly filterable: boolean;
  readonly state: GridState;
  readonly onState: (state: GridState) => void;
  readonly objectHref: (oid: string) => string;
  readonly openObject: (oid: string) => void;
  /** One-line texts of objects, for id cells. */
  readonly summaries: (ids: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** On a phone-sized window the row's own id column (`_oid`) goes last: the values come first. */
  readonly valuesFirstOnPhone?: boolean;
}

const ROW_HEIGHT = 28;
const PAGE = 200;
/** The widths of the styles' phone layout (styles.css). */
const PHONE = '(max-width: 640px)';

export class DataGrid {
  readonly element: HTMLElement;
  private readonly header: HTMLElement;
  private readonly body: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rowsLayer: HTMLElement;
  private readonly menu: HTMLElement;
  private source: GridSource | undefined;
  private state: GridState;
  private readonly pages = new Map<number, readonly (readonly SqlValue[])[] | 'loading'>();
  private readonly widths = new ColumnWidths();
  private narrow = false;
  private readonly summaryTexts = new Map<string, string>();
  private readonly summaryWanted = new Set<string>();
  private summaryTimer: number | undefined;
  private active = { row: 0, column: 0 };
  private generation = 0;

  constructor(private readonly options: GridOptions) {
    this.state = options.state;
    this.header = h('div', { class: 'grid-head', role: 'rowgroup' });
    this.spacer = h('div', { class: 'grid-spacer' });
    this.rowsLayer = h('div', { class: 'grid-rows', role: 'rowgroup' });
    this.body = h('div', { class: 'grid-body', tabindex: '0', role: 'grid', 'aria-label': options.label }, this.header, this.spacer, this.rowsLayer);
    this.body.addEventListener('scroll', () => this.renderRows());
    this.body.addEventListener('keydown', (event) => this.onKey(event));
    this.menu = h('details', { class: 'grid-columns-menu' });
    this.element = h('div', { class: 'data-grid' }, this.body);
    this.renderMenu();
    new ResizeObserver(() => {
      this.applyTemplate();
      this.renderRows();
    }).observe(this.body);
    if (options.valuesFirstOnPhone === true) {
      const phone = window.matchMedia(PHONE);
      this.narrow = phone.matches;
      phone.addEventListener('change', () => {
        this.narrow = phone.matches;
        this.renderHeader();
        this.renderRows();
      });
    }
  }

  /** The menu that hides and shows columns (placed by the owner in its toolbar). */
  get columnsMenu(): HTMLElement {
    return this.menu;
  }

  focus(): void {
    this.body.focus();
  }

  setSource(source: GridSource, state: GridState): void {
    this.generation++;
    this.source = source;
    this.state = state;
    this.pages.clear();
    this.active = { row: Math.min(this.active.row, Math.max(0, source.total - 1)), column: Math.min(this.active.column, Math.max(0, this.visibleColumns().length - 1)) };
    this.body.setAttribute('aria-rowcount', String(source.total + (this.options.filterable ? 2 : 1)));
    // Columns of another shape are measured again once their first rows arrive (no rows: by their names).
    if (!this.widths.measuredFor(source.columns) && source.total === 0) this.measure([]);
    this.renderHeader();
    this.renderMenu();
    this.spacer.style.height = `${source.total * ROW_HEIGHT}px`;
    this.renderRows();
  }

  private visibleColumns(): GridColumn[] {
    const hidden = new Set(this.state.hidden ?? []);
    const visible = (this.source?.columns ?? []).filter((c) => !hidden.has(c.name));
    if (!this.narrow) return visible;
    return [...visible.filter((c) => !OWN_ID_COLUMNS.has(c.name)), ...visible.filter((c) => OWN_ID_COLUMNS.has(c.name))];
  }

  /**
   * The columns' widths; narrower in all than the grid, the room left goes to the columns that
   * may be cut (texts, references), else to the last one: the columns use the width there is.
   */
  private template(): string {
    const columns = this.visibleColumns();
    const widths = columns.map((c) => this.widths.of(c.name));
    const room = this.body.clientWidth - widths.reduce((n, w) => n + w, 0) - 1;
    if (room > 0 && columns.length > 0) {
      const wide = columns.map((c, i) => (isCuttable(c) ? i : -1)).filter((i) => i >= 0);
      const takers = wide.length > 0 ? wide : [columns.length - 1];
      for (const i of takers) widths[i] = widths[i]! + Math.floor(room / takers.length);
    }
    return widths.map((w) => `${w}px`).join(' ');
  }

  private applyTemplate(): void {
    const template = this.template();
    for (const row of this.element.querySelectorAll<HTMLElement>('.grid-row')) row.style.gridTemplateColumns = template;
  }

  /** Widths from the columns' names and these rows (the first page). */
  private measure(rows: readonly (readonly SqlValue[])[]): void {
    const source = this.source;
    if (source === undefined) return;
    this.widths.measure(source.columns, rows.slice(0, PAGE), this.rowsLayer, (column, value) => this.displayText(column, value));
  }

  /** A double click on a column's border: as wide as the rows loaded so far need (summaries too). */
  private fit(column: GridColumn): void {
    const source = this.source;
    if (source === undefined) return;
    const index = source.columns.indexOf(column);
    const values = [...this.pages.values()].flatMap((page) => (page === 'loading' ? [] : page.map((row) => row[index] ?? null)));
    this.widths.fit(column, values, this.rowsLayer, (c, value) => this.displayText(c, value));
    this.applyTemplate();
  }

  /** The text a cell shows for a value (a reference: its summary once known). */
  private displayText(column: GridColumn, value: SqlValue): string {
    if (value === null) return 'null';
    if (column.objectId && typeof value === 'string' && /^[0-9]+$/.test(value) && value !== '0') {
      return OWN_ID_COLUMNS.has(column.name) ? value : (this.summaryTexts.get(value) ?? value);
    }
    return typeof value === 'string' && /CHAR|TEXT|STRING/.test(column.type) ? quote(value, 500) : String(value);
  }

  private renderHeader(): void {
    const columns = this.visibleColumns();
    const template = this.template();
    const titles = h(
      'div',
      { class: 'grid-row grid-titles', role: 'row' },
      columns.map((column) => {
        const sorted = this.state.sort === column.name;
        const label = `${column.name}${sorted ? (this.state.desc === true ? ' ▼' : ' ▲') : ''}`;
        const title = this.options.sortable
          ? h('button', { type: 'button', class: 'grid-sort', title: `${column.name} (${column.type}): sort`, onclick: () => this.sortBy(column.name) }, label)
          : h('span', { class: 'grid-title', title: `${column.name} (${column.type})` }, label);
        const handle = h('span', { class: 'grid-resize', 'aria-hidden': 'true', title: 'drag to resize, double-click to fit the content' });
        handle.addEventListener('pointerdown', (event) => this.startResize(event, column.name));
        handle.addEventListener('dblclick', (event) => {
          event.preventDefault();
          this.fit(column);
        });
        return h('div', { class: 'grid-cell grid-th', role: 'columnheader', 'aria-sort': sorted ? (this.state.desc === true ? 'descending' : 'ascending') : 'none' }, title, handle);
      }),
    );
    const rows: HTMLElement[] = [titles];
    if (this.options.filterable) {
      rows.push(
        h(
          'div',
          { class: 'grid-row grid-filters', role: 'row' },
          columns.map((column) => {
            const input = h('input', {
              type: 'search',
              class: 'grid-filter',
              value: this.state.filters?.[column.name] ?? '',
              placeholder: column.objectId || /INT|DOUBLE|FLOAT|DECIMAL|REAL/.test(column.type) ? '= < > …' : 'contains…',
              'aria-label': `filter ${column.name}`,
              spellcheck: 'false',
            });
            input.addEventListener('change', () => this.setFilter(column.name, input.value));
            input.addEventListener('keydown', (event) => event.stopPropagation());
            return h('div', { class: 'grid-cell', role: 'gridcell' }, input);
          }),
        ),
      );
    }
    // Styles set through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    for (const row of rows) row.style.gridTemplateColumns = template;
    clear(this.header, rows);
  }

  private renderMenu(): void {
    const hidden = new Set(this.state.hidden ?? []);
    clear(
      this.menu,
      h('summary', { class: 'button small' }, `Columns${hidden.size > 0 ? ` (${hidden.size} hidden)` : ''}`),
      h(
        'div',
        { class: 'grid-menu-list' },
        (this.source?.columns ?? []).map((column) => {
          const box = h('input', { type: 'checkbox', checked: !hidden.has(column.name) });
          box.addEventListener('change', () => {
            const next = new Set(this.state.hidden ?? []);
            if (box.checked) next.delete(column.name);
            else next.add(column.name);
            this.options.onState({ ...this.state, hidden: [...next] });
          });
          return h('label', null, box, ` ${column.name}`);
        }),
      ),
    );
  }

  private sortBy(column: string): void {
    const desc = this.state.sort === column ? this.state.desc !== true : false;
    this.options.onState({ ...this.state, sort: column, desc });
  }

  private setFilter(column: string, text: string): void {
    const filters = { ...(this.state.filters ?? {}) };
    if (text.trim() === '') delete filters[column];
    else filters[column] = text.trim();
    this.options.onState({ ...this.state, filters });
  }

  private startResize(event: PointerEvent, column: string): void {
    event.preventDefault();
    const startX = event.clientX;
    const start = this.widths.of(column);
    const move = (e: PointerEvent): void => {
      this.widths.drag(column, start + e.clientX - startX);
      this.applyTemplate();
    };
    const up = (): void => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  /** The rows in view (and a few around), from cached pages; missing pages are fetched. */
  private renderRows(): void {
    const source = this.source;
    if (source === undefined) return;
    const headHeight = this.header.offsetHeight;
    const top = Math.max(0, this.body.scrollTop - headHeight);
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 5);
    const last = Math.min(source.total, Math.ceil((top + this.body.clientHeight) / ROW_HEIGHT) + 5);
    const columns = this.visibleColumns();
    const template = this.template();
    const rows: HTMLElement[] = [];
    for (let r = first; r < last; r++) {
      const page = this.pages.get(Math.floor(r / PAGE));
      if (page === undefined) void this.load(Math.floor(r / PAGE));
      const values = page === undefined || page === 'loading' ? undefined : page[r % PAGE];
      const row = h(
        'div',
        { class: `grid-row${r % 2 === 1 ? ' odd' : ''}`, role: 'row', 'aria-rowindex': String(r + (this.options.filterable ? 3 : 2)) },
        columns.map((column, c) => this.cell(column, values, r, c)),
      );
      row.style.gridTemplateColumns = template;
      row.style.top = `${r * ROW_HEIGHT}px`;
      rows.push(row);
    }
    this.rowsLayer.style.top = `${headHeight}px`;
    // Rows drawn before keep their elements (changed in place): a link pressed while summaries
    // arrive must still be there when the button is released (see dom-patch.ts).
    const drawn = new Map<string, Element>();
    for (const child of this.rowsLayer.children) drawn.set(child.getAttribute('aria-rowindex') ?? '', child);
    placeRows(
      this.rowsLayer,
      rows.map((row) => {
        const old = drawn.get(row.getAttribute('aria-rowindex') ?? '');
        if (old === undefined) return row;
        morph(old, row);
        return old;
      }),
    );
    this.body.setAttribute('aria-activedescendant', `grid-cell-${this.active.row}-${this.active.column}`);
    this.requestSummaries();
  }

  private cell(column: GridColumn, values: readonly SqlValue[] | undefined, row: number, c: number): HTMLElement {
    const index = this.source!.columns.indexOf(column);
    const active = row === this.active.row && c === this.active.column;
    const attrs = { class: `grid-cell${active ? ' active' : ''}`, role: 'gridcell', id: `grid-cell-${row}-${c}` };
    if (values === undefined) return h('div', { ...attrs, class: `${attrs.class} loading` }, '…');
    const value = values[index] ?? null;
    if (value === null) return h('div', { ...attrs, class: `${attrs.class} v-null` }, 'null');
    if (column.objectId && typeof value === 'string' && /^[0-9]+$/.test(value) && value !== '0') {
      // The row's own id as itself; references as a summary of what they point at.
      if (OWN_ID_COLUMNS.has(column.name)) return h('div', attrs, h('a', { class: 'ref-link', href: this.options.objectHref(value), tabindex: '-1' }, value));
      const summary = this.summaryTexts.get(value);
      if (summary === undefined) this.summaryWanted.add(value);
      return h(
        'div',
        { ...attrs, title: summary === undefined ? value : `${value}: ${summary}` },
        h('a', { class: 'ref-link', href: this.options.objectHref(value), tabindex: '-1' }, summary === undefined ? value : summary),
      );
    }
    const text = this.displayText(column, value);
    const cls = typeof value === 'number' || /INT|DOUBLE|FLOAT|DECIMAL|REAL/.test(column.type) ? 'v-number' : typeof value === 'boolean' ? 'v-keyword' : /CHAR/.test(column.type) ? 'v-string' : 'v-other';
    return h('div', { ...attrs, class: `${attrs.class} ${cls}`, title: String(value).slice(0, 2000) }, text);
  }

  private async load(page: number): Promise<void> {
    const source = this.source!;
    const generation = this.generation;
    this.pages.set(page, 'loading');
    try {
      const rows = await source.rows(page * PAGE, PAGE);
      if (generation !== this.generation) return;
      this.pages.set(page, rows);
      if (page === 0 && !this.widths.measuredFor(source.columns)) {
        this.measure(rows);
        this.renderHeader();
      }
    } catch {
      if (generation !== this.generation) return;
      this.pages.delete(page);
      return;
    }
    this.renderRows();
  }

  private requestSummaries(): void {
    if (this.summaryWanted.size === 0 || this.summaryTimer !== undefined) return;
    this.summaryTimer = window.setTimeout(() => {
      this.summaryTimer = undefined;
      const ids = [...this.summaryWanted].slice(0, 500);
      for (const id of ids) this.summaryWanted.delete(id);
      void this.options.summaries(ids).then(
        (texts) => {
          for (const id of ids) this.summaryTexts.set(id, texts.get(id) ?? id);
          this.renderRows();
        },
        () => {
          for (const id of ids) this.summaryTexts.set(id, id);
        },
      );
    }, 30);
  }

  private onKey(event: KeyboardEvent): void {
    const source = this.source;
    if (source === undefined || source.total === 0) return;
    const columns = this.visibleColumns().length;
    const perPage = Math.max(1, Math.floor(this.body.clientHeight / ROW_HEIGHT) - 2);
    let { row, column } = this.active;
    switch (event.key) {
      case 'ArrowDown':
        row++;
        break;
      case 'ArrowUp':
        row--;
        break;
      case 'ArrowRight':
        column++;
        break;
      case 'ArrowLeft':
        column--;
        break;
      case 'PageDown':
        row += perPage;
        break;
      case 'PageUp':
        row -= perPage;
        break;
      case 'Home':
        if (event.ctrlKey) row = 0;
        else column = 0;
        break;
      case 'End':
        if (event.ctrlKey) row = source.total - 1;
        else column = columns - 1;
        break;
      case 'Enter': {
        const link = this.rowsLayer.querySelector<HTMLAnchorElement>(`#grid-cell-${row}-${column} a`);
        if (link !== null) {
          event.preventDefault();
          const oid = /object\/([0-9]+)/.exec(link.href)?.[1];
          if (oid !== undefined) this.options.openObject(oid);
        }
        return;
      }
      default:
        return;
    }
    event.preventDefault();
    this.active = { row: Math.max(0, Math.min(source.total - 1, row)), column: Math.max(0, Math.min(columns - 1, column)) };
    this.scrollToActive();
    this.renderRows();
  }

  private scrollToActive(): void {
    const headHeight = this.header.offsetHeight;
    const top = this.active.row * ROW_HEIGHT;
    const view = this.body.clientHeight - headHeight;
    if (top < this.body.scrollTop) this.body.scrollTop = top;
    else if (top + ROW_HEIGHT > this.body.scrollTop + view) this.body.scrollTop = top + ROW_HEIGHT - view;
    const cell = this.rowsLayer.querySelector<HTMLElement>(`#grid-cell-${this.active.row}-${this.active.column}`);
    cell?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}

/** A column whose values may be cut (texts, summaries of references): it takes the room left. */
function isCuttable(column: GridColumn): boolean {
  if (column.objectId) return !OWN_ID_COLUMNS.has(column.name);
  return !/INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC|BOOLEAN|DATE|TIME|INTERVAL/.test(column.type);
}
