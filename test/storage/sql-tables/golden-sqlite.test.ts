import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { AFS_ROOT_TABLE, AFS_SQL_SETS, casesFile, sqliteFile } from '../../helpers/afs-sql.js';
import { compareWithCase, failingCases, loadCases, type RecordedCase } from '../../helpers/conformance.js';
import { rawRequest } from '../../helpers/raw-http.js';

/**
 * Replays every request recorded while EclipseStore 4.2 served its storages kept in SQLite
 * (conformance-afs-sql) against our server reading the very database files, over a real socket:
 * status, content type and body bytes.
 */
describe.each(AFS_SQL_SETS)('conformance (SQLite, EclipseStore 4.2): %s', (set) => {
  const { header, cases } = loadCases(casesFile('sqlite', set));
  let storage: Storage;
  let app: ReturnType<typeof buildApp>;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    storage = await Storage.open(openStorageSource(`sqlite:${sqliteFile(set)}`, { table: AFS_ROOT_TABLE }));
    app = buildApp(storage, { instance: header.instance });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await app?.close();
    await storage?.close();
  });

  it('reads the storage the recording was made from', () => {
    expect(header.storageDir).toBe(AFS_ROOT_TABLE);
    expect(storage.source.kind).toBe('sqlite');
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
