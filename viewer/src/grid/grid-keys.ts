/** Where a key moves a grid's active cell: arrows, Page Up/Down, Home/End (Ctrl: first/last row). */

export interface Cell {
  readonly row: number;
  readonly column: number;
}

export interface KeyContext {
  readonly rows: number;
  readonly columns: number;
  /** Rows a Page Up/Down moves. */
  readonly perPage: number;
}

/** The active cell after the key, kept inside the grid; undefined for a key that moves nothing. */
export function moveByKey(key: string, ctrl: boolean, from: Cell, grid: KeyContext): Cell | undefined {
  let { row, column } = from;
  switch (key) {
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
      row += grid.perPage;
      break;
    case 'PageUp':
      row -= grid.perPage;
      break;
    case 'Home':
      if (ctrl) row = 0;
      else column = 0;
      break;
    case 'End':
      if (ctrl) row = grid.rows - 1;
      else column = grid.columns - 1;
      break;
    default:
      return undefined;
  }
  return { row: Math.max(0, Math.min(grid.rows - 1, row)), column: Math.max(0, Math.min(grid.columns - 1, column)) };
}
