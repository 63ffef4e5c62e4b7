import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveCommand } from './commands/serve-options.js';
import { parseCommand } from './options/option-values.js';

/**
 * `npm start [-- [options] [storage]]`: `serve`, of the bundled demo storage unless a storage is
 * given (`npm start -- /path/to/storage` serves that one, not both). The demo is found beside
 * the package (two levels up from src/cli and dist/cli).
 */

export const DEMO_STORAGE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'demo', 'graph');

/** The `serve` arguments for `npm start` with these arguments. */
export function startArguments(args: readonly string[]): string[] {
  let givesStorage = true;
  try {
    const command = serveCommand();
    // A line that does not parse goes to `serve` as it is, which says what is wrong with it.
    givesStorage = parseCommand(command, args) === 'help' || command.args.length > 0;
  } catch {
    givesStorage = true;
  }
  return givesStorage ? ['serve', ...args] : ['serve', relative(process.cwd(), DEMO_STORAGE) || '.', ...args];
}
