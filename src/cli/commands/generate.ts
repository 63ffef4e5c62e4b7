import { existsSync, readdirSync, statSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { makeDirectories } from '../../writer/make-directories.js';
import { refuseStoragePlace } from '../../writer/output-place.js';
import type { FamilyName } from '../../format/storage-family.js';
import { DEFAULT_FILE_MAXIMUM_SIZE } from '../../writer/storage-writer.js';
import { generateStorage, MIN_GENERATED_ENTITIES } from '../../writer/generator/generate-storage.js';
import { groupDigits } from '../reports/number-text.js';
import { integerOption, parseCommand, toolCommand } from '../options/option-values.js';

const DESCRIPTION =
  'Writes a new MicroStream 4.1 or EclipseStore 4.1 storage with generated data (a library of persons, books in two type versions, shelves, collections, arrays), deterministic for a seed.';

export interface GenerateArgs {
  readonly entities: number;
  readonly out: string;
  readonly channels: number;
  readonly seed: number;
  readonly fileSize: number;
  readonly family: FamilyName;
  /** Entities of a GigaMap to add (EclipseStore only). */
  readonly gigamap: number | undefined;
  /** Chunk checksums as EclipseStore 4.2 writes them (EclipseStore only). */
  readonly checksums: 'none' | 'crc32c' | 'sha256';
}

export function generateCommand(): Command {
  return toolCommand('generate')
    .description(DESCRIPTION)
    .addOption(
      integerOption('--entities', 'n', `number of entities, the 27 built-in objects included`, MIN_GENERATED_ENTITIES, Number.MAX_SAFE_INTEGER, 'entities'),
    )
    .addOption(new Option('--out <dir>', 'storage directory to create (must not exist or be empty)'))
    .addOption(integerOption('--channels', 'c', 'channel count, a power of two', 1, 1024, 'channels').default(1))
    .addOption(integerOption('--seed', 's', 'random seed', 0, 0xffffffff, 'a seed').default(1))
    .addOption(integerOption('--file-size', 'bytes', 'data file maximum size', 1, Number.MAX_SAFE_INTEGER, 'bytes').default(DEFAULT_FILE_MAXIMUM_SIZE))
    .addOption(
      new Option('--family <name>', "the product line to write for: microstream (MicroStream 4.1's types and type ids) or eclipsestore (EclipseStore 4.1's)")
        .choices(['microstream', 'eclipsestore'])
        .default('microstream'),
    )
    .addOption(
      integerOption('--gigamap', 'n', "with --family eclipsestore: also a GigaMap of n persons with a hashing index (city) and a unique bit-sliced one (id), reachable from the library's people map under the key gigamap (beyond --entities)", 1, 2 ** 31, 'entities'),
    )
    .addOption(
      new Option('--checksums <algorithm>', 'with --family eclipsestore: chunk checksums as EclipseStore 4.2 writes them (a file header, a checksum record after every chunk): crc32c, sha256 (chained) or none')
        .choices(['none', 'crc32c', 'sha256'])
        .default('none'),
    );
}

export function parseGenerateArgs(args: string[]): GenerateArgs | 'help' {
  const command = generateCommand();
  if (parseCommand(command, args) === 'help') return 'help';
  if (command.args.length > 0) throw new UsageError(`unexpected argument "${command.args[0]}"; see 'storage-inspector generate --help'`);
  const values = command.opts<{ entities?: number; out?: string; channels: number; seed: number; fileSize: number; family: FamilyName; gigamap?: number; checksums: 'none' | 'crc32c' | 'sha256' }>();
  if (values.gigamap !== undefined && values.family !== 'eclipsestore') throw new UsageError('--gigamap needs --family eclipsestore');
  if (values.checksums !== 'none' && values.family !== 'eclipsestore') throw new UsageError('--checksums needs --family eclipsestore');
  // Every missing option named at once: a reader of one error should not meet the next one.
  if (values.entities === undefined || values.out === undefined || values.out === '') {
    const missing = [...(values.entities === undefined ? ['--entities N'] : []), ...(values.out === undefined || values.out === '' ? ['--out DIR'] : [])];
    throw new UsageError(`missing ${missing.join(' and ')} (e.g. generate --entities 10000 --out ./generated${values.gigamap === undefined ? '' : ` --family eclipsestore --gigamap ${values.gigamap}`})`);
  }
  if ((values.channels & (values.channels - 1)) !== 0) throw new UsageError(`--channels must be a power of two, got ${values.channels}`);
  return { entities: values.entities, out: values.out, channels: values.channels, seed: values.seed, fileSize: values.fileSize, family: values.family, gigamap: values.gigamap, checksums: values.checksums };
}

export async function run(args: string[], io: { stdout: { write(t: string): unknown }; stderr: { write(t: string): unknown } }): Promise<void> {
  const options = parseGenerateArgs(args);
  if (options === 'help') {
    io.stdout.write(generateCommand().helpInformation());
    return;
  }
  refuseStoragePlace(options.out, { option: '--out' });
  if (existsSync(options.out)) {
    if (!statSync(options.out).isDirectory()) throw new UsageError(`${options.out} exists and is not a directory`);
    if (readdirSync(options.out).length > 0) throw new UsageError(`${options.out} is not empty; refusing to write into it`);
  }
  // An output directory that cannot be created is refused before anything is generated.
  try {
    makeDirectories(options.out);
  } catch (error) {
    throw new UsageError(`--out ${error instanceof Error ? error.message : String(error)}`);
  }
  const started = performance.now();
  const summary = generateStorage({
    directory: options.out,
    entities: options.entities,
    channelCount: options.channels,
    seed: options.seed,
    fileMaximumSize: options.fileSize,
    family: options.family,
    checksums: options.checksums,
    ...(options.gigamap === undefined ? {} : { gigamap: options.gigamap }),
  });
  const seconds = (performance.now() - started) / 1000;
  const rate = Math.round(summary.entities / Math.max(seconds, 1e-9));
  io.stderr.write(
    `generated ${options.out}: ${groupDigits(summary.entities)} entities, ${groupDigits(summary.records)} records in ${groupDigits(summary.stores)} stores, ` +
      `${groupDigits(summary.files)} files, ${groupDigits(summary.bytes)} bytes, ${seconds.toFixed(2)} s (${groupDigits(rate)} entities/s)\n`,
  );
}
