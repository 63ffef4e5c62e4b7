import { int32At } from '../format/int32-at.js';
import { streamRecords } from '../storage/records/record-stream.js';
import type { Storage } from '../storage/storage.js';
import type { StorageFile } from '../storage/storage-types.js';
import type { CompareOptions, RecordCounts, RecordSide } from './compare-records.js';
import { RecordWindow } from './record-window.js';
import { TwinChunks } from './twin-chunks.js';
import { TypeSet, TypeTally } from './type-tally.js';

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
 * in B's. Memory: a few numbers per appended latest record, and B's appended bytes themselves
 * where they fit in `HELD_BYTES` (beyond that, B's appended latest records up to `HELD_BYTES`,
 * the rest read again from B).
 */

/**
 * A file of A with at least one record asked for every this many bytes between the first and the
 * last is read whole in the source's sequential chunks (buffers reused); one with fewer through
 * record windows, which read only the records where they lie far apart. At 10M entities (100,000
 * changed records over 760 MB of A) the windows read all of A again in fresh 1 MiB buffers.
 */
const STREAMED_BYTES_PER_RECORD = 64 * 1024;
/** B's appended records kept in memory while A's side is read in A's order (the rest read again). */
const HELD_BYTES = 64 * 1024 * 1024;
const RECORD_HEADER = 24;
const TWO_32 = 4294967296;

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
    // Field by field: an array literal per record cost an allocation for each of B's appended records.
    const ints = this.ints;
    const at = i * 7;
    ints[at] = bChannel;
    ints[at + 1] = bSlot;
    ints[at + 2] = bLength;
    ints[at + 3] = -1;
    ints[at + 4] = -1;
    ints[at + 5] = 0;
    ints[at + 6] = 0;
    this.places[i * 3] = bOffset;
    this.places[i * 3 + 2] = held;
    return i;
  }
}

