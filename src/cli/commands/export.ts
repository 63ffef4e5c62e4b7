import { cacheArgsOf, tableCacheOf, withCacheOptions, type CacheArgs, type CacheOptionValues } from '../options/cache-options.js';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { UTC } from '../../javatext/java-time-zones.js';
import { forEachLatestRecord } from '../../storage/records/latest-records.js';
import { describeObjectView } from '../../inspect/object-view.js';
import { referenceInfos } from '../../inspect/reference-info.js';
import { simpleTypeName } from '../../inspect/type-names.js';
import { Storage } from '../../storage/storage.js';
import { refuseStoragePlace } from '../../writer/output-place.js';
import { StorageRegistry } from '../../registry/storage-registry.js';
import { csvHeader, csvRow, exportColumns } from '../output/export-csv.js';
import { openOutput } from '../output/output-target.js';
import { graphProgressReporter, openProgressReporter } from '../output/graph-progress.js';
import type { CommandIo } from '../io.js';
import { elapsedText, LiveLine } from '../output/live-line.js';
import { parseCommand, toolCommand } from '../options/option-values.js';
import { closeMatches } from '../options/suggest.js';
import { isDirectorySpec, openStorage, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions, type StorageSpec } from '../options/storage-argument.js';

const DESCRIPTION = [
  'Writes every instance of a type (all its versions when given by name) as NDJSON (the /api/v1 object view, one a line) or CSV (one column per member, references as ids, values such as names and prices as their text), in file order, streaming: memory stays constant whatever the storage size.',
  'Without --type, or with --format parquet: writes the SQL tables (every type a table, _objects, _references, _elements, _values; see docs/sql.md) into a new directory --out DIR, one file per table plus manifest.json (--type T: that table only). Reads only.',
].join('\n\n');

export interface ExportArgs extends StorageSpec {
  readonly type: string | undefined;
  readonly format: 'ndjson' | 'csv' | 'parquet';
  readonly out: string | undefined;
  /** Writing the SQL tables into the directory `out`. */
  readonly tables: boolean;
  /** CSV: every value as it is, formulas not neutralised. */
  readonly rawCsv: boolean;
  /** Refuse a storage MicroStream would refuse instead of reading what can be read of it. */
  readonly strict?: true | undefined;
  /** Where the SQL tables are kept between runs, as given (the defaults otherwise). */
  readonly cache?: CacheArgs;
}

export function exportCommand(): Command {
  return withCacheOptions(withStorageOptions(toolCommand('export').description(DESCRIPTION).argument('<storage-dir>', STORAGE_ARGUMENT_TEXT), true))
    .addOption(new Option('--type <name|id>', 'the type: a type id, or a type name, full or simple when only one type has it (every version of it)'))
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'csv', 'parquet']).default('ndjson'))
    .addOption(new Option('--out <file|dir>', 'write to this new file instead of standard output (a new directory for the tables)'))
    .addOption(new Option('--strict', 'refuse a storage MicroStream would refuse to start, instead of reading what can be read of it'))
    .addOption(new Option('--raw-csv', "csv: write every value as it is (by default a text beginning with = + - @, a tab or a carriage return gets a ' in front, so that a spreadsheet does not run it as a formula)"));
}

