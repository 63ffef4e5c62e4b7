import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import {
  adminClient,
  databaseDigest,
  dropDatabase,
  postgresInfo,
  preparedStorageDatabase,
  READER_PASSWORD,
  readerUrl,
  type SqlStorageName,
  statementsOf,
} from '../../helpers/real-systems/postgres.js';

/**
 * Storages kept in PostgreSQL that are not what they should be: clear errors naming tables,
 * files and offsets, no crash, the rest served where it can be, nothing written. And what the
 * inspector says to the database, from the server's own statement log: reads only.
 */
describe('bad input in PostgreSQL', () => {
  const databases: string[] = [];
  let passwordFile: string;

  beforeAll(() => {
    passwordFile = join(postgresInfo().root, `bad-input-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    for (const database of databases) await dropDatabase(database);
  });

  /** A fresh copy of a corpus storage, changed by `change` (as the admin). */
  async function prepare(name: SqlStorageName, change: (admin: pg.Client) => Promise<void>): Promise<{ database: string; digest: string }> {
    const prepared = await preparedStorageDatabase(name, 'bad', change);
    databases.push(prepared.database);
    return prepared;
  }

  const digestOf = (database: string, root: string): Promise<string> => databaseDigest(database, root);

  const open = (database: string, table: string): Promise<Storage> => Storage.open(openStorageSource(readerUrl(database), { table, passwordFile }));

  it('a table name with no tables', async () => {
    const { database } = await prepare('graph', async () => undefined);
    await expect(open(database, 'ms_nothing')).rejects.toThrow(/: no table ms_nothing in the search path \{public\}/);
    await expect(open(database, 'other.ms_graph')).rejects.toThrow(/: no table other\.ms_graph/);
  });

  it('a missing channel table, and a missing channel 0', async () => {
    const middle = await prepare('collections', async (admin) => void (await admin.query('DROP TABLE ms_collections_channel_2')));
    await expect(open(middle.database, 'ms_collections')).rejects.toThrow(/missing channel table ms_collections_channel_2 \(found channels 0, 1, 3\)/);
    const first = await prepare('graph', async (admin) => void (await admin.query('DROP TABLE ms_graph_channel_0')));
    await expect(open(first.database, 'ms_graph')).rejects.toThrow(/no channel table ms_graph_channel_0 next to ms_graph/);
  });

  it('a column that is not bytea, and a missing column', async () => {
    const text = await prepare('graph', async (admin) => {
      await admin.query(`ALTER TABLE ms_graph_channel_1 ALTER COLUMN data TYPE text USING encode(data, 'hex')`);
    });
    await expect(open(text.database, 'ms_graph')).rejects.toThrow(/table ms_graph_channel_1: column "data" is text, expected bytea/);
    const missing = await prepare('graph', async (admin) => void (await admin.query('ALTER TABLE ms_graph RENAME COLUMN "end" TO stop')));
    await expect(open(missing.database, 'ms_graph')).rejects.toThrow(/table ms_graph has no column "end"/);
  });

  it('rows with a gap, overlapping rows and a row whose data disagrees with its range: reported, the rest served', async () => {
    // channel_0_8.dat of graph has several rows; each damage goes into a copy of its own.
    const rowsOf = async (admin: pg.Client): Promise<{ start: number; end: number }[]> =>
      (await admin.query<{ start: string; end: string }>(`SELECT start, "end" FROM ms_graph_channel_0 WHERE identifier = 'channel_0_8.dat' ORDER BY start`)).rows.map(
        (r) => ({ start: Number(r.start), end: Number(r.end) }),
      );
    let rows: { start: number; end: number }[] = [];
    const gap = await prepare('graph', async (admin) => {
      rows = await rowsOf(admin);
      await admin.query(`DELETE FROM ms_graph_channel_0 WHERE identifier = 'channel_0_8.dat' AND start = $1`, [rows[1]!.start]);
    });
    expect(rows.length).toBeGreaterThan(2);
    const size = rows[rows.length - 1]!.end + 1;
    const overlap = await prepare('graph', async (admin) => {
      await admin.query(`UPDATE ms_graph_channel_0 SET start = start - 4 WHERE identifier = 'channel_0_8.dat' AND start = $1`, [rows[2]!.start]);
    });
    const length = await prepare('graph', async (admin) => {
      await admin.query(`UPDATE ms_graph_channel_0 SET "end" = "end" + 5 WHERE identifier = 'channel_0_8.dat' AND start = $1`, [rows[1]!.start]);
    });
    const expected = [
      [gap, `a gap: no row holds offsets ${rows[1]!.start}..${rows[2]!.start - 1}; read up to offset ${rows[1]!.start} of ${size}`],
      [overlap, `overlapping rows at offset ${rows[2]!.start - 4} (the previous row ends at ${rows[2]!.start - 1}); read up to offset ${rows[2]!.start} of ${size}`],
      [length, `row at offset ${rows[1]!.start}: length ${rows[1]!.end - rows[1]!.start + 1} of data for range ${rows[1]!.start}..${rows[1]!.end + 5}; read up to offset ${rows[1]!.start} of ${size}`],
    ] as const;
    for (const [damaged, problem] of expected) {
      const storage = await open(damaged.database, 'ms_graph');
      try {
        expect(storage.warnings).toContain(`ms_graph_channel_0/channel_0_8.dat: rows of channel_0_8.dat in table ms_graph_channel_0: ${problem}`);
        // The file ends at the damage, like a cut data file of a directory; the rest is indexed and readable.
        const file = storage.channels[0]!.files.find((f) => f.name === 'channel_0_8.dat')!;
        expect(file.totalLength).toBeLessThan(size);
        expect(storage.entityCount).toBeGreaterThan(1200);
        for (const channel of storage.channels) {
          const other = channel.files.find((f) => f.name !== 'channel_0_8.dat' && f.liveLength > 0)!;
          expect(other.problem).toBeUndefined();
        }
        const some = await storage.readEntity(1000000000000000101n);
        expect(some?.objectId).toBe(1000000000000000101n);
      } finally {
        await storage.close();
      }
      expect(await digestOf(damaged.database, 'ms_graph')).toBe(damaged.digest);
    }
  });

  it('a dropped connection: the next read takes a new one, the next refresh too', async () => {
    const { database, digest } = await prepare('graph', async () => undefined);
    const storage = await open(database, 'ms_graph');
    try {
      const admin = await adminClient(database);
      const killed = await admin.query<{ n: string }>(
        "SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity WHERE application_name = 'storage-inspector' AND datname = $1",
        [database],
      );
      await admin.end();
      expect(Number(killed.rows[0]?.n)).toBeGreaterThan(0);
      const root = await storage.readEntity(storage.rootObjectId);
      expect(root?.objectId).toBe(storage.rootObjectId);
      expect(await storage.refresh()).toEqual({ changed: false });
    } finally {
      await storage.close();
    }
    expect(await digestOf(database, 'ms_graph')).toBe(digest);
  });

  it('a connection ended while a snapshot holds it between statements: that snapshot fails clearly, the process lives on', async () => {
    const { database } = await prepare('graph', async () => undefined);
    const source = openStorageSource(readerUrl(database), { table: 'ms_graph', passwordFile });
    try {
      const outcome = await source
        .snapshot(async (reader) => {
          await reader.listRoot();
          const admin = await adminClient(database);
          await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'storage-inspector' AND datname = $1",
            [database],
          );
          // The backends are gone (their termination notice sent to the idle, checked-out connection).
          const left = async (): Promise<number> =>
            Number(
              (await admin.query("SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = 'storage-inspector' AND datname = $1", [database])).rows[0]?.n,
            );
          await expect.poll(left, { timeout: 10_000, interval: 20 }).toBe(0);
          await admin.end();
          return reader.listRoot();
        })
        .then(
          () => 'answered',
          (error: unknown) => String(error),
        );
      expect(outcome).toMatch(/STORAGE_UNAVAILABLE|terminat|connection/i);
      // The next snapshot gets a fresh connection.
      const listing = await source.snapshot((reader) => reader.listRoot());
      expect(listing).toBeDefined();
    } finally {
      await source.close();
    }
  });

  it("says nothing to the database but reads (the server's statement log of a whole session)", async () => {
    const { database } = await prepare('collections', async () => undefined);
    const admin = await adminClient('postgres');
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(database)} SET log_statement = 'all'`);
    await admin.end();
    const storage = await open(database, 'ms_collections');
    try {
      for (const channel of storage.channels) {
        for (const id of [...Array(20).keys()].map((i) => 1000000000000000001n + BigInt(i) * 4n + BigInt(channel.index))) await storage.readEntity(id);
      }
      await storage.refresh();
    } finally {
      await storage.close();
    }
    const statements = statementsOf(readFileSync(join(postgresInfo().root, 'server.log'), 'utf8'), database);
    expect(statements.length).toBeGreaterThan(10);
    const allowed = /^(BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY|COMMIT|ROLLBACK|SET default_transaction_read_only = on|SELECT\b|WITH root AS \(SELECT\b)/;
    const forbidden = /\b(INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|TRUNCATE|COPY|GRANT|REVOKE|LOCK|TEMP|TEMPORARY|FOR UPDATE|FOR SHARE|FOR NO KEY|FOR KEY SHARE|nextval|setval|pg_advisory)\b/i;
    expect(statements.filter((s) => !allowed.test(s) || forbidden.test(s))).toEqual([]);
    expect(statements).toContain('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    expect(statements.filter((s) => s === 'SET default_transaction_read_only = on').length).toBeGreaterThan(0);
  });
});
