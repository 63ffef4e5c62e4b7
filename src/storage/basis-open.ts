import { closeSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ChannelState } from './channel-state.js';
import { sharedCopyOf } from './index/shared-copy-index.js';
import { readChannelLogs } from './log-reader.js';
import { DirectorySource } from './source/directory-source.js';
import { openRegularFileSync } from './source/regular-file.js';
import type { SourceReader, StorageSource } from './source/source.js';
import type { StorageLayout } from './source/storage-dir.js';
import type { OpenProgress } from './storage-types.js';
import { resolveValidLengths, type ValidDataFile } from './valid-lengths.js';

/**
 * Opening a storage as the continuation of another one already open (`StorageOpenOptions.basis`): a copy
 * of storage A to which more was committed afterwards, as a diff of yesterday's backup and today's
 * copy often has. Where B holds every data file A has committed, each beginning with A's committed
 * bytes (compared byte for byte: this comparison is what makes the shortcut sound), B's state is
 * A's state followed by what B appended, and B is opened the way a follower of A takes over new
 * commits: A's index (shared until either changes it), then a refresh that reads only the appended
 * ranges and the new files. Otherwise B is opened whole, as without a basis.
 *
 * Records count in file order (the later record of an id is its latest), so the refresh gives
 * what a whole load gives only when B added after all of A's records: in each channel only A's
 * last file may have grown, and B's other files are numbered after it.
 */

/** What a storage opened on a basis continues: which of its bytes are the basis's. */
export interface BasisOpening {
  /** The basis's `generation` when this storage was opened on it (its state then). */
  readonly basisGeneration: number;
  /** Per channel, per file slot: where the bytes this storage added begin (the basis's committed length; 0 for files the basis had not). */
  readonly appendedFrom: readonly (readonly number[])[];
  /** The basis's latest records of the objects this storage stored again, taken while the shared bytes were compared. */
  readonly replaced: ReplacedRecords;
}

/** Records held at most: beyond, `ReplacedRecords.held` answers undefined (read them from the basis). */
const HELD_BYTES = 64 * 1024 * 1024;

/**
 * The basis's records that the continuation's appended records replaced (the latest record of an
 * object before the continuation stored it again), in the basis's file order (channel, file,
 * offset), copied out of the blocks the prefix comparison reads anyway: a diff needs exactly these
 * records of the basis, and reading them again cost as much CPU as reading the basis's files.
 */
export class ReplacedRecords {
  count = 0;
  /** Channel, file slot, record length (0 until taken). */
  private readonly ints: Int32Array;
  /** Offset in the file, start among the held bytes (-1: not held). */
  private readonly places: Float64Array;
  private bytes = Buffer.alloc(0);
  private heldBytes = 0;

  /** `locations`: channel, file slot, offset triples, in the basis's file order. */
  constructor(locations: readonly number[]) {
    this.count = locations.length / 3;
    this.ints = new Int32Array(this.count * 3);
    this.places = new Float64Array(this.count * 2).fill(-1);
    for (let i = 0; i < this.count; i++) {
      this.ints[i * 3] = locations[i * 3]!;
      this.ints[i * 3 + 1] = locations[i * 3 + 1]!;
      this.places[i * 2] = locations[i * 3 + 2]!;
    }
  }

  channel(i: number): number {
    return this.ints[i * 3]!;
  }

  slot(i: number): number {
    return this.ints[i * 3 + 1]!;
  }

  offset(i: number): number {
    return this.places[i * 2]!;
  }

  /** The `i`th record, whole, if it was taken and held (valid while this lives). */
  held(i: number): Buffer | undefined {
    const start = this.places[i * 2 + 1]!;
    return start < 0 ? undefined : this.bytes.subarray(start, start + this.ints[i * 3 + 2]!);
  }

  /**
   * Takes the records `[from, to)` (one file's) out of a block of that file that begins at
   * `blockStart`, a record that runs on past the block over the next blocks; returns the first
   * record the next block still has to serve.
   */
  take(from: number, to: number, block: Buffer, blockStart: number, blockLength: number): number {
    const blockEnd = blockStart + blockLength;
    let next = from;
    for (let i = from; i < to; i++) {
      const offset = this.places[i * 2]!;
      if (offset >= blockEnd) break;
      let length = this.ints[i * 3 + 2]!;
      if (length === 0 && this.places[i * 2 + 1]! < 0) {
        // Its header here, whole (one split between blocks is not taken: the diff reads it then).
        if (offset >= blockStart && offset + 8 <= blockEnd) {
          length = block.readUInt32LE(offset - blockStart);
          if (length > 0 && this.heldBytes + length <= HELD_BYTES) {
            this.ints[i * 3 + 2] = length;
            this.places[i * 2 + 1] = this.reserve(length);
          }
        }
      }
      const start = this.places[i * 2 + 1]!;
      if (start >= 0) {
        const part = Math.max(offset, blockStart);
        const end = Math.min(offset + length, blockEnd);
        if (part < end) block.copy(this.bytes, start + (part - offset), part - blockStart, end - blockStart);
        if (offset + length > blockEnd) continue; // runs on: the next block serves it too
      }
      if (next === i) next = i + 1;
    }
    return next;
  }

