import { displayTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';
import type { GridState } from '../shell/router.js';
import type { ViewHost } from '../shell/view-host.js';
import { DataGrid } from './data-grid.js';
import { CSV_TITLE, downloadResult, RAW_CSV_TITLE, type DownloadFormat } from './downloads.js';
import { SqlError, sqlErrorMessage, type SqlApi, type SqlTable } from './sql-api.js';
import { countSql, pageSql, positionInWhere, selectSql, type TableView } from './table-sql.js';
import { objectSummaries } from './summaries.js';

/**
 * The instances of a type as a grid over its SQL table (`/api/v1/sql`): a toolbar with
 * "unreachable only", a free WHERE condition, the columns menu and downloads (CSV, Parquet) of
 * exactly what is shown, and the grid. Every change is kept in the URL.
 */
export class TypeGrid {
  readonly element: HTMLElement;
  private readonly status: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly whereInput: HTMLInputElement;
  private readonly unreachable: HTMLInputElement;
  private readonly grid: DataGrid;
  private view: TableView | undefined;
  private typeId = '';
  private generation = 0;
  /** The table whose rows the grid shows (an error keeps them). */
  private gridTable: string | undefined;

  constructor(
    private readonly app: ViewHost,
    private readonly sql: SqlApi,
  ) {
    this.grid = new DataGrid({
      label: 'Instances',
      sortable: true,
      filterable: true,
      state: {},
      onState: (state) => this.change({ state }),
      objectHref: (oid) => this.app.href({ view: 'data', instance: undefined, oid, path: [] }),
      openObject: (oid) => this.app.navigate({ view: 'data', instance: undefined, oid, path: [] }),
      summaries: (ids) => objectSummaries(this.app, ids),
      valuesFirstOnPhone: true,
    });
    this.whereInput = h('input', { type: 'search', class: 'filter-input grid-where', placeholder: "SQL condition, e.g. age > 70 AND name LIKE 'G%'", 'aria-label': 'SQL WHERE condition', spellcheck: 'false' });
    const whereForm = h('form', { class: 'grid-where-form' }, h('label', { class: 'hint' }, 'WHERE '), this.whereInput);
    whereForm.addEventListener('submit', (event) => {
      event.preventDefault();
      if (this.view !== undefined) this.change({ state: { ...this.view.state, where: this.whereInput.value.trim() } });
    });
    this.unreachable = h('input', { type: 'checkbox', class: 'unreachable-only' });
    this.unreachable.addEventListener('change', () => this.change({ reachable: this.unreachable.checked ? false : undefined }));
    this.status = h('span', { class: 'hint grid-status', role: 'status' });
    this.problem = h('div', { class: 'problem grid-where-problem', role: 'alert', hidden: true });
    const download = (format: DownloadFormat, label: string, title: string): HTMLElement =>
      h('button', { type: 'button', class: 'button small', title, onclick: () => void this.download(format) }, label);
    this.element = h(
      'div',
      { class: 'type-grid' },
      h(
        'div',
        { class: 'grid-toolbar' },
        h('label', { class: 'check' }, this.unreachable, ' unreachable only'),
        whereForm,
        this.grid.columnsMenu,
        download('csv', 'CSV', CSV_TITLE),
        download('raw-csv', 'raw CSV', RAW_CSV_TITLE),
        download('parquet', 'Parquet', 'The rows, columns and order shown, as a Parquet file'),
        this.status,
      ),
      this.problem,
      this.grid.element,
    );
  }

  focus(): void {
    this.grid.focus();
  }

  async show(typeId: string, table: SqlTable, given: GridState, reachable: boolean | undefined): Promise<void> {
    const generation = ++this.generation;
    // `_type_id` is the same on every row of a type's table: hidden until the user shows it.
    const state: GridState = given.hidden === undefined ? { ...given, hidden: ['_type_id'] } : given;
    this.typeId = typeId;
    this.view = { table, state, reachable };
    this.whereInput.value = state.where ?? '';
    this.unreachable.checked = reachable === false;
    this.status.textContent = 'Counting…';
    const view = this.view;
    const columns = table.columns.map((c) => ({ name: c.name, type: c.type, objectId: c.objectId }));
    const statement = countSql(view);
    try {
      const counted = await this.sql.query(statement, 1);
      if (generation !== this.generation) return;
      const total = Number(counted.rows[0]?.[0] ?? 0);
      this.status.textContent = `${groupDigits(total)} ${reachable === false ? 'unreachable ' : ''}instances of ${displayTypeName(table.typeName ?? table.name)}`;
      this.problem.hidden = true;
      this.gridTable = table.name;
      this.grid.setSource({ columns, total, rows: async (offset, limit) => (await this.sql.query(pageSql(view, offset, limit), limit)).rows }, state);
    } catch (error) {
      if (generation !== this.generation) return;
      this.status.textContent = '';
      this.showProblem(view, statement, error);
      // The grid stays as it was (rows, headers, filters) so the condition can be mended in place;
      // a table not shown yet gets its headers and filters without rows.
      if (this.gridTable !== table.name) {
        this.gridTable = table.name;
        this.grid.setSource({ columns, total: 0, rows: async () => [] }, state);
      }
    }
  }

  /**
   * DuckDB's message under the WHERE box; where it locates the error in the user's own condition,
   * that text with a caret under the place (its position is into the generated statement).
   */
  private showProblem(view: TableView, statement: string, error: unknown): void {
    const message = sqlErrorMessage(error);
    const newline = message.indexOf('\n');
    const parts: (HTMLElement | string)[] = [h('strong', null, 'The condition cannot be run: '), newline < 0 ? message : message.slice(0, newline)];
    const position = error instanceof SqlError && error.position !== undefined ? positionInWhere(view, statement, error.position) : undefined;
    if (position !== undefined) parts.push(h('pre', { class: 'query-caret grid-where-caret' }, `${view.state.where ?? ''}\n${' '.repeat(position)}^`));
    if (newline >= 0) parts.push(h('details', null, h('summary', null, 'more'), h('pre', { class: 'grid-problem-more' }, message.slice(newline + 1))));
    clear(this.problem, parts);
    this.problem.hidden = false;
  }

  private change(change: { state?: GridState; reachable?: boolean | undefined }): void {
    const view = this.view;
    if (view === undefined) return;
    const reachable = 'reachable' in change ? change.reachable : view.reachable;
    const state = change.state ?? view.state;
    this.app.navigate({ view: 'types', instance: undefined, typeId: this.typeId, offset: 0, ...(reachable === undefined ? {} : { reachable }), grid: state });
  }

  private async download(format: DownloadFormat): Promise<void> {
    const view = this.view;
    if (view === undefined) return;
    const name = (view.table.alias ?? view.table.name).replace(/[^A-Za-z0-9._-]/g, '_');
    try {
      await downloadResult(this.sql, selectSql(view), format, name);
    } catch (error) {
      this.status.textContent = `Download failed: ${sqlErrorMessage(error)}`;
    }
  }
}
