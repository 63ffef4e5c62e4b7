import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { convertStorage, DamagedSourceError, MAX_CHANNELS, type Discardable } from '../../convert/convert-storage.js';
import { isPostgresSpec } from '../../storage/open-source.js';
import { refuseStoragePlace } from '../../writer/output-place.js';
import { convertReportText } from '../reports/convert-text.js';
import type { CommandIo } from '../io.js';
import { integerOption, parseCommand, toolCommand } from '../options/option-values.js';
import { ConvertEta, durationText } from '../../convert/convert-progress.js';
import { checkReportText, jsonText } from '../reports/report-text.js';
import { openSpecSource, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions } from '../options/storage-argument.js';

const DESCRIPTION =
  'Writes a new storage from an intact one, always into a new directory: only the current version of each object and, unless --keep-unreachable, only the objects reachable from the roots; ' +
  'each object in the channel the library assigns it (object id modulo --channels), data files, a transaction log per channel and a type dictionary of the types in use; ' +
  'with --to eclipsestore, a MicroStream storage becomes an EclipseStore 4.1 one (type names as EclipseStore\'s Storage Migrator rewrites them). The storage is only read. ' +
  'A damaged storage is refused with check\'s findings: rescue it first, or convert it with --allow-damage.';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export function convertCommand(): Command {
  return withStorageOptions(toolCommand('convert').description(DESCRIPTION).argument('<storage-dir>', `${STORAGE_ARGUMENT_TEXT}; only read`), true)
    .addOption(new Option('--out <new-dir>', 'where to write the new storage (must not exist)'))
    .addOption(integerOption('--channels', 'count', "channels of the new storage, a power of two; default: the source's", 1, MAX_CHANNELS, 'channels'))
    .addOption(new Option('--keep-unreachable', 'copy the current version of unreachable objects (garbage) too'))
    .addOption(new Option('--to <product>', "the product line of the new storage: eclipsestore (from a MicroStream storage) or microstream; default: the source's").choices(['microstream', 'eclipsestore']))
    .addOption(integerOption('--file-size', 'size', "start a new data file once one reaches this size; default the library's 8 MiB", 1024, 2 ** 31 - 1, 'bytes'))
    .addOption(new Option('--current-types', 'rewrite objects stored in an older definition of their type into the newest one, where every member maps by name and declared type (new members get default values); the others keep their shape and are listed'))
    .addOption(new Option('--allow-damage', 'convert a damaged storage: rescue it first as rescue does (references to lost objects replaced so that the library starts), then convert the rescue'))
    .addOption(new Option('--json', 'print the report as JSON'));
}

export async function run(args: string[], io: CommandIo): Promise<number> {
  const command = convertCommand();
  if (parseCommand(command, args) === 'help') {
    io.stdout.write(command.helpInformation());
    return 0;
  }
  const spec = storageSpecOf(command);
  const options = command.opts<{ out?: string; channels?: number; keepUnreachable?: boolean; to?: 'microstream' | 'eclipsestore'; fileSize?: number; allowDamage?: boolean; currentTypes?: boolean; json?: boolean }>();
  if (options.out === undefined || options.out === '') throw new UsageError('missing --out <new-dir>');
  if (isPostgresSpec(options.out)) throw new UsageError(`--out ${options.out}: convert writes a new storage directory, never into a database`);
  refuseStoragePlace(options.out, { option: '--out', storages: isPostgresSpec(spec.directory) ? [] : [spec.directory] });
  const started = Date.now();
  const open = () => openSpecSource(spec, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`));
  // Interrupted, the half-written storage is removed: nothing (rather than a part) is at --out.
  let pending: Discardable | undefined;
  const interrupted = (signal: NodeJS.Signals): void => {
    pending?.discard();
    io.stderr.write(`storage-inspector convert: interrupted (${signal}); nothing was written to ${options.out}\n`);
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  for (const signal of SIGNALS) process.on(signal, interrupted);
  let report;
  try {
    report = await convertStorage(open, {
      out: options.out,
      channels: options.channels,
      keepUnreachable: options.keepUnreachable === true,
      to: options.to,
      fileSize: options.fileSize,
      allowDamage: options.allowDamage === true,
      currentTypes: options.currentTypes === true,
      maxDictionaryBytes: spec.maxDictionaryBytes,
      onProgress: convertProgressPrinter(io, options.keepUnreachable !== true),
      onTemporaryTarget: (target) => (pending = target),
    });
  } catch (error) {
    // check's findings first, so that the refusal says what is wrong.
    if (error instanceof DamagedSourceError) io.stderr.write(checkReportText(error.check));
    throw error;
  } finally {
    for (const signal of SIGNALS) process.off(signal, interrupted);
  }
  io.stdout.write(options.json === true ? jsonText(report) : convertReportText(report));
  io.stderr.write(`storage-inspector convert: done in ${((Date.now() - started) / 1000).toFixed(1)} s; check the new storage with: storage-inspector check ${options.out}\n`);
  return 0;
}

/** Progress on stderr at most once a second: the phase, its share, and the time the whole run still needs. */
function convertProgressPrinter(io: CommandIo, reachability: boolean): (phase: string, done: number, total: number) => void {
  const eta = new ConvertEta({ reachability });
  let last = Date.now();
  return (phase, done, total) => {
    const estimate = eta.update(phase, done, total);
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const percent = total === 0 ? 100 : Math.floor((100 * done) / total);
    const left = estimate.secondsLeft === undefined ? '' : `; all done in about ${durationText(estimate.secondsLeft)}`;
    io.stderr.write(`storage-inspector convert: ${phase} ${percent}% (${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} bytes)${left}\n`);
  };
}