  private reserve(length: number): number {
    if (this.heldBytes + length > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.min(HELD_BYTES, Math.max(this.bytes.length * 2, this.heldBytes + length, 1 << 16)));
      this.bytes.copy(grown, 0, 0, this.heldBytes);
      this.bytes = grown;
    }
    const start = this.heldBytes;
    this.heldBytes += length;
    return start;
  }
}

/**
 * The basis's records replaced by the continuation's refresh, from the records it stored (the
 * refresh's change list: id halves, channel, file slot, offset, and the previous latest record's
 * slot and offset, `RECORD_WORDS` words each): those whose previous record lies in the basis's bytes.
 */
export function replacedRecords(stored: Int32Array, words: number, appendedFrom: readonly (readonly number[])[], channels: readonly ChannelState[]): ReplacedRecords {
  // Sorted by one number per record, (channel, file rank) above the offset's 32 bits: a typed
  // array's own sort, no comparator called 1.7M times for 100,000 records.
  const slotsByRank = channels.map((c) => c.files.map((f) => f.slot));
  const rank = channels.map((c) => {
    const ranks: number[] = [];
    c.files.forEach((file, i) => (ranks[file.slot] = i));
    return ranks;
  });
  const ranks = Math.max(1, ...slotsByRank.map((s) => s.length));
  if (channels.length * ranks >= 2 ** 21) return new ReplacedRecords([]); // keys past 2^53: none taken (the diff reads them itself)
  const keys = new Float64Array(stored.length / words);
  let n = 0;
  for (let at = 0; at + words <= stored.length; at += words) {
    const channel = stored[at + 2]!;
    const slot = stored[at + 5]!;
    const offset = stored[at + 6]! >>> 0;
    const basisLength = appendedFrom[channel]?.[slot];
    if (slot < 0 || basisLength === undefined || offset >= basisLength) continue;
    keys[n++] = (channel * ranks + rank[channel]![slot]!) * 2 ** 32 + offset;
  }
  const sorted = keys.subarray(0, n).sort();
  const locations = new Array<number>(3 * n);
  for (let i = 0; i < n; i++) {
    const key = sorted[i]!;
    const high = Math.floor(key / 2 ** 32);
    const channel = Math.floor(high / ranks);
    locations[i * 3] = channel;
    locations[i * 3 + 1] = slotsByRank[channel]![high - channel * ranks]!;
    locations[i * 3 + 2] = key - high * 2 ** 32;
  }
  return new ReplacedRecords(locations);
}

/** A data file of the basis and the continuation's file of the same channel and number. */
export interface SharedFile {
  readonly channel: number;
  readonly slot: number;
  readonly a: string;
  readonly b: string;
  /** The basis's committed length: the bytes both must have the same. */
  readonly length: number;
}

/**
 * Whether `layout` (B as it is now) can continue `channels` (A's files and committed lengths) as
 * the module comment says: the files both must begin with the same bytes (compared by
 * `comparePrefixes`), or why not (said by the tests, not to the user: the whole open that follows
 * gives the same state).
 */
