import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess as run } from '../../helpers/serving/cli-in-process.js';
import { RowWriter, SQLITE_WRITER, type RowStatements } from '../../helpers/real-systems/row-writer.js';

/**
 * A write larger than the driver's row limit is split by the writer into consecutive rows
 * (SQLite and PostgreSQL: 1 MiB); MariaDB keeps one row per write. Here the same storage (the
 * es42 graph directory) is kept in rows of 97 bytes, which cut through records, log entries and
 * the dictionary, and in one row per file: both read as the directory does.
 */
const directory = join(import.meta.dirname, '..', '..', 'fixtures', 'conformance-es42', 'storages', 'graph-plain');

describe('rows split anywhere, and one row per file', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'si-split-rows-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function storageIn(name: string, maxRowBytes: number): Promise<string> {
    const file = join(dir, `${name}.db`);
    const db = new Database(file);
    const statements: RowStatements = {
      run: async (sql, params = []) => void db.prepare(sql).run(...params),
      rows: async <T>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as T[],
      transaction: async (fn) => fn(),
    };
    db.exec('BEGIN');
    await new RowWriter(statements, { ...SQLITE_WRITER, maxRowBytes }, 'storage').loadDirectory(directory);
    db.exec('COMMIT');
    const rows = db.prepare('SELECT count(*) AS n FROM "storage$channel_0"').get() as { n: number };
    db.close();
    return `${file}#${rows.n}`;
  }

  it.each([
    ['rows of 97 bytes', 97],
    ['one row per file', Number.POSITIVE_INFINITY],
  ])('%s: the same export and check as the directory', async (name, maxRowBytes) => {
    const [file, rows] = (await storageIn(name.replace(/ /g, '-'), maxRowBytes)).split('#') as [string, string];
    // Channel 0 of the directory holds 12 data files and a log of about 4 KiB.
    if (maxRowBytes === 97) expect(Number(rows)).toBeGreaterThan(400);
    else expect(Number(rows)).toBe(13);
    const fromRows = await run(['export', `sqlite:${file}`, '--type', 'java.lang.String']);
    const fromDirectory = await run(['export', directory, '--type', 'java.lang.String']);
    expect(fromRows.code, fromRows.stderr).toBe(0);
    expect(fromRows.stdout.length).toBeGreaterThan(1000);
    expect(fromRows.stdout).toBe(fromDirectory.stdout);
    const checked = await run(['check', `sqlite:${file}`]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('1,263 objects (1,263 readable)');
  });
});
