import type { CommandIo } from '../io.js';

/**
 * One line of progress that a terminal shows in place, below the lines a command writes: drawn
 * again with a carriage return and "erase to the end of the line" when its text changes and once
 * a second (its clock), cut to the terminal's width (a wrapped line could not be drawn over).
 * Every other text goes through `print`, which clears the line first and draws it again after.
 * Standard error not a terminal (a file, a pipe, CI): nothing is drawn, `print` writes as is.
 */

/** Erases from the cursor to the end of the line (ECMA-48 EL). */
const ERASE = '\x1b[K';

export class LiveLine {
  private text = '';
  private shown = false;
  /** Closed for good: a later `print` writes its text alone, nothing draws the line again. */
  private closed = false;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stderr: CommandIo['stderr'] & { readonly columns?: number },
    /** The line's text, asked again at each drawing (it may hold a clock). */
    private readonly render: () => string,
  ) {
    if (this.live) {
      this.timer = setInterval(() => this.draw(), 1000);
      // The clock never keeps the process alive.
      this.timer.unref();
    }
  }

  /** Whether the line is drawn at all (standard error is a terminal). */
  get live(): boolean {
    return this.stderr.isTTY === true && !this.closed;
  }

  /** Draws the line again now (its text changed). */
  draw(): void {
    if (!this.live) return;
    const width = Math.max(10, (this.stderr.columns ?? 80) - 1);
    const text = this.render();
    this.text = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    this.stderr.write(`\r${this.text}${ERASE}`);
    this.shown = true;
  }

  /** Text of its own (whole lines): written above the live line. */
  print(text: string): void {
    if (!this.live) {
      this.stderr.write(text);
      return;
    }
    this.stderr.write(`${this.shown ? `\r${ERASE}` : ''}${text}`);
    this.shown = false;
    this.draw();
  }

  /** Clears the line for good (the command's last lines follow). */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.live && this.shown) this.stderr.write(`\r${ERASE}`);
    this.shown = false;
    this.closed = true;
  }
}

/** Seconds since `since` as a person reads them: `4 s`, `1 min 05 s`. */
export function elapsedText(since: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}
