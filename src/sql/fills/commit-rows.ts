import type { DuckDBConnection } from '@duckdb/node-api';
import { commitLogOf } from '../../storage/history/commit-log.js';
import type { CommitHistory } from '../../storage/history/commit-history.js';
import type { Storage } from '../../storage/storage.js';
import { ChunkAppender, inOneTransaction } from '../tables/chunk-appender.js';
import type { DuckModule } from '../duck-module.js';

/**
 * `_commits`: a row per commit of the storage (storage/history/commit-log.ts), filled when a
 * statement first names it; and the commit of each current record for `_objects.commit_timestamp`
 * (`RecordCommits`), so that "what did last night's batch touch" is a join or a filter.
 */

export const COMMITS_TABLE = `CREATE TABLE _commits ("number" INTEGER, "timestamp" BIGINT, "time" TIMESTAMP, channels INTEGER, bytes BIGINT, objects BIGINT, new_objects BIGINT, updated_objects BIGINT, types INTEGER, complete BOOLEAN);`;

export async function buildCommitsTable(duck: DuckModule, connection: DuckDBConnection, storage: Storage): Promise<void> {
  const log = await commitLogOf(storage);
  await inOneTransaction(connection, async () => {
    const rows = new ChunkAppender(duck, await connection.createAppender('_commits'));
    try {
      for (let n = 1; n <= log.size; n++) {
        const s = log.summary(n);
        rows.appendInteger(n);
        rows.appendBigInt(s.commit.timestamp);
        rows.appendTimestamp(BigInt(s.commit.time) * 1000n);
        rows.appendInteger(s.commit.parts.filter((p) => p.to > p.from).length);
        rows.appendBigIntNumber(s.bytes);
        rows.appendBigIntNumber(s.objects);
        rows.appendBigIntNumber(s.newObjects);
        rows.appendBigIntNumber(s.updatedObjects);
        rows.appendInteger(s.types.length);
        rows.appendBoolean(s.complete);
        rows.endRow();
      }
    } finally {
      rows.closeSync();
    }
  });
}

/**
 * The commit timestamp of a record at a place of a data file, as two 32-bit halves (the appender
 * takes them without a bigint per row): housekeeping copies are traced back to the commit that
 * wrote the original; 0 when no commit covers the bytes.
 */
export class RecordCommits {
  private readonly low: Int32Array;
  private readonly high: Int32Array;
  private readonly fileNumbers = new Map<string, bigint>();

  constructor(
    private readonly history: CommitHistory,
    storage: Storage,
  ) {
    this.low = new Int32Array(history.size + 1);
    this.high = new Int32Array(history.size + 1);
    for (let n = 1; n <= history.size; n++) {
      const t = history.timestampOf(n);
      this.low[n] = Number(BigInt.asIntN(32, t));
      this.high[n] = Number(t >> 32n);
    }
    for (const channel of storage.channels) for (const file of channel.files) this.fileNumbers.set(file.path, file.fileNumber);
  }

  private lastFile = '';
  private lastNumber: bigint | undefined;
  /** The bytes of `lastFile` one store wrote (commit-history.ts `commitNumberAndSpan`), and its commit number. */
  private readonly span = new Float64Array(2);
  private spanNumber = 0;

  /** The commit number (from 1) of the record, 0 when unknown. */
  numberOf(channel: number, file: string, offset: number): number {
    // Records come file by file: the file's number is looked up once per file, not per row.
    if (file !== this.lastFile) {
      this.lastFile = file;
      this.lastNumber = this.fileNumbers.get(file);
      this.span[1] = 0;
    }
    const fileNumber = this.lastNumber;
    if (fileNumber === undefined) return 0;
    // In file order most records lie in the store range of the record before: the log is searched
    // once per range (thousands at 10M objects), not once per record (a CPU profile of a 10M
    // export gave the search about 1 s of the JavaScript thread).
    const span = this.span;
    if (offset >= span[0]! && offset < span[1]!) return this.spanNumber;
    return (this.spanNumber = Math.abs(this.history.commitNumberAndSpan(channel, fileNumber, offset, span)));
  }

  append(rows: Pick<ChunkAppender, 'appendNull' | 'appendBigIntHalves'>, n: number): void {
    if (n === 0) rows.appendNull();
    else rows.appendBigIntHalves(this.low[n]!, this.high[n]!);
  }
}
