import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../src/cli/commands/serve.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, loadCases } from '../../helpers/corpora/conformance.js';
import {
  cloneStorageDatabase,
  dropDatabase,
  postgresInfo,
  READER_PASSWORD,
  READER_USER,
  readerEnv,
  readerUrl,
  SQL_CONFORMANCE_DIR,
} from '../../helpers/real-systems/postgres.js';
import { spawnCli, type ServeProcess } from '../../security/cli.js';

/**
 * `storage-inspector serve postgres://...` as a child process: the ways of saying where the
 * storage is and how to log in (URL and --table, PG* variables, password files), the refusals,
 * and two processes serving one storage at once.
 */
describe('serve a storage kept in PostgreSQL', () => {
  const { cases } = loadCases(join(SQL_CONFORMANCE_DIR, 'cases', 'graph.jsonl'));
  const rootAnswer = cases.find((c) => c.kind === 'root')!.body;
  let database: string;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'serve');
  });
  afterAll(async () => {
    for (const p of running) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exit));
    await dropDatabase(database);
  });

  function serve(args: string[], env: NodeJS.ProcessEnv = readerEnv()): ServeProcess {
    const child = spawnCli(['serve', ...args, '--port', '0', '--quiet', '--no-follow'], env as Record<string, string>);
    running.push(child);
    return child;
  }

  async function get(port: number, path: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: await response.text() };
  }

  it('parses a PostgreSQL storage and refuses what would leak or cannot work', () => {
    expect(parseServeArgs(['postgres://u@h/db', '--table', 'ms_graph'])).toMatchObject({ directory: 'postgres://u@h/db', table: 'ms_graph' });
    expect(parseServeArgs(['postgres://u@h/db#app.ms_graph'])).toMatchObject({ directory: 'postgres://u@h/db#app.ms_graph' });
    expect(() => parseServeArgs(['postgres://u:secret@h/db', '--table', 'ms_graph'])).toThrow(/refusing a password in the PostgreSQL URL/);
    expect(() => parseServeArgs(['postgres://u@h/db?password=secret', '--table', 'ms_graph'])).toThrow(/refusing a password/);
    expect(() => parseServeArgs(['postgres://u@h/db'])).toThrow(/needs its root table: --table/);
    expect(() => parseServeArgs(['postgres://u@h/db#a', '--table', 'b'])).toThrow(/names table a but --table says b/);
    expect(() => parseServeArgs(['some/dir', '--table', 'ms_graph'])).toThrow(/--table is for storages kept in PostgreSQL/);
    expect(() => parseServeArgs(['postgres://u@h/db', '--table', 'a.b.c'])).toThrow(/invalid table name/);
    expect(() => parseServeArgs(['postgres://u@h/db', '--table', 'ms_graph', '--pg-password', 'x'])).toThrow(/--pg-password is not accepted/);
  });

  it('exits with 2 and no connection attempt on a password in the URL', async () => {
    const p = serve([`postgres://${READER_USER}:${READER_PASSWORD}@127.0.0.1:${postgresInfo().port}/${database}`, '--table', 'ms_graph']);
    expect((await p.exit).code).toBe(2);
    expect(p.stderr()).toContain('refusing a password in the PostgreSQL URL');
    expect(p.stderr()).not.toContain(READER_PASSWORD);
  });

  it('serves from a URL and --table, the password from PGPASSFILE, with MicroStream\'s SQL file names in the statistics', async () => {
    const p = serve([readerUrl(database), '--table', 'ms_graph']);
    const port = await p.port;
    expect(p.stderr()).toMatch(/indexed 1263 entities in 21 data files of 2 channel\(s\)/);
    expect(p.stderr()).toContain(`serving ${readerUrl(database)} (table ms_graph) (MicroStream) at`);
    expect(p.stderr()).not.toMatch(/deprecat/i);
    expect(await get(port, '/microstream/root')).toEqual({ status: 200, body: rootAnswer });
    const statistics = await get(port, '/microstream/maintenance/filesStatistics');
    expect(statistics.body).toContain('"file":"ms_graph_channel_0_channel_0_8.dat"');
    expect(statistics.body).toContain('"file":"ms_graph_channel_1_channel_1_');
    // The viewer and our own API read the same storage through the same server.
    expect((await get(port, '/viewer/')).status).toBe(200);
    let api = await get(port, '/api/v1/storage');
    for (let i = 0; i < 200 && api.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 100));
      api = await get(port, '/api/v1/storage');
    }
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body)).toMatchObject({ entities: 1263 });
  });

  it('takes everything from PG* variables (postgres:// alone) and the table from the URL', async () => {
    const info = postgresInfo();
    const env = { ...readerEnv(), PGHOST: '127.0.0.1', PGPORT: String(info.port), PGUSER: READER_USER, PGDATABASE: database };
    const p = serve(['postgres://#ms_graph'], env);
    expect(await get(await p.port, '/microstream/root')).toEqual({ status: 200, body: rootAnswer });
  });

  it('reads the password from --pg-password-file', async () => {
    const file = join(postgresInfo().root, `plain-password-${process.pid}`);
    writeFileSync(file, `${READER_PASSWORD}\n`, { mode: 0o600 });
    const env = { ...readerEnv(), PGPASSFILE: '/nonexistent' };
    const p = serve([readerUrl(database), '--table', 'ms_graph', '--pg-password-file', file], env);
    expect(await get(await p.port, '/microstream/root')).toEqual({ status: 200, body: rootAnswer });
  });

  it('fails with exit code 1 and the server\'s reason on a wrong password', async () => {
    const wrong = join(postgresInfo().root, `wrong-password-${process.pid}`);
    writeFileSync(wrong, 'not-the-password\n', { mode: 0o600 });
    const badPassword = serve([readerUrl(database), '--table', 'ms_graph', '--pg-password-file', wrong]);
    expect((await badPassword.exit).code).toBe(1);
    expect(badPassword.stderr()).toMatch(/cannot reach the database \(password authentication failed for user "si_reader"\)/);
  });

  it('names an unknown database or table', async () => {
    const passwordFile = join(postgresInfo().root, `serve-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    await expect(Storage.open(openStorageSource(readerUrl('no_such_database'), { table: 'ms_graph', passwordFile }))).rejects.toThrow(
      /STORAGE_UNAVAILABLE|database "no_such_database" does not exist/,
    );
    await expect(Storage.open(openStorageSource(readerUrl(database), { table: 'ms_nothing', passwordFile }))).rejects.toThrow(
      /no table ms_nothing in the search path/,
    );
  });

  it('serves one storage from two processes at once (stateless replicas)', async () => {
    const [a, b] = [serve([readerUrl(database), '--table', 'ms_graph']), serve([`${readerUrl(database)}#ms_graph`])];
    const ports = await Promise.all([a.port, b.port]);
    const objects = cases.filter((c) => c.kind === 'object').slice(0, 40);
    for (const c of objects) {
      const [x, y] = await Promise.all(ports.map((port) => get(port, c.request)));
      expect(compareWithCase(c, 'ms_graph', 'ms_graph', { status: x!.status, contentType: c.contentType, body: Buffer.from(x!.body) })).toBeUndefined();
      expect(y).toEqual(x);
    }
  });
});
