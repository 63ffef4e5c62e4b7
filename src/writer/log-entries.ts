/**
 * Encoding transaction log entries (storage-format.md §6.1): a 1-byte length, a 1-byte type,
 * the timestamp, the file length and, by type, the file number and a special offset.
 */

export const CREATION_ENTRY_LENGTH = 26;
export const STORE_ENTRY_LENGTH = 18;
export const TRANSFER_ENTRY_LENGTH = 34;
export const TRUNCATION_ENTRY_LENGTH = 34;
export const DELETION_ENTRY_LENGTH = 26;

function entry(length: number, type: number, timestamp: bigint, fileLength: number, fileNumber?: bigint, special?: number): Buffer {
  const bytes = Buffer.alloc(length);
  bytes.writeInt8(length, 0);
  bytes.writeUInt8(type, 1);
  bytes.writeBigInt64LE(timestamp, 2);
  bytes.writeBigInt64LE(BigInt(fileLength), 10);
  if (fileNumber !== undefined) bytes.writeBigInt64LE(fileNumber, 18);
  if (special !== undefined) bytes.writeBigInt64LE(BigInt(special), 26);
  return bytes;
}

/** A new data file was created with `fileLength` bytes (0 during operation). */
export function creationEntry(timestamp: bigint, fileLength: number, fileNumber: bigint): Buffer {
  return entry(CREATION_ENTRY_LENGTH, 0, timestamp, fileLength, fileNumber);
}

/** A store: the head file's new total length. */
export function storeEntry(timestamp: bigint, headLength: number): Buffer {
  return entry(STORE_ENTRY_LENGTH, 1, timestamp, headLength);
}

/** A cleanup copy of a run of records from `sourceFile` at `sourceOffset` to the head file. */
export function transferEntry(timestamp: bigint, headLength: number, sourceFile: bigint, sourceOffset: number): Buffer {
  return entry(TRANSFER_ENTRY_LENGTH, 2, timestamp, headLength, sourceFile, sourceOffset);
}

/** The head file `fileNumber` was cut from `oldLength` to `newLength` bytes. */
export function truncationEntry(timestamp: bigint, newLength: number, fileNumber: bigint, oldLength: number): Buffer {
  return entry(TRUNCATION_ENTRY_LENGTH, 3, timestamp, newLength, fileNumber, oldLength);
}

/** A data file of `fileLength` bytes was deleted. */
export function deletionEntry(timestamp: bigint, fileLength: number, fileNumber: bigint): Buffer {
  return entry(DELETION_ENTRY_LENGTH, 4, timestamp, fileLength, fileNumber);
}
