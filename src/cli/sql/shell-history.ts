import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { refuseStoragePlace } from '../../writer/output-place.js';

/**
 * The SQL shell's line history between runs: a file in the user's state directory
 * (`$XDG_STATE_HOME/storage-inspector/sql_history`, else `~/.local/state/...`), one entry a line,
 * oldest first, at most HISTORY_SIZE entries, readable by the user alone (statements can name
 * what the data holds). A history that cannot be read or written is simply not kept; never inside
 * a storage (the rule of every file the tool writes).
 */

export const HISTORY_SIZE = 1000;

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  const state = env['XDG_STATE_HOME'];
  const base = state !== undefined && isAbsolute(state) ? state : join(homedir(), '.local', 'state');
  return join(base, 'storage-inspector', 'sql_history');
}

/** The entries, newest first (as readline takes them); none when there is no file yet. */
export function loadHistory(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '').slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

/** Writes the entries (newest first, as readline keeps them); false when it could not. */
export function saveHistory(path: string, newestFirst: readonly string[]): boolean {
  try {
    refuseStoragePlace(path, { option: 'the SQL history' });
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const lines = newestFirst.slice(0, HISTORY_SIZE).filter((line) => !line.includes('\n')).reverse();
    writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
