import { createInterface } from 'node:readline';
import type { SchemaTable } from '../sql/finish-tables.js';
import { formatTable, type ResultFormat, RESULT_FORMATS } from '../sql/result-text.js';
import type { SqlEngine } from '../sql/sql-engine.js';
import type { CommandIo } from './io.js';
import { openOutput } from './output-target.js';
import { runStatement, sqlErrorText } from './sql-output.js';

/**
 * The interactive SQL shell (like `duckdb` or `psql`): statements may span lines and end with `;`,
 * the line history is kept for the session (arrow keys), `.tables`, `.schema T`, `.format F`,
 * `.help`, `.exit`. Ctrl-C interrupts the running statement (not the shell); at the prompt it
 * drops the statement being typed; Ctrl-D leaves.
 */

const HELP = [
  'Statements end with ;  (one read-only statement each: SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN)',
  '.tables          the tables (type tables by Java name, with their simple-name views)',
  '.schema TABLE    the columns of a table',
  `.format FORMAT   output format: ${RESULT_FORMATS.join(', ')}`,
  '.help            this text',
  '.exit            leave (or Ctrl-D)',
  'Ctrl-C interrupts a running statement.',
].join('\n');

export async function runShell(engine: SqlEngine, io: CommandIo, maxRows: number, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const lines = createInterface({ input, output: terminal ? (io.stdout as NodeJS.WritableStream) : undefined, terminal, historySize: 1000, prompt: 'sql> ' });
  let buffer = '';
  let format: ResultFormat = 'table';
  let running: AbortController | undefined;
  const say = (text: string): void => void io.stdout.write(text);
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
  const width = (): number => {
    const columns = (io.stdout as { columns?: number }).columns;
    return typeof columns === 'number' && columns > 20 ? columns : 120;
  };
  let failures = 0;
  for await (const line of lines) {
    const trimmed = line.trim();
    if (buffer === '' && trimmed.startsWith('.')) {
      const [word, ...rest] = trimmed.split(/\s+/);
      const argument = rest.join(' ');
      if (word === '.exit' || word === '.quit') break;
      try {
        if (word === '.help') say(`${HELP}\n`);
        else if (word === '.tables') say(tablesText((await engine.schema()).tables));
        else if (word === '.schema') say(schemaText((await engine.schema()).tables, argument, width()));
        else if (word === '.format') {
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
      await runStatement(engine, statement, format, output, { maxRows, terminalWidth: width(), signal: running.signal, notes: io.stdout });
    } catch (error) {
      failures++;
      say(`error: ${sqlErrorText(error) ?? (error as Error).message}\n`);
    } finally {
      running = undefined;
    }
    prompt();
  }
  lines.close();
  if (terminal) say('\n');
  return terminal || failures === 0 ? 0 : 1;
}

function tablesText(tables: readonly SchemaTable[]): string {
  return `${tables.map((t) => (t.alias === null ? t.name : `${t.name}  (${t.alias})`)).join('\n')}\n`;
}

function schemaText(tables: readonly SchemaTable[], name: string, width: number): string {
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
