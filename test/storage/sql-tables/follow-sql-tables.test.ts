import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as mariadb from 'mariadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageFollower } from '../../../src/storage/follow/follow.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, type RecordedCase } from '../../helpers/corpora/conformance.js';
import { loadStateCases, loadTransitions, SEQUENCE_DIR, type FileOp, type StateCases } from '../../helpers/corpora/follow-sequence.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';
import { adminSql, grantStorageTables } from '../../helpers/real-systems/mariadb-server.js';
import { MARIADB_WRITER, RowWriter, SQLITE_WRITER, type RowStatements } from '../../helpers/real-systems/row-writer.js';

/**
 * Following a storage kept in SQLite or MariaDB while a writer adds commits: the file operations
 * a running Java process performed (follow/SEQ1) are written as rows in EclipseStore's layout,
 * each transition's rows in one transaction, and once the inspector's own polling has read the
 * tables after it, every answer equals the Java service's answer for the new state.
 */
const ROOT = 'tracker';
const ALL = new Set(['root', 'dictionary', 'filesStatistics', 'object', 'objectReferences', 'absent']);

/** Refreshes a follower has completed (changed or unchanged), and promises of the ones to come. */
class Polls {
  private count = 0;
  private waiters: { until: number; resolve: () => void }[] = [];

  completed(): void {
    this.count++;
    this.waiters = this.waiters.filter((w) => (w.until <= this.count ? (w.resolve(), false) : true));
  }

  next(n: number): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ until: this.count + n, resolve }));
  }
}

interface Dialect {
  readonly name: string;
  readonly skip: boolean;
  /** Makes an empty database and a writer on it; returns the spec and options to read it with, and how to end. */
  setUp(): Promise<{ statements: RowStatements; spec: string; passwordFile?: string; grant: () => Promise<void>; end: () => Promise<void> }>;
}

const info = mariadbInfo();

const DIALECTS: Dialect[] = [
  {
    name: 'SQLite',
    skip: false,
    async setUp() {
      const dir = mkdtempSync(join(tmpdir(), 'si-follow-sqlite-'));
      const file = join(dir, 'follow.db');
      const db = new Database(file);
      const statements: RowStatements = {
        run: async (sql, params = []) => void db.prepare(sql).run(...params),
        rows: async <T>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as T[],
        transaction: async (fn) => {
          db.exec('BEGIN IMMEDIATE');
          try {
            await fn();
            db.exec('COMMIT');
          } catch (error) {
            db.exec('ROLLBACK');
            throw error;
          }
        },
      };
      return { statements, spec: `sqlite:${file}`, grant: async () => undefined, end: async () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
  {
    name: 'MariaDB',
    skip: info === null,
    async setUp() {
      const database = `follow_${process.pid}`;
      adminSql(info!, `CREATE DATABASE \`${database}\`;`);
      const connection = await mariadb.createConnection({ socketPath: info!.socket, user: 'root', database });
      const statements: RowStatements = {
        run: async (sql, params = []) => void (await connection.query(sql, [...params])),
        rows: async <T>(sql: string, params: readonly unknown[] = []) => (await connection.query(sql, [...params])) as T[],
        transaction: async (fn) => {
          await connection.beginTransaction();
          try {
            await fn();
            await connection.commit();
          } catch (error) {
            await connection.rollback();
            throw error;
          }
        },
      };
      return {
        statements,
        spec: mariadbReaderUrl(info!, database),
        passwordFile: info!.passwordFile,
        grant: async () => grantStorageTables(info!, database),
        end: async () => {
          await connection.end();
          adminSql(info!, `DROP DATABASE \`${database}\`;`);
        },
      };
    },
  },
];

describe.each(DIALECTS)('following a storage kept in $name', (dialect) => {
  const transitions = loadTransitions();
  let end: () => Promise<void> = async () => undefined;
  let writer: RowWriter;
  let statements: RowStatements;
  let storage: Storage;
  let follower: StorageFollower;
  let app: ReturnType<typeof buildApp>;
  const events: string[] = [];
  const polls = new Polls();

  beforeAll(async () => {
    if (dialect.skip) return;
    const made = await dialect.setUp();
    end = made.end;
    statements = made.statements;
    writer = new RowWriter(statements, dialect.name === 'SQLite' ? SQLITE_WRITER : MARIADB_WRITER, ROOT);
    await writer.loadDirectory(join(SEQUENCE_DIR, 'states', 'S0'));
    await made.grant();
    storage = await Storage.open(openStorageSource(made.spec, { table: ROOT, ...(made.passwordFile === undefined ? {} : { passwordFile: made.passwordFile }) }));
    follower = new StorageFollower(storage, {
      pollIntervalMs: 50,
      onRefresh: (e) => {
        if (e.kind === 'failed') events.push(`failed: ${String(e.error)}`);
        if (e.kind === 'changed' || e.kind === 'unchanged') polls.completed();
      },
    });
    app = buildApp(storage, { instance: 'microstream' });
    follower.start();
  });
  afterAll(async () => {
    await follower?.stop();
    await app?.close();
    await storage?.close();
    await end();
  });

  /** The recorded answer as the SQL file system names files: the tables' path joined with `$`. */
  function asStoredInTables(c: RecordedCase, storageDir: string): RecordedCase {
    if (c.kind !== 'filesStatistics' || c.body === undefined) return c;
    return { ...c, body: c.body.split(`"${storageDir}/channel_0/`).join(`"${ROOT}$channel_0$`) };
  }

  async function mismatches(state: StateCases): Promise<string[]> {
    const problems: string[] = [];
    for (const recorded of state.cases) {
      if (!ALL.has(recorded.kind)) continue;
      const c = asStoredInTables(recorded as RecordedCase, state.storageDir);
      const response = await app.inject({ method: 'GET', url: c.request, headers: { host: '127.0.0.1:4567' } });
      const problem = compareWithCase(c, state.storageDir, state.storageDir, {
        status: response.statusCode,
        contentType: response.headers['content-type'] as string | undefined,
        body: response.rawPayload,
      });
      if (problem !== undefined) problems.push(`${c.request}: ${problem}`);
    }
    return problems;
  }

  async function apply(op: FileOp): Promise<void> {
    switch (op.op) {
      case 'create':
        break; // a file without rows does not exist: the connector's first write creates it
      case 'append':
        await writer.append(op.path, Buffer.from(op.data ?? '', 'base64'));
        break;
      case 'truncate':
        if ((op.length ?? 0) === 0) await writer.delete(op.path);
        else await writer.truncate(op.path, op.length ?? 0);
        break;
      case 'delete':
        await writer.delete(op.path);
        break;
    }
  }

  it.skipIf(dialect.skip)('serves the first state', async () => {
    expect((await mismatches(loadStateCases('S0'))).slice(0, 5)).toEqual([]);
  });

  for (const transition of transitions) {
    it.skipIf(dialect.skip)(`${transition.from} → ${transition.to} (${transition.kind}, ${transition.ops.length} operations in one transaction)`, async () => {
      await statements.transaction(async () => {
        for (const op of transition.ops) await apply(op);
      });
      // Polling alone shows the new state: two refreshes completed from now on (the first may have started before the commit).
      await polls.next(2);
      expect((await mismatches(loadStateCases(transition.to))).slice(0, 5)).toEqual([]);
    });
  }

  it.skipIf(dialect.skip)('never failed a refresh', () => {
    expect(events).toEqual([]);
  });
});
