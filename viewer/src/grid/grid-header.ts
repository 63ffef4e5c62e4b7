import { clear, h } from '../ui/dom.js';
import type { GridState } from '../shell/router.js';
import { comparesNumbers, type GridColumn } from './grid-cells.js';

/** The head of a data grid (column titles that sort, resize handles, the filter row) and its Columns menu. */

export interface HeaderActions {
  readonly sortable: boolean;
  readonly filterable: boolean;
  sortBy(column: string): void;
  setFilter(column: string, text: string): void;
  startResize(event: PointerEvent, column: string): void;
  fit(column: GridColumn): void;
}

/** The title row and, where the grid filters, the filter row. */
export function headerRows(columns: readonly GridColumn[], state: GridState, actions: HeaderActions): HTMLElement[] {
  const titles = h(
    'div',
    { class: 'grid-row grid-titles', role: 'row' },
    columns.map((column) => {
      const sorted = state.sort === column.name;
      const label = `${column.name}${sorted ? (state.desc === true ? ' ▼' : ' ▲') : ''}`;
      const title = actions.sortable
        ? h('button', { type: 'button', class: 'grid-sort', title: `${column.name} (${column.type}): sort`, onclick: () => actions.sortBy(column.name) }, label)
        : h('span', { class: 'grid-title', title: `${column.name} (${column.type})` }, label);
      const handle = h('span', { class: 'grid-resize', 'aria-hidden': 'true', title: 'drag to resize, double-click to fit the content' });
      handle.addEventListener('pointerdown', (event) => actions.startResize(event, column.name));
      handle.addEventListener('dblclick', (event) => {
        event.preventDefault();
        actions.fit(column);
      });
      return h('div', { class: 'grid-cell grid-th', role: 'columnheader', 'aria-sort': sorted ? (state.desc === true ? 'descending' : 'ascending') : 'none' }, title, handle);
    }),
  );
  if (!actions.filterable) return [titles];
  const filters = h(
    'div',
    { class: 'grid-row grid-filters', role: 'row' },
    columns.map((column) => {
      const input = h('input', {
        type: 'search',
        class: 'grid-filter',
        value: state.filters?.[column.name] ?? '',
        placeholder: comparesNumbers(column) ? '= < > …' : 'contains…',
        'aria-label': `filter ${column.name}`,
        spellcheck: 'false',
      });
      input.addEventListener('change', () => actions.setFilter(column.name, input.value));
      input.addEventListener('keydown', (event) => event.stopPropagation());
      return h('div', { class: 'grid-cell', role: 'gridcell' }, input);
    }),
  );
  return [titles, filters];
}

/** The Columns menu: a checkbox per column; `onToggle` hears a column shown or hidden. */
export function fillColumnsMenu(menu: HTMLElement, columns: readonly GridColumn[], hidden: readonly string[], onToggle: (column: string, shown: boolean) => void): void {
  const hiddenSet = new Set(hidden);
  clear(
    menu,
    h('summary', { class: 'button small' }, `Columns${hiddenSet.size > 0 ? ` (${hiddenSet.size} hidden)` : ''}`),
    h(
      'div',
      { class: 'grid-menu-list' },
      columns.map((column) => {
        const box = h('input', { type: 'checkbox', checked: !hiddenSet.has(column.name) });
        box.addEventListener('change', () => onToggle(column.name, box.checked));
        return h('label', null, box, ` ${column.name}`);
      }),
    ),
  );
}
