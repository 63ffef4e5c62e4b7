import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';

/**
 * Where the password of a storage kept in MariaDB/MySQL comes from, never from the URL: a
 * password file given to the command (its first line), else the `password` of the client option
 * file the mariadb and mysql clients read (`~/.my.cnf`, groups [client], [client-mariadb],
 * [mariadb-client], [mysql]; or the file MARIADB_OPTION_FILE names). None: connect without one.
 */

export const MARIADB_PASSWORD_SOURCES = '--pg-password-file (the password alone, first line) or the client option file ~/.my.cnf ([client] password=...)';

const CLIENT_GROUPS = new Set(['client', 'client-mariadb', 'mariadb-client', 'mysql']);

export function mariadbPassword(passwordFile: string | undefined): string | undefined {
  if (passwordFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(passwordFile, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read the password file ${passwordFile} (${error instanceof Error ? error.message : String(error)})`);
    }
    const password = text.split(/\r?\n/)[0] ?? '';
    if (password === '') throw new UsageError(`the password file ${passwordFile} is empty`);
    return password;
  }
  const optionFile = process.env['MARIADB_OPTION_FILE'] ?? join(homedir(), '.my.cnf');
  let text: string;
  try {
    text = readFileSync(optionFile, 'utf8');
  } catch {
    return undefined;
  }
  return optionFilePassword(text);
}

/** The last `password` of the client groups of an option file (my.cnf syntax: `[group]`, `key = value`, quotes, # and ; comments). */
export function optionFilePassword(text: string): string | undefined {
  let group = '';
  let password: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) {
      group = header[1]!.trim().toLowerCase();
      continue;
    }
    if (!CLIENT_GROUPS.has(group)) continue;
    const option = /^password\s*=\s*(.*)$/.exec(line);
    if (option === null) continue;
    let value = option[1]!.trim();
    const quoted = /^(['"])(.*)\1$/.exec(value);
    if (quoted !== null) value = quoted[2]!;
    else value = value.replace(/\s+#.*$/, '');
    password = value;
  }
  return password;
}