export function parseExportArgs(args: string[]): ExportArgs | 'help' {
  const command = exportCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const spec = storageSpecOf(command);
  const values = command.opts<CacheOptionValues & { type?: string; format: 'ndjson' | 'csv' | 'parquet'; out?: string; strict?: true; rawCsv?: true }>();
  const cache = cacheArgsOf(values);
  if (values.type === '') throw new UsageError('invalid --type "": give a type name or id');
  const tables = values.type === undefined || values.format === 'parquet';
  if (tables && values.out === undefined) throw new UsageError(values.type === undefined ? 'missing --type (one type to standard output), or --out DIR (every table)' : '--format parquet writes a directory: give --out DIR');
  return { ...spec, type: values.type, format: values.format, out: values.out, tables, strict: values.strict, rawCsv: values.rawCsv === true, ...(Object.keys(cache).length === 0 ? {} : { cache }) };
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseExportArgs(args);
  if (options === 'help') {
    io.stdout.write(exportCommand().helpInformation());
    return;
  }
  if (options.out !== undefined) refuseStoragePlace(options.out, { option: '--out', storages: isDirectorySpec(options) ? [options.directory] : [] });
  if (options.tables) return exportTableFiles(options, io);
  const type = options.type!;
  const format = options.format === 'csv' ? 'csv' : 'ndjson';
  const cells = options.rawCsv ? 'raw' : 'safe';
  const storage = await openStorage(options, { onProgress: openProgressReporter(io) }, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`), options.strict === true);
  try {
    const entries = typeEntries(storage, type);
    const output = await openOutput(options.out, io.stdout);
    const write = (text: string): Promise<void> => {
      if (output.closed) throw new PipeClosed();
      return output.write(text);
    };
    const columns = exportColumns(entries);
    const started = Date.now();
    let last = started;
    let count = 0;
    try {
      if (format === 'csv') await write(csvHeader(columns, cells));
      await forEachLatestRecord(
        storage,
        new Set(entries.map((e) => e.typeId)),
        async (record) => {
          const view = await describeObjectView(record, storage.dictionary, {
            offset: 0,
            limit: Number.MAX_SAFE_INTEGER,
            timeZone: UTC,
            resolve: (ids) => referenceInfos(storage, ids, TEXT_PREVIEW),
          });
          await write(format === 'csv' ? csvRow(columns, view, cells) : `${JSON.stringify(view)}\n`);
          count++;
        },
        (p) => {
          const now = Date.now();
          if (now - started < 1000 || now - last < 1000) return;
          last = now;
          io.stderr.write(`storage-inspector: exporting ${p.bytesTotal === 0 ? 100 : Math.floor((100 * p.bytesDone) / p.bytesTotal)}% (${count} objects)\n`);
        },
      );
    } catch (error) {
      // The reader went away (`export ... | head`): a normal end.
      if (!(error instanceof PipeClosed)) throw error;
    }
    await output.end();
    if (output.closed) return;
    io.stderr.write(`storage-inspector: exported ${count} objects of ${entries.map((e) => `${e.typeName} (${e.typeId})`).join(', ')}${options.out === undefined ? '' : ` to ${options.out}`}\n`);
  } finally {
    await storage.close();
  }
}

function typeEntries(storage: Storage, type: string) {
  const dictionary = storage.dictionary;
  if (/^[0-9]{1,19}$/.test(type)) {
    const entry = dictionary.byId.get(BigInt(type));
    if (entry === undefined) throw new UsageError(`type id ${type} is not in the type dictionary`);
    return [entry];
  }
  const name = typeNameFor(type, new Set(dictionary.entries.map((e) => e.typeName)));
  return dictionary.entries.filter((e) => e.typeName === name).sort((a, b) => (a.typeId < b.typeId ? 1 : -1));
}

/**
 * The full type name `--type` means: the name itself, or the one type whose simple name it is.
 * Otherwise a UsageError that lists the candidates (a simple name several types share) or the
 * names close to it.
 */
export function typeNameFor(type: string, names: ReadonlySet<string>): string {
  if (names.has(type)) return type;
  const bySimpleName = [...names].filter((n) => simpleTypeName(n) === type).sort();
  if (bySimpleName.length === 1) return bySimpleName[0]!;
  if (bySimpleName.length > 1) throw new UsageError(`several types are named ${type}: ${bySimpleName.join(', ')}; give the full name`);
  // Near misses of the full or the simple name; suggested by their full names.
  const fullNames = new Map<string, string>();
  for (const n of names) {
    fullNames.set(n, n);
    if (!fullNames.has(simpleTypeName(n))) fullNames.set(simpleTypeName(n), n);
  }
  const close = closeMatches(type, fullNames.keys()).map((k) => fullNames.get(k)!);
  const hint = close.length === 0 ? '' : ` (did you mean ${[...new Set(close)].join(' or ')}?)`;
  throw new UsageError(`no type named ${type} in the type dictionary${hint}`);
}

/** A referenced JDK value's text in a CSV or NDJSON line: shortened like the HTTP view's. */
const TEXT_PREVIEW = 200;

/** Thrown to end the pass when standard output's reader has gone. */
class PipeClosed extends Error {}

/** The SQL tables into a new directory (Parquet, CSV or NDJSON) with a manifest. */
async function exportTableFiles(options: ExportArgs, io: CommandIo): Promise<void> {
  // On a terminal, a line below the others says what runs and for how long (the build and the
  // fills say nothing else for tens of seconds at 10M objects); every other text goes above it.
  const progress = { step: 'opening the storage', written: 0, started: Date.now() };
  const live = new LiveLine(io.stderr, () => `storage-inspector: ${progress.step}${progress.written > 0 ? `, ${progress.written} written` : ''} · ${elapsedText(progress.started)}`);
  const shown: CommandIo = { stdout: io.stdout, stderr: { write: (text: string) => live.print(text), isTTY: io.stderr.isTTY === true } };
  // Interrupted, the process ends through process.exit, whose 'exit' event lets exportTables
  // remove its hidden directory beside --out (a signal's default action would leave it, with
  // the link pass's uncompressed files: 100 MB at 1M objects).
  const interrupted = (signal: NodeJS.Signals): void => {
    live.close();
    io.stderr.write(`storage-inspector export: interrupted (${signal}); nothing was written to ${options.out}\n`);
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  for (const signal of SIGNALS) process.on(signal, interrupted);
  try {
    live.draw();
    await exportTableFilesUntilDone(options, shown, progress);
  } finally {
    live.close();
    for (const signal of SIGNALS) process.off(signal, interrupted);
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

async function exportTableFilesUntilDone(options: ExportArgs, io: CommandIo, progress: { step: string; written: number }): Promise<void> {
  const storage = await openStorage(options, { onProgress: openProgressReporter(io) }, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`), options.strict === true);
  const registry = new StorageRegistry();
  try {
    const context = registry.add('default', storage, graphProgressReporter(io));
    const { exportTables, ExportTargetError } = await import('../../sql/output/table-export.js');
    try {
      const started = Date.now();
      const manifest = await exportTables({
        storage,
        graph: () => context.graph.ready(),
        out: options.out!,
        format: options.format,
        csvCells: options.rawCsv ? 'raw' : 'safe',
        table: options.type,
        cache: tableCacheOf(options.cache),
        onProblem: (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`),
        onStep: (step) => {
          progress.step = step;
          io.stderr.write(`storage-inspector: ${step}\n`);
        },
        onTable: (table, rows) => {
          progress.written++;
          io.stderr.write(`storage-inspector: wrote ${table} (${rows} rows)\n`);
        },
      });
      const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
      io.stderr.write(`storage-inspector: exported ${manifest.tables.length} tables (${rows} rows) as ${options.format} to ${options.out} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    } catch (error) {
      if (error instanceof ExportTargetError) throw new UsageError(error.message);
      throw error;
    }
  } finally {
    await registry.close();
    await storage.close();
  }
}
