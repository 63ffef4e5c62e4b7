import { type Command, Option } from 'commander';
import { openSide, type DiffSide } from '../../diff/open-points.js';
import { diffStorages, type DiffReport, type ObjectChange } from '../../diff/storage-diff.js';
import { UsageError } from '../../errors.js';
import { parseAsOf, type AsOf } from '../../rescue/as-of.js';
import { SharedIndexWorkers } from '../../storage/index/shared-index-workers.js';
import { checkStorageSpec } from '../../storage/open-source.js';
import type { CommandIo } from '../io.js';
import { integerOption, parseCommand, toolCommand } from '../options/option-values.js';
import { openOutput, type OutputTarget } from '../output/output-target.js';
import { diffHeadText, objectChangeText, unlistedText } from '../reports/diff-text.js';
import { jsonText, progressPrinter } from '../reports/report-text.js';
import { openSpecSource, withStorageOptions, type StorageSpec } from '../options/storage-argument.js';

const DESCRIPTION =
  'What changed between two storages (e.g. a backup and today\'s copy, or before and after a migration), or between two points of one storage\'s history (--from, --to): ' +
  'objects matched by object id, per type added, removed, changed and unchanged; each changed object\'s members old → new; collections element by element; type changes once per type. ' +
  'Records are compared byte for byte, only those that differ are decoded. Never writes. Exit code 0: no differences; 1: differences; 2: error.';

const MAX_LIMIT = 100_000_000;
const DEFAULT_LIMIT = 100;
/** Characters of NDJSON lines (and of the text report's changes) gathered before they are written. */
const NDJSON_BATCH = 64 * 1024;

export function diffCommand(): Command {
  return withStorageOptions(
    toolCommand('diff')
      .description(DESCRIPTION)
      .argument('<storage-a>', 'the storage before (a directory, or postgres://... with --table)')
      .argument('[storage-b]', 'the storage after; left out: two points of storage-a (--from, --to)'),
    true,
  )
    .addOption(new Option('--table-b <name>', 'storage-b kept in PostgreSQL: its root table when it differs from --table'))
    .addOption(new Option('--from <commit|time>', 'one storage: the state after this commit (its number or timestamp as check --commits lists them, or a date-time: the last commit at or before it)'))
    .addOption(new Option('--to <commit|time>', 'one storage: the later state (default: as it is now)'))
    .addOption(new Option('--type <name...>', 'only objects of these types (exact class names)'))
    .addOption(integerOption('--limit', 'n', `differing objects described at most (default ${DEFAULT_LIMIT}; with --ndjson every one)`, 0, MAX_LIMIT, 'objects'))
    .addOption(new Option('--json', 'print the report as one JSON document').conflicts('ndjson'))
    .addOption(new Option('--ndjson', 'print one JSON line per differing object ({"change","objectId","typeName",...}); the summary goes to stderr'));
}

interface DiffFlags {
  tableB?: string;
  from?: string;
  to?: string;
  type?: string[];
  limit?: number;
  json?: boolean;
  ndjson?: boolean;
  table?: string;
  pgPasswordFile?: string;
  allowExternalLinks?: boolean;
  maxDictionaryBytes?: number;
}

