import { existsSync, readdirSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { DEFAULT_FILE_MAXIMUM_SIZE } from '../../writer/storage-writer.js';
import { generateStorage, MIN_GENERATED_ENTITIES } from '../../writer/generator/generate-storage.js';

const HELP = `Usage: storage-inspector generate --entities <n> --out <dir> [options]

Writes a new MicroStream 4.1 storage with generated data (a library of persons,
books in two type versions, shelves, collections, arrays), deterministic for a seed.

Options:
  --entities <n>       number of entities, the 27 built-in objects included (at least ${MIN_GENERATED_ENTITIES})
  --out <dir>          storage directory to create (must not exist or be empty)
  --channels <c>       channel count, a power of two 1..1024 (default 1)
  --seed <s>           random seed, 0..4294967295 (default 1)
  --file-size <bytes>  data file maximum size (default ${DEFAULT_FILE_MAXIMUM_SIZE})
  -h, --help           this text
`;

export interface GenerateArgs {
  readonly entities: number;
  readonly out: string;
  readonly channels: number;
  readonly seed: number;
  readonly fileSize: number;
}

export function parseGenerateArgs(args: string[]): GenerateArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: false,
      options: {
        entities: { type: 'string' },
        out: { type: 'string' },
        channels: { type: 'string', default: '1' },
        seed: { type: 'string', default: '1' },
        'file-size': { type: 'string', default: String(DEFAULT_FILE_MAXIMUM_SIZE) },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) return 'help';
  if (values.entities === undefined) throw new UsageError('missing --entities');
  if (values.out === undefined || values.out === '') throw new UsageError('missing --out');
  const entities = integer('--entities', values.entities, MIN_GENERATED_ENTITIES, Number.MAX_SAFE_INTEGER);
  const channels = integer('--channels', values.channels, 1, 1024);
  if ((channels & (channels - 1)) !== 0) throw new UsageError(`--channels must be a power of two, got ${channels}`);
  const seed = integer('--seed', values.seed, 0, 0xffffffff);
  const fileSize = integer('--file-size', values['file-size'], 1, Number.MAX_SAFE_INTEGER);
  return { entities, out: values.out, channels, seed, fileSize };
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`invalid ${name} "${text}" (an integer from ${min} to ${max})`);
  }
  return value;
}

export async function run(args: string[], io: { stdout: { write(t: string): unknown }; stderr: { write(t: string): unknown } }): Promise<void> {
  const options = parseGenerateArgs(args);
  if (options === 'help') {
    io.stdout.write(HELP);
    return;
  }
  if (existsSync(options.out)) {
    if (!statSync(options.out).isDirectory()) throw new UsageError(`${options.out} exists and is not a directory`);
    if (readdirSync(options.out).length > 0) throw new UsageError(`${options.out} is not empty; refusing to write into it`);
  }
  const started = performance.now();
  const summary = generateStorage({
    directory: options.out,
    entities: options.entities,
    channelCount: options.channels,
    seed: options.seed,
    fileMaximumSize: options.fileSize,
  });
  const seconds = (performance.now() - started) / 1000;
  const rate = Math.round(summary.entities / Math.max(seconds, 1e-9));
  io.stderr.write(
    `generated ${options.out}: ${summary.entities} entities, ${summary.records} records in ${summary.stores} stores, ` +
      `${summary.files} files, ${summary.bytes} bytes, ${seconds.toFixed(2)} s (${rate} entities/s)\n`,
  );
}
