import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for tests: a data directory in a new temporary directory, a
 * private port on 127.0.0.1 and a private unix socket directory, fsync off. PostgreSQL refuses to
 * run as root: as root the server runs as the `postgres` system user (Debian's package creates
 * it), which gets the temporary directory; otherwise as the current user.
 *
 * Authentication: the admin role connects over the socket without a password (trust); every
 * other role connects over TCP with a password (scram-sha-256), as an inspector in production would.
 */

export interface ClusterInfo {
  readonly root: string;
  readonly socketDir: string;
  readonly port: number;
  readonly adminUser: string;
  readonly binDir: string;
}

export const ADMIN_USER = 'si_admin';
const SERVER_USER = 'postgres';

/** The directory of `initdb` and `pg_ctl`: $PG_BIN, the newest Debian version, or the PATH. */
export function postgresBinDir(): string {
  const fromEnv = process.env['PG_BIN'];
  if (fromEnv !== undefined && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  if (which.status === 0 && found !== '') return join(found, '..');
  throw new Error(
    "PostgreSQL's server binaries (initdb, pg_ctl) were not found: install Debian's package (apt-get install postgresql) or set PG_BIN",
  );
}

function asServerUser(command: string, args: string[], options: { quiet?: boolean } = {}): string {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ['runuser', ['-u', SERVER_USER, '--', command, ...args]] : [command, args];
  try {
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    if (options.quiet === true) return '';
    throw new Error(`${command} failed: ${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`);
  }
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

/** Creates and starts a cluster; `stopCluster` removes it again. */
export async function startCluster(): Promise<ClusterInfo> {
  const binDir = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), 'si-pg-'));
  const socketDir = join(root, 'socket');
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  execFileSync('mkdir', ['-p', socketDir]);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', SERVER_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', SERVER_USER], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
    chownSync(socketDir, uid, gid);
  }
  chmodSync(root, 0o755);
  asServerUser(join(binDir, 'initdb'), [
    '-D', dataDir, '--no-sync', '-U', ADMIN_USER, '-E', 'UTF8', '--locale=C',
    '--auth-local=trust', '--auth-host=scram-sha-256',
  ]);
  const port = await freePort();
  // Only the settings a test cluster needs; everything else stays PostgreSQL's default.
  const settings = [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${socketDir}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 200',
    'shared_buffers = 64MB',
    'log_min_messages = warning',
    // Who said what: application and database on every line (the read-only test reads the statement log).
    "log_line_prefix = '%m [%p] %q%a@%d '",
  ];
  const confPath = join(dataDir, 'postgresql.conf');
  writeFileSync(confPath, `${readFileSync(confPath, 'utf8')}\n# storage-inspector tests\n${settings.join('\n')}\n`);
  asServerUser(join(binDir, 'pg_ctl'), ['-D', dataDir, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start']);
  return { root, socketDir, port, adminUser: ADMIN_USER, binDir };
}

export function stopCluster(info: ClusterInfo): void {
  asServerUser(join(info.binDir, 'pg_ctl'), ['-D', join(info.root, 'data'), '-m', 'immediate', '-w', 'stop'], { quiet: true });
  rmSync(info.root, { recursive: true, force: true });
}

/** Stops the server without removing anything (a database that goes away); `restartServer` brings it back. */
export function stopServer(info: ClusterInfo): void {
  asServerUser(join(info.binDir, 'pg_ctl'), ['-D', join(info.root, 'data'), '-m', 'fast', '-w', 'stop']);
}

export function restartServer(info: ClusterInfo): void {
  asServerUser(join(info.binDir, 'pg_ctl'), ['-D', join(info.root, 'data'), '-l', join(info.root, 'server.log'), '-w', '-t', '60', 'start']);
}
