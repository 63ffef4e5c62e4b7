import { streamRecords } from '../records/record-stream.js';
import { scanStorageLayout } from '../source/storage-dir.js';
import type { Storage, StorageFile } from '../storage.js';
import { CommitHistory, type Commit } from './commit-history.js';

/**
 * Every commit of a storage with what it stored: per commit the records it wrote (read from its own
 * bytes of the data files, where they are still on disk), how many objects were new and how many
 * updated, and the types it touched. MicroStream and EclipseStore hand out object ids in
 * ascending order, so an object is new in a commit when its id is above every id an earlier
 * commit stored; the others already had a record. One walk over the commits' bytes in commit
 * order builds it, in typed arrays (nothing per entity, a few numbers per commit).
 *
 * A commit whose bytes housekeeping has deleted (or cut) is `complete: false`: what it stored is
 * unknown. The records of it that were still live then were copied by housekeeping into newer
 * files; those copies (read first, in the transfer ranges of the logs) tell the commits after it
 * which ids it had stored: an object updated later was live when housekeeping ran.
 */

export interface CommitTypeCount {
  readonly typeId: bigint;
  readonly objects: number;
}

export interface CommitSummary {
  readonly commit: Commit;
  /** Bytes the commit wrote, all channels. */
  readonly bytes: number;
  /** Its records are all still on disk (the counts below are then exact). */
  readonly complete: boolean;
  /** Records it stored (one per object), counted where on disk. */
  readonly objects: number;
  readonly newObjects: number;
  readonly updatedObjects: number;
  readonly types: readonly CommitTypeCount[];
}

/** Where a commit's record lies, for those who walk a commit's records again. */
export interface CommitRecord {
  readonly channel: number;
  readonly file: StorageFile;
  readonly offset: number;
  readonly length: number;
  readonly objectId: bigint;
  readonly typeId: bigint;
  /** No earlier commit stored this id. */
  readonly isNew: boolean;
}

class Stop extends Error {}

export class CommitLog {
  private constructor(
    readonly history: CommitHistory,
    private readonly storage: Storage,
    private readonly records: Float64Array,
    private readonly newRecords: Float64Array,
    private readonly complete: Uint8Array,
    /** Highest object id stored by the commits before each one (-1: none). */
    private readonly maxBefore: BigInt64Array,
    private readonly typeStart: Int32Array,
    private readonly typeIds: BigInt64Array,
    private readonly typeCounts: Float64Array,
  ) {}

