import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { ParquetRowWriter, ROW_GROUP_TEXT_BYTES, type ParquetColumn } from '../../../src/sql/tables/parquet-rows.js';
import { memoryDuck } from '../memory-duck.js';
import { nodeImports, sourceModule } from '../../helpers/test-run/child-script.js';

/**
 * Our Parquet writer (`_elements` and `_references` of an export) read back by DuckDB, the reader
 * that rewrites them, and by hyparquet, an independent one: exact values (negative ids, the
 * largest and smallest 64-bit ids, NULLs, non-ASCII texts), column names and types, row groups.
 */

const memory = memoryDuck();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'parquet-rows-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const COLUMNS: readonly ParquetColumn[] = [
  { name: 'owner', type: 'int64', nullable: false },
  { name: 'position', type: 'int64', nullable: true },
  { name: 'code', type: 'int32', nullable: true },
  { name: 'text', type: 'text', nullable: true },
  { name: 'member', type: 'text', nullable: false, dictionary: true },
];

async function rows(file: string): Promise<unknown[][]> {
  const reader = await memory.connection.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
  return reader.getRows() as unknown[][];
}

describe('ParquetRowWriter', () => {
  it('writes values DuckDB reads back exactly, with its column names and types', async () => {
    const file = join(base, 'values.parquet');
    const writer = new ParquetRowWriter(file, COLUMNS);
    const ids = [9223372036854775807n, -9223372036854775808n, -1n, 0n, 1000000000000000000n, 4294967296n, -4294967297n];
    for (const [i, id] of ids.entries()) {
      writer.appendBigInt(id);
      if (i % 3 === 1) writer.appendNull();
      else writer.appendBigIntNumber(i * 4294967296 + i);
      if (i % 2 === 0) writer.appendInteger(-i * 1000);
      else writer.appendNull();
      if (i === 3) writer.appendNull();
      else writer.appendVarchar(['plain', '', 'größer €', '😀 surrogates', 'nul\u0000inside', 'x'.repeat(300), "it's"][i]!);
      writer.appendVarchar(i === 2 ? 'ключ' : 'items');
      writer.endRow();
    }
    // Halves as the walk reads them: low and high words of -2 and of 2^63 - 1.
    writer.appendBigIntHalves(-2, -1);
    writer.appendBigIntHalves(-1, 0x7fffffff);
    writer.appendNull();
    writer.appendNull();
    writer.appendVarchar('');
    writer.endRow();
    expect(writer.closeSync()).toBe(8);

    const described = await memory.connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    expect(described.getRows().map((r) => [r[0], r[1]])).toEqual([
      ['owner', 'BIGINT'],
      ['position', 'BIGINT'],
      ['code', 'INTEGER'],
      ['text', 'VARCHAR'],
      ['member', 'VARCHAR'],
    ]);
    expect(await rows(file)).toEqual([
      [9223372036854775807n, 0n, 0, 'plain', 'items'],
      [-9223372036854775808n, null, null, '', 'items'],
      [-1n, 2n * 4294967296n + 2n, -2000, 'größer €', 'ключ'],
      [0n, 3n * 4294967296n + 3n, null, null, 'items'],
      [1000000000000000000n, null, -4000, 'nul\u0000inside', 'items'],
      [4294967296n, 5n * 4294967296n + 5n, null, 'x'.repeat(300), 'items'],
      [-4294967297n, 6n * 4294967296n + 6n, -6000, "it's", 'items'],
      [-2n, 9223372036854775807n, null, null, ''],
    ]);
    // An independent reader agrees.
    const objects = await parquetReadObjects({ file: toArrayBuffer(readFileSync(file)) });
    expect(objects.map((o) => o.owner)).toEqual([...ids, -2n]);
    expect(objects.map((o) => o.text)).toEqual(['plain', '', 'größer €', null, 'nul\u0000inside', 'x'.repeat(300), "it's", null]);
  });

  it('writes many row groups, with NULLs in every position of a byte of definition levels', async () => {
    const file = join(base, 'groups.parquet');
    const writer = new ParquetRowWriter(file, COLUMNS, 1000);
    const n = 10_007;
    for (let i = 0; i < n; i++) {
      writer.appendBigIntNumber(i);
      if (i % 7 === 3) writer.appendNull();
      else writer.appendBigInt(BigInt(-i) * 1_000_000_007n);
      writer.appendInteger(i % 5 === 0 ? -i : i);
      if (i % 3 === 0) writer.appendNull();
      else writer.appendVarchar(`t${i}`);
      writer.appendVarchar(i % 2 === 0 ? 'even' : 'odd');
      writer.endRow();
    }
    expect(writer.closeSync()).toBe(n);
    const metadata = parquetMetadata(toArrayBuffer(readFileSync(file)));
    expect(metadata.row_groups.length).toBe(11);
    expect(Number(metadata.num_rows)).toBe(n);
    const reader = await memory.connection.runAndReadAll(`
SELECT count(*), count(position), sum(owner), sum(position), sum(code), count(text), sum(length(text)),
  count(*) FILTER (WHERE text = 't' || owner), count(*) FILTER (WHERE member = CASE WHEN owner % 2 = 0 THEN 'even' ELSE 'odd' END),
  count(*) FILTER (WHERE (position IS NULL) = (owner % 7 = 3) AND (text IS NULL) = (owner % 3 = 0))
FROM read_parquet('${file}')`);
    const expected = { withPosition: 0, owners: 0n, positions: 0n, codes: 0n, texts: 0, textLength: 0 };
    for (let i = 0; i < n; i++) {
      expected.owners += BigInt(i);
      if (i % 7 !== 3) {
        expected.withPosition++;
        expected.positions += BigInt(-i) * 1_000_000_007n;
      }
      expected.codes += BigInt(i % 5 === 0 ? -i : i);
      if (i % 3 !== 0) {
        expected.texts++;
        expected.textLength += `t${i}`.length;
      }
    }
    expect(reader.getRows()[0]!.map(String)).toEqual(
      [n, expected.withPosition, expected.owners, expected.positions, expected.codes, expected.texts, expected.textLength, expected.texts, n, n].map(String),
    );
  });

  it('writes dictionary columns of many distinct texts, with NULLs, in runs and alone', async () => {
    const file = join(base, 'dictionary.parquet');
    const columns: readonly ParquetColumn[] = [
      { name: 'n', type: 'int32', nullable: false },
      { name: 'name', type: 'text', nullable: true, dictionary: true },
      { name: 'plain', type: 'text', nullable: false },
    ];
    const writer = new ParquetRowWriter(file, columns, 5000);
    // 300 distinct names (indices of two bytes), each in a run of its own length, then one per row.
    const expected: (string | null)[] = [];
    for (let k = 0; k < 300; k++) for (let r = 0; r <= k % 7; r++) expected.push(k % 11 === 5 ? null : `näme-${k}`);
    for (let i = 0; i < 4000; i++) expected.push(i % 13 === 0 ? null : `name-${(i * 7919) % 1000}`);
    expected.forEach((name, i) => {
      writer.appendInteger(i);
      if (name === null) writer.appendNull();
      else writer.appendVarchar(name);
      writer.appendUtf8(new TextEncoder().encode(`p${i}`));
      writer.endRow();
    });
    expect(writer.closeSync()).toBe(expected.length);
    const reader = await memory.connection.runAndReadAll(`SELECT name FROM read_parquet('${file}') ORDER BY n`);
    expect(reader.getRows().map((r) => r[0])).toEqual(expected);
    const objects = await parquetReadObjects({ file: toArrayBuffer(readFileSync(file)), columns: ['name'] });
    expect(objects.map((o) => o.name)).toEqual(expected);
    expect(() => new ParquetRowWriter(join(base, 'no.parquet'), [{ name: 'x', type: 'int64', nullable: false, dictionary: true }])).toThrow('only texts take a dictionary');
  });

  it('writes a dictionary text repeated across row groups into each row group\'s dictionary', async () => {
    const file = join(base, 'dictionary-runs.parquet');
    const writer = new ParquetRowWriter(file, [{ name: 'n', type: 'int32', nullable: false }, { name: 'member', type: 'text', nullable: true, dictionary: true }], 3);
    // The row before a row group's first row gave the same text (the writer skips the lookup for
    // a text equal to the row before's): each row group's dictionary must still hold it.
    const expected = ['elements', 'elements', 'elements', 'elements', 'tag', 'elements', null, 'tag', 'tag', 'tag', 'elements', 'tag', 'tag'];
    expected.forEach((name, i) => {
      writer.appendInteger(i);
      if (name === null) writer.appendNull();
      else writer.appendVarchar(name);
      writer.endRow();
    });
    expect(writer.closeSync()).toBe(expected.length);
    const reader = await memory.connection.runAndReadAll(`SELECT member FROM read_parquet('${file}') ORDER BY n`);
    expect(reader.getRows().map((r) => r[0])).toEqual(expected);
    const objects = await parquetReadObjects({ file: toArrayBuffer(readFileSync(file)), columns: ['member'] });
    expect(objects.map((o) => o.member)).toEqual(expected);
  });

  it('ends a row group early once its texts reach ROW_GROUP_TEXT_BYTES (a page size is an i32), reading back every text exactly', async () => {
    const file = join(base, 'long-texts.parquet');
    const writer = new ParquetRowWriter(file, [{ name: 'n', type: 'int32', nullable: false }, { name: 't', type: 'text', nullable: true }]);
    // 3 MiB texts (as a nested list's JSON may be): 30 of them are past the bound of one row group.
    const texts = Array.from({ length: 30 }, (_v, i) => (i === 7 ? null : `${i}-`.padEnd(3 * 1024 * 1024 + i, i % 2 === 0 ? 'x' : 'é')));
    texts.forEach((t, i) => {
      writer.appendInteger(i);
      if (t === null) writer.appendNull();
      else writer.appendVarchar(t);
      writer.endRow();
    });
    expect(writer.closeSync()).toBe(30);
    const reader = await memory.connection.runAndReadAll(`SELECT md5(t) FROM read_parquet('${file}') ORDER BY n`);
    expect(reader.getRows().map((r) => r[0])).toEqual(texts.map((t) => (t === null ? null : createHash('md5').update(t).digest('hex'))));
    const groups = parquetMetadata(toArrayBuffer(readFileSync(file))).row_groups;
    // Each row group ends with the row whose text reaches the bound (the last with the last row).
    const bytes = texts.map((t) => (t === null ? 0 : 4 + Buffer.byteLength(t)));
    const ends: number[] = [];
    let held = 0;
    bytes.forEach((b, i) => {
      held += b;
      if (held >= ROW_GROUP_TEXT_BYTES || i === bytes.length - 1) {
        ends.push(i + 1);
        held = 0;
      }
    });
    expect(ends.length).toBeGreaterThan(1);
    expect(groups.map((g) => Number(g.num_rows))).toEqual(ends.map((end, i) => end - (i === 0 ? 0 : ends[i - 1]!)));
  });

  it('writes an empty table DuckDB reads as one with the same columns', async () => {
    const file = join(base, 'empty.parquet');
    expect(new ParquetRowWriter(file, COLUMNS).closeSync()).toBe(0);
    const reader = await memory.connection.runAndReadAll(`SELECT count(*) FROM read_parquet('${file}')`);
    expect(reader.getRows()).toEqual([[0n]]);
    const described = await memory.connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    expect(described.getRows().map((r) => r[0])).toEqual(COLUMNS.map((c) => c.name));
  });

  it('refuses a value of another type, a NULL where none is allowed, a short row, and an existing file', () => {
    const file = join(base, 'refused.parquet');
    const writer = new ParquetRowWriter(file, COLUMNS);
    expect(() => writer.appendVarchar('not an id')).toThrow('column owner is int64, not text');
    writer.abort();
    const second = new ParquetRowWriter(join(base, 'refused-2.parquet'), COLUMNS);
    expect(() => second.appendNull()).toThrow('column owner takes no NULL');
    second.abort();
    const third = new ParquetRowWriter(join(base, 'refused-3.parquet'), COLUMNS);
    third.appendBigInt(1n);
    expect(() => third.endRow()).toThrow('a row of 1 values for a table of 5 columns');
    third.abort();
    writeFileSync(join(base, 'there.parquet'), '');
    expect(() => new ParquetRowWriter(join(base, 'there.parquet'), COLUMNS)).toThrow(/EEXIST/);
    expect(() => new ParquetRowWriter(join(base, 'bad.parquet'), COLUMNS, Number.NaN)).toThrow('rows per row group must be 1 to');
    expect(existsSync(join(base, 'bad.parquet'))).toBe(false);
  });

  it('names its file when a write fails (past a file size limit: EFBIG, as a full disk gives ENOSPC)', () => {
    const file = join(base, 'too-large.parquet');
    // A process of its own under `ulimit -f`: Node ignores SIGXFSZ, so the write past it fails.
    const script = `const { ParquetRowWriter } = await import(${JSON.stringify(sourceModule('src/sql/tables/parquet-rows.ts'))});
const writer = new ParquetRowWriter(process.argv[1], [{ name: 't', type: 'text', nullable: false }], 1000);
try { for (let i = 0; i < 5000; i++) { writer.appendVarchar('x'.repeat(100)); writer.endRow(); } writer.closeSync(); } catch (error) { writer.abort(); console.log(error.message); }`;
    const run = spawnSync('sh', ['-c', 'ulimit -f 64; exec "$0" "$@"', process.execPath, ...nodeImports(), '--input-type=module', '-e', script, file], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    // The limit is in blocks of 512 or 1024 bytes, as the shell counts them.
    const [, at] = /^writing .+ at byte (\d+): EFBIG: file too large, write$/.exec(run.stdout.trim()) ?? [];
    expect(run.stdout.trim()).toBe(`writing ${file} at byte ${at}: EFBIG: file too large, write`);
    expect([32768, 65536]).toContain(Number(at));
  });
});

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
