import { errorMessage } from '../model/api.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';
import { DataGrid } from '../grid/data-grid.js';
import { CSV_TITLE, downloadResult, RAW_CSV_TITLE, type DownloadFormat } from '../grid/downloads.js';
import { SqlError, type SqlResult, type SqlTable } from '../grid/sql-api.js';
import { holdsObjectIds, objectIdColumns } from '../grid/sql-types.js';
import type { SqlEditor } from '../grid/sql-editor.js';
import { exampleQueries } from '../grid/example-queries.js';
import { objectSummaries } from '../grid/summaries.js';
import { takeRunRequest } from '../grid/run-request.js';
import { QuerySchema } from './query-schema.js';
import type { ViewHost } from '../shell/view-host.js';

/**
 * The SQL console: an editor (loaded with this view, as its own chunk) with completion of this
 * storage's tables, Ctrl+Enter runs, Cancel aborts the request (the server interrupts the
 * query), the result in the data grid (object ids linked to the Data view), elapsed time and row
 * count, an error once with the place it points at, example queries, the recent ones kept in the
 * browser, the statement in the URL (a statement opened from the URL waits for Run).
 */

const LIMIT = 10_000;
const RECENT_KEY = 'storage-inspector.recent-sql';
const RECENT = 20;

export class QueryView {
  readonly element: HTMLElement;
  private readonly editorHost: HTMLElement;
  private readonly status: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly runButton: HTMLButtonElement;
  private readonly cancelButton: HTMLButtonElement;
  private readonly examples: HTMLSelectElement;
  private readonly recent: HTMLSelectElement;
  private readonly grid: DataGrid;
  private readonly schema: QuerySchema;
  private editor: SqlEditor | undefined;
  private tables: readonly SqlTable[] = [];
  private running: AbortController | undefined;
  private lastRun = '';
  private result: SqlResult | undefined;

  constructor(private readonly app: ViewHost) {
    this.editorHost = h('div', { class: 'sql-editor' }, h('p', { class: 'hint' }, 'Loading the editor…'));
    this.runButton = h('button', { type: 'button', class: 'button primary', title: 'Ctrl+Enter', onclick: () => void this.run() }, 'Run');
    this.cancelButton = h('button', { type: 'button', class: 'button', disabled: true, onclick: () => this.running?.abort() }, 'Cancel');
    this.examples = h('select', { class: 'query-examples', 'aria-label': 'Example queries' });
    this.examples.addEventListener('change', () => this.pick(this.examples));
    this.recent = h('select', { class: 'query-recent', 'aria-label': 'Recent queries' });
    this.recent.addEventListener('change', () => this.pick(this.recent));
    this.status = h('span', { class: 'hint query-status', role: 'status' });
    this.problem = h('div', { class: 'problem query-problem', role: 'alert', hidden: true });
    this.grid = new DataGrid({
      label: 'Query result',
      sortable: false,
      filterable: false,
      state: {},
      onState: (state) => {
        if (this.result !== undefined) this.showResult(this.result, state.hidden ?? []);
      },
      objectHref: (oid) => this.app.href({ view: 'data', instance: undefined, oid, path: [] }),
      openObject: (oid) => this.app.navigate({ view: 'data', instance: undefined, oid, path: [] }),
      summaries: (ids) => objectSummaries(this.app, ids),
    });
    this.grid.element.hidden = true;
    const csv = h('button', { type: 'button', class: 'button small', title: CSV_TITLE, onclick: () => void this.download('csv') }, 'CSV');
    const rawCsv = h('button', { type: 'button', class: 'button small', title: RAW_CSV_TITLE, onclick: () => void this.download('raw-csv') }, 'raw CSV');
    const parquet = h('button', { type: 'button', class: 'button small', title: 'The whole result as a Parquet file', onclick: () => void this.download('parquet') }, 'Parquet');
    this.schema = new QuerySchema((text) => this.editor?.insert(text));
    this.element = h(
      'section',
      { class: 'view query-view', 'aria-label': 'Query' },
      h('div', { class: 'stats-toolbar' }, h('h2', null, 'Query'), this.examples, this.recent),
      h(
        'div',
        { class: 'query-layout' },
        this.schema.element,
        h(
          'div',
          { class: 'query-main' },
          this.editorHost,
          h('div', { class: 'grid-toolbar' }, this.runButton, this.cancelButton, this.grid.columnsMenu, csv, rawCsv, parquet, this.status),
          this.problem,
          this.grid.element,
        ),
      ),
    );
  }

