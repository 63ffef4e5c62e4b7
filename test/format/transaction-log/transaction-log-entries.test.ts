import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/errors.js';
import { aggregateTransactionLog, applyTransactionLog, LogAggregator, parseTransactionLog, type LogEntry } from '../../../src/format/transaction-log.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * What transaction-log.ts guards, value by value (issue 48, its mutation run; transaction-log.test.ts
 * compares the two ways of reading a log with each other, which cannot catch what both share): each
 * entry type's fields and offsets (after a base offset too); the refusals of a bad entry with the code
 * FORMAT_BAD_LOG, the file and the entry's or the field's offset; a cut entry as the tail only when
 * its first two bytes are sound; and Java's consistency checks of the aggregation at their bounds
 * (file numbers rising, lengths never shrinking, truncations of the head within its length, deletions
 * of known files, timestamps rising), each with its message.
 */

const FILE = 'transactions_0.sft';
const creation = (ts: bigint, length: bigint, file: bigint) => bytes().int8(26).int8(0).int64(ts).int64(length).int64(file).build();
const store = (ts: bigint, length: bigint) => bytes().int8(18).int8(1).int64(ts).int64(length).build();
const transfer = (ts: bigint, length: bigint, file: bigint, from: bigint) => bytes().int8(34).int8(2).int64(ts).int64(length).int64(file).int64(from).build();
const truncation = (ts: bigint, length: bigint, file: bigint, old: bigint) => bytes().int8(34).int8(3).int64(ts).int64(length).int64(file).int64(old).build();
const deletion = (ts: bigint, length: bigint, file: bigint) => bytes().int8(26).int8(4).int64(ts).int64(length).int64(file).build();
function concat(...parts: Uint8Array[]): Uint8Array {
  const b = bytes();
  for (const p of parts) b.bytes(p);
  return b.build();
}

/** Code, file, offset and message of the error `run` throws. */
function refusal(run: () => unknown): { code: string; file: string | undefined; offset: number | undefined; message: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return { code: error.code, file: error.file, offset: error.offset, message: error.message };
  }
  throw new Error('no error thrown');
}

/** The same refusal from parsing the entries and from feeding the bytes to an aggregator. */
function refusedBoth(log: Uint8Array, base: number) {
  const parsed = refusal(() => parseTransactionLog(log, FILE, base));
  expect(refusal(() => applyTransactionLog(log, new LogAggregator(FILE), FILE, base))).toEqual(parsed);
  return parsed;
}

describe('parseTransactionLog: the fields of each entry type', () => {
  it('reads creation, store, transfer, truncation and deletion entries with their offsets after the base', () => {
    const log = concat(creation(5n, 0n, 3n), store(6n, 2n ** 40n + 9n), transfer(7n, 900n, 3n, 40n), truncation(8n, 700n, 3n, 900n), deletion(9n, 700n, 2n));
    const entries: LogEntry[] = [
      { type: 'creation', offset: 4096, timestamp: 5n, fileLength: 0, fileNumber: 3n },
      { type: 'store', offset: 4122, timestamp: 6n, fileLength: 2 ** 40 + 9 },
      { type: 'transfer', offset: 4140, timestamp: 7n, fileLength: 900, fileNumber: 3n, specialOffset: 40 },
      { type: 'truncation', offset: 4174, timestamp: 8n, fileLength: 700, fileNumber: 3n, specialOffset: 900 },
      { type: 'deletion', offset: 4208, timestamp: 9n, fileLength: 700, fileNumber: 2n },
    ];
    expect(parseTransactionLog(log, FILE, 4096)).toStrictEqual({ entries, incompleteTailOffset: undefined });
  });

  it('reads a length of 2^53 - 1 (the high half 0x1fffff) and refuses 2^53 and a negative one at the field', () => {
    expect(parseTransactionLog(store(1n, 2n ** 53n - 1n)).entries[0]!.fileLength).toBe(Number.MAX_SAFE_INTEGER);
    expect(refusedBoth(store(1n, 2n ** 53n), 100)).toEqual({ code: 'FORMAT_BAD_LOG', file: FILE, offset: 110, message: `${FILE} at offset 110: invalid file length 9007199254740992` });
    expect(refusedBoth(concat(store(1n, 2n), store(2n, -5n)), 0).message).toBe(`${FILE} at offset 28: invalid file length -5`);
    expect(refusal(() => parseTransactionLog(transfer(1n, 9n, 1n, -1n), FILE, 0)).message).toBe(`${FILE} at offset 26: invalid file length -1`);
  });
});

