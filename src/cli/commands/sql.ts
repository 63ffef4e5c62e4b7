import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { StorageRegistry } from '../../registry/storage-registry.js';
import { RESULT_FORMATS, type ResultFormat } from '../../sql/output/result-text.js';
import type { SqlEngine } from '../../sql/sql-engine.js';
import { graphProgressReporter, openProgressReporter } from '../output/graph-progress.js';
import type { CommandIo } from '../io.js';
import { integerOption, parseCommand, toolCommand } from '../options/option-values.js';
import { openOutput } from '../output/output-target.js';
import { sqlLimitsOf, withSqlOptions, type SqlOptionValues } from '../sql/sql-options.js';
import { cacheArgsOf, tableCacheOf, type CacheArgs, type CacheOptionValues } from '../options/cache-options.js';
import { runStatement, sqlErrorText } from '../sql/sql-output.js';
import { isDirectorySpec, openStorage, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions, type StorageSpec } from '../options/storage-argument.js';
import { refuseStoragePlace } from '../../writer/output-place.js';

const DESCRIPTION =
  'Runs SQL over a storage: every type with instances is a table named by its Java type name (and a view under its simple name), with _objects, _references, _elements and _values (see docs/sql.md). One read-only statement (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); without one, an interactive shell (.tables, .schema T, \\x, statements end with ;, history kept in $XDG_STATE_HOME/storage-inspector/sql_history). Reads only.';

export interface SqlArgs extends StorageSpec {
  readonly query: string | undefined;
  readonly format: ResultFormat;
  readonly out: string | undefined;
  readonly maxRows: number;
  readonly rawCsv: boolean;
  readonly limits: Exclude<ReturnType<typeof sqlLimitsOf>, false>;
  /** Where the tables are kept between runs, as given (the defaults otherwise). */
  readonly cache?: CacheArgs;
}

export function sqlCommand(): Command {
  return withSqlOptions(
    withStorageOptions(toolCommand('sql').description(DESCRIPTION).argument('<storage-dir>', STORAGE_ARGUMENT_TEXT).argument('[query]', 'the statement; none: an interactive shell'))
      .addOption(new Option('--format <format>', 'output format; table is shown one value a line (as line) when it is wider than the terminal').choices(RESULT_FORMATS).default('table'))
      .addOption(new Option('--out <file>', 'write to this new file instead of standard output'))
      .addOption(new Option('--file <file>', 'read the statement from this file'))
      .addOption(new Option('--raw-csv', "csv: write every value as it is (by default a text beginning with = + - @, a tab or a carriage return gets a ' in front, so that a spreadsheet does not run it as a formula)"))
      .addOption(integerOption('--max-rows', 'n', 'rows at most in table, line and markdown output, the rest counted (csv, json and ndjson are streamed whole)', 1, 10_000_000, 'rows').default(10_000)),
    false,
  );
}

export async function parseSqlArgs(args: string[]): Promise<SqlArgs | 'help'> {
  const command = sqlCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const [directory, query0, ...extra] = command.args;
  if (extra.length > 0) throw new UsageError(`one storage and one statement are expected (quote the statement); see 'storage-inspector sql --help'`);
  const spec = storageSpecOf({ args: directory === undefined ? [] : [directory], opts: () => command.opts(), name: () => 'sql' } as unknown as Command);
  const values = command.opts<SqlOptionValues & CacheOptionValues & { format: ResultFormat; out?: string; file?: string; maxRows: number; rawCsv?: boolean }>();
  let query = query0;
  if (values.file !== undefined) {
    if (query !== undefined) throw new UsageError('give the statement either as an argument or with --file, not both');
    try {
      query = await readFile(values.file, 'utf8');
    } catch (error) {
      throw new UsageError(`--file ${values.file}: ${(error as Error).message}`);
    }
  }
  if (query !== undefined && query.trim() === '') throw new UsageError('the statement is empty');
  return { ...spec, query, format: values.format, out: values.out, maxRows: values.maxRows, rawCsv: values.rawCsv === true, limits: sqlLimitsOf(values) as SqlArgs['limits'], ...given(cacheArgsOf(values)) };
}

