import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { warnIfShared, type AuthConfig } from './auth.js';

/**
 * The credential of `--metrics-token-file`: a Bearer token that opens `GET /metrics` and nothing
 * else, so that a scraper needs no access to the storage's contents. Same rules as the main
 * token: read once from a file, printable ASCII without spaces, a warning when others can read
 * the file. Returned as an AuthConfig so the same constant-time check applies.
 */
export function loadMetricsToken(file: string | undefined, warn: (message: string) => void): AuthConfig | undefined {
  if (file === undefined) return undefined;
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new UsageError(`cannot read --metrics-token-file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(`--metrics-token-file ${file}: the token must be non-empty printable ASCII without spaces (it is sent in an HTTP header)`);
  }
  warnIfShared(file, '--metrics-token-file', warn);
  return { tokenDigests: [createHash('sha256').update(token, 'utf8').digest()], basicDigests: [] };
}
