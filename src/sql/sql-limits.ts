import { DEFAULT_ANSWER_LIMITS } from './answers/answer-budget.js';

/**
 * The limits of SQL statements (sql-engine.ts applies them) and their defaults, apart from the
 * engine so that the command line's options can name them without loading the engine's module
 * (and its tables, commit history and GigaMap code): `serve` loads SQL only when asked.
 */

export interface SqlLimits {
  /** Interrupts a statement after this long (0: never). */
  readonly timeoutMs: number;
  readonly memoryLimitBytes: number;
  /** Statements running at once; more are refused (busy). */
  readonly maxConcurrent: number;
  /** One row of an answer, converted (too-large beyond). */
  readonly maxRowBytes: number;
  /** A buffered (JSON) answer's rows, converted (too-large beyond); streamed answers are bounded per row and by back-pressure. */
  readonly maxAnswerBytes: number;
  /**
   * `serve`'s streamed answers (CSV, NDJSON): a client that takes nothing of its answer for this
   * long has it ended and its statement's slot and connection given back (0: never). Not the
   * engine's: the route that streams applies it.
   */
  readonly streamStallMs?: number;
}

/** How long a streamed SQL answer may wait for its reader to take anything. */
export const DEFAULT_STREAM_STALL_MS = 30_000;

export const DEFAULT_SQL_LIMITS: SqlLimits = { timeoutMs: 30_000, memoryLimitBytes: 1024 ** 3, maxConcurrent: 4, ...DEFAULT_ANSWER_LIMITS };