describe('parseTransactionLog and applyTransactionLog: bad entries and cut tails', () => {
  it('refuses a zero length, a gap, an unknown type and a wrong length, at the entry after the base', () => {
    const start = creation(1n, 0n, 1n);
    expect(refusedBoth(concat(start, bytes().int8(0).int8(1).build()), 10)).toEqual({ code: 'FORMAT_BAD_LOG', file: FILE, offset: 36, message: `${FILE} at offset 36: zero length transactions entry` });
    expect(refusedBoth(concat(start, bytes().int8(-20).int8(1).build()), 0).message).toBe(`${FILE} at offset 26: gap entry of 20 bytes (4.1 never writes gaps)`);
    expect(refusedBoth(concat(start, bytes().int8(-128).int8(1).build()), 0).message).toBe(`${FILE} at offset 26: gap entry of 128 bytes (4.1 never writes gaps)`);
    expect(refusedBoth(bytes().int8(18).int8(5).build(), 0).message).toBe(`${FILE} at offset 0: unknown transactions entry type 5`);
    expect(refusedBoth(bytes().int8(18).int8(255).build(), 0).message).toBe(`${FILE} at offset 0: unknown transactions entry type 255`);
    expect(refusedBoth(bytes().int8(26).int8(1).build(), 0).message).toBe(`${FILE} at offset 0: store entry has length 26, expected 18`);
    expect(refusedBoth(bytes().int8(18).int8(2).build(), 0).message).toBe(`${FILE} at offset 0: transfer entry has length 18, expected 34`);
    expect(refusal(() => parseTransactionLog(bytes().int8(0).int8(0).build())).message).toBe('offset 0: zero length transactions entry');
  });

  it('takes an entry cut by the end as the tail, one that just fits as complete, and a lone byte as the tail', () => {
    const whole = concat(creation(1n, 0n, 1n), store(2n, 24n));
    expect(parseTransactionLog(whole, FILE, 50)).toMatchObject({ incompleteTailOffset: undefined });
    expect(parseTransactionLog(whole, FILE, 50).entries).toHaveLength(2);
    expect(applyTransactionLog(whole, new LogAggregator(), FILE, 50)).toEqual({ end: 94, incompleteTailOffset: undefined });
    const cut = whole.subarray(0, 43);
    expect(parseTransactionLog(cut, FILE, 50)).toMatchObject({ incompleteTailOffset: 76 });
    expect(applyTransactionLog(cut, new LogAggregator(), FILE, 50)).toEqual({ end: 76, incompleteTailOffset: 76 });
    const lone = whole.subarray(0, 27);
    expect(parseTransactionLog(lone, FILE, 50)).toMatchObject({ incompleteTailOffset: 76 });
    expect(applyTransactionLog(lone, new LogAggregator(), FILE, 50)).toEqual({ end: 76, incompleteTailOffset: 76 });
  });

  it('refuses a cut entry whose length and type are already wrong instead of taking it as a tail', () => {
    const log = concat(creation(1n, 0n, 1n), bytes().int8(18).int8(9).int32(0).build());
    expect(refusedBoth(log, 0).message).toBe(`${FILE} at offset 26: unknown transactions entry type 9`);
  });

  it('feeds store entries to the aggregator with their offset, timestamp halves and length', () => {
    const aggregator = new LogAggregator(FILE);
    applyTransactionLog(concat(creation(1n, 0n, 1n), store(2n ** 32n + 5n, 300n), store(2n ** 33n, 400n)), aggregator, FILE, 1000);
    expect(aggregator.entryCount).toBe(3);
    expect(aggregator.snapshot()).toMatchObject({ headLatestTimestamp: 2n ** 33n, headLatestLength: 400, headLastConsistentTimestamp: 2n ** 32n + 5n, headLastConsistentLength: 300 });
    const shrinking = concat(creation(1n, 0n, 1n), store(2n, 300n), store(3n, 200n));
    expect(refusal(() => applyTransactionLog(shrinking, new LogAggregator(FILE), FILE, 1000)).message).toBe(`${FILE} at offset 1044: inconsistent file length 200 of file 1 (was 300)`);
  });
});