export async function sharedFiles(
  basisSource: StorageSource,
  channels: readonly ChannelState[],
  source: StorageSource,
  reader: SourceReader,
  layout: StorageLayout,
): Promise<SharedFile[] | string> {
  if (!(basisSource instanceof DirectorySource) || !(source instanceof DirectorySource)) return 'not two directories';
  if (layout.channels.length !== channels.length) return 'another channel count';
  const logs = await readChannelLogs(layout, reader, [], () => undefined);
  const valid = resolveValidLengths(layout, logs.aggregates);
  const pairs: SharedFile[] = [];
  for (const channel of channels) {
    const files = channel.files;
    const last = files.at(-1);
    const validFiles = valid.channels[channel.index]?.files ?? [];
    const byNumber = new Map<bigint, ValidDataFile>(validFiles.map((f) => [f.fileNumber, f]));
    for (const file of files) {
      if (file.problem !== undefined) return `${file.path}: damaged`;
      const twin = byNumber.get(file.fileNumber);
      if (twin === undefined) return `${file.name}: not in the second storage`;
      if (twin.validLength < file.totalLength) return `${twin.path}: shorter`;
      if (file !== last && twin.validLength !== file.totalLength) return `${twin.path}: grown, not the last file`;
      pairs.push({ channel: channel.index, slot: file.slot, a: file.path, b: twin.path, length: file.totalLength });
    }
    for (const twin of validFiles) {
      if (!channel.fileByNumber(twin.fileNumber) && (last === undefined || twin.fileNumber <= last.fileNumber)) return `${twin.path}: a new file before the last`;
    }
  }
  return pairs;
}

/**
 * Whether every pair of files begins with the same bytes; `undefined` when they do, else which
 * differs. The basis's replaced records are taken out of the blocks read (`ReplacedRecords`).
 */
export async function comparePrefixes(pairs: readonly SharedFile[], replaced: ReplacedRecords, onProgress?: (progress: OpenProgress) => void): Promise<string | undefined> {
  // Bytes of both storages compared, as progress: the comparison reads as much as an index build.
  const bytesTotal = 2 * pairs.reduce((n, p) => n + p.length, 0);
  let bytesDone = 0;
  let next = 0;
  for (const [done, pair] of pairs.entries()) {
    // The replaced records of this file: the next ones (both in the basis's file order).
    let to = next;
    while (to < replaced.count && replaced.channel(to) === pair.channel && replaced.slot(to) === pair.slot) to++;
    if (!samePrefix(pair, replaced, next, to)) return `${pair.b}: differs from ${pair.a}`;
    next = to;
    bytesDone += 2 * pair.length;
    onProgress?.({ filesDone: done + 1, filesTotal: pairs.length, bytesDone, bytesTotal, entities: 0 });
    await nextTurn(); // one file at a time: the event loop (index threads' replies, progress) goes on between
  }
  return undefined;
}

/**
 * The basis's channels as the continuing storage starts from them: the same file slots (paths in
 * its own directory) and the basis's index, shared (the basis copies it before its next change,
 * the continuation keeps its own changes apart: shared-copy-index.ts).
 */
export function continuedChannels(channels: readonly ChannelState[], layout: StorageLayout): ChannelState[] {
  const paths = new Map(layout.channels.flatMap((c) => c.dataFiles.map((f) => [`${c.index}/${f.fileNumber}`, f.path] as const)));
  return channels.map((channel) => {
    const state = new ChannelState(channel.index, layout.channels[channel.index]!.directoryName, channels.length);
    for (const file of channel.slots) state.slots.push({ ...file, path: paths.get(`${channel.index}/${file.fileNumber}`) ?? file.path });
    state.objects = sharedCopyOf(channel.objects);
    return state;
  });
}

/** Blocks compared: read from the page cache into buffers that stay in the processor's cache. */
const BLOCK = 256 * 1024;
let blocks: [Buffer, Buffer] | undefined;

/**
 * Whether two local files begin with the same `pair.length` bytes. Synchronous reads of 256 KiB into
 * reused buffers: at 10M entities (760 MB on each side) 0.31 s of CPU against 0.40 s in the
 * sources' 8 MiB chunks, whose buffers the processor's caches do not hold (one process, measured).
 */
function samePrefix(pair: SharedFile, replaced: ReplacedRecords, from: number, to: number): boolean {
  blocks ??= [Buffer.allocUnsafeSlow(BLOCK), Buffer.allocUnsafeSlow(BLOCK)];
  const [a, b] = blocks;
  const fa = openRegularFileSync(pair.a);
  try {
    const fb = openRegularFileSync(pair.b);
    try {
      let next = from;
      for (let at = 0; at < pair.length; at += BLOCK) {
        const want = Math.min(BLOCK, pair.length - at);
        if (readFully(fa, a, want, at) !== want || readFully(fb, b, want, at) !== want) return false;
        if (a.compare(b, 0, want, 0, want) !== 0) return false;
        if (next < to) next = replaced.take(next, to, a, at, want);
      }
      return true;
    } finally {
      closeSync(fb);
    }
  } finally {
    closeSync(fa);
  }
}

function readFully(fd: number, buffer: Buffer, want: number, position: number): number {
  let filled = 0;
  while (filled < want) {
    const n = readSync(fd, buffer, filled, want - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return filled;
}
