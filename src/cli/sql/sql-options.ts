import { type Command, Option } from 'commander';
import { DEFAULT_PROCESS_ANSWER_BYTES, PROCESS_ANSWER_BUDGET } from '../../sql/answers/answer-budget.js';
import { DEFAULT_SQL_LIMITS, DEFAULT_STREAM_STALL_MS, type SqlLimits } from '../../sql/sql-limits.js';
import { withCacheOptions } from '../options/cache-options.js';
import { fromEnv, integerOption } from '../options/option-values.js';

/** The SQL limits, the same for `serve` and `sql`: checked (integers, in range) before anything starts. */

const MAX_TIMEOUT_MS = 86_400_000;
const MIN_MEMORY = 16 * 1024 * 1024;
const MAX_MEMORY = 2 ** 44;
const MIN_ANSWER = 1024;

export function withSqlOptions(command: Command, serving: boolean): Command {
  if (serving) {
    command.addOption(fromEnv(new Option('--no-sql', 'no SQL: POST /api/v1/sql and /api/v1/sql/schema answer 404')));
    command.addOption(
      fromEnv(integerOption('--sql-stall-timeout', 'ms', `end a streamed SQL answer (CSV, NDJSON, Parquet) whose client has read nothing for this long, giving back its statement's slot; 0: never (default: --stall-timeout's, else ${DEFAULT_STREAM_STALL_MS})`, 0, MAX_TIMEOUT_MS, 'milliseconds')),
    );
  }
  withCacheOptions(command);
  return command
    .addOption(fromEnv(integerOption('--sql-timeout', 'ms', `interrupt SQL statements running longer than this; 0: never (default ${DEFAULT_SQL_LIMITS.timeoutMs})`, 0, MAX_TIMEOUT_MS, 'milliseconds')))
    .addOption(fromEnv(integerOption('--sql-memory-limit', 'bytes', `memory DuckDB may use before it spills to a temporary directory (default ${DEFAULT_SQL_LIMITS.memoryLimitBytes})`, MIN_MEMORY, MAX_MEMORY, 'bytes')))
    .addOption(fromEnv(integerOption('--sql-max-concurrent', 'n', `SQL statements running at once; more are refused (default ${DEFAULT_SQL_LIMITS.maxConcurrent})`, 1, 1000, 'statements')))
    .addOption(fromEnv(integerOption('--sql-max-row-bytes', 'bytes', `one row of an SQL answer, converted; a longer one stops the statement (default ${DEFAULT_SQL_LIMITS.maxRowBytes})`, MIN_ANSWER, MAX_MEMORY, 'bytes')))
    .addOption(fromEnv(integerOption('--sql-max-answer-bytes', 'bytes', `an SQL answer held whole (JSON, MCP); streamed ones (CSV, NDJSON) are bounded per row (default ${DEFAULT_SQL_LIMITS.maxAnswerBytes})`, MIN_ANSWER, MAX_MEMORY, 'bytes')))
    .addOption(fromEnv(integerOption('--sql-answer-budget', 'bytes', `bytes all SQL answers of the process hold at once; beyond it statements are refused as busy (default ${DEFAULT_PROCESS_ANSWER_BYTES})`, MIN_ANSWER, MAX_MEMORY, 'bytes')));
}

export interface SqlOptionValues {
  sql?: boolean;
  sqlTimeout?: number;
  sqlStallTimeout?: number;
  sqlMemoryLimit?: number;
  sqlMaxConcurrent?: number;
  sqlMaxRowBytes?: number;
  sqlMaxAnswerBytes?: number;
  sqlAnswerBudget?: number;
}

/** The limits given (defaults filled in by the engine), or false when SQL is off. */
export function sqlLimitsOf(values: SqlOptionValues): Partial<SqlLimits> | false {
  if (values.sql === false) return false;
  // One budget for the whole process, whichever storage a statement reads.
  if (values.sqlAnswerBudget !== undefined) PROCESS_ANSWER_BUDGET.resize(values.sqlAnswerBudget);
  return {
    ...(values.sqlTimeout === undefined ? {} : { timeoutMs: values.sqlTimeout }),
    ...(values.sqlStallTimeout === undefined ? {} : { streamStallMs: values.sqlStallTimeout }),
    ...(values.sqlMemoryLimit === undefined ? {} : { memoryLimitBytes: values.sqlMemoryLimit }),
    ...(values.sqlMaxConcurrent === undefined ? {} : { maxConcurrent: values.sqlMaxConcurrent }),
    ...(values.sqlMaxRowBytes === undefined ? {} : { maxRowBytes: values.sqlMaxRowBytes }),
    ...(values.sqlMaxAnswerBytes === undefined ? {} : { maxAnswerBytes: values.sqlMaxAnswerBytes }),
  };
}
