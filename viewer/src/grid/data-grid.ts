import { clear, h } from '../ui/dom.js';
import { morph, placeRows } from '../ui/dom-patch.js';
import type { GridState } from '../shell/router.js';
import { ColumnWidths, OWN_ID_COLUMNS } from './column-widths.js';
import { cellElement, columnTemplate, displayText, type GridColumn } from './grid-cells.js';
import { fillColumnsMenu, headerRows } from './grid-header.js';
import { moveByKey } from './grid-keys.js';
import type { SqlValue } from './sql-api.js';

export type { GridColumn } from './grid-cells.js';

/**
 * A grid of rows with one column per field: virtualized (only the rows in view are in the page,
 * fetched a page at a time, so millions scroll), sort by a column header, a filter row (one text
 * per column), columns resized by dragging and hidden from a menu, object ids as links with a
 * summary of the object. Keyboard: arrows, Page Up/Down, Home/End (Ctrl: first/last row), Enter
 * opens the object of the cell. What it shows (sort, filters, hidden columns) is the owner's
 * state: changes go to `onState`, which rebuilds the source.
 */

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

  /** The columns' widths; the room left in the grid goes to the columns that may be cut (grid-cells.ts). */
  private template(): string {
    return columnTemplate(this.visibleColumns(), (name) => this.widths.of(name), this.body.clientWidth);
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

  private displayText(column: GridColumn, value: SqlValue): string {
    return displayText(column, value, this.summaryTexts);
  }

  private renderHeader(): void {
    const rows = headerRows(this.visibleColumns(), this.state, {
      sortable: this.options.sortable,
      filterable: this.options.filterable,
      sortBy: (column) => this.sortBy(column),
      setFilter: (column, text) => this.setFilter(column, text),
      startResize: (event, column) => this.startResize(event, column),
      fit: (column) => this.fit(column),
    });
    // Styles set through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    const template = this.template();
    for (const row of rows) row.style.gridTemplateColumns = template;
    clear(this.header, rows);
  }

  private renderMenu(): void {
    fillColumnsMenu(this.menu, this.source?.columns ?? [], this.state.hidden ?? [], (column, shown) => {
      const next = new Set(this.state.hidden ?? []);
      if (shown) next.delete(column);
      else next.add(column);
      this.options.onState({ ...this.state, hidden: [...next] });
    });
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
    const active = row === this.active.row && c === this.active.column;
    const attrs = { class: `grid-cell${active ? ' active' : ''}`, role: 'gridcell', id: `grid-cell-${row}-${c}` };
    if (values === undefined) return h('div', { ...attrs, class: `${attrs.class} loading` }, '…');
    const value = values[this.source!.columns.indexOf(column)] ?? null;
    return cellElement(column, value, attrs, { summaries: this.summaryTexts, wanted: this.summaryWanted, objectHref: this.options.objectHref });
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
    if (event.key === 'Enter') {
      const link = this.rowsLayer.querySelector<HTMLAnchorElement>(`#grid-cell-${this.active.row}-${this.active.column} a`);
      if (link === null) return;
      event.preventDefault();
      const oid = /object\/([0-9]+)/.exec(link.href)?.[1];
      if (oid !== undefined) this.options.openObject(oid);
      return;
    }
    const perPage = Math.max(1, Math.floor(this.body.clientHeight / ROW_HEIGHT) - 2);
    const next = moveByKey(event.key, event.ctrlKey, this.active, { rows: source.total, columns: this.visibleColumns().length, perPage });
    if (next === undefined) return;
    event.preventDefault();
    this.active = next;
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
