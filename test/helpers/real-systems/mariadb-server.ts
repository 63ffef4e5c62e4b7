import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway MariaDB server for tests: Debian's `mariadbd` on a data directory in a new
 * temporary directory (`mariadb-install-db`), 127.0.0.1 and a free port, a private unix socket.
 * As root the server runs as the `mysql` system user (Debian's package creates it). The admin
 * (`root`, no password) connects over the socket; the reader connects over TCP with a password
 * and may only SELECT the storage tables it is granted.
 */

export interface MariadbServer {
  readonly root: string;
  readonly socket: string;
  readonly port: number;
  readonly pid: number;
}

const SERVER_USER = 'mysql';
export const MARIADB_READER = 'si_reader';
export const MARIADB_READER_PASSWORD = 'reader-secret-for-tests';

/** `mariadbd` or `mysqld` (older Debian), where Debian installs them; undefined when not installed. */
export function mariadbServerBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/mariadbd', '/usr/sbin/mysqld']) if (existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v mariadbd || command -v mysqld'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found !== '' ? found : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs the `mariadb` client as the admin over the socket, `sql` on stdin. */
export function adminSql(server: MariadbServer, sql: string, database?: string): string {
  const args = ['--no-defaults', `--socket=${server.socket}`, '-uroot', '--batch', '--skip-column-names', ...(database === undefined ? [] : [database])];
  return execFileSync('mariadb', args, { input: sql, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Creates a data directory, starts the server and waits until it answers. */
export async function startMariadb(): Promise<MariadbServer> {
  const binary = mariadbServerBinary();
  if (binary === undefined) throw new Error("MariaDB's server (mariadbd) was not found: install Debian's package (apt-get install mariadb-server)");
  const root = mkdtempSync(join(tmpdir(), 'si-mariadb-'));
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? SERVER_USER : (process.env['USER'] ?? 'nobody');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', SERVER_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', SERVER_USER], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  installDataDirectory(dataDir, user);
  const port = await freePort();
  const socket = join(root, 'mysqld.sock');
  const child = spawn(binary, [
    '--no-defaults', `--datadir=${dataDir}`, `--user=${user}`, `--socket=${socket}`, `--port=${port}`, '--bind-address=127.0.0.1',
    `--pid-file=${join(root, 'mysqld.pid')}`, `--log-error=${join(root, 'server.log')}`, '--skip-name-resolve', '--skip-log-bin',
    '--innodb-buffer-pool-size=32M', '--innodb-flush-log-at-trx-commit=0', '--max-connections=200', '--max-allowed-packet=64M',
  ], { stdio: 'ignore', detached: false });
  const server: MariadbServer = { root, socket, port, pid: child.pid ?? -1 };
  // A run that is killed (a timeout, ^C) never reaches stopMariadb: a watchdog of its own ends the
  // server and removes its directory once this process is gone, so no server outlives its run.
  spawn('/bin/sh', ['-c', 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; kill -9 "$2" 2>/dev/null; rm -rf "$3"', 'watchdog', String(process.pid), String(server.pid), root], {
    detached: true,
    stdio: 'ignore',
  }).unref();
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  // Until the server answers on its socket (or has ended).
  for (;;) {
    if (exited !== null) throw new Error(`mariadbd ended (${exited}): ${tail(join(root, 'server.log'))}`);
    const ping = spawnSync('mariadb-admin', ['--no-defaults', `--socket=${socket}`, '-uroot', 'ping'], { encoding: 'utf8' });
    if (ping.status === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  adminSql(server, `CREATE USER '${MARIADB_READER}'@'127.0.0.1' IDENTIFIED BY '${MARIADB_READER_PASSWORD}';`);
  return server;
}

/**
 * mariadb-install-db into an empty data directory. Seen once on a machine where several test runs
 * started their servers at the same moment: the bootstrap aborted ("Unknown table
 * 'mysql.tmp_user_sys'") and passed when run again. One more try on a fresh directory, then the
 * tool's own words.
 */
function installDataDirectory(dataDir: string, user: string): void {
  const args = ['--no-defaults', `--datadir=${dataDir}`, `--user=${user}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve'];
  for (let attempt = 1; ; attempt++) {
    const run = spawnSync('mariadb-install-db', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (run.status === 0) return;
    if (attempt === 2) throw new Error(`mariadb-install-db failed (${run.status ?? run.signal}): ${`${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-15).join('\n')}`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function stopMariadb(server: MariadbServer): void {
  try {
    process.kill(server.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  rmSync(server.root, { recursive: true, force: true });
}

/** A new database holding a dump (mariadb-dump's text), the reader granted SELECT on its storage tables only. */
export function loadDatabase(server: MariadbServer, database: string, dump: string): void {
  adminSql(server, `CREATE DATABASE \`${database}\`;`);
  adminSql(server, readFileSync(dump, 'utf8'), database);
  grantStorageTables(server, database);
}

/** SELECT on every table of the database, nothing else (no CREATE, no LOCK TABLES, no other database). */
export function grantStorageTables(server: MariadbServer, database: string): void {
  const tables = adminSql(server, `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${database}';`).split('\n').filter((t) => t !== '');
  adminSql(server, tables.map((t) => `GRANT SELECT ON \`${database}\`.\`${t}\` TO '${MARIADB_READER}'@'127.0.0.1';`).join('\n'));
}

export function writeReaderPasswordFile(server: MariadbServer): string {
  const file = join(server.root, 'reader-password');
  writeFileSync(file, `${MARIADB_READER_PASSWORD}\n`, { mode: 0o600 });
  return file;
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}
