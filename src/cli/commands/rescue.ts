import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { parseAsOf } from '../../rescue/as-of.js';
import { rescueStorage } from '../../rescue/rescue-storage.js';
import type { TemporaryTarget } from '../../rescue/temporary-target.js';
import { isPostgresSpec } from '../../storage/open-source.js';
import { refuseStoragePlace } from '../../writer/output-place.js';
import type { CommandIo } from '../io.js';
import { parseCommand, toolCommand } from '../options/option-values.js';
import { jsonText, progressPrinter, rescueReportText } from '../reports/report-text.js';
import { openSpecSource, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions } from '../options/storage-argument.js';

const DESCRIPTION =
  'Writes a new storage that MicroStream opens: for every object its newest committed version that can still be read (or, with --as-of, its version right after an earlier commit), ' +
  'the same channel count, the whole type dictionary, fresh data files and logs, always into a new directory. The storage (a directory, or one kept in PostgreSQL) is only read. Reports what was kept and what is lost.';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export function rescueCommand(): Command {
  return withStorageOptions(toolCommand('rescue').description(DESCRIPTION).argument('<storage-dir>', `${STORAGE_ARGUMENT_TEXT}; only read`), true)
    .addOption(new Option('--out <new-dir>', 'where to write the new storage (must not exist or be empty)'))
    .addOption(new Option('--as-of <commit|time>', 'rebuild the state after this commit: its number or timestamp as check --commits lists them, or a date-time (the last commit at or before it)'))
    .addOption(new Option('--keep-dangling', 'copy references to objects that are not recovered as they are, instead of replacing them (null, an entry left out, an empty Lazy); MicroStream then refuses to start when one is reached from the roots'))
    .addOption(
      new Option('--checksums <algorithm>', "chunk checksums of the new storage as EclipseStore 4.2 writes them: crc32c, sha256 (chained) or none; default: the source's (none for a storage without them)").choices([
        'none',
        'crc32c',
        'sha256',
      ]),
    )
    .addOption(new Option('--json', 'print the report as JSON'));
}

export async function run(args: string[], io: CommandIo): Promise<number> {
  const command = rescueCommand();
  if (parseCommand(command, args) === 'help') {
    io.stdout.write(command.helpInformation());
    return 0;
  }
  const spec = storageSpecOf(command);
  const options = command.opts<{ out?: string; asOf?: string; json?: boolean; keepDangling?: boolean; checksums?: 'none' | 'crc32c' | 'sha256' }>();
  if (options.out === undefined || options.out === '') throw new UsageError('missing --out <new-dir>');
  if (isPostgresSpec(options.out)) throw new UsageError(`--out ${options.out}: rescue writes a new storage directory, never into a database`);
  refuseStoragePlace(options.out, { option: '--out', storages: isPostgresSpec(spec.directory) ? [] : [spec.directory] });
  const asOf = options.asOf === undefined ? undefined : parseAsOf(options.asOf);
  const started = Date.now();
  const source = openSpecSource(spec, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`));
  // Interrupted, the half-written storage is removed: nothing (rather than a part) is at --out.
  let pending: TemporaryTarget | undefined;
  const interrupted = (signal: NodeJS.Signals): void => {
    pending?.discard();
    io.stderr.write(`storage-inspector rescue: interrupted (${signal}); nothing was written to ${options.out}\n`);
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  for (const signal of SIGNALS) process.on(signal, interrupted);
  let report;
  try {
    report = await rescueStorage(source, {
      out: options.out,
      asOf,
      keepDangling: options.keepDangling === true,
      checksums: options.checksums,
      maxDictionaryBytes: spec.maxDictionaryBytes,
      onProgress: progressPrinter(io, 'rescue'),
      onTemporaryTarget: (target) => (pending = target),
    });
  } finally {
    for (const signal of SIGNALS) process.off(signal, interrupted);
  }
  io.stdout.write(options.json === true ? jsonText(report) : rescueReportText(report));
  io.stderr.write(`storage-inspector rescue: done in ${((Date.now() - started) / 1000).toFixed(1)} s; check the new storage with: storage-inspector check ${options.out}\n`);
  return 0;
}
