import { h } from '../ui/dom.js';
import type { SqlValue } from './sql-api.js';

/**
 * The widths of a grid's columns: measured from their names and the first page of rows (ids,
 * numbers and dates whole; texts and the summaries of references up to a limit, cut with an
 * ellipsis and whole on hover), dragged by the user, or fitted to the rows loaded by a double
 * click. Texts are measured on a canvas in the fonts the style sheet gives cells and headers.
 */

/** The row's own id: shown as itself, never as a summary. */
export const OWN_ID_COLUMNS: ReadonlySet<string> = new Set(['_oid', 'oid']);

const DEFAULT_WIDTH = 160;
const MIN_WIDTH = 48;
/** The widest a double click makes a column. */
const FIT_WIDTH = 900;
const NUMERIC = /INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC/;
const TEMPORAL = /DATE|TIME|INTERVAL/;
/** Room around a cell's text (padding, border) and a header's (sort mark, resize handle). */
const CELL_ROOM = 14;
const HEAD_ROOM = 24;

/** What a width depends on of a column (data-grid.ts's columns are these). */
export interface SizedColumn {
  readonly name: string;
  readonly type: string;
  /** Holds object ids. */
  readonly objectId: boolean;
}

type CellText<C extends SizedColumn> = (column: C, value: SqlValue) => string;

export class ColumnWidths {
  /** Set by the user (dragged or fitted). */
  private readonly chosen = new Map<string, number>();
  /** Measured, for the columns of `measured`. */
  private readonly auto = new Map<string, number>();
  private measured: string | undefined;
  private fonts: { cell: string; head: string } | undefined;

  of(column: string): number {
    return this.chosen.get(column) ?? this.auto.get(column) ?? DEFAULT_WIDTH;
  }

  drag(column: string, width: number): void {
    this.chosen.set(column, Math.max(MIN_WIDTH, width));
  }

  /** Whether the widths were measured for columns of this shape (names and types). */
  measuredFor(columns: readonly SizedColumn[]): boolean {
    return this.measured === signatureOf(columns);
  }

  measure<C extends SizedColumn>(columns: readonly C[], rows: readonly (readonly SqlValue[])[], probeIn: HTMLElement, text: CellText<C>): void {
    const fonts = this.fontsIn(probeIn);
    this.auto.clear();
    for (const [index, column] of columns.entries()) {
      let width = textWidth(fonts.head, `${column.name} ▼`) + HEAD_ROOM;
      // A reference shows the summary of its object, known later: room for a short one.
      const reference = column.objectId && !OWN_ID_COLUMNS.has(column.name);
      for (const row of rows) {
        const value = row[index] ?? null;
        const summarized = reference && typeof value === 'string' && /^[0-9]{10,}$/.test(value);
        width = Math.max(width, textWidth(fonts.cell, summarized ? '0'.repeat(30) : text(column, value)) + CELL_ROOM);
      }
      this.auto.set(column.name, Math.round(Math.max(MIN_WIDTH, Math.min(capOf(column), width))));
    }
    this.measured = signatureOf(columns);
  }

  fit<C extends SizedColumn>(column: C, values: readonly SqlValue[], probeIn: HTMLElement, text: CellText<C>): void {
    const fonts = this.fontsIn(probeIn);
    let width = textWidth(fonts.head, `${column.name} ▼`) + HEAD_ROOM;
    for (const value of values) width = Math.max(width, textWidth(fonts.cell, text(column, value)) + CELL_ROOM);
    this.chosen.set(column.name, Math.round(Math.max(MIN_WIDTH, Math.min(FIT_WIDTH, width))));
  }

  /** The fonts of cells and headers as the style sheet sets them (read from probes placed in the grid). */
  private fontsIn(parent: HTMLElement): { cell: string; head: string } {
    if (this.fonts !== undefined) return this.fonts;
    const cell = h('div', { class: 'grid-cell' });
    const head = h('div', { class: 'grid-cell grid-th' });
    parent.append(cell, head);
    const fonts = { cell: getComputedStyle(cell).font, head: getComputedStyle(head).font };
    cell.remove();
    head.remove();
    // Not kept when read before the style sheet applies (a detached grid reads no font).
    if (fonts.cell !== '') this.fonts = fonts;
    return fonts;
  }
}

function signatureOf(columns: readonly SizedColumn[]): string {
  return columns.map((c) => `${c.name}:${c.type}`).join('\u0000');
}

/** The widest a column is made by its content: ids and dates whole, texts and summaries cut. */
function capOf(column: SizedColumn): number {
  if (column.objectId) return OWN_ID_COLUMNS.has(column.name) ? 400 : 260;
  if (TEMPORAL.test(column.type)) return 320;
  if (NUMERIC.test(column.type) || column.type === 'BOOLEAN') return 240;
  return 320;
}

let measuring: CanvasRenderingContext2D | null | undefined;

/** The width of a text in a font (a canvas measures it without laying anything out). */
function textWidth(font: string, text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (measuring === null || font === '') return text.length * 7.3;
  measuring.font = font;
  return measuring.measureText(text).width;
}
