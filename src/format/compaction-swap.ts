import { crc32 } from 'node:zlib';

/**
 * EclipseStore's transaction log compaction swap file (`transactions_N_compaction.swp`, from
 * 4.2): while a channel's log is rewritten in compacted form, the complete new content is first
 * written here as `[8-byte content length][8-byte CRC-32 of the content][content]` (Java's
 * `CRC32`, the same as zlib's), then the log is truncated and rewritten, then this file is
 * deleted. A complete swap file that differs from the log means the rewrite was interrupted (or
 * is under way): EclipseStore restores the log from it at its next start, so it is the channel's
 * log. An incomplete one (length or checksum wrong) means the log was never touched; EclipseStore
 * discards it.
 */

export const SWAP_HEADER_SIZE = 16;

/** The swap file's content if it is complete (length and checksum match its header), else undefined. */
export function completeSwapContent(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length < SWAP_HEADER_SIZE) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getBigInt64(0, true);
  const checksum = view.getBigInt64(8, true);
  if (length !== BigInt(bytes.length - SWAP_HEADER_SIZE)) return undefined;
  const content = bytes.subarray(SWAP_HEADER_SIZE);
  return BigInt(crc32(content)) === checksum ? content : undefined;
}
