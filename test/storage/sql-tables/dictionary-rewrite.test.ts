import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as mariadb from 'mariadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';
import { adminSql, grantStorageTables } from '../../helpers/real-systems/mariadb-server.js';
import { MARIADB_WRITER, RowWriter, SQLITE_WRITER, type RowStatements } from '../../helpers/real-systems/row-writer.js';

/**
 * The type dictionary rewritten at the same size (its row deleted, a new one inserted, as
 * EclipseStore's connector rewrites it; SQLite gives the new row the same rowid): the next refresh
 * serves the new text.
 */
const DICTIONARY = join(SEQUENCE_DIR, 'states', 'S0', 'PersistenceTypeDictionary.ptd');
const info = mariadbInfo();

describe.each([
  { name: 'SQLite', skip: false },
  { name: 'MariaDB', skip: info === null },
])('the dictionary rewritten at the same size, $name', ({ name, skip }) => {
  let dir: string;
  let end: () => Promise<void> = async () => undefined;
  let statements: RowStatements;
  let spec: string;
  beforeAll(async () => {
    if (skip) return;
    if (name === 'SQLite') {
      dir = mkdtempSync(join(tmpdir(), 'si-dictionary-'));
      const db = new Database(join(dir, 'rewrite.db'));
      statements = {
        run: async (sql, params = []) => void db.prepare(sql).run(...params),
        rows: async <T>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as T[],
        transaction: async (fn) => fn(),
      };
      spec = `sqlite:${join(dir, 'rewrite.db')}`;
      end = async () => (db.close(), rmSync(dir, { recursive: true, force: true }));
    } else {
      const database = `rewrite_${process.pid}`;
      adminSql(info!, `CREATE DATABASE \`${database}\`;`);
      const connection = await mariadb.createConnection({ socketPath: info!.socket, user: 'root', database });
      statements = {
        run: async (sql, params = []) => void (await connection.query(sql, [...params])),
        rows: async <T>(sql: string, params: readonly unknown[] = []) => (await connection.query(sql, [...params])) as T[],
        transaction: async (fn) => fn(),
      };
      spec = mariadbReaderUrl(info!, database);
      end = async () => {
        await connection.end();
        adminSql(info!, `DROP DATABASE \`${database}\`;`);
      };
    }
    await new RowWriter(statements, name === 'SQLite' ? SQLITE_WRITER : MARIADB_WRITER, 'tracker').loadDirectory(join(SEQUENCE_DIR, 'states', 'S0'));
    if (name === 'MariaDB') grantStorageTables(info!, spec.slice(spec.lastIndexOf('/') + 1));
  });
  afterAll(() => end());

  it.skipIf(skip)('is served anew after the next refresh', async () => {
    const storage = await Storage.open(openStorageSource(spec, { table: 'tracker', ...(name === 'MariaDB' ? { passwordFile: info!.passwordFile } : {}) }));
    const app = buildApp(storage, { instance: 'microstream' });
    try {
      const before = (await app.inject({ url: '/microstream/dictionary' })).body;
      expect(before).toContain('java.lang.Byte{');
      const changed = Buffer.from(readFileSync(DICTIONARY, 'latin1').replace('java.lang.Byte{', 'java.lang.Bytf{'), 'latin1');
      expect(changed.length).toBe(readFileSync(DICTIONARY).length);
      const writer = new RowWriter(statements, name === 'SQLite' ? SQLITE_WRITER : MARIADB_WRITER, 'tracker');
      await writer.delete('PersistenceTypeDictionary.ptd');
      await writer.append('PersistenceTypeDictionary.ptd', changed);
      await storage.refresh();
      const after = (await app.inject({ url: '/microstream/dictionary' })).body;
      expect(after).toContain('java.lang.Bytf{');
      expect(after.length).toBe(before.length);
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
