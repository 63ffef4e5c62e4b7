import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess as cli } from '../../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { cliCommand } from '../../helpers/test-run/cli-command.js';

/**
 * `export --out DIR`: every table as Parquet (read back here with an independent reader,
 * hyparquet, value by value against the NDJSON export of the same tables), CSV and NDJSON with
 * a manifest; and the fixes of the old export: an existing --out file is a usage error, a closed
 * pipe a normal end, and the NDJSON views carry the `text` of referenced values.
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');

interface Manifest {
  format: string;
  objects: number;
  tables: { name: string; file: string; rows: number; columns: { name: string; type: string }[] }[];
}

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sql-export-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

/** A Parquet value (as hyparquet reads it) in the JSON value rules of our answers. */
function asCell(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return type === 'TIME' ? `${pad(Number(value / 3_600_000_000n), 2)}:${pad(Number((value / 60_000_000n) % 60n), 2)}:${pad(Number((value / 1_000_000n) % 60n), 2)}.${pad(Number((value / 1000n) % 1000n), 3)}` : String(value);
  if (value instanceof Date) return type === 'DATE' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (value instanceof Uint8Array) return [...value].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    if (type.startsWith('DECIMAL')) return value;
    return value === 0 ? 0 : value;
  }
  return value;
}

describe('export of the tables', () => {
  it('writes every table as Parquet that an independent reader reads back value by value', { timeout: 120_000 }, async () => {
    const parquet = join(base, 'parquet');
    const ndjson = join(base, 'ndjson');
    expect((await cli(['export', GRAPH, '--format', 'parquet', '--out', parquet])).code).toBe(0);
    expect((await cli(['export', GRAPH, '--format', 'ndjson', '--out', ndjson])).code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(parquet, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.format).toBe('parquet');
    expect(manifest.objects).toBe(1263);
    expect(manifest.tables.map((t) => t.name)).toEqual(expect.arrayContaining(['_objects', '_references', '_elements', 'conformance.bookstore.Book']));
    expect(readdirSync(parquet).sort()).toEqual([...manifest.tables.map((t) => t.file), 'manifest.json'].sort());
    let values = 0;
    for (const table of manifest.tables) {
      const bytes = readFileSync(join(parquet, table.file));
      const rows = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), compressors })) as Record<string, unknown>[];
      expect(rows.length, table.name).toBe(table.rows);
      const text = readFileSync(join(ndjson, table.file.replace(/\.parquet$/, '.ndjson')), 'utf8');
      const expected = text === '' ? [] : text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(expected.length, table.name).toBe(table.rows);
      // Both files hold the rows in the same order (one DuckDB scan each of the same table).
      rows.forEach((row, i) => {
        for (const column of table.columns) {
          const want = expected[i]![column.name];
          const got = asCell(row[column.name], column.type);
          if (column.type.startsWith('DECIMAL') && want !== null) expect(got, `${table.name} ${column.name}`).toBeCloseTo(Number(want), 10);
          else if (column.type === 'FLOAT' && typeof want === 'number') expect(Math.fround(got as number), `${table.name} ${column.name}`).toBe(Math.fround(want));
          else expect(got, `${table.name}[${i}].${column.name}`).toEqual(want);
          values++;
        }
      });
    }
    expect(values).toBeGreaterThan(10_000);
  });

  it('writes CSV with names and prices as values, one table with --type', async () => {
    // With --type and csv, one type's object views as one CSV file: names as values there too.
    const out = join(base, 'authors.csv');
    const { code } = await cli(['export', GRAPH, '--format', 'csv', '--type', 'conformance.bookstore.Author', '--out', out]);
    expect(code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\r\n').some((l) => l.includes(',Berger,Bruno,'))).toBe(true);
    const all = join(base, 'csv-all');
    expect((await cli(['export', GRAPH, '--format', 'csv', '--out', all])).code).toBe(0);
    const authors = readFileSync(join(all, 'conformance.bookstore.Author.csv'), 'utf8').split('\r\n');
    expect(authors[0]).toBe('_oid,_type_id,name,firstName,birthday,address,biography,books,mentor,id');
    expect(authors.some((l) => /,Berger,Bruno,1979-10-04T00:00:00\.000Z,/.test(l))).toBe(true);
  });

  it('exports one table with --type as Parquet', async () => {
    const out = join(base, 'one');
    expect((await cli(['export', GRAPH, '--format', 'parquet', '--type', 'Book', '--out', out])).code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['conformance.bookstore.Book.parquet', 'manifest.json']);
    // The objects as the whole export's `_objects` holds them, counted by the build (not by filling `_objects`).
    expect((JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest).objects).toBe(1263);
  });

  it('never writes over an existing file or directory: a usage error, no stack trace', async () => {
    const file = join(base, 'exists.csv');
    writeFileSync(file, 'keep');
    const old = await cli(['export', GRAPH, '--type', 'conformance.bookstore.Author', '--format', 'csv', '--out', file]);
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/exists already/);
    expect(old.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(file, 'utf8')).toBe('keep');
    const dir = await cli(['export', GRAPH, '--format', 'parquet', '--out', base]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toMatch(/exists already/);
    expect(readdirSync(base).filter((n) => n.includes('partial'))).toEqual([]);
  });

  it('gives referenced values their text in the NDJSON views, like the HTTP NDJSON', async () => {
    const { code, stdout } = await cli(['export', GRAPH, '--type', 'conformance.bookstore.Author']);
    expect(code).toBe(0);
    const view = JSON.parse(stdout.split('\n')[0]!) as { members: { name: string; value?: { text?: string } }[] };
    expect(view.members.find((m) => m.name === 'name')!.value!.text).toBe('Berger');
  });

  it('ends quietly with exit 0 when the reader closes the pipe (export ... | head)', { timeout: 60_000 }, async () => {
    expect(existsSync(cliCommand().at(-1)!)).toBe(true);
    const child = spawn(process.execPath, [...cliCommand(), 'export', GRAPH, '--type', 'java.lang.String'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    // Read one chunk, then close our end as `head -1` does (a child that ends without writing fails below).
    const wrote = await Promise.race([new Promise<boolean>((resolve) => child.stdout.once('data', () => resolve(true))), closed.then(() => false)]);
    expect(wrote, stderr).toBe(true);
    child.stdout.destroy();
    const code = await closed;
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });
});
