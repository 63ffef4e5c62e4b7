import { streamRecords } from '../storage/records/record-stream.js';
import type { Storage } from '../storage/storage.js';
import type { StorageChannel } from '../storage/storage-types.js';
import type { CompareOptions, RecordCounts, RecordSide } from './compare-records.js';
import { RecordWindow } from './record-window.js';

/**
 * The diff of a storage B opened as the continuation of A (`Storage.basisOpening`: B holds A's
 * committed bytes, compared byte for byte when B was opened, and appended more): every object
 * whose latest record in B lies in A's bytes has the same latest record on both sides, so only
 * the objects whose latest record B appended are looked at, each compared with A's record of the
 * same id (changed, or unchanged when the same bytes were stored again) or added when A has no
 * such id; nothing can have been removed. The unchanged objects of the rest are counted per type
 * from A's latest records per type (`Storage.latestTypeCounts`).
 *
 * The report is the one the whole walk (compare-records.ts) gives, in the same order: the changed
 * objects in A's file order (channel, file number, offset of A's record), then the added objects
 * in B's. Memory: a few numbers per appended latest record, and B's appended records themselves
 * up to `HELD_BYTES` (read again from B beyond that).
 */

/** B's appended records kept in memory while A's side is read in A's order (the rest read again). */
const HELD_BYTES = 64 * 1024 * 1024;
const RECORD_HEADER = 24;

/** Whether the appended comparison applies to this pair (B opened on A, neither changed since). */
export function continuesA(a: Storage, b: Storage, options: CompareOptions): boolean {
  const opening = b.basisOpening;
  return !options.sameFiles && opening !== undefined && opening.basis === a && a.generation === opening.basisGeneration && a.latestTypeCounts !== undefined;
}

/** Columns of the appended latest records of B (no object per record). */
class Appended {
  count = 0;
  /** B's channel, file slot, record length; A's channel, file slot (-1: A lacks the id), record length; A's file rank. */
  ints = new Int32Array(7 * 1024);
  /** B's offset, A's offset, where B's record is held (its offset among the held bytes; -1: not held). */
  places = new Float64Array(3 * 1024);

  push(bChannel: number, bSlot: number, bOffset: number, bLength: number, held: number): number {
    if (this.count * 7 === this.ints.length) {
      const ints = new Int32Array(this.ints.length * 2);
      ints.set(this.ints);
      this.ints = ints;
      const places = new Float64Array(this.places.length * 2);
      places.set(this.places);
      this.places = places;
    }
    const i = this.count++;
    this.ints.set([bChannel, bSlot, bLength, -1, -1, 0, 0], i * 7);
    this.places[i * 3] = bOffset;
    this.places[i * 3 + 2] = held;
    return i;
  }
}

