import { parseTransactionLog, type LogEntry } from '../../format/transaction-log.js';
import type { SourceReads } from '../source/source.js';

/**
 * Reads a transaction log entry by entry in bounded chunks (a long-lived storage's log holds an
 * entry per store and channel: millions of entries), up to `limit` bytes or the end of the file,
 * through the source's sequential chunks. An incomplete last entry is not delivered; its offset is
 * returned.
 */

export interface LogStreamResult {
  /** Bytes of complete entries read. */
  readonly end: number;
  readonly incompleteTailOffset: number | undefined;
}

export async function forEachLogEntry(reads: SourceReads, path: string, limit: number, visit: (entry: LogEntry) => void): Promise<LogStreamResult> {
  let position = 0;
  let carry = Buffer.alloc(0);
  let tail: number | undefined;
  for await (const piece of reads.chunks(path, 0, limit)) {
    // A chunk is valid only until the next one is asked for: what is kept (the carry) is copied.
    const chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const base = position - carry.length;
    const parsed = parseTransactionLog(bytes, path, base);
    for (const entry of parsed.entries) visit(entry);
    position += chunk.length;
    tail = parsed.incompleteTailOffset;
    carry = tail === undefined ? Buffer.alloc(0) : Buffer.from(bytes.subarray(tail - base));
  }
  return { end: position - carry.length, incompleteTailOffset: tail };
}
