import { type Command, Option } from 'commander';
import { checkStorage } from '../../check/check-storage.js';
import type { CommandIo } from '../io.js';
import { parseCommand, toolCommand } from '../options/option-values.js';
import { checkReportText, jsonText, progressPrinter } from '../reports/report-text.js';
import { openSpecSource, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions } from '../options/storage-argument.js';

const DESCRIPTION =
  'Checks a storage (a directory, or one kept in PostgreSQL) the way MicroStream 4.1 does when it starts (transaction logs against data files, record headers, type ids, channels, the lock file) and beyond (records that cannot be decoded, references to missing objects). ' +
  'Names file and offset of every problem, what MicroStream would say and what rescue would do. Never writes. ' +
  'Exit code 0: MicroStream would start and nothing is unreadable; 1: it would refuse, or data is unreadable; 2: usage error.';

export function checkCommand(): Command {
  return withStorageOptions(toolCommand('check').description(DESCRIPTION).argument('<storage-dir>', STORAGE_ARGUMENT_TEXT), true)
    .addOption(new Option('--json', 'print the report as JSON'))
    .addOption(new Option('--commits', 'also list every commit (time, timestamp, bytes per channel, whether rescue --as-of can rebuild it)'));
}

export async function run(args: string[], io: CommandIo): Promise<number> {
  const command = checkCommand();
  if (parseCommand(command, args) === 'help') {
    io.stdout.write(command.helpInformation());
    return 0;
  }
  const spec = storageSpecOf(command);
  const options = command.opts<{ json?: boolean; commits?: boolean }>();
  const source = openSpecSource(spec, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`));
  const report = await checkStorage(source, { commits: options.commits === true, maxDictionaryBytes: spec.maxDictionaryBytes, onProgress: progressPrinter(io, 'check') });
  io.stdout.write(options.json === true ? jsonText(report) : checkReportText(report));
  return report.exitCode;
}
