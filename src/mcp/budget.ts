/**
 * What keeps every MCP answer small: default and maximum page sizes (far below the API's 10,000),
 * values shortened in the text, a cap on the text as a whole and on the structured content, and
 * the one wording of the truncation marker (`truncated: N more; next cursor "…"`) a model learns
 * to follow.
 */

/** Items per page when a tool is not told otherwise. */
export const DEFAULT_PAGE = 20;
/** Items per page at most (the API allows 10,000; an assistant's context does not). */
export const MAX_PAGE = 200;
/** Characters of one value in the text (texts of strings, Java texts of values). */
export const VALUE_CHARS = 160;
/** Characters of a tool's text at most. */
export const TEXT_CHARS = 12_000;
/** Bytes of structured content (as JSON) at most; a larger answer goes without it, and says so. */
export const STRUCTURED_BYTES = 256 * 1024;

/** A cursor is the offset of the next page, as text (opaque to the model). */
export const CURSOR_PATTERN = /^[0-9]{1,9}$/;

export function offsetOf(cursor: string | undefined): number {
  return cursor === undefined ? 0 : Number(cursor);
}

/** The marker after a page that is not the last one. */
export function truncationMarker(more: number, nextOffset: number, what = 'items'): string {
  return `truncated: ${more} more ${what}; next cursor "${nextOffset}"`;
}

/** A value shortened for the text (the structured content keeps it whole). */
export function short(text: string, max = VALUE_CHARS): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${text.length} chars)`;
}

/** Lines of text up to TEXT_CHARS; what does not fit is counted in a last line. */
export class TextBudget {
  private readonly lines: string[] = [];
  private chars = 0;
  private dropped = 0;

  constructor(private readonly max = TEXT_CHARS) {}

  add(line: string): void {
    if (this.dropped > 0 || this.chars + line.length + 1 > this.max) {
      this.dropped++;
      return;
    }
    this.lines.push(line);
    this.chars += line.length + 1;
  }

  /** Always kept, even past the budget (the truncation markers). */
  addAlways(line: string): void {
    this.lines.push(line);
    this.chars += line.length + 1;
  }

  text(): string {
    const cut = this.dropped > 0 ? [`truncated: ${this.dropped} more lines of text left out (text budget ${this.max} chars); the structured content has them, or ask for a smaller page`] : [];
    return [...this.lines, ...cut].join('\n');
  }
}

/** Whether a structured answer is small enough to be given whole. */
export function structuredFits(value: unknown): { fits: boolean; bytes: number } {
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  return { fits: bytes <= STRUCTURED_BYTES, bytes };
}
