import { afterAll, describe, expect, it } from 'vitest';
import { parseMcpArgs } from '../../../src/cli/commands/mcp.js';
import { AFS_ROOT_TABLE, casesFile, sqliteFile } from '../../helpers/corpora/afs-sql.js';
import { loadCases } from '../../helpers/corpora/conformance.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';
import { spawnCli, type ServeProcess } from '../../security/cli.js';

/**
 * `storage-inspector serve` as a child process on storages kept in SQLite and MariaDB: the root
 * and the statistics answer as EclipseStore recorded them, and /api/v1 redacts the MariaDB URL;
 * `mcp` takes the same storage arguments.
 */
const info = mariadbInfo();

describe('serve a storage kept in SQLite or MariaDB', () => {
  const running: ServeProcess[] = [];
  afterAll(async () => {
    for (const p of running) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exit));
  });

  function serve(args: string[]): ServeProcess {
    const child = spawnCli(['serve', ...args, '--port', '0', '--quiet']);
    running.push(child);
    return child;
  }

  async function get(port: number, path: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { host: '127.0.0.1:4567' } });
    return { status: response.status, body: await response.text() };
  }

  const recorded = (dialect: 'sqlite' | 'mariadb', kind: string): string => loadCases(casesFile(dialect, 'graph')).cases.find((c) => c.kind === kind)!.body!;

  it('sqlite:FILE --table storage', async () => {
    const p = serve([`sqlite:${sqliteFile('graph')}`, '--table', AFS_ROOT_TABLE, '--instance', 'store-data']);
    const port = await p.port;
    expect(await get(port, '/store-data/root')).toEqual({ status: 200, body: recorded('sqlite', 'root') });
    const statistics = await get(port, '/store-data/maintenance/filesStatistics');
    expect(statistics.body).toContain('"file":"storage$channel_0$channel_0_1.dat"');
  });

  it.skipIf(info === null)('mariadb://user@host:port/db with a password file; /api/v1 does not say where the database is', async () => {
    const p = serve([mariadbReaderUrl(info!, 'es_graph'), '--table', AFS_ROOT_TABLE, '--pg-password-file', info!.passwordFile, '--instance', 'store-data']);
    const port = await p.port;
    expect(await get(port, '/store-data/root')).toEqual({ status: 200, body: recorded('mariadb', 'root') });
    const storage = JSON.parse((await get(port, '/api/v1/storage')).body) as { directory: string };
    expect(storage.directory).toBe('mariadb://(redacted) (table storage)');
  });

  it('mcp takes the same storage arguments', () => {
    expect(parseMcpArgs([`sqlite:${sqliteFile('graph')}`, '--table', AFS_ROOT_TABLE])).toMatchObject({ storages: [{ directory: `sqlite:${sqliteFile('graph')}` }] });
    expect(() => parseMcpArgs(['mysql://u:secret@h/db', '--table', AFS_ROOT_TABLE])).toThrow(/refusing a password in the MariaDB URL/);
  });
});
