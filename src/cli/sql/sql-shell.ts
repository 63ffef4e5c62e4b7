import { clearLine, createInterface, cursorTo } from 'node:readline';
import type { SchemaTable } from '../../sql/tables/finish-tables.js';
import { formatTable, type ResultFormat, RESULT_FORMATS } from '../../sql/output/result-text.js';
import type { SqlEngine } from '../../sql/sql-engine.js';
import type { CommandIo } from '../io.js';
import { openOutput } from '../output/output-target.js';
import { historyPath, HISTORY_SIZE, loadHistory, saveHistory } from './shell-history.js';
import { runStatement, sqlErrorText } from './sql-output.js';

/**
 * The interactive SQL shell (like `duckdb` or `psql`): statements may span lines and end with `;`,
 * the line history is kept between runs (arrow keys; shell-history.ts), `.tables`, `.schema T`,
 * `.format F` (or `.mode F`), `\x` (one value a line: on, off, or auto — when a table is wider
 * than the terminal, the default), `.help`, `.exit`. Ctrl-C interrupts the running statement (not
 * the shell); at the prompt it drops the statement being typed; Ctrl-D leaves. Notices that come
 * while it runs (the graph index is ready) wait for the end of the statement's output, or are
 * printed above the prompt, never inside a result.
 */

const HELP = [
  'Statements end with ;  (one read-only statement each: SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)',
  '.tables          the tables (type tables by Java name, with their simple-name views)',
  '.schema TABLE    the columns of a table',
  `.format FORMAT   output format: ${RESULT_FORMATS.join(', ')} (also .mode FORMAT)`,
  '\\x [on|off|auto] one value a line (line format): on, off, or auto (when a table is wider than the terminal)',
  '.help            this text',
  '.exit            leave (or Ctrl-D)',
  'Ctrl-C interrupts a running statement.',
].join('\n');

/**
 * Lines for stderr while the shell runs (the graph index's progress): straight through until the
 * shell attaches, then held while a statement runs and printed above the prompt otherwise.
 */
export class ShellNotices {
  private shell: { readonly busy: () => boolean; readonly print: (text: string) => void } | undefined;
  private held = '';
  constructor(private readonly stderr: { write(text: string): unknown }) {}

  write(text: string): boolean {
    if (this.shell === undefined) this.stderr.write(text);
    else if (this.shell.busy()) this.held += text;
    else this.shell.print(text);
    return true;
  }

  attach(shell: { readonly busy: () => boolean; readonly print: (text: string) => void }): void {
    this.shell = shell;
  }

  /** What was held while a statement ran, now that its output is complete. */
  flush(): void {
    const text = this.held;
    this.held = '';
    if (text !== '') this.stderr.write(text);
  }
}

export interface ShellOptions {
  readonly notices?: ShellNotices;
  /** The history file; default historyPath(). */
  readonly historyFile?: string;
}

