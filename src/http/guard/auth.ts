import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../../errors.js';

/**
 * Optional access control: a Bearer token and/or HTTP Basic credentials. Secrets come from the
 * environment or from files, never from command line values (those are visible to every user of
 * the machine in `ps` and end up in shell histories). When anything is configured, every request
 * must carry valid credentials; comparisons take the same time whatever the input.
 */

export const TOKEN_ENV = 'STORAGE_INSPECTOR_TOKEN';
export const BASIC_AUTH_ENV = 'STORAGE_INSPECTOR_BASIC_AUTH';
export const REALM = 'storage-inspector';

export interface AuthConfig {
  /** SHA-256 digests of the accepted Bearer tokens. */
  readonly tokenDigests: readonly Buffer[];
  /** SHA-256 digests of the accepted `user:password` pairs (Basic). */
  readonly basicDigests: readonly Buffer[];
}

export interface AuthSources {
  /** `--auth-token-file`. */
  readonly tokenFile?: string | undefined;
  /** `--basic-auth-file`. */
  readonly basicAuthFile?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Receives warnings (e.g. a secret file that others can read). */
  readonly warn: (message: string) => void;
}

/** Command line options that would put a secret on the command line; refused with a hint. */
export const SECRET_FLAGS: Readonly<Record<string, string>> = {
  '--auth-token': `a token on the command line is visible to other users (ps, shell history); put it in the environment variable ${TOKEN_ENV} or in a file given with --auth-token-file`,
  '--token': `a token on the command line is visible to other users (ps, shell history); put it in the environment variable ${TOKEN_ENV} or in a file given with --auth-token-file`,
  '--basic-auth': `credentials on the command line are visible to other users (ps, shell history); put user:password in the environment variable ${BASIC_AUTH_ENV} or in a file given with --basic-auth-file`,
  '--password': `credentials on the command line are visible to other users (ps, shell history); put user:password in the environment variable ${BASIC_AUTH_ENV} or in a file given with --basic-auth-file`,
  '--pg-password': 'a database password on the command line is visible to other users (ps, shell history); put it in a file given with --pg-password-file, in PGPASSFILE or ~/.pgpass, or in PGPASSWORD',
};

/** Throws a UsageError if the arguments try to pass a secret as an option value. */
export function refuseSecretFlags(args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '--') return;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const reason = SECRET_FLAGS[name];
    if (reason !== undefined) throw new UsageError(`${name} is not accepted: ${reason}`);
  }
}

/** The configured credentials, or undefined when access control is off. */
export function loadAuthConfig(sources: AuthSources): AuthConfig | undefined {
  const tokens: string[] = [];
  const envToken = sources.env[TOKEN_ENV];
  if (envToken !== undefined && sources.tokenFile !== undefined) {
    throw new UsageError(`both ${TOKEN_ENV} and --auth-token-file are set; give the token one way only`);
  }
  if (envToken !== undefined) tokens.push(checkToken(envToken.trim(), `environment variable ${TOKEN_ENV}`));
  if (sources.tokenFile !== undefined) {
    const text = readSecretFile(sources.tokenFile, '--auth-token-file', sources.warn);
    tokens.push(checkToken(text.trim(), `--auth-token-file ${sources.tokenFile}`));
  }

  const pairs: string[] = [];
  const envBasic = sources.env[BASIC_AUTH_ENV];
  if (envBasic !== undefined && sources.basicAuthFile !== undefined) {
    throw new UsageError(`both ${BASIC_AUTH_ENV} and --basic-auth-file are set; give the credentials one way only`);
  }
  if (envBasic !== undefined) pairs.push(checkPair(envBasic.trim(), `environment variable ${BASIC_AUTH_ENV}`));
  if (sources.basicAuthFile !== undefined) {
    const text = readSecretFile(sources.basicAuthFile, '--basic-auth-file', sources.warn);
    const lines = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    if (lines.length === 0) throw new UsageError(`--basic-auth-file ${sources.basicAuthFile} holds no user:password line`);
    lines.forEach((line, i) => pairs.push(checkPair(line, `--basic-auth-file ${sources.basicAuthFile} line ${i + 1}`)));
  }
  if (tokens.length === 0 && pairs.length === 0) return undefined;
  return { tokenDigests: tokens.map(digest), basicDigests: pairs.map(digest) };
}

function readSecretFile(path: string, option: string, warn: (message: string) => void): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${option} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  warnIfShared(path, option, warn);
  return text;
}

/** Warns when a secret file can be read by the group or by others (POSIX permissions only). */
export function warnIfShared(path: string, option: string, warn: (message: string) => void): void {
  if (process.platform === 'win32') return;
  try {
    const mode = statSync(path).mode;
    if ((mode & 0o044) !== 0) {
      warn(`${option} ${path} is readable by ${(mode & 0o004) !== 0 ? 'all users' : 'its group'} (mode ${(mode & 0o777).toString(8)}); consider chmod 600`);
    }
  } catch {
    // The file was read a moment ago; a failing stat only loses the warning.
  }
}

function checkToken(token: string, where: string): string {
  if (token === '') throw new UsageError(`${where}: the token is empty`);
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(`${where}: the token must be printable ASCII without spaces (it is sent in an HTTP header)`);
  }
  return token;
}

function checkPair(pair: string, where: string): string {
  const colon = pair.indexOf(':');
  if (colon <= 0 || colon === pair.length - 1) throw new UsageError(`${where}: expected user:password`);
  return pair;
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Compares a presented secret with every accepted digest, in time independent of where they differ. */
function matchesAny(presented: string, accepted: readonly Buffer[]): boolean {
  const d = digest(presented);
  let ok = false;
  for (const candidate of accepted) ok = timingSafeEqual(d, candidate) || ok;
  return ok;
}

export type AuthResult = { readonly ok: true } | { readonly ok: false; readonly invalid: boolean };

/** Checks the `Authorization` header of a request against the configuration. */
export function checkAuthorization(config: AuthConfig, authorization: string | undefined): AuthResult {
  if (authorization === undefined) return { ok: false, invalid: false };
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(authorization);
  if (match === null) return { ok: false, invalid: true };
  const scheme = (match[1] as string).toLowerCase();
  const credentials = match[2] as string;
  if (scheme === 'bearer' && config.tokenDigests.length > 0) {
    return matchesAny(credentials, config.tokenDigests) ? { ok: true } : { ok: false, invalid: true };
  }
  if (scheme === 'basic' && config.basicDigests.length > 0) {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credentials)) return { ok: false, invalid: true };
    const pair = Buffer.from(credentials, 'base64').toString('utf8');
    return matchesAny(pair, config.basicDigests) ? { ok: true } : { ok: false, invalid: true };
  }
  return { ok: false, invalid: true };
}

/** The `WWW-Authenticate` challenges of a 401 answer (one per configured scheme). */
export function challenges(config: AuthConfig, invalid: boolean): string[] {
  const out: string[] = [];
  if (config.tokenDigests.length > 0) {
    out.push(invalid ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`);
  }
  if (config.basicDigests.length > 0) out.push(`Basic realm="${REALM}", charset="UTF-8"`);
  return out;
}

export const UNAUTHORIZED_BODY = 'Unauthorized: this storage-inspector requires credentials (Authorization header).\n';
