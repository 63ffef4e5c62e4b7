import { describe, expect, it } from 'vitest';
import { aggregateTransactionLog, parseTransactionLog } from '../../src/format/transaction-log.js';
import { bytes } from '../helpers/bytes.js';

function creation(ts: bigint, length: bigint, file: bigint) {
  return bytes().int8(26).int8(0).int64(ts).int64(length).int64(file).build();
}
function store(ts: bigint, length: bigint) {
  return bytes().int8(18).int8(1).int64(ts).int64(length).build();
}
function deletion(ts: bigint, length: bigint, file: bigint) {
  return bytes().int8(26).int8(4).int64(ts).int64(length).int64(file).build();
}
function concat(...parts: Uint8Array[]) {
  const b = bytes();
  for (const p of parts) b.bytes(p);
  return b.build();
}

describe('transaction log', () => {
  it('aggregates creations, stores and deletions like Java', () => {
    const log = concat(creation(1n, 0n, 1n), store(10n, 2552n), store(11n, 2698n), creation(12n, 0n, 2n), store(13n, 100n), deletion(14n, 2698n, 1n));
    const parsed = parseTransactionLog(log);
    expect(parsed.incompleteTailOffset).toBeUndefined();
    expect(parsed.entries.map((e) => e.type)).toEqual(['creation', 'store', 'store', 'creation', 'store', 'deletion']);
    const aggregate = aggregateTransactionLog(parsed.entries);
    expect(aggregate.headFileNumber).toBe(2n);
    expect(aggregate.files.get(1n)).toEqual({ fileNumber: 1n, length: 2698, deleted: true });
    expect(aggregate.headLatestLength).toBe(100);
    expect(aggregate.headLatestTimestamp).toBe(13n);
    expect(aggregate.headLastConsistentLength).toBe(0);
    expect(aggregate.headLastConsistentTimestamp).toBe(11n);
  });

  it('reports an incomplete last entry instead of failing', () => {
    const log = concat(creation(1n, 0n, 1n), store(10n, 24n).subarray(0, 9));
    const parsed = parseTransactionLog(log);
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.incompleteTailOffset).toBe(26);
  });

  it('rejects unknown entry types and inconsistent stores with the offset', () => {
    expect(() => parseTransactionLog(bytes().int8(18).int8(9).int64(0n).int64(0n).build(), 'transactions_0.sft')).toThrow(
      /transactions_0\.sft at offset 0: unknown transactions entry type 9/,
    );
    const shrinking = parseTransactionLog(concat(creation(1n, 0n, 1n), store(10n, 50n), store(11n, 40n)));
    expect(() => aggregateTransactionLog(shrinking.entries)).toThrow(/offset 44: inconsistent file length 40/);
    const orphanDeletion = parseTransactionLog(concat(creation(1n, 0n, 1n), deletion(2n, 0n, 7n)));
    expect(() => aggregateTransactionLog(orphanDeletion.entries)).toThrow(/no file found in entries with number 7/);
  });
});