  async show(sql: string): Promise<void> {
    if (!this.app.sqlAvailable) {
      // A link to the console on a server without SQL (`serve --no-sql`): say so, offer no editor.
      clear(
        this.element,
        h('div', { class: 'stats-toolbar' }, h('h2', null, 'Query')),
        h(
          'div',
          { class: 'problem sql-off', role: 'alert' },
          h('strong', null, 'This server runs without SQL. '),
          'The Query view needs its SQL engine (/api/v1/sql), and the server was started without it (serve --no-sql) or cannot run it. ',
          'The other views work without SQL: ',
          h('a', { href: this.app.href({ view: 'types', instance: undefined, typeId: undefined, offset: 0 }) }, 'Types'),
          ' lists the instances of a type, ',
          h('a', { href: this.app.href({ view: 'search', instance: undefined, query: '', type: '', offset: 0 }) }, 'Search'),
          ' finds objects by their values.',
        ),
      );
      return;
    }
    if (this.editor === undefined) {
      try {
        const [{ createSqlEditor }, tables] = await Promise.all([import('../grid/sql-editor.js'), this.app.sql.schema()]);
        this.tables = tables;
        clear(this.editorHost);
        this.editor = createSqlEditor(this.editorHost, sql, tables, () => void this.run());
        this.schema.show(tables);
        this.fillExamples();
      } catch (error) {
        clear(this.editorHost, h('div', { class: 'problem', role: 'alert' }, `The SQL console needs the server's SQL engine: ${errorMessage(error)}`));
        return;
      }
    } else if (sql !== this.editor.text) {
      this.editor.setText(sql);
    }
    this.fillRecent();
    if (sql !== '' && takeRunRequest(sql)) await this.run();
    else {
      // A statement from the address runs only when the user asks (a link must not run SQL on opening).
      if (sql !== '' && sql !== this.lastRun) {
        this.problem.hidden = true;
        this.status.textContent = 'Not run yet: Run (Ctrl+Enter) runs this statement.';
      }
      this.editor.focus();
    }
  }

  private fillExamples(): void {
    const examples = exampleQueries(this.tables);
    clear(this.examples, h('option', { value: '' }, 'Examples…'), examples.map((e) => h('option', { value: e.sql }, e.label)));
  }

  private fillRecent(): void {
    const recent = recentQueries();
    this.recent.hidden = recent.length === 0;
    clear(this.recent, h('option', { value: '' }, 'Recent…'), recent.map((sql) => h('option', { value: sql }, sql.length > 80 ? `${sql.slice(0, 80)}…` : sql)));
  }

  private pick(select: HTMLSelectElement): void {
    if (select.value === '' || this.editor === undefined) return;
    this.editor.setText(select.value);
    select.value = '';
    this.editor.focus();
  }

