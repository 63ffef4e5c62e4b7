import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { answerRequest, type Answer } from '../../src/http/java/java-service.js';
import type { Storage } from '../../src/storage/storage.js';

/**
 * Independent checks of written storages: walking data files record by record and Java's
 * latest-version rule (storage-format.md §5.3, §5.4) without the reader's index.
 */

export interface DataFile {
  readonly channel: number;
  readonly fileNumber: number;
  readonly path: string;
  readonly size: number;
}

export interface RawRecord {
  readonly offset: number;
  readonly length: number;
  readonly typeId: bigint;
  readonly objectId: bigint;
  /** The data file holding the record. */
  readonly path: string;
}

export function dataFiles(directory: string, channel: number): DataFile[] {
  const dir = join(directory, `channel_${channel}`);
  return readdirSync(dir)
    .map((name) => /^channel_(\d+)_(\d+)\.dat$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) === channel)
    .map((m) => {
      const path = join(dir, m[0]);
      return { channel, fileNumber: Number(m[2]), path, size: statSync(path).size };
    })
    .sort((a, b) => a.fileNumber - b.fileNumber);
}

export function channelCount(directory: string): number {
  return readdirSync(directory).filter((n) => /^channel_\d+$/.test(n)).length;
}

export function walkRecords(path: string, validLength?: number): RawRecord[] {
  const bytes = readFileSync(path);
  const end = validLength ?? bytes.length;
  const records: RawRecord[] = [];
  let pos = 0;
  while (pos < end) {
    const length = Number(bytes.readBigInt64LE(pos));
    if (length < 24 || pos + length > end) throw new Error(`${path}: bad record length ${length} at ${pos}`);
    records.push({ offset: pos, length, typeId: bytes.readBigInt64LE(pos + 8), objectId: bytes.readBigInt64LE(pos + 16), path });
    pos += length;
  }
  return records;
}

/** Per data file path: live and total bytes as Java computes them right after startup (§10.2). */
export function recomputeStatistics(directory: string): Map<string, { live: number; total: number }> {
  const result = new Map<string, { live: number; total: number }>();
  for (let c = 0; c < channelCount(directory); c++) {
    const seen = new Set<bigint>();
    for (const file of dataFiles(directory, c).reverse()) {
      let live = 0;
      const records = walkRecords(file.path);
      for (let i = records.length - 1; i >= 0; i--) {
        const r = records[i]!;
        if (!seen.has(r.objectId)) {
          seen.add(r.objectId);
          live += r.length;
        }
      }
      result.set(file.path, { live, total: file.size });
    }
  }
  return result;
}

/** Type id of the live record of every object. */
export function liveTypes(directory: string): Map<bigint, bigint> {
  const live = new Map<bigint, bigint>();
  for (let c = 0; c < channelCount(directory); c++) {
    for (const file of dataFiles(directory, c)) {
      for (const r of walkRecords(file.path)) live.set(r.objectId, r.typeId);
    }
  }
  return live;
}

export function allRecords(directory: string): RawRecord[] {
  const out: RawRecord[] = [];
  for (let c = 0; c < channelCount(directory); c++) {
    for (const file of dataFiles(directory, c)) out.push(...walkRecords(file.path));
  }
  return out;
}

export function objectIds(storage: Storage): bigint[] {
  const ids: bigint[] = [];
  for (const channel of storage.channels) {
    channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low)));
  }
  return ids.sort((a, b) => (a < b ? -1 : 1));
}

export function get(storage: Storage, path: string): Promise<Answer> {
  return answerRequest(storage, { instance: 'microstream' }, { method: 'GET', url: `/microstream/${path}`, headers: { host: 'x' } });
}

/** Every .dat and .ptd file below a directory (relative path → bytes). */
export function storageFiles(directory: string, suffixes: readonly string[] = ['.dat', '.ptd']): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const visit = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) visit(join(dir, entry.name), rel);
      else if (suffixes.some((s) => entry.name.endsWith(s))) files.set(rel, readFileSync(join(dir, entry.name)));
    }
  };
  visit(directory, '');
  return files;
}
