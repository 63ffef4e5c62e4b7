/**
 * Crafting what EclipseStore writes around the records (test-only): 4.2's meta records with real
 * CRC-32C chunk checksums, and transaction logs compacted the way 1.4–4.1 and 4.2 compact them
 * (rebuilt from a log's entries as those versions' cleaners describe it).
 */
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { parseTransactionLog, type LogEntry } from '../../../src/format/transaction-log.js';
import { creationEntry, deletionEntry, storeEntry } from '../../../src/writer/log-entries.js';
import { bytes } from './bytes.js';

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli), `java.util.zip.CRC32C`. */
export function crc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC32C_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** `FileHeaderV1` (46 bytes) naming CRC-32C chunk checksums, chain root zero. */
export function fileHeaderRecord(kind = 0x4667): Uint8Array {
  return bytes().int64(-46n).uint16(0x215e).uint16(0xe5a3).uint16(kind).bytes(new Uint8Array(32)).build();
}

/** A CRC-32C chunk checksum record (20 bytes) for `chunk`, which starts at `chunkStart` in its file. */
export function crc32cChunkRecord(chunkStart: number, chunk: Uint8Array): Uint8Array {
  return bytes().int64(-20n).uint16(0x215e).uint16(0x4667).int32(chunkStart).int32(crc32c(chunk) | 0).build();
}

/** A swap file as EclipseStore writes it before rewriting a log: length, CRC-32, content. */
export function compactionSwapFile(content: Uint8Array): Uint8Array {
  return bytes().int64(BigInt(content.length)).int64(BigInt(crc32(content))).bytes(content).build();
}

interface FileHistory {
  creationTs: bigint;
  creationLength: number;
  storeTs: bigint;
  storeLength: number;
  /** The file's length after its last entry (what Java's aggregator registers for it). */
  latestLength: number;
  deletionTs?: bigint;
  deletionLength?: number;
}

/** Per file, in creation order: what the cleaners keep of a log (`Collector` of 1.4–4.1). */
function histories(entries: readonly LogEntry[]): Map<bigint, FileHistory> {
  const files = new Map<bigint, FileHistory>();
  let current: FileHistory | undefined;
  for (const e of entries) {
    if (e.type === 'creation') {
      current = { creationTs: e.timestamp, creationLength: e.fileLength, storeTs: 0n, storeLength: 0, latestLength: e.fileLength };
      files.set(e.fileNumber!, current);
    } else if (e.type === 'store' || e.type === 'transfer') {
      current!.storeTs = e.timestamp;
      current!.storeLength = current!.latestLength = e.fileLength;
    } else if (e.type === 'truncation') {
      current!.storeLength = current!.latestLength = e.fileLength;
    } else if (e.type === 'deletion') {
      const file = files.get(e.fileNumber!)!;
      file.deletionTs = e.timestamp;
      file.deletionLength = e.fileLength;
    }
  }
  return files;
}

/**
 * A log compacted like EclipseStore 1.4 to 4.1 do: per still existing file a creation entry, one
 * store entry (its last store, or the log's latest timestamp when it had none) and its deletion
 * entry if it was deleted.
 */
export function compactLog141(logPath: string, exists: (fileNumber: bigint) => boolean): Buffer {
  const files = histories(parseTransactionLog(readFileSync(logPath)).entries);
  const latest = [...files.values()].reduce((max, f) => (f.storeTs > max ? f.storeTs : max), 0n);
  const parts: Buffer[] = [];
  for (const [number, f] of files) {
    if (!exists(number)) continue;
    parts.push(creationEntry(f.creationTs, f.creationLength, number));
    parts.push(storeEntry(f.storeTs > 0n ? f.storeTs : latest, f.storeLength));
    if (f.deletionTs !== undefined) parts.push(deletionEntry(f.deletionTs, f.deletionLength!, number));
  }
  return Buffer.concat(parts);
}

/**
 * A log compacted like EclipseStore 4.2 does: a creation entry with the latest length per still
 * existing file, the head's with its last consistent length followed by its (up to two) store
 * anchors, then the deletion entries.
 */
export function compactLog42(logPath: string, exists: (fileNumber: bigint) => boolean): Buffer {
  const entries = parseTransactionLog(readFileSync(logPath)).entries;
  const files = histories(entries);
  const numbers = [...files.keys()];
  const head = numbers[numbers.length - 1]!;
  // The head's anchors as Java's aggregator leaves them.
  let latestTs = 0n;
  let latestLength = 0;
  let lcTs = 0n;
  let lcLength = 0;
  for (const e of entries) {
    if (e.type === 'creation') {
      lcTs = latestTs;
      lcLength = latestLength = e.fileLength;
    } else if (e.type === 'store') {
      lcTs = latestTs;
      lcLength = latestLength;
      latestTs = e.timestamp;
      latestLength = e.fileLength;
    } else if (e.type === 'transfer' || e.type === 'truncation') {
      lcLength = latestLength = e.fileLength;
    }
  }
  const kept = numbers.filter((n) => n === head || exists(n));
  const parts: Buffer[] = [];
  for (const n of kept) if (n !== head) parts.push(creationEntry(files.get(n)!.creationTs, files.get(n)!.latestLength, n));
  parts.push(creationEntry(files.get(head)!.creationTs, lcLength, head));
  if (latestTs > 0n) {
    if (lcTs > 0n && lcTs < latestTs) parts.push(storeEntry(lcTs, lcLength));
    parts.push(storeEntry(latestTs, latestLength));
  }
  for (const n of kept) {
    const f = files.get(n)!;
    if (f.deletionTs !== undefined) parts.push(deletionEntry(f.deletionTs, f.deletionLength!, n));
  }
  return Buffer.concat(parts);
}
