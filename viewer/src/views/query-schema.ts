import { clear, h } from '../ui/dom.js';
import type { SqlTable } from '../grid/sql-api.js';

/**
 * The Query view's sidebar: this storage's tables (the system tables first, then one per type)
 * with their columns (listed when a table is opened), a filter, and a click on a name inserts it
 * into the statement at the cursor, written as SQL wants it (`Book`, `"com.acme.Customer"`,
 * `"firstName"` where it needs quotes). On a phone it is folded away under "Tables".
 */

const PHONE = '(max-width: 640px)';

export class QuerySchema {
  readonly element: HTMLDetailsElement;
  private readonly list: HTMLElement;
  private readonly filter: HTMLInputElement;
  private tables: readonly SqlTable[] = [];

  constructor(private readonly insert: (text: string) => void) {
    this.filter = h('input', { type: 'search', class: 'filter-input schema-filter', placeholder: 'Filter tables…', 'aria-label': 'Filter tables', spellcheck: 'false' });
    this.filter.addEventListener('input', () => this.render());
    this.list = h('ul', { class: 'schema-tables', 'aria-label': 'Tables' });
    this.element = h('details', { class: 'query-schema', open: !window.matchMedia(PHONE).matches }, h('summary', null, 'Tables'), this.filter, this.list);
  }

  show(tables: readonly SqlTable[]): void {
    this.tables = [...tables].sort((a, b) => (a.kind === b.kind ? labelOf(a).localeCompare(labelOf(b)) : a.kind === 'system' ? -1 : 1));
    this.render();
  }

  private render(): void {
    const needle = this.filter.value.trim().toLowerCase();
    // A text with a dot is looked for in full names (packages), any other in the names shown.
    const shown = needle === '' ? this.tables : this.tables.filter((t) => (needle.includes('.') ? t.name : labelOf(t)).toLowerCase().includes(needle));
    clear(
      this.list,
      shown.map((table) => {
        const columns = h('ul', { class: 'schema-columns' });
        const item = h(
          'details',
          { class: `schema-table ${table.kind}` },
          h('summary', { title: `${table.name}: ${table.columns.length} columns` }, this.nameButton(labelOf(table), sqlName(table), 'schema-name')),
          columns,
        );
        // Columns are listed when the table is opened: a storage may have thousands of types.
        item.addEventListener('toggle', () => {
          if (!item.open || columns.childElementCount > 0) return;
          clear(
            columns,
            table.columns.map((c) => h('li', null, this.nameButton(c.name, identifier(c.name), 'schema-column'), h('span', { class: 'hint schema-type' }, ` ${c.type}`))),
          );
        });
        return h('li', null, item);
      }),
      shown.length === 0 ? h('li', { class: 'hint' }, 'No table matches.') : null,
    );
  }

  private nameButton(label: string, text: string, cls: string): HTMLElement {
    return h(
      'button',
      {
        type: 'button',
        class: `link-button ${cls}`,
        title: `insert ${text}`,
        onclick: (event: Event) => {
          // A click on the name inserts it; the table opens and closes by its marker.
          event.preventDefault();
          this.insert(text);
        },
      },
      label,
    );
  }
}

function labelOf(table: SqlTable): string {
  return table.alias ?? table.name;
}

/** The table as a statement names it: its simple name where it has one, else its full name quoted. */
function sqlName(table: SqlTable): string {
  return table.alias ?? identifier(table.name);
}

function identifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
