import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShell } from '../../src/cli/sql/sql-shell.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { Storage } from '../../src/storage/storage.js';
import { writeModelStorage } from '../graph/model-storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';

/**
 * The interactive shell on a terminal: multi-line statements ended by `;`, `.tables` and
 * `.schema`, Ctrl-C interrupting the running statement while the shell goes on. And the
 * sandbox's temporary directory: never inside the storage directory, gone after close.
 */

let registered: RegisteredStorage;
let engine: SqlEngine;
beforeAll(async () => {
  registered = await registeredStorage(join(CONFORMANCE_DIR, 'storages', 'graph'));
  registered.registry.startAll();
  engine = new SqlEngine({ storage: registered.storage, graph: () => registered.context.graph.ready(), timeoutMs: 0 });
});
afterAll(async () => {
  await engine.close();
  await registered.close();
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the SQL shell', () => {
  it('runs multi-line statements, dot commands, and Ctrl-C interrupts the running statement only', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = Object.assign(new PassThrough(), { columns: 100 });
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString()));
    const done = runShell(engine, { stdout, stderr: { write: () => true } }, 100, input);
    input.write('.tables\n');
    input.write('SELECT title\n  FROM Book\n  WHERE pages > 0 ORDER BY title LIMIT 2;\n');
    input.write('.schema Book\n');
    await until(() => text.includes('conformance.bookstore.Book (view Book)'));
    input.write('SELECT count(*) FROM generate_series(1, 1000000000000);\n');
    await until(() => (engine as unknown as { running: number }).running === 1);
    input.write('\x03'); // Ctrl-C
    await until(() => text.includes('cancelled'));
    input.write('SELECT 6 * 7 AS answer;\n');
    await until(() => text.includes('answer'));
    input.write('.exit\n');
    expect(await done).toBe(0);
    expect(text).toContain('conformance.bookstore.Book  (Book)');
    expect(text).toMatch(/│ title\s+│/);
    expect(text).toContain('error: the statement was cancelled');
    expect(text).toMatch(/│\s+42 │/);
  });
});

describe('the temporary directory', () => {
  it('is never inside the storage directory, and is removed on close', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sql-temp-'));
    const dir = join(base, 'storage');
    writeModelStorage(dir);
    const inside = join(dir, 'tmp');
    mkdirSync(inside);
    const saved = process.env.TMPDIR;
    const own = await Storage.open(dir);
    try {
      process.env.TMPDIR = inside;
      const refused = new SqlEngine({ storage: own });
      await expect(refused.query('SELECT 1', { limit: 1 })).rejects.toThrow(/inside the storage directory/);
      await refused.close();
      const elsewhere = join(base, 'elsewhere');
      mkdirSync(elsewhere);
      process.env.TMPDIR = elsewhere;
      const fine = new SqlEngine({ storage: own });
      expect((await fine.query('SELECT count(*) FROM _objects', { limit: 1 })).rowCount).toBe(1);
      expect(readdirSync(elsewhere).filter((n) => n.startsWith('storage-inspector-sql-'))).toHaveLength(1);
      await fine.close();
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(readdirSync(inside)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await own.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
