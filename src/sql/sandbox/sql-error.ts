/**
 * What a refused or failed statement tells its user: the kind (which HTTP status, which exit
 * code) and DuckDB's message with the position it points at in the user's own text.
 */

export class SqlError extends Error {
  constructor(
    /**
     * refused: not allowed here; invalid: DuckDB's parser or binder said no; timeout; busy (too
     * many statements, or the process's answer budget spent); cancelled; too-large: a row or a
     * buffered answer over its limit.
     */
    readonly kind: 'refused' | 'invalid' | 'timeout' | 'busy' | 'cancelled' | 'too-large',
    message: string,
    /** 0-based character offset into the statement, where DuckDB located the error. */
    readonly position?: number,
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

/** DuckDB's message (its `LINE n:` excerpt dropped), with the 0-based character position the excerpt's caret points at. */
export function invalid(error: unknown, sql?: string): SqlError {
  const message = error instanceof Error ? error.message : String(error);
  const short = message.split('\n\nLINE ')[0]!.trim();
  if (/Interrupt/i.test(message)) return new SqlError('timeout', short);
  const position = sql === undefined ? undefined : caretPosition(message, sql);
  return new SqlError(/Permission Error|disabled|read-only mode/i.test(message) ? 'refused' : 'invalid', short, position);
}

/** Where `LINE n: <excerpt>` and the caret under it point in the statement, when that can be told. */
function caretPosition(message: string, sql: string): number | undefined {
  const match = /\n\nLINE (\d+): (.*)\n( *)\^/.exec(message);
  if (match === null) return undefined;
  const line = Number(match[1]);
  const prefix = `LINE ${match[1]}: `.length;
  let excerpt = match[2]!;
  let column = match[3]!.length - prefix;
  if (excerpt.startsWith('...')) {
    excerpt = excerpt.slice(3);
    column -= 3;
  }
  excerpt = excerpt.replace(/\.\.\.$/, '');
  const lines = sql.split('\n');
  if (line < 1 || line > lines.length || column < 0) return undefined;
  const text = lines[line - 1]!;
  const at = text.indexOf(excerpt.slice(0, Math.max(1, Math.min(excerpt.length, 40))));
  if (at < 0) return undefined;
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  return Math.min(sql.length, start + at + column);
}
