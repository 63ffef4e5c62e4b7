import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AFS_ROOT_TABLE, sqliteFile } from '../../helpers/corpora/afs-sql.js';
import { runCliInProcess as run } from '../../helpers/serving/cli-in-process.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';

/**
 * The commands that read a storage take one kept in SQLite or MariaDB like a directory: the same
 * export and the same object counts as the same storage written by EclipseStore 4.2 to a
 * directory (conformance-es42 graph-plain: byte-identical data files and dictionary).
 */
const directory = join(import.meta.dirname, '..', '..', 'fixtures', 'conformance-es42', 'storages', 'graph-plain');
const info = mariadbInfo();

describe('commands on storages kept in SQLite and MariaDB', () => {
  const sqlite = (): string[] => [`sqlite:${sqliteFile('graph')}`, '--table', AFS_ROOT_TABLE];
  const mariadb = (): string[] => [mariadbReaderUrl(info!, 'es_graph'), '--table', AFS_ROOT_TABLE, '--pg-password-file', info!.passwordFile];

  it('check: EclipseStore 4.2 would start on the SQLite storage, every object readable', async () => {
    const result = await run(['check', ...sqlite()]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('storage-inspector check sqlite:graph.db (table storage)');
    expect(result.stdout).toContain('2 channels, 23 data files, 85,858 committed bytes, 1,263 objects (1,263 readable)');
  });

  it('export from SQLite: the same NDJSON as from the directory', async () => {
    const fromTables = await run(['export', ...sqlite(), '--type', 'java.lang.String']);
    const fromDirectory = await run(['export', directory, '--type', 'java.lang.String']);
    expect(fromTables.code, fromTables.stderr).toBe(0);
    expect(fromTables.stdout.split('\n').length).toBeGreaterThan(100);
    expect(fromTables.stdout).toBe(fromDirectory.stdout);
  });

  it('a SQLite file given by its path, without --table: its one storage', async () => {
    const result = await run(['sql', sqliteFile('collections'), 'SELECT count(*) AS n FROM _objects', '--format', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('n\r\n356\r\n');
  });

  it('a root table that is not there is named', async () => {
    const result = await run(['check', `sqlite:${sqliteFile('graph')}`, '--table', 'nothing']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('sqlite:graph.db (table nothing): no table nothing');
  });

  it.skipIf(info === null)('export from MariaDB: the same NDJSON as from the directory; analyze counts the same objects', async () => {
    const fromTables = await run(['export', ...mariadb(), '--type', 'java.lang.String']);
    const fromDirectory = await run(['export', directory, '--type', 'java.lang.String']);
    expect(fromTables.code, fromTables.stderr).toBe(0);
    expect(fromTables.stdout).toBe(fromDirectory.stdout);
    const analyzed = await run(['analyze', ...mariadb(), '--json']);
    expect(analyzed.code, analyzed.stderr).toBe(0);
    expect(JSON.parse(analyzed.stdout).storage.entities).toBe(1263);
  });

  it.skipIf(info === null)('MariaDB: a wrong password is refused by the server and named', async () => {
    const result = await run(['check', mariadbReaderUrl(info!, 'es_graph'), '--table', AFS_ROOT_TABLE, '--pg-password-file', sqliteFile('graph')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Access denied for user 'si_reader'/);
  });

  it('refuses a password in a MariaDB URL, and --table for a directory', async () => {
    const refused = await run(['analyze', 'mariadb://u:secret@127.0.0.1:3306/db#storage']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing a password in the MariaDB URL/);
    expect((await run(['export', directory, '--table', 'storage', '--type', 'x'])).code).toBe(2);
  });
});

describe('the root table of a SQLite or MariaDB storage', () => {
  it('is a name alone, allowed by its characters', async () => {
    for (const table of ['main.storage', 'storage;drop', 'x'.repeat(65), "st'orage"]) {
      const result = await run(['check', `sqlite:${sqliteFile('graph')}`, '--table', table]);
      expect(result.code, table).toBe(2);
      expect(result.stderr).toContain(`invalid table name "${table}"`);
    }
    expect((await run(['check', 'mariadb://u@127.0.0.1:1/db', '--table', 'a.b'])).stderr).toContain('invalid table name "a.b"');
  });
});
