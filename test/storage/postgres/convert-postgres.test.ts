import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess as run } from '../../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { databaseDigest, dropDatabase, postgresInfo, preparedStorageDatabase, READER_PASSWORD, readerUrl } from '../../helpers/real-systems/postgres.js';

/**
 * `convert` of a storage kept in PostgreSQL: a new directory with the same data files, logs aside
 * (their timestamps are the conversion's), as the conversion of the directory the corpus storage
 * was made from; nothing is ever written to the database (digest of every row).
 */

describe('convert of a storage kept in PostgreSQL', () => {
  const databases: string[] = [];
  let passwordFile: string;
  let work: string;

  beforeAll(() => {
    passwordFile = join(postgresInfo().root, `convert-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    work = mkdtempSync(join(tmpdir(), 'si-pgconvert-'));
  });
  afterAll(async () => {
    for (const database of databases) await dropDatabase(database);
    rmSync(work, { recursive: true, force: true });
    rmSync(passwordFile, { force: true });
  });

  it('the same data files and dictionary as the conversion of the directory; nothing written to the database', async () => {
    const { database, digest } = await preparedStorageDatabase('graph', 'convert');
    databases.push(database);
    const fromTables = join(work, 'from-tables');
    const fromDirectory = join(work, 'from-directory');
    const a = await run(['convert', readerUrl(database), '--table', 'ms_graph', '--pg-password-file', passwordFile, '--out', fromTables, '--channels', '1']);
    const b = await run(['convert', join(CONFORMANCE_DIR, 'storages', 'graph'), '--out', fromDirectory, '--channels', '1']);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout).toContain(`storage-inspector convert ${readerUrl(database)} (table ms_graph) → ${fromTables}`);
    expect(a.stdout).toContain('Written:           1,228 objects, 74,891 bytes');
    const files = readdirSync(join(fromTables, 'channel_0')).filter((f) => f.endsWith('.dat'));
    expect(files).toEqual(['channel_0_1.dat']);
    expect(readFileSync(join(fromTables, 'channel_0', files[0]!)).equals(readFileSync(join(fromDirectory, 'channel_0', files[0]!)))).toBe(true);
    expect(readFileSync(join(fromTables, 'PersistenceTypeDictionary.ptd'))).toEqual(readFileSync(join(fromDirectory, 'PersistenceTypeDictionary.ptd')));
    expect((await run(['check', fromTables])).code).toBe(0);
    expect(await databaseDigest(database, 'ms_graph')).toBe(digest);
  });
});
