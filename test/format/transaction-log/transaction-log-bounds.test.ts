import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/errors.js';
import { aggregateTransactionLog, parseTransactionLog } from '../../../src/format/transaction-log.js';
import { bytes } from '../../helpers/corpora/bytes.js';

/**
 * The bounds of transaction-log.ts that transaction-log-entries.test.ts left open (issue 48,
 * survivors of its mutation run): the error code and the offset after a base of a bad entry type
 * or length further into the log; a store with an earlier timestamp but the same length refused
 * whichever half of the timestamp is earlier; a log whose only file is file 0.
 */

const FILE = 'transactions_0.sft';
const creation = (ts: bigint, length: bigint, file: bigint) => bytes().int8(26).int8(0).int64(ts).int64(length).int64(file).build();
const store = (ts: bigint, length: bigint) => bytes().int8(18).int8(1).int64(ts).int64(length).build();
function concat(...parts: Uint8Array[]): Uint8Array {
  const b = bytes();
  for (const p of parts) b.bytes(p);
  return b.build();
}
function refusal(run: () => unknown): { code: string; offset: number | undefined; message: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return { code: error.code, offset: error.offset, message: error.message };
  }
  throw new Error('no error thrown');
}

describe('transaction log bounds', () => {
  it('an unknown type and a wrong length further into the log: FORMAT_BAD_LOG at the entry after the base', () => {
    const start = creation(1n, 0n, 1n);
    expect(refusal(() => parseTransactionLog(concat(start, bytes().int8(18).int8(7).build()), FILE, 10))).toEqual({
      code: 'FORMAT_BAD_LOG',
      offset: 36,
      message: `${FILE} at offset 36: unknown transactions entry type 7`,
    });
    expect(refusal(() => parseTransactionLog(concat(start, bytes().int8(26).int8(1).build()), FILE, 10))).toEqual({
      code: 'FORMAT_BAD_LOG',
      offset: 36,
      message: `${FILE} at offset 36: store entry has length 26, expected 18`,
    });
  });

  it('a store with an earlier timestamp and the same length is refused, the low or the high half earlier', () => {
    const aggregate = (...parts: Uint8Array[]) => () => aggregateTransactionLog(parseTransactionLog(concat(...parts)).entries, FILE);
    const lowEarlier = aggregate(creation(1n, 0n, 1n), store(2n ** 32n + 9n, 80n), store(2n ** 32n + 8n, 80n));
    expect(refusal(lowEarlier).message).toBe(`${FILE} at offset 44: inconsistent timestamp of file 1`);
    const highEarlier = aggregate(creation(1n, 0n, 1n), store(2n ** 33n + 9n, 80n), store(2n ** 32n + 9n, 80n));
    expect(refusal(highEarlier).message).toBe(`${FILE} at offset 44: inconsistent timestamp of file 1`);
  });

  it('a log whose only file is file 0 has file 0 as its head', () => {
    const result = aggregateTransactionLog(parseTransactionLog(concat(creation(1n, 0n, 0n), store(2n, 40n))).entries);
    expect(result.headFileNumber).toBe(0n);
    expect(result.files).toEqual(new Map([[0n, { fileNumber: 0n, length: 40, deleted: false }]]));
  });
});