  private async run(): Promise<void> {
    const editor = this.editor;
    if (editor === undefined) return;
    const sql = editor.text.trim();
    if (sql === '') return;
    this.running?.abort();
    const controller = new AbortController();
    this.running = controller;
    this.lastRun = sql;
    this.app.replaceRoute({ view: 'query', instance: undefined, sql });
    remember(sql);
    this.fillRecent();
    this.problem.hidden = true;
    this.runButton.disabled = true;
    this.cancelButton.disabled = false;
    const started = performance.now();
    this.status.textContent = 'Running…';
    try {
      const result = await this.app.sql.query(sql, LIMIT, controller.signal);
      if (this.running !== controller) return;
      this.result = result;
      const took = Math.round(performance.now() - started);
      const timing = `in ${groupDigits(Math.round(result.elapsedMs))} ms (${groupDigits(took)} ms with the transfer)`;
      this.status.textContent = `${groupDigits(result.rowCount)} ${result.rowCount === 1 ? 'row' : 'rows'}${result.truncated ? ` (the first ${groupDigits(LIMIT)}; counting all…)` : ''} ${timing}`;
      this.showResult(result, []);
      if (result.truncated) void this.countAll(sql, controller, result.rowCount, timing);
    } catch (error) {
      if (this.running !== controller) return;
      if (error instanceof DOMException && error.name === 'AbortError') {
        this.status.textContent = 'Cancelled.';
        return;
      }
      this.status.textContent = '';
      this.showProblem(sql, error);
    } finally {
      if (this.running === controller) {
        this.running = undefined;
        this.runButton.disabled = false;
        this.cancelButton.disabled = true;
      }
    }
  }

  /**
   * How many rows a result cut at the limit has in all: the statement counted as a subquery
   * (a statement that cannot be one, such as SHOW or PRAGMA, keeps "there are more").
   */
  private async countAll(sql: string, controller: AbortController, shown: number, timing: string): Promise<void> {
    let total: string | undefined;
    try {
      const counted = await this.app.sql.query(`SELECT count(*) AS n FROM (${sql.replace(/;\s*$/, '')}) AS counted`, 1, controller.signal);
      const n = counted.rows[0]?.[0];
      total = n === null || n === undefined ? undefined : String(n);
    } catch {
      total = undefined;
    }
    if (this.result === undefined || this.lastRun !== sql) return;
    this.status.textContent = `${groupDigits(shown)} of ${total === undefined ? 'more' : groupDigits(total)} rows (the first ${groupDigits(LIMIT)} shown) ${timing}`;
  }

  private showResult(result: SqlResult, hidden: readonly string[]): void {
    const ids = objectIdColumns(this.tables);
    this.grid.element.hidden = false;
    this.grid.setSource(
      {
        // An id column by name, and by what it holds: `count(*) AS orders` is a number, not links.
        columns: result.columns.map((c, i) => ({ name: c.name, type: c.type, objectId: /BIGINT/.test(c.type) && ids.has(c.name) && holdsObjectIds(result.rows.map((row) => row[i] ?? null)) })),
        total: result.rows.length,
        rows: async (offset, limit) => result.rows.slice(offset, offset + limit),
      },
      { hidden: [...hidden] },
    );
  }

  /** The error once, with the statement's line and a caret under the place it points at. */
  private showProblem(sql: string, error: unknown): void {
    const position = error instanceof SqlError ? error.position : undefined;
    const parts: (HTMLElement | string)[] = [h('strong', null, error instanceof SqlError ? `The query failed (${error.status}): ` : 'The query failed: '), error instanceof SqlError ? error.message : errorMessage(error)];
    if (position !== undefined) {
      const lineStart = sql.lastIndexOf('\n', position - 1) + 1;
      const lineEnd = sql.indexOf('\n', position);
      const line = sql.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
      const lineNumber = sql.slice(0, lineStart).split('\n').length;
      parts.push(h('pre', { class: 'query-caret' }, `line ${lineNumber}: ${line}\n${' '.repeat(`line ${lineNumber}: `.length + position - lineStart)}^`));
      this.editor?.markPosition(position);
    }
    clear(this.problem, parts);
    this.problem.hidden = false;
  }

  private async download(format: DownloadFormat): Promise<void> {
    if (this.lastRun === '') return;
    try {
      await downloadResult(this.app.sql, this.lastRun, format, 'query');
    } catch (error) {
      this.status.textContent = `Download failed: ${errorMessage(error)}`;
    }
  }
}

function recentQueries(): string[] {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

function remember(sql: string): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify([sql, ...recentQueries().filter((s) => s !== sql)].slice(0, RECENT)));
  } catch {
    // storage unavailable: nothing remembered
  }
}
