import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Damages made to copies of a checksummed storage, one byte in each place a chunk can hold: an
 * entity header, a payload, the stored checksum, the chunk start, a record's kind and marker, the file
 * header's chain root and algorithm selection, an empty chunk's checksum, the chain root of a
 * channel's second file. The meta records are found
 * by a walk of their own here (length, marker 0x215e, kind), not by the code under test.
 */

export const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'conformance-es42');

interface MetaRecord {
  readonly offset: number;
  readonly length: number;
  readonly kind: number;
  readonly chunkStart: number;
}

export function metaRecords(bytes: Buffer): MetaRecord[] {
  const records: MetaRecord[] = [];
  let p = 0;
  while (p + 8 <= bytes.length) {
    const length = bytes.readInt32LE(p + 4) * 4294967296 + bytes.readUInt32LE(p);
    if (length === 0) break;
    if (length < 0 && bytes.readUInt16LE(p + 8) === 0x215e) records.push({ offset: p, length: -length, kind: bytes.readUInt16LE(p + 10), chunkStart: bytes.readInt32LE(p + 12) });
    p += Math.abs(length);
  }
  return records;
}

function flip(file: string, at: number, mask = 0x01): void {
  const bytes = readFileSync(file);
  bytes[at]! ^= mask;
  writeFileSync(file, bytes);
}

/** The second chunk record of `file` that covers at least one entity (as the corpus' damages, chunk 886 of file 1). */
function fullChunk(file: string): MetaRecord {
  const chunks = metaRecords(readFileSync(file)).filter((r) => r.kind !== 0xe5a3 && r.offset > r.chunkStart);
  return chunks[1] ?? chunks[0]!;
}

export interface CraftedDamage {
  readonly name: string;
  readonly damage: (dir: string) => void;
  /** The harmless problem check reports where 4.2 starts regardless. */
  readonly warning?: string;
}

const FILE_1 = join('channel_0', 'channel_0_1.dat');
const FILE_2 = join('channel_0', 'channel_0_2.dat');

export const CRAFTED: readonly CraftedDamage[] = [
  {
    name: 'a byte of an entity header (the type id)',
    damage: (dir) => {
      const chunk = fullChunk(join(dir, FILE_1));
      flip(join(dir, FILE_1), chunk.chunkStart + 9);
    },
  },
  {
    name: 'a byte of a payload',
    damage: (dir) => {
      const chunk = fullChunk(join(dir, FILE_1));
      flip(join(dir, FILE_1), chunk.offset - 1, 0x20);
    },
  },
  { name: 'a byte of the stored checksum', damage: (dir) => flip(join(dir, FILE_1), fullChunk(join(dir, FILE_1)).offset + 16) },
  { name: 'the chunk start', damage: (dir) => flip(join(dir, FILE_1), fullChunk(join(dir, FILE_1)).offset + 12) },
  { name: "a byte of the file header's chain root", damage: (dir) => flip(join(dir, FILE_1), 14 + 5) },
  { name: "a byte of the chain root of the channel's second file (the chain broken between two files)", damage: (dir) => flip(join(dir, FILE_2), 14 + 31) },
  {
    name: "the marker of a file's last checksum record (a plain gap then: uncovered data)",
    damage: (dir) => {
      const records = metaRecords(readFileSync(join(dir, FILE_1)));
      flip(join(dir, FILE_1), records[records.length - 1]!.offset + 8);
    },
  },
  { name: "the kind of a chunk's checksum record (an unknown kind)", damage: (dir) => flip(join(dir, FILE_1), fullChunk(join(dir, FILE_1)).offset + 10), warning: 'CHUNK_NOT_VERIFIABLE' },
  { name: "the file header's algorithm selection", damage: (dir) => flip(join(dir, FILE_2), 12), warning: 'CHUNK_HEADER_SELECTION' },
  {
    name: "an empty chunk's stored checksum",
    damage: (dir) => {
      for (const file of [FILE_1, FILE_2, join('channel_0', 'channel_0_3.dat'), join('channel_1', 'channel_1_2.dat')]) {
        const empty = metaRecords(readFileSync(join(dir, file))).find((r) => r.kind !== 0xe5a3 && r.offset === r.chunkStart);
        if (empty !== undefined) return flip(join(dir, file), empty.offset + 16);
      }
      throw new Error('no empty chunk found');
    },
  },
];

/** A copy of `source` at `target` with `damage` done. */
export function damagedCopy(source: string, target: string, damage: (dir: string) => void): string {
  cpSync(source, target, { recursive: true });
  damage(target);
  return target;
}
