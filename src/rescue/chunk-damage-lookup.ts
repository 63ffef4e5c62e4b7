import { isChunkDamage } from '../check/chunk-problems.js';
import type { RecordDefect } from '../check/record-defects.js';
import type { ChunkVerification } from '../storage/checksums/chunk-verification.js';

/**
 * Where EclipseStore 4.2's chunk checksums say the bytes are damaged (a checksum or chunk-boundary
 * mismatch, uncovered data): every record that lies in such a chunk counts as unreadable for
 * `rescue`, like a record that cannot be decoded, so that an older version is kept where one
 * exists and references to the others are replaced.
 */

export type DamagedAt = (file: string, offset: number) => RecordDefect | undefined;

export function chunkDamageLookup(verification: ChunkVerification): DamagedAt | undefined {
  const byFile = new Map<string, { from: number; to: number; message: string }[]>();
  for (const file of verification.files) {
    for (const anomaly of file.walk.anomalies) {
      if (!isChunkDamage(anomaly)) continue;
      const what = anomaly.kind === 'checksum-mismatch' ? 'fails its chunk checksum' : anomaly.kind === 'boundary-mismatch' ? 'lies in a chunk whose boundary does not match its checksum record' : 'lies in data no chunk checksum covers';
      const ranges = byFile.get(file.path) ?? [];
      ranges.push({ from: anomaly.chunkStart, to: anomaly.chunkEnd, message: `the record ${what} (chunk ${anomaly.chunkStart} to ${anomaly.chunkEnd} of data file #${file.fileNumber})` });
      byFile.set(file.path, ranges);
    }
  }
  if (byFile.size === 0) return undefined;
  return (file, offset) => {
    const range = byFile.get(file)?.find((r) => offset >= r.from && offset < r.to);
    return range === undefined ? undefined : { kind: 'unreadable', refusesStart: false, java: undefined, message: range.message };
  };
}
