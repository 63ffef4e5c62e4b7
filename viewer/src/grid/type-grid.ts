import { errorMessage } from '../api.js';
import { displayTypeName } from '../dictionary.js';
import { clear, h } from '../dom.js';
import { groupDigits } from '../format.js';
import type { GridState } from '../router.js';
import type { ViewHost } from '../view-host.js';
import { DataGrid } from './data-grid.js';
import { downloadResult } from './downloads.js';
import { SqlError, type SqlApi, type SqlTable } from './sql-api.js';
import { countSql, pageSql, selectSql, type TableView } from './table-sql.js';
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
    this.problem = h('div', { class: 'problem', role: 'alert', hidden: true });
    const download = (format: 'csv' | 'parquet', label: string): HTMLElement =>
      h('button', { type: 'button', class: 'button small', onclick: () => void this.download(format) }, label);
    this.element = h(
      'div',
      { class: 'type-grid' },
      h(
        'div',
        { class: 'grid-toolbar' },
        h('label', { class: 'check' }, this.unreachable, ' unreachable only'),
        whereForm,
        this.grid.columnsMenu,
        download('csv', 'CSV'),
        download('parquet', 'Parquet'),
        this.status,
      ),
      this.problem,
      this.grid.element,
    );
  }

  focus(): void {
    this.grid.focus();
  }

  async show(typeId: string, table: SqlTable, state: GridState, reachable: boolean | undefined): Promise<void> {
    const generation = ++this.generation;
    this.typeId = typeId;
    this.view = { table, state, reachable };
    this.whereInput.value = state.where ?? '';
    this.unreachable.checked = reachable === false;
    this.status.textContent = 'Counting…';
    const view = this.view;
    try {
      const counted = await this.sql.query(countSql(view), 1);
      if (generation !== this.generation) return;
      const total = Number(counted.rows[0]?.[0] ?? 0);
      this.status.textContent = `${groupDigits(total)} ${reachable === false ? 'unreachable ' : ''}instances of ${displayTypeName(table.typeName ?? table.name)}`;
      this.problem.hidden = true;
      this.grid.element.hidden = false;
      this.grid.setSource(
        {
          columns: table.columns.map((c) => ({ name: c.name, type: c.type, objectId: c.objectId })),
          total,
          rows: async (offset, limit) => (await this.sql.query(pageSql(view, offset, limit), limit)).rows,
        },
        state,
      );
    } catch (error) {
      if (generation !== this.generation) return;
      this.status.textContent = '';
      const position = error instanceof SqlError && error.position !== undefined ? ` (at character ${error.position + 1})` : '';
      clear(this.problem, `${errorMessage(error)}${position}`);
      this.problem.hidden = false;
      this.grid.element.hidden = true;
    }
  }

  private change(change: { state?: GridState; reachable?: boolean | undefined }): void {
    const view = this.view;
    if (view === undefined) return;
    const reachable = 'reachable' in change ? change.reachable : view.reachable;
    const state = change.state ?? view.state;
    this.app.navigate({ view: 'types', instance: undefined, typeId: this.typeId, offset: 0, ...(reachable === undefined ? {} : { reachable }), grid: state });
  }

  private async download(format: 'csv' | 'parquet'): Promise<void> {
    const view = this.view;
    if (view === undefined) return;
    const name = (view.table.alias ?? view.table.name).replace(/[^A-Za-z0-9._-]/g, '_');
    try {
      await downloadResult(this.sql, selectSql(view), format, name);
    } catch (error) {
      this.status.textContent = `Download failed: ${errorMessage(error)}`;
    }
  }
}
