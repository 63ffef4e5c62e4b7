import { createRequire } from 'node:module';
import { isAppError, UsageError } from '../errors.js';
import type { CommandIo } from './io.js';
import { didYouMean } from './options/suggest.js';

/**
 * `storage-inspector <command> ...`: parses the command word, loads the command lazily and maps
 * errors to exit codes (0 ok, 1 failure, 2 usage). Only this file knows exit codes.
 */

/** A command's `run` may return its exit code (e.g. `check`: 1 when the storage has serious problems). */
const COMMANDS: Readonly<Record<string, { summary: string; load: () => Promise<{ run(args: string[], io: CommandIo): Promise<void | number> }> }>> = {
  serve: { summary: 'serve storages over the Java Storage REST API, our own API and the web viewer', load: () => import('./commands/serve.js') },
  mcp: { summary: 'let an AI assistant inspect a storage (Model Context Protocol over stdio)', load: () => import('./commands/mcp.js') },
  generate: { summary: 'write a new storage with generated data (tests, benchmarks)', load: () => import('./commands/generate.js') },
  analyze: { summary: 'report garbage, missing references and what takes the space', load: () => import('./commands/analyze.js') },
  export: { summary: 'write the instances of a type as NDJSON or CSV, or every table as Parquet, CSV or NDJSON', load: () => import('./commands/export.js') },
  sql: { summary: 'query a storage with SQL: every type a table (DuckDB), or an interactive shell', load: () => import('./commands/sql.js') },
  check: { summary: 'diagnose a storage: would MicroStream or EclipseStore start on it, is anything lost', load: () => import('./commands/check.js') },
  diff: { summary: 'what changed between two storages, or two points of one storage\'s history', load: () => import('./commands/diff.js') },
  cache: { summary: 'list or clear the SQL tables kept between runs', load: () => import('./commands/cache.js') },
  rescue: { summary: 'copy what is readable (or an earlier state) into a new, clean storage', load: () => import('./commands/rescue.js') },
  convert: { summary: 'a compact copy: other channel count, garbage and old versions left out, MicroStream to EclipseStore', load: () => import('./commands/convert.js') },
};

/** The version in package.json (two levels up from both src/cli and dist/cli). */
export function toolVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return [
    'Usage: storage-inspector <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'storage-inspector help <command>' (or '<command> --help') for its options; --version prints the version.",
    'Sizes are bytes or a number with a unit: 512MB (decimal), 1GiB (binary).',
  ].join('\n');
}

export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  // `help serve` is `serve --help`.
  if (argv[0] === 'help' && argv.length > 1) return runCli([argv[1]!, '--help'], io);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${usage()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`${toolVersion()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr.write(`storage-inspector: unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))}\n\n${usage()}\n`);
    return 2;
  }
  try {
    const code = await (await command.load()).run(rest, io);
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`storage-inspector ${name}: ${error.message}\n`);
      return 2;
    }
    const message = isAppError(error) || error instanceof Error ? error.message : String(error);
    io.stderr.write(`storage-inspector ${name}: ${message}\n`);
    return 1;
  }
}