export async function run(args: string[], io: CommandIo): Promise<number | void> {
  const options = await parseSqlArgs(args);
  if (options === 'help') {
    io.stdout.write(sqlCommand().helpInformation());
    return;
  }
  if (options.query === undefined && options.out !== undefined) throw new UsageError('--out needs a statement (the shell writes to the terminal)');
  if (options.out !== undefined) refuseStoragePlace(options.out, { option: '--out', storages: isDirectorySpec(options) ? [options.directory] : [] });
  // DuckDB's library and the engine's modules load while the storage is opened (its index is
  // read by worker threads, so this thread mostly waits): a cold first answer does not wait for
  // them after it. Their errors surface where they are awaited below.
  const engineModule = import('../../sql/sql-engine.js');
  const duckLoaded = import('../../sql/duck-module.js').then((m) => m.loadDuck());
  engineModule.catch(() => undefined);
  duckLoaded.catch(() => undefined);
  // Interrupted (Ctrl-C, a `timeout`, SIGTERM), the process ends through process.exit, whose
  // 'exit' event removes DuckDB's private directory under TMPDIR (sandbox.ts): a signal's default
  // action skipped it and left the database file with every table built (hundreds of MB at 10M
  // objects). The shell's Ctrl-C on a terminal is no signal (readline's, sql-shell.ts).
  const interrupted = (signal: NodeJS.Signals): void => {
    io.stderr.write(`storage-inspector sql: interrupted (${signal})\n`);
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  for (const signal of SIGNALS) process.on(signal, interrupted);
  try {
    return await runUntilDone(options, io, engineModule, duckLoaded);
  } finally {
    for (const signal of SIGNALS) process.off(signal, interrupted);
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

async function runUntilDone(options: SqlArgs, io: CommandIo, engineModule: Promise<typeof import('../../sql/sql-engine.js')>, duckLoaded: Promise<unknown>): Promise<number | void> {
  const storage = await openStorage(options, { onProgress: openProgressReporter(io) }, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`));
  const registry = new StorageRegistry();
  let engine: SqlEngine | undefined;
  try {
    for (const warning of storage.warnings) io.stderr.write(`storage-inspector: warning: ${warning}\n`);
    // The shell's notices (the graph index is ready) never land inside its output.
    const { ShellNotices, runShell, terminalWidthOf } = await import('../sql/sql-shell.js');
    const notices = options.query === undefined ? new ShellNotices(io.stderr) : undefined;
    const context = registry.add('default', storage, graphProgressReporter(notices === undefined ? io : { ...io, stderr: notices }));
    const { SqlEngine } = await engineModule;
    await duckLoaded;
    engine = new SqlEngine({
      ...options.limits,
      storage,
      graph: () => context.graph.ready(),
      onProblem: (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`),
      cache: tableCacheOf(options.cache),
    });
    if (options.query === undefined) return await runShell(engine, io, options.maxRows, process.stdin, notices === undefined ? {} : { notices });
    const output = await openOutput(options.out, io.stdout);
    try {
      await runStatement(engine, options.query, options.format, output, {
        maxRows: options.maxRows,
        // A file or a pipe has no width: the table is as wide as its cells.
        terminalWidth: options.out === undefined ? terminalWidthOf(io.stdout) : undefined,
        notes: io.stderr,
        csvCells: options.rawCsv ? 'raw' : 'safe',
      });
    } catch (error) {
      const text = sqlErrorText(error);
      if (text === undefined) throw error;
      io.stderr.write(`storage-inspector sql: ${text}\n`);
      return 1;
    } finally {
      await output.end();
    }
  } finally {
    // The tables as the statements filled them, kept for the next run (after the answers are out;
    // a failed statement too); settling never fails, a cache that cannot be written is a warning.
    await engine?.settle();
    engine?.close();
    await registry.close();
    await storage.close();
  }
}

/** The cache options when any was given (parsed arguments hold only what was given). */
function given(cache: CacheArgs): { cache?: CacheArgs } {
  return Object.keys(cache).length === 0 ? {} : { cache };
}
