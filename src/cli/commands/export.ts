import { createWriteStream, realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { channelOf } from '../../format/ids.js';
import { UTC } from '../../format/java-time-zones.js';
import { forEachLatestRecord } from '../../graph/latest-records.js';
import { describeObjectView, type ReferenceInfo } from '../../inspect/object-view.js';
import { Storage } from '../../storage/storage.js';
import { csvHeader, csvRow, exportColumns } from '../export-csv.js';
import { openProgressReporter } from '../graph-progress.js';
import type { CommandIo } from '../io.js';
import { parseCommand, toolCommand } from '../option-values.js';
import { isDirectorySpec, openStorage, STORAGE_ARGUMENT_TEXT, storageSpecOf, withStorageOptions, type StorageSpec } from '../storage-argument.js';

const DESCRIPTION =
  'Writes every instance of a type (all its versions when given by name) as NDJSON (the /api/v1 object view, one a line) or CSV (one column per member, references as ids), in file order, streaming: memory stays constant whatever the storage size. Reads only.';

export interface ExportArgs extends StorageSpec {
  readonly type: string;
  readonly format: 'ndjson' | 'csv';
  readonly out: string | undefined;
}

export function exportCommand(): Command {
  return withStorageOptions(toolCommand('export').description(DESCRIPTION).argument('<storage-dir>', STORAGE_ARGUMENT_TEXT), true)
    .addOption(new Option('--type <name|id>', 'the type: a type id, or a type name (every version of it)'))
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'csv']).default('ndjson'))
    .addOption(new Option('--out <file>', 'write to this file instead of standard output'));
}

export function parseExportArgs(args: string[]): ExportArgs | 'help' {
  const command = exportCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  const spec = storageSpecOf(command);
  const values = command.opts<{ type?: string; format: 'ndjson' | 'csv'; out?: string }>();
  if (values.type === undefined || values.type === '') throw new UsageError('missing --type');
  return { ...spec, type: values.type, format: values.format, out: values.out };
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const options = parseExportArgs(args);
  if (options === 'help') {
    io.stdout.write(exportCommand().helpInformation());
    return;
  }
  if (options.out !== undefined && isDirectorySpec(options)) refuseInside(options.out, options.directory);
  const storage = await openStorage(options, { onProgress: openProgressReporter(io) }, (message) => void io.stderr.write(`storage-inspector: warning: ${message}\n`));
  try {
    const entries = typeEntries(storage, options.type);
    const output: Writable = options.out === undefined ? (io.stdout as Writable) : createWriteStream(options.out, { flags: 'wx' });
    const write = (text: string): Promise<void> =>
      new Promise((done, fail) => {
        if (output.write(text)) done();
        else {
          output.once('drain', done);
          output.once('error', fail);
        }
      });
    const columns = exportColumns(entries);
    if (options.format === 'csv') await write(csvHeader(columns));
    const started = Date.now();
    let last = started;
    let count = 0;
    await forEachLatestRecord(
      storage,
      new Set(entries.map((e) => e.typeId)),
      async (record) => {
        const view = await describeObjectView(record, storage.dictionary, {
          offset: 0,
          limit: Number.MAX_SAFE_INTEGER,
          timeZone: UTC,
          resolve: (ids) => referenceTypes(storage, ids),
        });
        await write(options.format === 'csv' ? csvRow(columns, view) : `${JSON.stringify(view)}\n`);
        count++;
      },
      (p) => {
        const now = Date.now();
        if (now - started < 1000 || now - last < 1000) return;
        last = now;
        io.stderr.write(`storage-inspector: exporting ${p.bytesTotal === 0 ? 100 : Math.floor((100 * p.bytesDone) / p.bytesTotal)}% (${count} objects)\n`);
      },
    );
    if (options.out !== undefined) await new Promise<void>((done, fail) => output.end((error?: Error | null) => (error ? fail(error) : done())));
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
  const entries = dictionary.entries.filter((e) => e.typeName === type).sort((a, b) => (a.typeId < b.typeId ? 1 : -1));
  if (entries.length === 0) throw new UsageError(`no type named ${type} in the type dictionary`);
  return entries;
}

/** Type names of referenced objects, from their record headers (no graph needed, no memory kept). */
async function referenceTypes(storage: Storage, ids: readonly bigint[]): Promise<Map<bigint, ReferenceInfo>> {
  const out = new Map<bigint, ReferenceInfo>();
  for (const id of ids) {
    const channel = storage.channels[channelOf(id, storage.channels.length)];
    const location = channel?.objects.get(id);
    const file = location === undefined ? undefined : channel!.fileAt(location.fileSlot);
    if (location === undefined || file === undefined) {
      out.set(id, { objectId: String(id), typeName: null });
      continue;
    }
    const header = await storage.readFileRange(file.path, location.offset, 24);
    const typeId = new DataView(header.buffer, header.byteOffset, 24).getBigInt64(8, true);
    out.set(id, { objectId: String(id), typeName: storage.dictionary.byId.get(typeId)?.typeName ?? null });
  }
  return out;
}

/** Nothing is ever written into a storage directory. */
function refuseInside(out: string, directory: string): void {
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const storage = real(directory);
  const target = resolve(real(dirname(out)), out.split(/[\\/]/).at(-1) ?? out);
  if (target === storage || target.startsWith(storage + sep)) throw new UsageError(`refusing to write ${out} into the storage directory ${directory}`);
}
