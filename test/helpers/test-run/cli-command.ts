import { join } from 'node:path';

/** Names the command compiled for the run (compiled-cli.ts, a global setup). */
export const COMPILED_CLI_VARIABLE = 'STORAGE_INSPECTOR_TEST_CLI';

const SOURCE_MAIN = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');

/**
 * The arguments of `node` that start `storage-inspector` from the sources of today: the run's
 * compiled copy of them (compiled-cli.ts), or, in a run without that setup, the sources through tsx.
 */
export function cliCommand(): string[] {
  const compiled = process.env[COMPILED_CLI_VARIABLE];
  return compiled !== undefined && compiled !== '' ? [compiled] : ['--import', 'tsx', SOURCE_MAIN];
}