export async function run(args: string[], io: CommandIo): Promise<number> {
  const command = diffCommand();
  if (parseCommand(command, args) === 'help') {
    io.stdout.write(command.helpInformation());
    return 0;
  }
  const flags = command.opts<DiffFlags>();
  const [first, second] = command.args as [string, string | undefined];
  const specA = specOf(first, flags, flags.table);
  const specB = second === undefined ? undefined : specOf(second, flags, flags.tableB ?? flags.table);
  if (specB !== undefined && (flags.from !== undefined || flags.to !== undefined)) {
    throw new UsageError('--from and --to compare two points of one storage; with two storages, leave them out');
  }
  if (specB === undefined && flags.from === undefined) throw new UsageError('expected two storages, or one storage with --from <commit|time> (and optionally --to)');
  for (const name of flags.type ?? []) if (!/^[\p{L}\p{N}_$.[\];]+$/u.test(name)) throw new UsageError(`--type ${name}: not a class name`);
  const from: AsOf | undefined = flags.from === undefined ? undefined : parseAsOf(flags.from);
  const to: AsOf | undefined = flags.to === undefined ? undefined : parseAsOf(flags.to);
  const warn = (message: string): void => void io.stderr.write(`storage-inspector: warning: ${message}\n`);
  const progress = progressPrinter(io, 'diff');
  const started = Date.now();

  const sides: DiffSide[] = [];
  // The second storage is indexed by the threads that indexed the first (started once).
  const workers = new SharedIndexWorkers();
  // NDJSON lines written NDJSON_BATCH characters at a time: a write per line cost a system call
  // and the stream's work each (100,000 lines to a file: about 80 ms more CPU). Through an output
  // target: a reader that closes the pipe (`... --ndjson | head`) is a normal end, not an uncaught
  // EPIPE with its stack trace; a slow reader holds the comparison back instead of the lines
  // piling up in memory.
  let output: OutputTarget | undefined;
  let pending = '';
  const flushLines = async (): Promise<void> => {
    const text = pending;
    pending = '';
    if (text.length > 0 && output !== undefined && !output.closed) await output.write(text);
  };
  try {
    // Two storages: the second may be the first plus what was committed to it since (a copy that
    // went on): then opened as the first's state and what it appended (basis-open.ts), and only
    // that compared, with the first's objects counted per type while it is indexed.
    const twoStorages = specB !== undefined;
    const optionsA = openOptions(specA, workers, (p) => progress('indexing the first storage', p.bytesDone, p.bytesTotal));
    sides.push(await openSide(openSpecSource(specA, warn), from, twoStorages ? { ...optionsA, countLatestTypes: true } : optionsA));
    const b = specB ?? specA;
    const optionsB = openOptions(b, workers, (p) => progress('indexing the second storage', p.bytesDone, p.bytesTotal));
    sides.push(await openSide(openSpecSource(b, warn), to, twoStorages ? { ...optionsB, basis: sides[0]!.storage } : optionsB));
    void workers.close();
    const [a, bSide] = sides as [DiffSide, DiffSide];
    const ndjson = flags.ndjson === true;
    if (ndjson) output = await openOutput(undefined, io.stdout);
    const report = await diffStorages(a.storage, bSide.storage, {
      sameFiles: specB === undefined,
      typeNames: flags.type,
      limit: flags.limit ?? (ndjson ? MAX_LIMIT : DEFAULT_LIMIT),
      onProgress: (done, total) => progress('comparing', done, total),
      ...(ndjson
        ? {
            onObject: (change: ObjectChange): Promise<void> | undefined => {
              if (output!.closed) throw new ReaderGone();
              pending += `${JSON.stringify(change)}\n`;
              return pending.length >= NDJSON_BATCH ? flushLines() : undefined;
            },
          }
        : {}),
    });
    await flushLines();
    const labelA = sideLabel(a);
    const labelB = sideLabel(bSide);
    // The report through the output target too: a reader gone before its end (`diff A B | head`)
    // is a quiet end, a failed write diff's message and status 2 (not Node's unhandled 'error').
    output ??= await openOutput(undefined, io.stdout);
    if (flags.json === true) await output.write(jsonText({ a: sideJson(a), b: sideJson(bSide), ...report }));
    else if (ndjson) io.stderr.write(diffHeadText(labelA, labelB, report));
    else await writeText(output, labelA, labelB, report);
    await output.end();
    io.stderr.write(`storage-inspector diff: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return report.equal ? 0 : 1;
  } catch (error) {
    // The reader went away after lines were written: the storages differ, nothing more to say.
    if (error instanceof ReaderGone) return 1;
    // The lines found before the failure, as they were written before (a failure to write them
    // does not take the place of the error that ended the comparison).
    await flushLines().catch(() => undefined);
    // 1 means "different" here: every failure is 2.
    io.stderr.write(`storage-inspector diff: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  } finally {
    await workers.close();
    for (const side of sides) await side.storage.close();
  }
}

/** The reader of `--ndjson` closed the pipe: the comparison stops. */
class ReaderGone extends Error {}

function specOf(directory: string, flags: DiffFlags, table: string | undefined): StorageSpec {
  if (directory === '') throw new UsageError('a storage argument is empty');
  checkStorageSpec(directory, { table, passwordFile: flags.pgPasswordFile });
  return { directory, table, pgPasswordFile: flags.pgPasswordFile, allowExternalLinks: flags.allowExternalLinks === true, maxDictionaryBytes: flags.maxDictionaryBytes };
}

function openOptions(spec: StorageSpec, indexWorkers: SharedIndexWorkers, onProgress: (p: { bytesDone: number; bytesTotal: number }) => void) {
  return { allowExternalLinks: spec.allowExternalLinks === true, indexWorkers, onProgress, ...(spec.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: spec.maxDictionaryBytes }) };
}

function sideLabel(side: DiffSide): string {
  const c = side.commit;
  return c === undefined ? side.storage.directory : `${side.storage.directory} as of commit ${c.number} (${new Date(c.time).toISOString()}, timestamp ${c.timestamp})`;
}

function sideJson(side: DiffSide) {
  const c = side.commit;
  return { storage: side.storage.directory, commit: c === undefined ? null : { number: c.number, timestamp: String(c.timestamp), time: new Date(c.time).toISOString() } };
}

async function writeText(output: OutputTarget, a: string, b: string, report: DiffReport): Promise<void> {
  let text = diffHeadText(a, b, report);
  if (report.objects.length > 0) text += '\n';
  for (const change of report.objects) {
    text += objectChangeText(change);
    if (text.length < NDJSON_BATCH) continue;
    if (output.closed) return;
    await output.write(text);
    text = '';
  }
  await output.write(text + unlistedText(report.unlisted));
}