/** `heldLimit`: the bytes of B kept in memory (`HELD_BYTES`; smaller in tests, to take the streamed path). */
export async function compareAppended(a: Storage, b: Storage, options: CompareOptions, heldLimit = HELD_BYTES): Promise<RecordCounts> {
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
  // Where all of B's appended bytes fit, they are read into one buffer and the records stay where
  // they lie; beyond that, streamed and the latest records copied out (up to HELD_BYTES).
  const whole = total <= heldLimit;
  let held = Buffer.allocUnsafe(whole ? total : 1 << 20);
  let heldBytes = 0;
  const note = (range: (typeof ranges)[number], bytes: Buffer, at: number, offset: number, length: number, place: number): void => {
    const { channel, file } = range;
    const low = bytes.readInt32LE(at + 16);
    const high = bytes.readInt32LE(at + 20);
    if (!channel.objects.isLatest(low, high, file.slot, offset)) return;
    const i = found.push(channel.index, file.slot, offset, length, place);
    const aChannel = a.channels[low & aMask]!;
    // By the id's halves: `get` made a bigint, two more in its arithmetic and a location object for each of B's appended records.
    const objects = aChannel.objects;
    const slot = objects.locate(low, high);
    if (slot < 0) return;
    const ints = found.ints;
    ints[i * 7 + 3] = aChannel.index;
    ints[i * 7 + 4] = slot;
    ints[i * 7 + 5] = objects.foundLength;
    ints[i * 7 + 6] = rank[aChannel.index]![slot]!;
    found.places[i * 3 + 1] = objects.foundOffset;
  };
  for (const range of ranges) {
    if (whole) {
      const start = heldBytes;
      for await (const piece of b.source.chunks(range.file.path, range.from, range.to)) {
        const part = piece.subarray(0, Math.min(piece.byteLength, start + (range.to - range.from) - heldBytes));
        held.set(part, heldBytes);
        heldBytes += part.byteLength;
      }
      walkHeld(range, held, start, heldBytes, note);
    } else {
      await streamRecords(b.source, range.file.path, range.from, range.to, (bytes, at, offset, length) => {
        // Only B's latest records take room among the held bytes: the others are never asked for,
        // and copied they would push latest ones out (read again from B).
        if (!range.channel.objects.isLatest(int32At(bytes, at + 16), int32At(bytes, at + 20), range.file.slot, offset)) return;
        let place = -1;
        if (heldBytes + length <= heldLimit) {
          if (heldBytes + length > held.length) {
            const grown = Buffer.allocUnsafe(Math.min(heldLimit, Math.max(held.length * 2, heldBytes + length)));
            held.copy(grown, 0, 0, heldBytes);
            held = grown;
          }
          bytes.copy(held, heldBytes, at, at + length);
          place = heldBytes;
          heldBytes += length;
        }
        note(range, bytes, at, offset, length, place);
      });
    }
    done += range.to - range.from;
    options.onProgress?.(done, total);
  }

  const ints = found.ints;
  const places = found.places;
  const order = Array.from({ length: found.count }, (_, i) => i);
  // A's file order: channel, file, offset (the whole walk finds the changes in that order).
  const inA = inFileOrderOfA(order.filter((i) => ints[i * 7 + 4]! >= 0), found);
  const onlyInB = order.filter((i) => ints[i * 7 + 4]! < 0);

  // Files by channel and slot, looked up once (`fileAt` makes a copy on every call).
  const slots = (s: Storage): StorageFile[][] =>
    s.channels.map((channel) => {
      const files: StorageFile[] = [];
      for (const file of channel.files) files[file.slot] = file;
      return files;
    });
  const filesA = slots(a);
  const filesB = slots(b);
  const windowA = new RecordWindow(a.source);
  const windowB = new RecordWindow(b.source);
  // A held record without a promise: an await per changed object cost a microtask each.
  const recordOfB = (i: number): Buffer | Promise<Buffer> => {
    const place = places[i * 3 + 2]!;
    const length = ints[i * 7 + 2]!;
    if (place >= 0) return held.subarray(place, place + length);
    const file = filesB[ints[i * 7]!]![ints[i * 7 + 1]!]!;
    return windowB.record(file.path, places[i * 3]!, length, file.totalLength).then((bytes) => Buffer.from(bytes));
  };

  // Objects of A stored again in B: changed, or the same bytes stored again.
  const restored = new Map<bigint, number>();
  // A's records of these objects, mostly taken while B's opening compared the shared bytes (same order).
  const replaced = b.basisOpening!.replaced;
  let r = 0;
  const typesA = new TypeIds();
  const typesB = new TypeIds();
  // Counted a run of one type at a time: otherwise five map lookups by bigint per object.
  const restoredOf = new TypeTally(restored);
  const unchanged = new TypeTally(counts.unchanged);
  const changed = new TypeTally(counts.changed);
  const usedBefore = new TypeSet(counts.usedBefore);
  const usedAfter = new TypeSet(counts.usedAfter);
  let streamed: TwinChunks | undefined;
  let dense = false;
  let groupEnd = 0;
  try {
    for (let k = 0; k < inA.length; k++) {
      const i = inA[k]!;
      const fileA = filesA[ints[i * 7 + 3]!]![ints[i * 7 + 4]!]!;
      const offsetA = places[i * 3 + 1]!;
      const lengthA = ints[i * 7 + 5]!;
      if (k === 0 || ints[inA[k - 1]! * 7 + 3] !== ints[i * 7 + 3] || ints[inA[k - 1]! * 7 + 4] !== ints[i * 7 + 4]) {
        // The first record asked for in this file of A: how densely the file is asked decides how it is read.
        await streamed?.close();
        streamed = undefined;
        let last = k;
        while (last + 1 < inA.length && ints[inA[last + 1]! * 7 + 3] === ints[i * 7 + 3] && ints[inA[last + 1]! * 7 + 4] === ints[i * 7 + 4]) last++;
        groupEnd = places[inA[last]! * 3 + 1]! + ints[inA[last]! * 7 + 5]!;
        dense = (groupEnd - offsetA) / (last - k + 1) <= STREAMED_BYTES_PER_RECORD;
      }
      const rankA = ints[i * 7 + 6]!;
      while (r < replaced.count && (replaced.channel(r) < ints[i * 7 + 3]! || (replaced.channel(r) === ints[i * 7 + 3]! && (rank[replaced.channel(r)]![replaced.slot(r)]! < rankA || (replaced.slot(r) === ints[i * 7 + 4]! && replaced.offset(r) < offsetA))))) r++;
      const taken = r < replaced.count && replaced.channel(r) === ints[i * 7 + 3]! && replaced.slot(r) === ints[i * 7 + 4]! && replaced.offset(r) === offsetA ? replaced.held(r) : undefined;
      const held = taken?.length === lengthA ? taken : undefined;
      // Read from A only what was not taken (the file streamed from the first such record on, where it is asked densely).
      if (held === undefined && dense && streamed === undefined) streamed = new TwinChunks(a.source, fileA.path, groupEnd, offsetA);
      if (held === undefined && streamed?.behind(offsetA) === true) await streamed.advance(offsetA);
      const before =
        held ??
        streamed?.slice(offsetA, lengthA) ??
        windowA.peek(fileA.path, offsetA, lengthA) ??
        (await windowA.record(fileA.path, offsetA, lengthA, fileA.totalLength));
      const typeA = typesA.of(before);
      restoredOf.add(typeA);
      const heldOrRead = recordOfB(i);
      const after = heldOrRead instanceof Promise ? await heldOrRead : heldOrRead;
      const typeB = typesB.of(after);
      if (!accepts(typeA, 'before') && !accepts(typeB, 'after')) continue;
      usedBefore.add(typeA);
      usedAfter.add(typeB);
      if (after.length === before.length && after.equals(before)) {
        unchanged.add(typeA);
        continue;
      }
      changed.add(typeB);
      const change = options.onDifference({
        change: 'changed',
        objectId: before.readBigInt64LE(16),
        before: side(before, held !== undefined, typeA, fileA.path, offsetA),
        after: side(after, true, typeB, filesB[ints[i * 7]!]![ints[i * 7 + 1]!]!.path, places[i * 3]!),
      });
      if (change instanceof Promise) await change;
    }
  } finally {
    await streamed?.close();
  }
  restoredOf.flush();
  unchanged.flush();
  changed.flush();

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
    const heldOrRead = recordOfB(i);
    const record = heldOrRead instanceof Promise ? await heldOrRead : heldOrRead;
    const file = filesB[ints[i * 7]!]![ints[i * 7 + 1]!]!;
    const typeId = record.readBigInt64LE(8);
    if (!accepts(typeId, 'after')) continue;
    counts.usedAfter.add(typeId);
    bump(counts.added, typeId);
    const change = options.onDifference({ change: 'added', objectId: record.readBigInt64LE(16), after: side(record, true, typeId, file.path, places[i * 3]!) });
    if (change instanceof Promise) await change;
  }
  return counts;
}

