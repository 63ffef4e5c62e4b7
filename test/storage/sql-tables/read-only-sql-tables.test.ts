import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { MariadbDatabase } from '../../../src/storage/sql-tables/mariadb-database.js';
import { Storage } from '../../../src/storage/storage.js';
import { AFS_ROOT_TABLE, sqliteFile } from '../../helpers/corpora/afs-sql.js';
import { compareWithCase, type RecordedCase } from '../../helpers/corpora/conformance.js';
import { loadStateCases, loadTransitions, SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { RowWriter, SQLITE_WRITER, type RowStatements } from '../../helpers/real-systems/row-writer.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';
import { adminSql, MARIADB_READER } from '../../helpers/real-systems/mariadb-server.js';

/**
 * Nothing is written, created or locked for long: a SQLite file keeps its bytes, its time and
 * its directory (no journal, no -wal, no -shm) after a whole check; a file nobody may write is
 * read without any lock (a writer's exclusive lock does not stop it); MariaDB sessions and
 * snapshots refuse writes even for a user allowed to write, and a whole check leaves every table's
 * checksum as it was.
 */
// better-sqlite3 takes URI filenames (immutable=1) only when this says so before its first database
// opens; the source sets it too, but this file's own writer may open a database first.
process.env['SQLITE_USE_URI'] = '1';

describe('SQLite: read-only', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'si-sqlite-ro-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fingerprint = (file: string): { digest: string; mtimeMs: number; size: number; entries: string[] } => ({
    digest: createHash('sha256').update(readFileSync(file)).digest('hex'),
    mtimeMs: statSync(file).mtimeMs,
    size: statSync(file).size,
    entries: readdirSync(dir).sort(),
  });

  it('a writable file: the same bytes, time and directory after check and following', async () => {
    const file = join(dir, 'writable.db');
    copyFileSync(sqliteFile('graph'), file);
    chmodSync(file, 0o644);
    const before = fingerprint(file);
    const result = await runCliInProcess(['check', `sqlite:${file}`, '--table', AFS_ROOT_TABLE]);
    expect(result.code, result.stderr).toBe(0);
    const storage = await Storage.open(openStorageSource(file, {}));
    await storage.refresh();
    await storage.close();
    expect(fingerprint(file)).toEqual(before);
    expect(before.entries).toEqual(['writable.db']);
  });

  it.skipIf(process.getuid?.() !== 0)('a file nobody may write is opened immutable: a writer holding an exclusive lock does not stop the reader', async () => {
    const file = join(dir, 'frozen.db');
    copyFileSync(sqliteFile('graph'), file);
    chmodSync(file, 0o444);
    // As root the writer may open it for writing all the same, and lock it.
    const writer = new Database(file);
    writer.exec('BEGIN EXCLUSIVE');
    try {
      const storage = await Storage.open(openStorageSource(`sqlite:${file}`, { table: AFS_ROOT_TABLE }));
      expect(storage.rootObjectId).toBe(1000000000000000028n);
      await storage.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });
});

