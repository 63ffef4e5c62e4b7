import { join } from 'node:path';
import { COMPILED_SOURCES_VARIABLE } from '../../../src/threads/worker-thread.js';

const SOURCE_MAIN = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');

/**
 * The arguments of `node` that start `storage-inspector` from the sources of today: the run's
 * compiled copy of them (compiled-cli.ts), or, in a run without that setup, the sources through tsx.
 */
export function cliCommand(): string[] {
  const compiled = process.env[COMPILED_SOURCES_VARIABLE];
  return compiled !== undefined && compiled !== '' ? [join(compiled, 'cli', 'main.js')] : ['--import', 'tsx', SOURCE_MAIN];
}
