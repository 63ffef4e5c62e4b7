import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../../src/check/check-storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';
import {
  adminClient,
  databaseDigest,
  dropDatabase,
  postgresInfo,
  preparedStorageDatabase,
  READER_PASSWORD,
  readerEnv,
  readerUrl,
  SQL_STORAGE_NAMES,
  type SqlStorageName,
  statementsOf,
} from '../../helpers/real-systems/postgres.js';
import { cliCommand } from '../../helpers/test-run/cli-command.js';

/**
 * `check` and `rescue` on storages kept in PostgreSQL: the same findings as for the directories
 * the corpus storages were made from (file names aside: `<table>/<file>` instead of
 * `channel_<i>/<file>`), also when both are damaged the same way; exit codes as for directories;
 * rescue writes a new directory; nothing is ever written to the database (digest of every row).
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('check and rescue on a storage kept in PostgreSQL', () => {
  const databases: string[] = [];
  let passwordFile: string;
  let work: string;

  beforeAll(() => {
    passwordFile = join(postgresInfo().root, `check-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    work = mkdtempSync(join(tmpdir(), 'si-pgcheck-'));
  });
  afterAll(async () => {
    for (const database of databases) await dropDatabase(database);
    rmSync(work, { recursive: true, force: true });
  });

  const run = runCliInProcess;

  /** A fresh copy of a corpus storage in a database of its own, changed by `change` (as the admin), and its digest. */
  async function prepare(name: SqlStorageName, change?: (admin: pg.Client) => Promise<void>): Promise<{ database: string; digest: string }> {
    const prepared = await preparedStorageDatabase(name, 'check', change);
    databases.push(prepared.database);
    return prepared;
  }

  const digestOf = (database: string, name: string): Promise<string> => databaseDigest(database, `ms_${name}`);

  const pgArgs = (database: string, name: string): string[] => [readerUrl(database), '--table', `ms_${name}`, '--pg-password-file', passwordFile];
  const directoryOf = (name: string): string => join(CONFORMANCE_DIR, 'storages', name);

  /**
   * A report's findings without what differs between the two copies of the corpus: where the
   * storage is, file names (`ms_graph_channel_0/` for `channel_0/`), and log timestamps (MicroStream
   * wrote the corpus once into directories and once into PostgreSQL).
   */
  function findings(report: CheckReport, location: string): unknown {
    return {
      javaStarts: report.javaStarts,
      exitCode: report.exitCode,
      summary: report.summary,
      problems: report.problems.map((p) => ({
        ...p,
        file: p.file?.replace(`${location}/`, '').replace(/^ms_[a-z]+_(channel_\d+)\//, '$1/').replace(/^ms_[a-z]+\//, ''),
        meaning: p.meaning.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME'),
      })),
      commits: report.commits?.map((c) => ({ number: c.number, parts: c.parts, recoverable: c.recoverable })),
    };
  }

  it.each(SQL_STORAGE_NAMES.filter((n) => n !== 'chunked'))('%s: the same findings as the directory it was made from, exit 0', async (name) => {
    const { database, digest } = await prepare(name);
    const fromTables = await run(['check', ...pgArgs(database, name), '--json', '--commits']);
    const fromDirectory = await run(['check', directoryOf(name), '--json', '--commits']);
    expect(fromTables.code, fromTables.stderr).toBe(0);
    expect(fromDirectory.code, fromDirectory.stderr).toBe(0);
    const tables = JSON.parse(fromTables.stdout) as CheckReport;
    const directory = JSON.parse(fromDirectory.stdout) as CheckReport;
    expect(tables.directory).toBe(`${readerUrl(database)} (table ms_${name})`);
    expect(tables.kind).toBe('postgresql');
    expect(tables.notChecked).toEqual(['the lock file (used.lock): not applicable, checked only in storage directories']);
    expect(directory.kind).toBeUndefined();
    expect(tables.summary.objects).toBeGreaterThan(0);
    expect(tables.commits!.length).toBeGreaterThan(0);
    expect(findings(tables, tables.directory)).toEqual(findings(directory, directoryOf(name)));
    expect(await digestOf(database, name)).toBe(digest);
  });

  it('chunked (files kept in many small rows): exit 0, every object readable', async () => {
    const { database, digest } = await prepare('chunked');
    const result = await run(['check', ...pgArgs(database, 'chunked'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report.summary.objects).toBeGreaterThan(0);
    expect(report.summary.readableObjects).toBe(report.summary.objects);
    expect(report.problems.filter((p) => p.severity !== 'harmless')).toEqual([]);
    expect(await digestOf(database, 'chunked')).toBe(digest);
  });

  it('the text report names files as <table>/<file> and says the lock file check does not apply', async () => {
    const { database } = await prepare('graph');
    const result = await run(['check', ...pgArgs(database, 'graph')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        `storage-inspector check ${readerUrl(database)} (table ms_graph)`,
        '2 channels, 21 data files, 83,783 committed bytes, 1,263 objects (1,263 readable)',
        '',
        'MicroStream 4.1 would start on this storage. No problems found.',
        'Not checked: the lock file (used.lock): not applicable, checked only in storage directories.',
        '',
        'exit code 0',
        '',
      ].join('\n'),
    );
  });

  /** The rows of a data file of graph's channel 0 (the file with the most rows). */
  async function rowsOf(admin: pg.Client): Promise<{ identifier: string; rows: { start: number; end: number }[] }> {
    const file = await admin.query<{ identifier: string }>(
      "SELECT identifier FROM ms_graph_channel_0 WHERE identifier LIKE 'channel\_%.dat' GROUP BY identifier ORDER BY count(*) DESC, identifier LIMIT 1",
    );
    const identifier = file.rows[0]!.identifier;
    const rows = await admin.query<{ start: string; end: string }>('SELECT start, "end" FROM ms_graph_channel_0 WHERE identifier = $1 ORDER BY start', [identifier]);
    return { identifier, rows: rows.rows.map((r) => ({ start: Number(r.start), end: Number(r.end) })) };
  }

  it('committed bytes missing (the last row of a data file deleted): exit 1 naming the file and offset, as for the directory cut there', async () => {
    let identifier = '';
    let cut = 0;
    const { database, digest } = await prepare('graph', async (admin) => {
      const file = await rowsOf(admin);
      identifier = file.identifier;
      expect(file.rows.length).toBeGreaterThan(1);
      cut = file.rows[file.rows.length - 1]!.start;
      await admin.query('DELETE FROM ms_graph_channel_0 WHERE identifier = $1 AND start = $2', [identifier, cut]);
    });
    const text = await run(['check', ...pgArgs(database, 'graph')]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain(`[refuses start] ms_graph_channel_0/${identifier}, offset ${cut}  DATA_FILE_TOO_SHORT\n`);
    expect(text.stdout).toMatch(/MicroStream says: one\.microstream\.storage\.exceptions\.StorageException: 0 Length \d+ of file \d+ is inconsinstent/);

    const copy = join(work, 'graph-cut');
    cpSync(directoryOf('graph'), copy, { recursive: true });
    truncateSync(join(copy, 'channel_0', identifier), cut);
    const fromTables = JSON.parse((await run(['check', ...pgArgs(database, 'graph'), '--json'])).stdout) as CheckReport;
    const fromDirectory = JSON.parse((await run(['check', copy, '--json'])).stdout) as CheckReport;
    expect(fromTables.exitCode).toBe(1);
    expect(findings(fromTables, fromTables.directory)).toEqual(findings(fromDirectory, copy));
    expect(await digestOf(database, 'graph')).toBe(digest);
  });

  it('a row whose bytes hold an impossible record length: exit 1 naming the file and offset, as for the directory damaged alike', async () => {
    let identifier = '';
    // 2^32 as the record's 8-byte little-endian length: more than Java's largest array.
    const length = Buffer.from([0, 0, 0, 0, 1, 0, 0, 0]);
    const { database, digest } = await prepare('graph', async (admin) => {
      identifier = (await rowsOf(admin)).identifier;
      await admin.query('UPDATE ms_graph_channel_0 SET data = overlay(data PLACING $2 FROM 1 FOR 8) WHERE identifier = $1 AND start = 0', [identifier, length]);
    });
    const text = await run(['check', ...pgArgs(database, 'graph')]);
    expect(text.code, text.stderr).toBe(1);
    // MicroStream 4.1 does not throw on it (checked against it): the rest of the file is lost to it.
    expect(text.stdout).toContain(`[data lost] ms_graph_channel_0/${identifier}, offset 0  RECORD_LENGTH_IMPOSSIBLE\n`);
    expect(text.stdout).toContain('a record header claims 4294967296 bytes');

    const copy = join(work, 'graph-length');
    cpSync(directoryOf('graph'), copy, { recursive: true });
    const path = join(copy, 'channel_0', identifier);
    const bytes = readFileSync(path);
    length.copy(bytes, 0);
    writeFileSync(path, bytes);
    const fromTables = JSON.parse((await run(['check', ...pgArgs(database, 'graph'), '--json'])).stdout) as CheckReport;
    const fromDirectory = JSON.parse((await run(['check', copy, '--json'])).stdout) as CheckReport;
    expect(findings(fromTables, fromTables.directory)).toEqual(findings(fromDirectory, copy));
    expect(await digestOf(database, 'graph')).toBe(digest);
  });

  it('a gap between rows is reported as such, with the file and offset where reading stops', async () => {
    let identifier = '';
    let rows: { start: number; end: number }[] = [];
    const { database, digest } = await prepare('graph', async (admin) => {
      ({ identifier, rows } = await rowsOf(admin));
      await admin.query('DELETE FROM ms_graph_channel_0 WHERE identifier = $1 AND start = $2', [identifier, rows[0]!.end + 1]);
    });
    expect(rows.length).toBeGreaterThan(2);
    const report = JSON.parse((await run(['check', ...pgArgs(database, 'graph'), '--json'])).stdout) as CheckReport;
    expect(report.exitCode).toBe(1);
    expect(report.problems).toContainEqual(
      expect.objectContaining({ code: 'ROWS_INCONSISTENT', severity: 'data-lost', file: `ms_graph_channel_0/${identifier}`, offset: rows[0]!.end + 1 }),
    );
    expect(report.problems.find((p) => p.code === 'ROWS_INCONSISTENT')!.meaning).toContain(`in table ms_graph_channel_0: a gap: no row holds offsets ${rows[0]!.end + 1}..`);
    expect(await digestOf(database, 'graph')).toBe(digest);
  });

  it('a missing type dictionary: exit 1 naming its row in the root table; rescue refuses', async () => {
    const { database, digest } = await prepare('graph', async (admin) => void (await admin.query("DELETE FROM ms_graph WHERE identifier = 'PersistenceTypeDictionary.ptd'")));
    const result = await run(['check', ...pgArgs(database, 'graph')]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('[refuses start] ms_graph/PersistenceTypeDictionary.ptd  DICTIONARY_MISSING\n');
    expect(result.stdout).toContain('Not checked: the lock file (used.lock): not applicable');
    const rescue = await run(['rescue', ...pgArgs(database, 'graph'), '--out', join(work, 'no-dictionary')]);
    expect(rescue.code).toBe(1);
    expect(rescue.stderr).toContain('the type dictionary PersistenceTypeDictionary.ptd is missing');
    expect(await digestOf(database, 'graph')).toBe(digest);
  });

  it('runs as a process: postgres:// with --table, the password from PGPASSFILE; exit codes 0 and 1', async () => {
    const intact = await prepare('collections');
    const damaged = await prepare('graph', async (admin) => {
      const { identifier, rows } = await rowsOf(admin);
      await admin.query('DELETE FROM ms_graph_channel_0 WHERE identifier = $1 AND start = $2', [identifier, rows[rows.length - 1]!.start]);
    });
    const cli = (database: string, name: string): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [...cliCommand(), 'check', readerUrl(database), '--table', `ms_${name}`], { cwd: ROOT, encoding: 'utf8', env: readerEnv() });
    const ok = cli(intact.database, 'collections');
    expect(ok.status, String(ok.stderr)).toBe(0);
    expect(String(ok.stdout)).toContain('MicroStream 4.1 would start on this storage.');
    const bad = cli(damaged.database, 'graph');
    expect(bad.status, String(bad.stderr)).toBe(1);
    expect(String(bad.stdout)).toMatch(/\[refuses start\] ms_graph_channel_0\/channel_0_\d+\.dat, offset \d+ {2}DATA_FILE_TOO_SHORT/);
    expect(await digestOf(intact.database, 'collections')).toBe(intact.digest);
    expect(await digestOf(damaged.database, 'graph')).toBe(damaged.digest);
  });

  it('rescue writes a new directory with the same data files as a rescue of the directory; nothing written to the database', async () => {
    const { database, digest } = await prepare('graph');
    const fromTables = join(work, 'rescued-from-tables');
    const fromDirectory = join(work, 'rescued-from-directory');
    const a = await run(['rescue', ...pgArgs(database, 'graph'), '--out', fromTables]);
    const b = await run(['rescue', directoryOf('graph'), '--out', fromDirectory]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout).toContain(`storage-inspector rescue ${readerUrl(database)} (table ms_graph) → ${fromTables}`);
    expect(a.stdout).toContain('kept 1,263 objects (76,760 bytes) in 2 channels; lost 0 objects whose id is known');
    for (const channel of ['channel_0', 'channel_1']) {
      const files = readdirSync(join(fromTables, channel)).filter((f) => f.endsWith('.dat'));
      expect(files).toEqual(readdirSync(join(fromDirectory, channel)).filter((f) => f.endsWith('.dat')));
      for (const file of files) expect(readFileSync(join(fromTables, channel, file)).equals(readFileSync(join(fromDirectory, channel, file)))).toBe(true);
    }
    expect(readFileSync(join(fromTables, 'PersistenceTypeDictionary.ptd'))).toEqual(readFileSync(join(directoryOf('graph'), 'PersistenceTypeDictionary.ptd')));
    expect((await run(['check', fromTables])).code).toBe(0);
    expect(await digestOf(database, 'graph')).toBe(digest);
  });

  it('rescue of a damaged storage kept in PostgreSQL: a new directory that check accepts; the report names table and file', async () => {
    let identifier = '';
    let cut = 0;
    const { database, digest } = await prepare('graph', async (admin) => {
      const file = await rowsOf(admin);
      identifier = file.identifier;
      cut = file.rows[file.rows.length - 1]!.start;
      await admin.query('DELETE FROM ms_graph_channel_0 WHERE identifier = $1 AND start = $2', [identifier, cut]);
    });
    const out = join(work, 'rescued-damaged');
    const result = await run(['rescue', ...pgArgs(database, 'graph'), '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`missing end of ms_graph_channel_0/${identifier} (committed bytes ${cut}..`);
    expect((await run(['check', out])).code).toBe(0);
    expect(await digestOf(database, 'graph')).toBe(digest);
  });

  it("check --commits and rescue each read one snapshot: one REPEATABLE READ, READ ONLY transaction, reads only (the server's statement log)", async () => {
    const { database } = await prepare('collections');
    const admin = await adminClient('postgres');
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(database)} SET log_statement = 'all'`);
    await admin.end();
    const begins = (): number =>
      statementsOf(readFileSync(join(postgresInfo().root, 'server.log'), 'utf8'), database).filter((s) => s === 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY').length;
    expect((await run(['check', ...pgArgs(database, 'collections'), '--commits'])).code).toBe(0);
    expect(begins()).toBe(1);
    expect((await run(['rescue', ...pgArgs(database, 'collections'), '--out', join(work, 'rescued-collections')])).code).toBe(0);
    expect(begins()).toBe(2);
    const statements = statementsOf(readFileSync(join(postgresInfo().root, 'server.log'), 'utf8'), database);
    const allowed = /^(BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY|COMMIT|ROLLBACK|SET default_transaction_read_only = on|SELECT\b|WITH root AS \(SELECT\b)/;
    const forbidden = /\b(INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|TRUNCATE|COPY|GRANT|REVOKE|LOCK|TEMP|TEMPORARY|FOR UPDATE|FOR SHARE|nextval|setval|pg_advisory)\b/i;
    expect(statements.filter((s) => !allowed.test(s) || forbidden.test(s))).toEqual([]);
  });

  it('rescue writes only to a new directory: a database as --out is refused', async () => {
    const { database } = await prepare('graph');
    const result = await run(['rescue', ...pgArgs(database, 'graph'), '--out', readerUrl(database)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('rescue writes a new storage directory, never into a database');
  });
});