describe('aggregation: consistency checks at their bounds', () => {
  const aggregate = (...parts: Uint8Array[]) => aggregateTransactionLog(parseTransactionLog(concat(...parts)).entries, FILE);
  const refused = (...parts: Uint8Array[]) => refusal(() => aggregate(...parts));

  it('keeps file 0 when the next file is created, and the head with its latest and last consistent state', () => {
    const result = aggregate(creation(1n, 0n, 0n), store(2n, 100n), store(3n, 150n), creation(4n, 7n, 1n), store(5n, 20n));
    expect(result).toEqual({
      files: new Map([
        [0n, { fileNumber: 0n, length: 150, deleted: false }],
        [1n, { fileNumber: 1n, length: 20, deleted: false }],
      ]),
      headFileNumber: 1n,
      headLatestLength: 20,
      headLatestTimestamp: 5n,
      headLastConsistentLength: 7,
      headLastConsistentTimestamp: 3n,
    });
  });

  it('an empty log has no head and no files', () => {
    expect(aggregate()).toEqual({ files: new Map(), headFileNumber: undefined, headLatestLength: 0, headLatestTimestamp: 0n, headLastConsistentLength: 0, headLastConsistentTimestamp: 0n });
  });

  it('file numbers must rise: the same number twice is refused, with the offset', () => {
    expect(refused(creation(1n, 0n, 2n), creation(2n, 0n, 2n))).toEqual({ code: 'FORMAT_BAD_LOG', file: FILE, offset: 26, message: `${FILE} at offset 26: inconsistent file number order of new file 2 after 2` });
    expect(refused(creation(1n, 0n, 2n), creation(2n, 0n, 1n)).message).toBe(`${FILE} at offset 26: inconsistent file number order of new file 1 after 2`);
  });

  it('a store or transfer may keep the length, not shrink it', () => {
    expect(aggregate(creation(1n, 0n, 1n), store(2n, 50n), store(3n, 50n)).headLatestLength).toBe(50);
    expect(aggregate(creation(1n, 0n, 1n), store(2n, 50n), transfer(3n, 50n, 1n, 10n)).headLatestLength).toBe(50);
    expect(refused(creation(1n, 0n, 1n), store(2n, 50n), transfer(3n, 49n, 1n, 10n)).message).toBe(`${FILE} at offset 44: inconsistent file length 49 of file 1 (was 50)`);
    const grown = aggregate(creation(1n, 0n, 1n), store(2n, 50n), transfer(3n, 80n, 1n, 10n));
    expect([grown.headLatestLength, grown.headLastConsistentLength, grown.headLatestTimestamp]).toEqual([80, 80, 2n]);
  });

  it('a truncation must name the head file and stay within its length', () => {
    const kept = aggregate(creation(1n, 0n, 1n), store(2n, 500n), truncation(3n, 500n, 1n, 500n));
    expect([kept.headLatestLength, kept.headLastConsistentLength]).toEqual([500, 500]);
    const cut = aggregate(creation(1n, 0n, 1n), store(2n, 500n), truncation(3n, 200n, 1n, 500n));
    expect([cut.headLatestLength, cut.headLastConsistentLength]).toEqual([200, 200]);
    expect(refused(creation(1n, 0n, 1n), store(2n, 500n), truncation(3n, 501n, 1n, 500n)).message).toBe(`${FILE} at offset 44: truncation of file 1 to 501 bytes beyond its length 500`);
    expect(refused(creation(1n, 0n, 1n), truncation(3n, 0n, 3n, 0n)).message).toBe(`${FILE} at offset 26: truncation of file 3, which is not the head file 1`);
  });

  it('a deletion marks a known file deleted and keeps its length; an unknown one is refused', () => {
    const result = aggregate(creation(1n, 0n, 1n), store(2n, 64n), creation(3n, 0n, 2n), deletion(4n, 64n, 1n));
    expect(result.files.get(1n)).toEqual({ fileNumber: 1n, length: 64, deleted: true });
    expect(result.files.get(2n)).toEqual({ fileNumber: 2n, length: 0, deleted: false });
    expect(refused(creation(1n, 0n, 1n), deletion(2n, 0n, 1n)).message).toBe(`${FILE} at offset 26: no file found in entries with number 1`);
  });

  it('timestamps must rise; a repeat of the latest store is a no-op, with another length it is refused', () => {
    const repeat = aggregate(creation(1n, 0n, 1n), store(5n, 80n), store(5n, 80n));
    // A creation's own timestamp is not the file's: the last consistent state before the first store is 0.
    expect([repeat.headLatestTimestamp, repeat.headLastConsistentTimestamp, repeat.headLatestLength]).toEqual([5n, 0n, 80]);
    expect(refused(creation(1n, 0n, 1n), store(5n, 80n), store(5n, 81n)).message).toBe(`${FILE} at offset 44: inconsistent timestamp of file 1`);
    expect(refused(creation(2n ** 32n, 0n, 1n), store(2n ** 32n + 1n, 80n), store(2n ** 32n - 1n, 90n)).message).toBe(`${FILE} at offset 44: inconsistent timestamp of file 1`);
    expect(refused(creation(1n, 0n, 1n), store(2n ** 33n, 80n), store(2n ** 32n + 9n, 90n)).message).toBe(`${FILE} at offset 44: inconsistent timestamp of file 1`);
    const later = aggregate(creation(1n, 0n, 1n), store(2n ** 32n - 1n, 80n), store(2n ** 32n, 90n));
    expect([later.headLatestTimestamp, later.headLastConsistentTimestamp, later.headLastConsistentLength]).toEqual([2n ** 32n, 2n ** 32n - 1n, 80]);
  });

  it('counts every entry applied, stores included', () => {
    const aggregator = new LogAggregator(FILE);
    for (const entry of parseTransactionLog(concat(creation(1n, 0n, 1n), store(2n, 5n), store(3n, 6n), creation(4n, 0n, 2n), deletion(5n, 6n, 1n))).entries) aggregator.apply(entry);
    expect(aggregator.entryCount).toBe(5);
  });
});
