import { open } from 'node:fs/promises';
import { parseTransactionLog, type LogEntry } from '../format/transaction-log.js';

/**
 * Reads a transaction log entry by entry in bounded chunks (a long-lived storage's log holds an
 * entry per store and channel: millions of entries), up to `limit` bytes. An incomplete last entry
 * is not delivered; its offset is returned.
 */

const CHUNK = 1024 * 1024;

export interface LogStreamResult {
  /** Bytes of complete entries read. */
  readonly end: number;
  readonly incompleteTailOffset: number | undefined;
}

export async function forEachLogEntry(path: string, limit: number, visit: (entry: LogEntry) => void): Promise<LogStreamResult> {
  const handle = await open(path, 'r');
  try {
    let position = 0;
    let carry = Buffer.alloc(0);
    let tail: number | undefined;
    const buffer = Buffer.allocUnsafe(CHUNK);
    while (position < limit) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, limit - position), position);
      if (bytesRead === 0) break;
      const bytes = carry.length === 0 ? buffer.subarray(0, bytesRead) : Buffer.concat([carry, buffer.subarray(0, bytesRead)]);
      const base = position - carry.length;
      const parsed = parseTransactionLog(bytes, path, base);
      for (const entry of parsed.entries) visit(entry);
      position += bytesRead;
      tail = parsed.incompleteTailOffset;
      carry = tail === undefined ? Buffer.alloc(0) : Buffer.from(bytes.subarray(tail - base));
    }
    return { end: position - carry.length, incompleteTailOffset: tail };
  } finally {
    await handle.close();
  }
}