export async function runShell(engine: SqlEngine, io: CommandIo, maxRows: number, input: NodeJS.ReadableStream = process.stdin, options: ShellOptions = {}): Promise<number> {
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  // The shell's own words (.help, .tables, messages) go straight to standard output. Opened first
  // as the answers' output is, so that a reader gone before the first statement's answer
  // (`... | sql STORAGE | head -1`) is heard by the stream's one error listener: a quiet end, not
  // an unhandled 'error' event (EPIPE).
  const words = await openOutput(undefined, io.stdout);
  const historyFile = options.historyFile ?? historyPath();
  const lines = createInterface({
    input,
    output: terminal ? (io.stdout as NodeJS.WritableStream) : undefined,
    terminal,
    historySize: HISTORY_SIZE,
    history: terminal ? loadHistory(historyFile) : [],
    removeHistoryDuplicates: true,
    prompt: 'sql> ',
  });
  if (terminal) lines.on('history', (history: string[]) => void saveHistory(historyFile, history));
  let buffer = '';
  let format: ResultFormat = 'table';
  let expanded: 'on' | 'off' | 'auto' = 'auto';
  let running: AbortController | undefined;
  const say = (text: string): void => void io.stdout.write(text);
  options.notices?.attach({
    busy: () => running !== undefined,
    print: (text) => {
      const out = io.stdout as NodeJS.WritableStream;
      if (terminal) {
        // Above the prompt: the line being typed is drawn again below the notice.
        clearLine(out, 0);
        cursorTo(out, 0);
        io.stderr.write(text);
        lines.prompt(true);
      } else io.stderr.write(text);
    },
  });
  const prompt = (): void => {
    lines.setPrompt(buffer === '' ? 'sql> ' : '...> ');
    if (terminal) lines.prompt();
  };
  lines.on('SIGINT', () => {
    if (running !== undefined) {
      running.abort();
      return;
    }
    if (buffer !== '') {
      buffer = '';
      say('\n');
    } else say('\n(.exit or Ctrl-D to leave)\n');
    prompt();
  });
  if (terminal) say('storage-inspector SQL shell: .help for help; statements end with ;\n');
  prompt();
  const width = (): number | undefined => terminalWidthOf(io.stdout);
  let failures = 0;
  for await (const line of lines) {
    // Nobody reads what the statements would answer any more.
    if (words.closed) break;
    const trimmed = line.trim();
    if (buffer === '' && trimmed.startsWith('.')) {
      const [word, ...rest] = trimmed.split(/\s+/);
      const argument = rest.join(' ');
      if (word === '.exit' || word === '.quit') break;
      try {
        if (word === '.help') say(`${HELP}\n`);
        else if (word === '.tables') say(tablesText((await engine.schema()).tables));
        else if (word === '.schema') say(schemaText((await engine.schema()).tables, argument, width()));
        else if (word === '.format' || word === '.mode') {
          if ((RESULT_FORMATS as readonly string[]).includes(argument)) format = argument as ResultFormat;
          else say(`formats: ${RESULT_FORMATS.join(', ')}\n`);
        } else say(`unknown command ${word} (.help)\n`);
      } catch (error) {
        failures++;
        say(`error: ${sqlErrorText(error) ?? (error as Error).message}\n`);
      }
      prompt();
      continue;
    }
    if (buffer === '' && /^\\x(\s|$)/.test(trimmed)) {
      const wanted = trimmed.slice(2).trim();
      if (wanted === '') expanded = expanded === 'on' ? 'off' : 'on';
      else if (wanted === 'on' || wanted === 'off' || wanted === 'auto') expanded = wanted;
      else say('\\x takes on, off or auto\n');
      say(`Expanded display (one value a line) is ${expanded}.\n`);
      prompt();
      continue;
    }
    buffer = buffer === '' ? line : `${buffer}\n${line}`;
    const statement = buffer.trimEnd();
    if (!statement.endsWith(';')) {
      if (statement.trim() === '') buffer = '';
      prompt();
      continue;
    }
    buffer = '';
    running = new AbortController();
    const output = await openOutput(undefined, io.stdout);
    try {
      const shown = expanded === 'on' && format === 'table' ? 'line' : format;
      await runStatement(engine, statement, shown, output, { maxRows, terminalWidth: width(), expanded: expanded === 'off' ? 'off' : 'auto', signal: running.signal, notes: io.stdout });
    } catch (error) {
      failures++;
      say(`error: ${sqlErrorText(error) ?? (error as Error).message}\n`);
    } finally {
      running = undefined;
      options.notices?.flush();
    }
    prompt();
  }
  lines.close();
  if (terminal) say('\n');
  return terminal || failures === 0 ? 0 : 1;
}

/** The terminal's width, or undefined when the output is no terminal (a pipe, a file): no limit there. */
export function terminalWidthOf(stream: unknown): number | undefined {
  const columns = (stream as { columns?: number }).columns;
  return typeof columns === 'number' && columns > 20 ? columns : undefined;
}

function tablesText(tables: readonly SchemaTable[]): string {
  return `${tables.map((t) => (t.alias === null ? t.name : `${t.name}  (${t.alias})`)).join('\n')}\n`;
}

function schemaText(tables: readonly SchemaTable[], name: string, width: number | undefined): string {
  const wanted = name.replace(/^"|"$/g, '');
  const table = tables.find((t) => t.name === wanted || t.alias === wanted) ?? tables.find((t) => t.name.toLowerCase() === wanted.toLowerCase() || t.alias?.toLowerCase() === wanted.toLowerCase());
  if (table === undefined) return `no table ${name} (.tables lists them)\n`;
  const columns = [
    { name: 'column', type: 'VARCHAR' },
    { name: 'type', type: 'VARCHAR' },
    { name: 'object id', type: 'VARCHAR' },
  ];
  return `${table.name}${table.alias === null ? '' : ` (view ${table.alias})`}\n${formatTable(columns, table.columns.map((c) => [c.name, c.type, c.objectId ? 'yes' : '']), width)}`;
}