/**
 * The records of one appended range of B read whole into `bytes[start, end)` (fewer bytes than
 * the range where the file ended early), walked as `streamRecords` walks them: gaps skipped, the
 * same errors for a malformed record or one the file ends inside; each record handed over where
 * it lies (its place among the held bytes), not copied.
 */
function walkHeld<R extends { readonly file: StorageFile; readonly from: number; readonly to: number }>(
  range: R,
  bytes: Buffer,
  start: number,
  end: number,
  note: (range: R, bytes: Buffer, at: number, offset: number, length: number, place: number) => void,
): void {
  const path = range.file.path;
  let at = start;
  let pos = range.from;
  while (at < end) {
    if (end - at < 8) throw new Error(`${path}: the file ends inside the record at ${pos}`);
    const length = int32At(bytes, at + 4) * TWO_32 + (int32At(bytes, at) >>> 0);
    if (length < 0) {
      pos -= length; // a gap
      at -= length;
      continue;
    }
    if (length < RECORD_HEADER || pos + length > range.to) throw new Error(`${path}: malformed record of ${length} bytes at ${pos}`);
    if (at + length > end) throw new Error(`${path}: the file ends inside the record at ${pos}`);
    note(range, bytes, at, pos, length, at);
    pos += length;
    at += length;
  }
}

/**
 * `indices` (appended records A has) sorted by A's channel, file rank and offset; a stable sort,
 * so records with equal places (only where a damaged B holds an id's latest record in two
 * channels) keep `indices`' order. (A typed-array sort of packed keys saved 8 ms of 1.7 s at 10M
 * entities and needed a search back and a fallback: not worth its lines.)
 */
function inFileOrderOfA(indices: number[], found: Appended): number[] {
  const { ints, places } = found;
  return indices.sort((p, q) => ints[p * 7 + 3]! - ints[q * 7 + 3]! || ints[p * 7 + 6]! - ints[q * 7 + 6]! || places[p * 3 + 1]! - places[q * 3 + 1]!);
}

/**
 * A record's type id, the same bigint while records of one type follow each other: Node's
 * `readBigInt64LE` makes several bigints a call, twice per changed object.
 */
class TypeIds {
  private low = 0;
  private high = 0;
  private id: bigint | undefined;

  of(record: Buffer): bigint {
    const low = record.readInt32LE(8);
    const high = record.readInt32LE(12);
    if (this.id === undefined || low !== this.low || high !== this.high) {
      this.low = low;
      this.high = high;
      this.id = record.readBigInt64LE(8);
    }
    return this.id;
  }
}

function bump(map: Map<bigint, number>, typeId: bigint): void {
  map.set(typeId, (map.get(typeId) ?? 0) + 1);
}

/**
 * `stable`: the bytes stay as they are while the diff runs (B's records held or read as a copy, A's
 * taken by B's opening), so they are not copied again; a record in a reused read buffer is.
 */
function side(record: Buffer, stable: boolean, typeId: bigint, file: string, offset: number): RecordSide {
  if (record.length < RECORD_HEADER) throw new RangeError(`${file}: record of ${record.length} bytes at ${offset}`);
  return { typeId, record: stable ? record : Buffer.from(record), file, offset };
}
