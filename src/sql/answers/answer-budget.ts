/**
 * The bytes SQL answers may hold in this process while DuckDB's rows are converted: a limit per
 * row, per buffered answer, and one budget shared by every statement of every storage (four
 * statements of 1 GB each used to take the process to 6.3 GB whatever DuckDB's own memory
 * limit). Sizes are measured in DuckDB's vectors before a value is copied out (cell-bytes.ts).
 */

export interface AnswerLimits {
  /** One row, converted. */
  readonly maxRowBytes: number;
  /** A whole buffered answer (JSON, MCP): rows converted and held until it is sent. */
  readonly maxAnswerBytes: number;
}

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = { maxRowBytes: 16 * 1024 ** 2, maxAnswerBytes: 64 * 1024 ** 2 };

/** Bytes held at once by all answers being converted or sent, in the whole process. */
export const DEFAULT_PROCESS_ANSWER_BYTES = 256 * 1024 ** 2;

export class ByteBudget {
  private used = 0;

  constructor(private capacity: number) {}

  /** Takes `bytes` if they fit; false, taking nothing, when they do not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.capacity && this.used > 0) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }

  get limit(): number {
    return this.capacity;
  }

  /** A new capacity (serve's --sql-answer-budget); what is held stays held. */
  resize(capacity: number): void {
    this.capacity = capacity;
  }
}

/** The process's budget: every SQL engine of every storage draws from it. */
export const PROCESS_ANSWER_BUDGET = new ByteBudget(DEFAULT_PROCESS_ANSWER_BYTES);

export function mebibytes(bytes: number): string {
  return bytes >= 1024 ** 2 ? `${Math.round((bytes / 1024 ** 2) * 10) / 10} MiB` : `${bytes} bytes`;
}