export async function compareAppended(a: Storage, b: Storage, options: CompareOptions): Promise<RecordCounts> {
  const counts: RecordCounts = { unchanged: new Map(), removed: new Map(), changed: new Map(), added: new Map(), usedBefore: new Set(), usedAfter: new Set() };
  const accepts = options.acceptsType ?? (() => true);
  const from = b.basisOpening!.appendedFrom;
  const aMask = a.channels.length - 1;
  // Each file slot of A by its place in its channel's file order.
  const rank = a.channels.map((channel) => {
    const ranks: number[] = [];
    channel.files.forEach((file, i) => (ranks[file.slot] = i));
    return ranks;
  });
  const ranges = b.channels.flatMap((channel) =>
    channel.files.map((file) => ({ channel, file, from: from[channel.index]?.[file.slot] ?? 0, to: file.problem?.offset ?? file.totalLength })).filter((r) => r.from < r.to),
  );
  const total = ranges.reduce((n, r) => n + (r.to - r.from), 0);
  let done = 0;

  // B's appended records that are B's latest, each with A's record of the same id (if any).
  const found = new Appended();
  let held = Buffer.allocUnsafe(1 << 20);
  let heldBytes = 0;
  for (const range of ranges) {
    const { channel, file } = range;
    await streamRecords(b.source, file.path, range.from, range.to, (bytes, at, offset, length) => {
      const low = bytes.readInt32LE(at + 16);
      const high = bytes.readInt32LE(at + 20);
      if (!channel.objects.isLatest(low, high, file.slot, offset)) return;
      let place = -1;
      if (heldBytes + length <= HELD_BYTES) {
        if (heldBytes + length > held.length) {
          const grown = Buffer.allocUnsafe(Math.min(HELD_BYTES, Math.max(held.length * 2, heldBytes + length)));
          held.copy(grown, 0, 0, heldBytes);
          held = grown;
        }
        bytes.copy(held, heldBytes, at, at + length);
        place = heldBytes;
        heldBytes += length;
      }
      const i = found.push(channel.index, file.slot, offset, length, place);
      const aChannel = a.channels[low & aMask]!;
      const location = aChannel.objects.get(bytes.readBigInt64LE(at + 16));
      if (location === undefined) return;
      const ints = found.ints;
      ints[i * 7 + 3] = aChannel.index;
      ints[i * 7 + 4] = location.fileSlot;
      ints[i * 7 + 5] = location.length;
      ints[i * 7 + 6] = rank[aChannel.index]![location.fileSlot]!;
      found.places[i * 3 + 1] = location.offset;
    });
    done += range.to - range.from;
    options.onProgress?.(done, total);
  }

  const ints = found.ints;
  const places = found.places;
  const order = Array.from({ length: found.count }, (_, i) => i);
  const inA = order.filter((i) => ints[i * 7 + 4]! >= 0);
  // A's file order: channel, file, offset (the whole walk finds the changes in that order).
  inA.sort((p, q) => ints[p * 7 + 3]! - ints[q * 7 + 3]! || ints[p * 7 + 6]! - ints[q * 7 + 6]! || places[p * 3 + 1]! - places[q * 3 + 1]!);
  const onlyInB = order.filter((i) => ints[i * 7 + 4]! < 0);

  const windowA = new RecordWindow(a.source);
  const windowB = new RecordWindow(b.source);
  const recordOfB = async (i: number): Promise<{ record: Buffer; file: StorageChannel['files'][number] }> => {
    const file = b.channels[ints[i * 7]!]!.fileAt(ints[i * 7 + 1]!)!;
    const place = places[i * 3 + 2]!;
    const offset = places[i * 3]!;
    const length = ints[i * 7 + 2]!;
    const record = place >= 0 ? held.subarray(place, place + length) : Buffer.from(await windowB.record(file.path, offset, length, file.totalLength));
    return { record, file };
  };

  // Objects of A stored again in B: changed, or the same bytes stored again.
  const restored = new Map<bigint, number>();
  for (const i of inA) {
    const fileA = a.channels[ints[i * 7 + 3]!]!.fileAt(ints[i * 7 + 4]!)!;
    const offsetA = places[i * 3 + 1]!;
    const lengthA = ints[i * 7 + 5]!;
    const before = windowA.peek(fileA.path, offsetA, lengthA) ?? (await windowA.record(fileA.path, offsetA, lengthA, fileA.totalLength));
    const typeA = before.readBigInt64LE(8);
    bump(restored, typeA);
    const { record: after, file: fileB } = await recordOfB(i);
    const typeB = after.readBigInt64LE(8);
    if (!accepts(typeA, 'before') && !accepts(typeB, 'after')) continue;
    counts.usedBefore.add(typeA);
    counts.usedAfter.add(typeB);
    if (after.length === before.length && after.equals(before)) {
      bump(counts.unchanged, typeA);
      continue;
    }
    bump(counts.changed, typeB);
    const change = options.onDifference({
      change: 'changed',
      objectId: before.readBigInt64LE(16),
      before: side(before, typeA, fileA.path, offsetA),
      after: side(after, typeB, fileB.path, places[i * 3]!),
    });
    if (change instanceof Promise) await change;
  }

  // Every other object of A has the same latest record in B: unchanged, counted per type.
  for (const [typeId, n] of a.latestTypeCounts!) {
    const kept = n - (restored.get(typeId) ?? 0);
    if (kept <= 0 || !accepts(typeId, 'before')) continue;
    counts.usedBefore.add(typeId);
    counts.usedAfter.add(typeId);
    counts.unchanged.set(typeId, (counts.unchanged.get(typeId) ?? 0) + kept);
  }

  // Objects A lacks, in B's file order.
  for (const i of onlyInB) {
    const { record, file } = await recordOfB(i);
    const typeId = record.readBigInt64LE(8);
    if (!accepts(typeId, 'after')) continue;
    counts.usedAfter.add(typeId);
    bump(counts.added, typeId);
    const change = options.onDifference({ change: 'added', objectId: record.readBigInt64LE(16), after: side(record, typeId, file.path, places[i * 3]!) });
    if (change instanceof Promise) await change;
  }
  return counts;
}

function bump(map: Map<bigint, number>, typeId: bigint): void {
  map.set(typeId, (map.get(typeId) ?? 0) + 1);
}

function side(record: Buffer, typeId: bigint, file: string, offset: number): RecordSide {
  if (record.length < RECORD_HEADER) throw new RangeError(`${file}: record of ${record.length} bytes at ${offset}`);
  return { typeId, record: Buffer.from(record), file, offset };
}
