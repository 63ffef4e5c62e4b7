/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of `java.util.zip.CRC32`.
 * EclipseStore guards its transaction log compaction swap file with it. (`zlib.crc32` would do,
 * but only from Node 20.15 on; this runs on 20.11 too.)
 */

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes` as an unsigned 32-bit number (Java's `CRC32.getValue()`). */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
