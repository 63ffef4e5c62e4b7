import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, failingCases, loadCases, type RecordedCase } from '../../helpers/corpora/conformance.js';
import {
  cloneStorageDatabase,
  dropDatabase,
  postgresInfo,
  READER_PASSWORD,
  readerUrl,
  rootTable,
  SQL_CONFORMANCE_DIR,
  SQL_STORAGE_NAMES,
} from '../../helpers/real-systems/postgres.js';
import { rawRequest } from '../../helpers/serving/raw-http.js';

/**
 * Replays every request recorded while MicroStream 4.1 served its storages kept in PostgreSQL
 * (conformance-sql) against our server reading the restored tables of a real PostgreSQL, as the
 * minimal read-only role, over a real socket: status, content type and body bytes.
 */
describe.each(SQL_STORAGE_NAMES)('conformance (PostgreSQL): %s', (name) => {
  const { header, cases } = loadCases(join(SQL_CONFORMANCE_DIR, 'cases', `${name}.jsonl`));
  let database: string;
  let storage: Storage;
  let app: ReturnType<typeof buildApp>;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    database = await cloneStorageDatabase(name, 'golden');
    const passwordFile = join(postgresInfo().root, `password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    storage = await Storage.open(openStorageSource(readerUrl(database), { table: rootTable(name), passwordFile }));
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
    expect(header.storageDir).toBe(rootTable(name));
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
