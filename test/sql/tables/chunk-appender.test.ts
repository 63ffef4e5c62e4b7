import { describe, expect, it } from 'vitest';
import { ChunkAppender } from '../../../src/sql/tables/chunk-appender.js';
import { memoryDuck } from '../memory-duck.js';

/**
 * The chunk appender writes DuckDB's vectors itself: numbers into typed arrays, validity 32 bits
 * at a time, texts of up to 12 ASCII bytes inside the 16-byte string slots, other texts and blobs
 * through the binding. Every kind of value is read back through SQL, across more than one chunk
 * (2,048 rows) and with NULLs in every column.
 */

const db = memoryDuck();

const TEXTS = [
  '',
  'a',
  'twelve bytes',
  'thirteen byte',
  'a much longer text than twelve bytes',
  'äöü',
  'Grüße',
  '日本語',
  '😀 emoji',
  'nul\u0000inside',
  'a longer text with a nul\u0000 in the middle of it',
  '\u0000',
  'tab\tand\nnewline',
];

interface Row {
  readonly id: bigint;
  readonly i: number;
  readonly s: number;
  readonly t: number;
  readonly d: number;
  readonly f: number;
  readonly b: boolean;
  readonly ts: bigint;
  readonly day: number;
  readonly tm: bigint;
  readonly text: string;
  readonly blob: Uint8Array;
}

function rowOf(n: number): Row {
  return {
    id: n % 3 === 0 ? -(2n ** 63n) + BigInt(n) : 2n ** 62n + BigInt(n) * 1_000_000_007n,
    i: n % 2 === 0 ? -2_147_483_648 + n : 2_147_483_647 - n,
    s: (n % 65_536) - 32_768,
    t: (n % 256) - 128,
    d: n / 7,
    f: 0.5 * n,
    b: n % 2 === 0,
    ts: BigInt(n) * 86_400_000_000n + 123_456n,
    day: n - 1_000,
    tm: BigInt(n % 86_400) * 1_000_000n,
    text: `${TEXTS[n % TEXTS.length]!}${n % 5 === 0 ? '' : String(n % 17)}`,
    blob: Uint8Array.from({ length: n % 40 }, (_, k) => (k * 31 + n) & 0xff),
  };
}

/** Column `c` of row `n` is NULL on a pattern that differs per column and covers whole words of the validity mask. */
function isNull(n: number, c: number): boolean {
  return (n + c) % 11 === 0 || (n >= 4_000 && n < 4_100);
}

describe('the chunk appender', () => {
  it('writes every value and every NULL of each column type, across chunks', async () => {
    await db.connection.run(
      'CREATE TABLE t (n INTEGER, id BIGINT, i INTEGER, s SMALLINT, t TINYINT, d DOUBLE, f FLOAT, b BOOLEAN, ts TIMESTAMP, day DATE, tm TIME, text VARCHAR, blob BLOB)',
    );
    const appender = new ChunkAppender(db.duck, await db.connection.createAppender('t'));
    const ROWS = 5_000;
    for (let n = 0; n < ROWS; n++) {
      const r = rowOf(n);
      appender.appendInteger(n);
      const put = [
        () => appender.appendBigInt(r.id),
        () => appender.appendInteger(r.i),
        () => appender.appendSmallInt(r.s),
        () => appender.appendTinyInt(r.t),
        () => appender.appendDouble(r.d),
        () => appender.appendFloat(r.f),
        () => appender.appendBoolean(r.b),
        () => appender.appendTimestamp(r.ts),
        () => appender.appendDate(r.day),
        () => appender.appendTime(r.tm),
        () => appender.appendVarchar(r.text),
        () => appender.appendBlob(r.blob),
      ];
      put.forEach((write, c) => (isNull(n, c) ? appender.appendNull() : write()));
      appender.endRow();
    }
    appender.closeSync();

    const reader = await db.connection.runAndReadAll(
      'SELECT n, id, i, s, t, d, f, b, epoch_us(ts), day - DATE \'1970-01-01\', epoch_us(tm), text, blob FROM t ORDER BY n',
    );
    const rows = reader.getRows();
    expect(rows.length).toBe(ROWS);
    for (const got of rows) {
      const n = got[0] as number;
      const r = rowOf(n);
      const want: unknown[] = [r.id, r.i, r.s, r.t, r.d, Math.fround(r.f), r.b, r.ts, r.day, r.tm, r.text, r.blob];
      want.forEach((value, c) => {
        const cell = got[c + 1];
        if (isNull(n, c)) {
          expect(cell, `row ${n} column ${c}`).toBeNull();
          return;
        }
        if (value instanceof Uint8Array) expect(Uint8Array.from((cell as { bytes: Uint8Array }).bytes), `row ${n} blob`).toEqual(value);
        else if (c === 8) expect(BigInt(cell as number | bigint), `row ${n} day`).toBe(BigInt(value as number));
        else expect(cell, `row ${n} column ${c}`).toEqual(value);
      });
    }
  });

  it('compares and groups short texts written into their slots like texts DuckDB wrote itself', async () => {
    await db.connection.run('CREATE TABLE texts (text VARCHAR)');
    const appender = new ChunkAppender(db.duck, await db.connection.createAppender('texts'));
    for (const text of TEXTS) {
      appender.appendVarchar(text);
      appender.endRow();
    }
    appender.closeSync();
    const reader = await db.connection.runAndReadAll(
      `SELECT count(*) FROM texts x JOIN (SELECT unnest($1::VARCHAR[]) AS text) y ON x.text = y.text`,
      [db.duck.listValue(TEXTS)],
    );
    expect(Number(reader.getRows()[0]![0])).toBe(TEXTS.length);
    const lengths = await db.connection.runAndReadAll('SELECT text, length(text), octet_length(encode(text)) FROM texts');
    for (const [text, chars, bytes] of lengths.getRows() as [string, bigint, bigint][]) {
      expect(Number(chars)).toBe([...text].length);
      expect(Number(bytes)).toBe(Buffer.byteLength(text));
    }
  });

  it('writes BIGINTs given as 32-bit halves or as safe numbers like the bigints they stand for', async () => {
    await db.connection.run('CREATE TABLE halves (n INTEGER, a BIGINT, b BIGINT)');
    const appender = new ChunkAppender(db.duck, await db.connection.createAppender('halves'));
    const ids = [0n, 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 1_000_000_000_000_000_051n, 2n ** 63n - 1n, -1n, -(2n ** 63n)];
    const numbers = [0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 123_456_789_012, Number.MAX_SAFE_INTEGER];
    const ROWS = 4_200; // more than two chunks
    for (let n = 0; n < ROWS; n++) {
      const id = ids[n % ids.length]!;
      appender.appendInteger(n);
      // The halves as the record walk reads them: the low one signed.
      appender.appendBigIntHalves(Number(BigInt.asIntN(32, id)), Number(id >> 32n));
      appender.appendBigIntNumber(numbers[n % numbers.length]!);
      appender.endRow();
    }
    appender.closeSync();
    const rows = (await db.connection.runAndReadAll('SELECT n, a, b FROM halves ORDER BY n')).getRows();
    expect(rows.length).toBe(ROWS);
    for (const [n, a, b] of rows as [number, bigint, bigint][]) {
      expect(a, `row ${n}`).toBe(ids[n % ids.length]);
      expect(b, `row ${n}`).toBe(BigInt(numbers[n % numbers.length]!));
    }
  });
});
