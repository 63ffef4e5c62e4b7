import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { AFS_ROOT_TABLE, AFS_SQL_DIR, casesFile } from '../../helpers/corpora/afs-sql.js';
import { loadCases } from '../../helpers/corpora/conformance.js';
import { adminClient, createEmptyDatabase, dropDatabase, grantReader, postgresInfo, READER_PASSWORD, readerUrl } from '../../helpers/real-systems/postgres.js';
import { replayRecordedCases } from '../../helpers/serving/replay-served.js';

/**
 * EclipseStore 4.2's layout in PostgreSQL (tables joined with `$`: `storage`, `storage$channel_0`):
 * every request recorded while EclipseStore served it replays byte for byte from the restored
 * dump, read as the minimal read-only role; the file statistics name files as the library does.
 */
describe('conformance (PostgreSQL, EclipseStore 4.2 layout): graph', () => {
  const { header, cases } = loadCases(casesFile('postgres', 'graph'));
  let database: string | undefined;

  /** The dump restored into a new database, read as the minimal read-only role. */
  async function open(): Promise<Storage> {
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
    return Storage.open(openStorageSource(readerUrl(database), { table: AFS_ROOT_TABLE, passwordFile }));
  }

  const served = replayRecordedCases(header, cases, open, async () => {
    if (database !== undefined) await dropDatabase(database);
  });

  it('reads the storage the recording was made from', () => {
    expect(served.storage.source.kind).toBe('postgresql');
    expect(served.storage.source.javaFilePath('channel_0', 'channel_0_1.dat')).toBe('storage$channel_0$channel_0_1.dat');
    expect(served.storage.warnings).toEqual([]);
  });
});
