import type { DanglingReference } from '../check/record-findings.js';
import { RecordChecker } from '../check/record-checker.js';
import { readHeader } from '../check/record-defects.js';
import { forEachLatestRecordBytes } from '../storage/records/latest-records.js';
import { streamRecords } from '../storage/records/record-stream.js';
import type { Storage } from '../storage/storage.js';

/**
 * Second passes of `rescue`, only when newest versions are damaged: the newest older version of
 * those objects that can be read, and the objects that reference the ones that are lost.
 */

export interface OlderVersion {
  readonly record: Buffer;
  readonly typeId: bigint;
  readonly channel: number;
  readonly file: string;
  readonly offset: number;
}

/** For each of `ids`, the newest record that is not its newest version and can be read. */
export async function findOlderVersions(
  storage: Storage,
  ids: ReadonlySet<bigint>,
  onProgress?: (done: number, total: number) => void,
  /** Records that count as unreadable where they lie (in chunks that fail their checksums). */
  damagedAt?: (file: string, offset: number) => unknown,
): Promise<Map<bigint, OlderVersion>> {
  const found = new Map<bigint, OlderVersion>();
  const checker = new RecordChecker(storage.dictionary, storage.channels.length);
  const total = storage.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
  let done = 0;
  for (const channel of storage.channels) {
    for (const file of channel.files) {
      await streamRecords(storage.source, file.path, 0, file.problem?.offset ?? file.totalLength, (bytes, at, offset, length) => {
        const record = bytes.subarray(at, at + length);
        const header = readHeader(record);
        if (!ids.has(header.objectId)) return;
        if (channel.objects.isLatest(record.readInt32LE(16), record.readInt32LE(20), file.slot, offset)) return;
        if (damagedAt?.(file.path, offset) !== undefined || checker.check(bytes, at, length, channel.index, { file: file.path, offset }) !== undefined) return;
        // Files and records are walked oldest first: a later find is newer.
        found.set(header.objectId, { record: Buffer.from(record), typeId: header.typeId, channel: channel.index, file: file.path, offset });
      });
      done += file.totalLength;
      onProgress?.(done, total);
    }
  }
  return found;
}

/** References from the newest readable versions to any of `ids`. */
export async function findReferrers(storage: Storage, ids: ReadonlySet<bigint>, damagedAt?: (file: string, offset: number) => unknown): Promise<DanglingReference[]> {
  const out: DanglingReference[] = [];
  const checker = new RecordChecker(storage.dictionary, storage.channels.length);
  await forEachLatestRecordBytes(storage, (bytes, at, offset, length, channel, file) => {
    if (damagedAt?.(file.path, offset) !== undefined || checker.check(bytes, at, length, channel.index, { file: file.path, offset }) !== undefined) return;
    const typeName = checker.entry!.typeName;
    checker.forEachReference(bytes, at, (low, high) => {
      const id = (BigInt(high) << 32n) | BigInt(low >>> 0);
      if (ids.has(id)) out.push({ referrer: bytes.readBigInt64LE(at + 16), referrerType: typeName, missing: id, file: file.path, offset });
    });
  });
  return out;
}

/** A newest readable version that references any of a set of ids, with its bytes. */
export interface ReferrerRecord {
  readonly record: Buffer;
  readonly channel: number;
  readonly file: string;
  readonly offset: number;
}

/** The newest readable versions that reference any of `ids` (copies of their records). */
export async function findReferrerRecords(storage: Storage, ids: ReadonlySet<bigint>, damagedAt?: (file: string, offset: number) => unknown): Promise<ReferrerRecord[]> {
  const out: ReferrerRecord[] = [];
  const checker = new RecordChecker(storage.dictionary, storage.channels.length);
  await forEachLatestRecordBytes(storage, (bytes, at, offset, length, channel, file) => {
    if (damagedAt?.(file.path, offset) !== undefined || checker.check(bytes, at, length, channel.index, { file: file.path, offset }) !== undefined) return;
    let refers = false;
    checker.forEachReference(bytes, at, (low, high) => {
      if (!refers && ids.has((BigInt(high) << 32n) | BigInt(low >>> 0))) refers = true;
    });
    if (refers) out.push({ record: Buffer.from(bytes.subarray(at, at + length)), channel: channel.index, file: file.path, offset });
  });
  return out;
}