  static async read(storage: Storage, onProgress?: (done: number, total: number) => void): Promise<CommitLog> {
    const history = await storage.source.snapshot(async (reader) => CommitHistory.read(await scanStorageLayout(reader, storage.source.location), reader));
    const n = history.size;
    const records = new Float64Array(n);
    const newRecords = new Float64Array(n);
    const complete = new Uint8Array(n);
    const maxBefore = new BigInt64Array(n);
    const typeStart = new Int32Array(n + 1);
    let typeIds = new BigInt64Array(Math.max(16, n));
    let typeCounts = new Float64Array(typeIds.length);
    let typeTop = 0;
    let maxHigh = -1;
    let maxLow = 0;
    const files = fileTables(storage);
    let total = 0;
    for (const commit of history.commits()) for (const p of commit.parts) total += p.to - p.from;
    let done = 0;
    let sinceYield = 0;
    // The highest id of each commit's records that housekeeping copied: for commits whose own
    // bytes are gone, what tells the commits after them which ids were stored already.
    const copiedHigh = new Int32Array(n).fill(-1);
    const copiedLow = new Uint32Array(n);
    for (const channel of storage.channels) {
      for (const range of history.transferRanges(channel.index)) {
        const file = files[channel.index]?.get(range.fileNumber);
        if (file === undefined) continue;
        const to = Math.min(range.to, file.problem?.offset ?? file.totalLength);
        if (to <= range.from) continue;
        await streamRecords(storage.source, file.path, range.from, to, (bytes, at, offset) => {
          const k = Math.abs(history.commitNumberOf(channel.index, range.fileNumber, offset)) - 1;
          if (k < 0) return;
          const low = bytes.readUInt32LE(at + 16);
          const high = bytes.readInt32LE(at + 20);
          if (high > copiedHigh[k]! || (high === copiedHigh[k]! && low > copiedLow[k]!)) {
            copiedHigh[k] = high;
            copiedLow[k] = low;
          }
        });
      }
    }
    for (let k = 0; k < n; k++) {
      const commit = history.commit(k + 1);
      maxBefore[k] = maxHigh < 0 ? -1n : (BigInt(maxHigh) << 32n) | BigInt(maxLow);
      const beforeHigh = maxHigh;
      const beforeLow = maxLow;
      let whole = true;
      let count = 0;
      let fresh = 0;
      // Per type: ids below 2^32 by a number (no bigint per record), others by their bigint.
      const smallTypes = new Map<number, number>();
      const types = new Map<bigint, number>();
      for (const part of commit.parts) {
        if (part.to <= part.from) continue;
        const file = files[part.channel]?.get(part.fileNumber);
        if (file === undefined || (file.problem?.offset ?? file.totalLength) < part.to) {
          whole = false;
          continue;
        }
        await walkPart(storage, file, part.from, part.to, (bytes, at) => {
          const low = bytes.readUInt32LE(at + 16);
          const high = bytes.readInt32LE(at + 20);
          count++;
          if (high > beforeHigh || (high === beforeHigh && low > beforeLow)) fresh++;
          if (high > maxHigh || (high === maxHigh && low > maxLow)) {
            maxHigh = high;
            maxLow = low;
          }
          if (bytes.readInt32LE(at + 12) === 0) {
            const typeLow = bytes.readUInt32LE(at + 8);
            smallTypes.set(typeLow, (smallTypes.get(typeLow) ?? 0) + 1);
          } else {
            const typeId = bytes.readBigInt64LE(at + 8);
            types.set(typeId, (types.get(typeId) ?? 0) + 1);
          }
        });
        done += part.to - part.from;
        sinceYield += part.to - part.from;
        if (sinceYield >= YIELD_BYTES) {
          // The walk reads small parts synchronously: let the server answer others meanwhile.
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        onProgress?.(done, total);
      }
      for (const [typeLow, objects] of smallTypes) types.set(BigInt(typeLow), objects);
      const ch = copiedHigh[k]!;
      const cl = copiedLow[k]!;
      if (ch > maxHigh || (ch === maxHigh && cl > maxLow)) {
        maxHigh = ch;
        maxLow = cl;
      }
      records[k] = count;
      newRecords[k] = fresh;
      complete[k] = whole ? 1 : 0;
      if (typeTop + types.size > typeIds.length) {
        const grown = new BigInt64Array(Math.max(typeIds.length * 2, typeTop + types.size));
        grown.set(typeIds);
        typeIds = grown;
        const counts = new Float64Array(grown.length);
        counts.set(typeCounts);
        typeCounts = counts;
      }
      for (const [typeId, objects] of types) {
        typeIds[typeTop] = typeId;
        typeCounts[typeTop] = objects;
        typeTop++;
      }
      typeStart[k + 1] = typeTop;
    }
    return new CommitLog(history, storage, records, newRecords, complete, maxBefore, typeStart, typeIds, typeCounts);
  }

  get size(): number {
    return this.history.size;
  }

  /** Commit number `n` (from 1) with what it stored. */
  summary(n: number): CommitSummary {
    const commit = this.history.commit(n);
    const k = n - 1;
    const types: CommitTypeCount[] = [];
    for (let i = this.typeStart[k]!; i < this.typeStart[k + 1]!; i++) types.push({ typeId: this.typeIds[i]!, objects: this.typeCounts[i]! });
    types.sort((a, b) => b.objects - a.objects || (a.typeId < b.typeId ? -1 : 1));
    const objects = this.records[k]!;
    const newObjects = this.newRecords[k]!;
    return {
      commit,
      bytes: commit.parts.reduce((sum, p) => sum + Math.max(0, p.to - p.from), 0),
      complete: this.complete[k] === 1,
      objects,
      newObjects,
      updatedObjects: objects - newObjects,
      types,
    };
  }

  /**
   * The records commit `n` stored, `offset` on, at most `limit` (in channel and file order); stops
   * reading once the page is full.
   */
  async recordsOf(n: number, offset: number, limit: number): Promise<CommitRecord[]> {
    const commit = this.history.commit(n);
    const maxBefore = this.maxBefore[n - 1]!;
    const files = fileTables(this.storage);
    const out: CommitRecord[] = [];
    let seen = 0;
    try {
      for (const part of commit.parts) {
        if (part.to <= part.from) continue;
        const file = files[part.channel]?.get(part.fileNumber);
        if (file === undefined || (file.problem?.offset ?? file.totalLength) < part.to) continue;
        await streamRecords(this.storage.source, file.path, part.from, part.to, (bytes, at, position, length) => {
          if (seen++ < offset) return;
          if (out.length >= limit) throw new Stop();
          const objectId = bytes.readBigInt64LE(at + 16);
          out.push({ channel: part.channel, file, offset: position, length, objectId, typeId: bytes.readBigInt64LE(at + 8), isNew: objectId > maxBefore });
        });
      }
    } catch (error) {
      if (!(error instanceof Stop)) throw error;
    }
    return out;
  }
}

/** A part of a commit at most this large is read at once (through the source's kept descriptors); larger ones are streamed. */
const WHOLE_PART_BYTES = 4 * 1024 * 1024;
/** Bytes walked between two turns of the event loop. */
const YIELD_BYTES = 16 * 1024 * 1024;
const TWO_32 = 4294967296;

/**
 * The records of `[from, to)` of a data file in file order: a small part (most commits are) in
 * one read through the source's pooled descriptors — streaming opened and closed the file for
 * every part, 10,000 times for the 2,400 commits of a 10M storage — a large one streamed.
 */
async function walkPart(storage: Storage, file: StorageFile, from: number, to: number, visit: (bytes: Buffer, at: number) => void): Promise<void> {
  if (to - from > WHOLE_PART_BYTES) return streamRecords(storage.source, file.path, from, to, (bytes, at) => visit(bytes, at));
  const bytes = await storage.source.read(file.path, from, to - from, file.totalLength);
  let at = 0;
  while (at < bytes.length) {
    if (bytes.length - at < 8) throw new Error(`${file.path}: the commit's bytes end inside a record header at ${from + at}`);
    const length = bytes.readInt32LE(at + 4) * TWO_32 + bytes.readUInt32LE(at);
    if (length < 0) {
      at -= length; // a gap
      continue;
    }
    if (length < 24 || at + length > bytes.length) throw new Error(`${file.path}: malformed record of ${length} bytes at ${from + at}`);
    visit(bytes, at);
    at += length;
  }
}

function fileTables(storage: Storage): Map<bigint, StorageFile>[] {
  return storage.channels.map((c) => new Map(c.files.map((f) => [f.fileNumber, f])));
}

const logs = new WeakMap<Storage, { readonly generation: number; readonly log: Promise<CommitLog> }>();

/** The commit log of a storage's current state, read once per state (shared by every caller). */
export function commitLogOf(storage: Storage): Promise<CommitLog> {
  const cached = logs.get(storage);
  if (cached !== undefined && cached.generation === storage.generation) return cached.log;
  const log = CommitLog.read(storage);
  logs.set(storage, { generation: storage.generation, log });
  // A failed read is not kept: the next caller tries again.
  log.catch(() => {
    if (logs.get(storage)?.log === log) logs.delete(storage);
  });
  return log;
}
