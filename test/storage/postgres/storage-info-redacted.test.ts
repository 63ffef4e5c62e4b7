import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, READER_USER, readerUrl } from '../../helpers/real-systems/postgres.js';

/**
 * `/api/v1/storage` of a storage kept in PostgreSQL: every API client sees that it is one and its
 * table, not the URL's user, host, port and database.
 */
describe('/api/v1/storage of a storage kept in PostgreSQL', () => {
  let database: string;
  let passwordDir: string;
  let passwordFile: string;
  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'redacted');
    passwordDir = mkdtempSync(join(tmpdir(), 'si-redacted-'));
    passwordFile = join(passwordDir, 'password');
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await dropDatabase(database);
    rmSync(passwordDir, { recursive: true, force: true });
  });

  it('names it by a redacted URL and its table', async () => {
    const storage = await Storage.open(openStorageSource(readerUrl(database), { table: 'ms_graph', passwordFile }));
    const registry = new StorageRegistry();
    registry.add('default', storage);
    const app = buildApp(storage, { instance: 'microstream', api: registry });
    try {
      const answer = await app.inject('/api/v1/storage');
      expect(answer.statusCode).toBe(200);
      const info = answer.json() as { directory: string; entities: number };
      expect(info.entities).toBeGreaterThan(0);
      expect(info.directory).toBe('postgres://(redacted) (table ms_graph)');
      for (const secret of [READER_USER, String(postgresInfo().port), database, '127.0.0.1']) expect(answer.body).not.toContain(secret);
    } finally {
      await app.close();
      await registry.close();
      await storage.close();
    }
  });
});