describe('SQLite in WAL mode', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'si-sqlite-wal-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function writerOn(file: string): { db: Database.Database; writer: RowWriter } {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const statements: RowStatements = {
      run: async (sql, params = []) => void db.prepare(sql).run(...params),
      rows: async <T>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as T[],
      transaction: async (fn) => fn(),
    };
    return { db, writer: new RowWriter(statements, SQLITE_WRITER, 'tracker') };
  }

  /** Recorded answers of a follow/SEQ1 state that the app does not give (root and objects). */
  async function differing(app: ReturnType<typeof buildApp>, state: string): Promise<string[]> {
    const { storageDir, cases } = loadStateCases(state);
    const problems: string[] = [];
    for (const c of cases.filter((k) => k.kind === 'root' || k.kind === 'object') as RecordedCase[]) {
      const response = await app.inject({ method: 'GET', url: c.request, headers: { host: '127.0.0.1:4567' } });
      const problem = compareWithCase(c, storageDir, storageDir, { status: response.statusCode, contentType: response.headers['content-type'] as string | undefined, body: response.rawPayload });
      if (problem !== undefined) problems.push(`${c.request}: ${problem}`);
    }
    return problems;
  }

  it('closed by its application: read without creating -wal or -shm; once the application writes again, its commits are read', async () => {
    const file = join(dir, 'wal.db');
    const first = writerOn(file);
    first.db.exec('BEGIN');
    await first.writer.loadDirectory(join(SEQUENCE_DIR, 'states', 'S0'));
    first.db.exec('COMMIT');
    first.db.close(); // the last connection checkpoints and removes -wal and -shm
    expect(readdirSync(dir)).toEqual(['wal.db']);
    const bytes = readFileSync(file);

    const storage = await Storage.open(openStorageSource(`sqlite:${file}`, { table: 'tracker' }));
    const app = buildApp(storage, { instance: 'microstream' });
    try {
      expect(await differing(app, 'S0')).toEqual([]);
      await storage.refresh();
      expect(readdirSync(dir)).toEqual(['wal.db']);
      expect(readFileSync(file).equals(bytes)).toBe(true);

      // The application again: its connection makes -wal and -shm, the commit goes to the -wal.
      const again = writerOn(file);
      try {
        const transition = loadTransitions()[0]!;
        again.db.exec('BEGIN');
        for (const op of transition.ops) if (op.op === 'append') await again.writer.append(op.path, Buffer.from(op.data ?? '', 'base64'));
        again.db.exec('COMMIT');
        expect(readdirSync(dir).sort()).toEqual(['wal.db', 'wal.db-shm', 'wal.db-wal']);
        await storage.refresh();
        expect(await differing(app, transition.to)).toEqual([]);
      } finally {
        again.db.close();
      }
    } finally {
      await app.close();
      await storage.close();
    }
  });
});

const info = mariadbInfo();

describe.skipIf(info === null)('MariaDB: read-only', () => {
  const database = `ro_${process.pid}`;
  beforeAll(() => {
    adminSql(info!, [
      `CREATE DATABASE \`${database}\`;`,
      `CREATE TABLE \`${database}\`.t (id int PRIMARY KEY);`,
      `CREATE USER 'si_writer'@'127.0.0.1' IDENTIFIED BY 'writer-secret';`,
      `GRANT ALL ON \`${database}\`.* TO 'si_writer'@'127.0.0.1';`,
    ].join('\n'));
  });
  afterAll(() => adminSql(info!, `DROP DATABASE IF EXISTS \`${database}\`; DROP USER IF EXISTS 'si_writer'@'127.0.0.1';`));

  it('a snapshot and a single statement refuse writes even for a user allowed to write', async () => {
    const db = new MariadbDatabase({ host: '127.0.0.1', port: info!.port, user: 'si_writer', database, password: 'writer-secret' }, 'test');
    try {
      await expect(db.snapshot((q) => q.all('INSERT INTO t VALUES (1)'))).rejects.toThrow(/READ ONLY transaction/);
      await expect(db.single((q) => q.all('INSERT INTO t VALUES (2)'))).rejects.toThrow(/READ ONLY transaction/);
      expect(await db.single((q) => q.all<{ n: bigint }>('SELECT COUNT(*) AS n FROM t'))).toEqual([{ n: 0n }]);
    } finally {
      await db.close();
    }
    expect(adminSql(info!, `SELECT COUNT(*) FROM \`${database}\`.t;`).trim()).toBe('0');
  });

  it('the reader may only SELECT, and a whole check leaves every table as it was', async () => {
    const grants = adminSql(info!, `SHOW GRANTS FOR '${MARIADB_READER}'@'127.0.0.1';`);
    const privileges = new Set([...grants.matchAll(/GRANT (.+?) ON/g)].map((m) => m[1]));
    expect([...privileges].sort()).toEqual(['SELECT', 'USAGE']);
    const checksums = (): string => adminSql(info!, 'CHECKSUM TABLE es_graph.`storage`, es_graph.`storage$channel_0`, es_graph.`storage$channel_1` EXTENDED;');
    const before = checksums();
    const result = await runCliInProcess(['check', mariadbReaderUrl(info!, 'es_graph'), '--table', AFS_ROOT_TABLE, '--pg-password-file', info!.passwordFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(checksums()).toBe(before);
  });
});
