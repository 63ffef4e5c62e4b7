import { describe, expect, it } from 'vitest';
import { aggregateTransactionLog, applyTransactionLog, LogAggregator, parseTransactionLog } from '../../../src/format/transaction-log.js';
import { bytes } from '../../helpers/corpora/bytes.js';

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

  describe('fed to an aggregator straight from the bytes (applyTransactionLog)', () => {
    const NOW = 1_732_000_000_000_000_000n; // nanoseconds: both 32-bit halves in use
    function transfer(ts: bigint, length: bigint, file: bigint, from: bigint) {
      return bytes().int8(34).int8(2).int64(ts).int64(length).int64(file).int64(from).build();
    }
    function truncation(ts: bigint, length: bigint, file: bigint, old: bigint) {
      return bytes().int8(34).int8(3).int64(ts).int64(length).int64(file).int64(old).build();
    }
    /** What each way gives: the aggregate, entries, end and tail, or the error's message. */
    function outcome(read: () => { aggregator: LogAggregator; end: number; tail: number | undefined }): unknown {
      try {
        const { aggregator, end, tail } = read();
        return { aggregate: aggregator.snapshot(), entries: aggregator.entryCount, end, tail };
      } catch (error) {
        return (error as Error).message;
      }
    }
    function viaEntries(log: Uint8Array, base: number): unknown {
      return outcome(() => {
        const parsed = parseTransactionLog(log, 'transactions_0.sft', base);
        const aggregator = new LogAggregator('transactions_0.sft');
        for (const entry of parsed.entries) aggregator.apply(entry);
        const last = parsed.entries.at(-1);
        const end = last === undefined ? base : last.offset + { creation: 26, store: 18, transfer: 34, truncation: 34, deletion: 26 }[last.type];
        return { aggregator, end, tail: parsed.incompleteTailOffset };
      });
    }
    function viaBytes(log: Uint8Array, base: number): unknown {
      return outcome(() => {
        const aggregator = new LogAggregator('transactions_0.sft');
        const { end, incompleteTailOffset } = applyTransactionLog(log, aggregator, 'transactions_0.sft', base);
        return { aggregator, end, tail: incompleteTailOffset };
      });
    }
    const start = creation(NOW, 0n, 1n);
    const cases: [string, Uint8Array][] = [
      ['empty', new Uint8Array(0)],
      ['stores across 2^32 of the timestamp and the length', concat(start, store(NOW + 1n, 100n), store(NOW + 0xffffffffn, 2n ** 32n + 7n), store(NOW + 2n ** 32n, 2n ** 40n))],
      ['a store repeating the latest one (compacted EclipseStore logs)', concat(start, store(NOW + 5n, 80n), creation(NOW + 6n, 0n, 2n), store(NOW + 5n, 0n))],
      ['transfers, truncations, deletions', concat(start, store(NOW + 1n, 500n), transfer(NOW + 2n, 900n, 1n, 40n), truncation(NOW + 3n, 700n, 1n, 900n), creation(NOW + 4n, 0n, 2n), deletion(NOW + 5n, 700n, 1n))],
      ['an incomplete tail', concat(start, store(NOW + 1n, 24n), store(NOW + 2n, 48n).subarray(0, 11))],
      ['a lone length byte', concat(start, new Uint8Array([18]))],
      ['an earlier timestamp', concat(start, store(NOW + 9n, 24n), store(NOW + 8n, 48n))],
      ['the same timestamp, longer', concat(start, store(NOW + 9n, 24n), store(NOW + 9n, 48n))],
      ['a shrinking file', concat(start, store(NOW + 1n, 50n), store(NOW + 2n, 40n))],
      ['a length beyond 2^53', concat(start, store(NOW + 1n, 2n ** 53n))],
      ['a negative length', concat(start, store(NOW + 1n, -5n))],
      ['a negative transfer offset', concat(start, transfer(NOW + 2n, 900n, 1n, -1n))],
      ['an unknown type', concat(start, bytes().int8(18).int8(7).int64(0n).int64(0n).build())],
      ['a gap', concat(start, bytes().int8(-20).int8(1).build())],
      ['a zero length', concat(start, bytes().int8(0).int8(1).build())],
      ['a store of the wrong length', concat(start, bytes().int8(26).int8(1).int64(NOW).int64(0n).int64(0n).build())],
      ['a deletion of a file never created', concat(start, deletion(NOW + 2n, 0n, 7n))],
    ];
    it('compares timestamps and lengths by both halves', () => {
      const across = viaBytes(cases[1]![1], 0) as { aggregate: { headLatestTimestamp: bigint; headLastConsistentTimestamp: bigint; headLatestLength: number } };
      expect(across.aggregate.headLatestTimestamp).toBe(NOW + 2n ** 32n);
      expect(across.aggregate.headLastConsistentTimestamp).toBe(NOW + 0xffffffffn);
      expect(across.aggregate.headLatestLength).toBe(2 ** 40);
      expect(viaBytes(cases[6]![1], 0)).toMatch(/offset 44: inconsistent timestamp of file 1/);
      expect(viaBytes(cases[9]![1], 0)).toMatch(/offset 36: invalid file length 9007199254740992/);
    });

    for (const [name, log] of cases) {
      it(`gives what parsing entries gives: ${name}`, () => {
        for (const base of [0, 4096]) expect(viaBytes(log, base)).toEqual(viaEntries(log, base));
      });
    }

    it('gives what parsing entries gives for long random logs', () => {
      let state = 7;
      const random = (n: number): number => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return state % n;
      };
      for (let trial = 0; trial < 20; trial++) {
        const parts: Uint8Array[] = [creation(NOW, 0n, 1n)];
        let ts = NOW;
        let length = 0n;
        for (let i = 0; i < 2000; i++) {
          ts += BigInt(1 + random(3) * 2 ** 31);
          length += BigInt(random(5000));
          parts.push(random(100) === 0 ? creation(ts, (length = 0n), BigInt(2 + i)) : store(ts, length));
        }
        const log = concat(...parts);
        const got = viaBytes(log, 0) as { aggregate: { headLatestTimestamp: bigint; headLatestLength: number } };
        expect(got).toEqual(viaEntries(log, 0));
        expect([got.aggregate.headLatestTimestamp, got.aggregate.headLatestLength]).toEqual([ts, Number(length)]);
      }
    });
  });
});
