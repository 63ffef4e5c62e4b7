import { readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { AFS_ROOT_TABLE, AFS_SQL_DIR, casesFile } from '../../helpers/afs-sql.js';
import { compareWithCase, failingCases, loadCases, type RecordedCase } from '../../helpers/conformance.js';
import { adminClient, createEmptyDatabase, dropDatabase, grantReader, postgresInfo, READER_PASSWORD, readerUrl } from '../../helpers/postgres.js';
import { rawRequest } from '../../helpers/raw-http.js';

/**
 * EclipseStore 4.2's layout in PostgreSQL (tables joined with `$`: `storage`, `storage$channel_0`):
 * every request recorded while EclipseStore served it replays byte for byte from the restored
 * dump, read as the minimal read-only role; the file statistics name files as the library does.
 */
describe('conformance (PostgreSQL, EclipseStore 4.2 layout): graph', () => {
  const { header, cases } = loadCases(casesFile('postgres', 'graph'));
  let database: string;
  let storage: Storage;
  let app: ReturnType<typeof buildApp>;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    database = await createEmptyDatabase('afs');
    const admin = await adminClient(database);
    try {
      // pg_dump's psql meta-commands (\restrict) are not SQL.
      const dump = readFileSync(join(AFS_SQL_DIR, 'postgres', 'graph.sql'), 'utf8').split('\n').filter((line) => !line.startsWith('\\')).join('\n');
      await admin.query(dump);
      const tables = await admin.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
      expect(tables.rows.map((r) => r.name)).toEqual(['storage', 'storage$channel_0', 'storage$channel_1']);
      await grantReader(admin, database, tables.rows.map((r) => r.name));
    } finally {
      await admin.end();
    }
    const passwordFile = join(postgresInfo().root, `password-afs-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    storage = await Storage.open(openStorageSource(readerUrl(database), { table: AFS_ROOT_TABLE, passwordFile }));
    app = buildApp(storage, { instance: header.instance });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await app?.close();
    await storage?.close();
    if (database !== undefined) await dropDatabase(database);
  });

  it('reads the storage the recording was made from', () => {
    expect(storage.source.kind).toBe('postgresql');
    expect(storage.source.javaFilePath('channel_0', 'channel_0_1.dat')).toBe('storage$channel_0$channel_0_1.dat');
    expect(storage.warnings).toEqual([]);
  });

  const kinds = [...new Set(cases.map((c) => c.kind))];
  it.each(kinds)('%s', async (kind) => {
    const selected = cases.filter((c) => c.kind === kind);
    const failures = await failingCases(selected, replay);
    expect(failures.slice(0, 10), `${failures.length} of ${selected.length} cases fail`).toEqual([]);
  });

  async function replay(c: RecordedCase): Promise<string | undefined> {
    const headers: Record<string, string> = { Host: header.host, ...(c.headers ?? {}) };
    const response = await rawRequest(agent, port, c.method, c.request, headers);
    return compareWithCase(c, header.storageDir, header.storageDir, response);
  }
});
