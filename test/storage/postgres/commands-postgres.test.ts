import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, readerUrl } from '../../helpers/real-systems/postgres.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';

/**
 * The commands that read a storage take a PostgreSQL storage like a directory: `analyze` and
 * `export` give the same results for the graph storage kept in tables as for its directory.
 */
describe('analyze and export on a storage kept in PostgreSQL', () => {
  let database: string;
  let passwordFile: string;

  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'commands');
    passwordFile = join(postgresInfo().root, `commands-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await dropDatabase(database);
  });

  const run = runCliInProcess;

  const pg = (): string[] => [readerUrl(database), '--table', 'ms_graph', '--pg-password-file', passwordFile];
  const directory = join(CONFORMANCE_DIR, 'storages', 'graph');

  it('analyze --json: the same analysis as from the directory (file names aside)', async () => {
    const fromTables = await run(['analyze', ...pg(), '--json']);
    const fromDirectory = await run(['analyze', directory, '--json']);
    expect(fromTables.code, fromTables.stderr).toBe(0);
    expect(fromDirectory.code, fromDirectory.stderr).toBe(0);
    // The transaction logs' timestamps differ (the corpus was written twice), and so do the names of files and timings.
    const ignored = new Set(['directory', 'location', 'lastCommitTime', 'lastCommitTimestamp', 'buildMs', 'computeMs']);
    const normal = (text: string): string =>
      JSON.stringify(JSON.parse(text), (key, value: unknown) => (ignored.has(key) ? undefined : value))
        .replaceAll(`${directory}/`, '')
        .replaceAll('ms_graph_channel_', 'channel_');
    expect(JSON.parse(fromTables.stdout).storage.entities).toBe(1263);
    expect(normal(fromTables.stdout)).toBe(normal(fromDirectory.stdout));
  });

  it('export: the same NDJSON as from the directory', async () => {
    const fromTables = await run(['export', ...pg(), '--type', 'java.lang.String']);
    const fromDirectory = await run(['export', directory, '--type', 'java.lang.String']);
    expect(fromTables.code, fromTables.stderr).toBe(0);
    expect(fromTables.stdout.split('\n').length).toBeGreaterThan(100);
    expect(fromTables.stdout).toBe(fromDirectory.stdout);
  });

  it('refuses a password in the URL and --table for a directory', async () => {
    expect((await run(['analyze', 'postgres://u:secret@h/db#ms_graph'])).stderr).toMatch(/refusing a password in the PostgreSQL URL/);
    expect((await run(['export', directory, '--table', 'ms_graph', '--type', 'x'])).code).toBe(2);
  });
});
