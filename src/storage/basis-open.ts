import { setImmediate as nextTurn } from 'node:timers/promises';
import { ChannelState } from './channel-state.js';
import type { IndexWorkerPool } from './index/index-workers.js';
import { sharedCopyOf } from './index/shared-copy-index.js';
import { readChannelLogs } from './log-reader.js';
import { DirectorySource } from './source/directory-source.js';
import { samePrefix, TakenRecords } from './source/prefix-compare.js';
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

/** Records held at most, over all files: beyond, `ReplacedRecords.held` answers undefined (read them from the basis). */
const HELD_BYTES = 64 * 1024 * 1024;

/**
 * The basis's records that the continuation's appended records replaced (the latest record of an
 * object before the continuation stored it again), in the basis's file order (channel, file,
 * offset), copied out of the blocks the prefix comparison reads anyway (`TakenRecords`, one per
 * file, taken by the thread that compared it): a diff needs exactly these records of the basis,
 * and reading them again cost as much CPU as reading the basis's files.
 */
export class ReplacedRecords {
  readonly count: number;
  /** Channel, file slot. */
  private readonly ints: Int32Array;
  private readonly offsets: Float64Array;
  /** Each record's file part (an index into `parts`), -1 until its file was compared. */
  private readonly partOf: Int32Array;
  private readonly parts: TakenRecords[] = [];
  private readonly partFrom: number[] = [];
  private heldTotal = 0;

  /** `locations`: channel, file slot, offset triples, in the basis's file order. */
  constructor(locations: readonly number[]) {
    this.count = locations.length / 3;
    this.ints = new Int32Array(this.count * 2);
    this.offsets = new Float64Array(this.count);
    this.partOf = new Int32Array(this.count).fill(-1);
    for (let i = 0; i < this.count; i++) {
      this.ints[i * 2] = locations[i * 3]!;
      this.ints[i * 2 + 1] = locations[i * 3 + 1]!;
      this.offsets[i] = locations[i * 3 + 2]!;
    }
  }

  channel(i: number): number {
    return this.ints[i * 2]!;
  }

  slot(i: number): number {
    return this.ints[i * 2 + 1]!;
  }

  offset(i: number): number {
    return this.offsets[i]!;
  }

  /** The `i`th record, whole, if it was taken and held (valid while this lives). */
  held(i: number): Buffer | undefined {
    const part = this.partOf[i]!;
    return part < 0 ? undefined : this.parts[part]!.held(i - this.partFrom[part]!);
  }

  /** Bytes held so far. */
  get heldBytes(): number {
    return this.heldTotal;
  }

  /** Bytes a file's taking may still hold (what the files adopted so far left of the limit). */
  get budget(): number {
    return HELD_BYTES - this.heldTotal;
  }

  /** The records `[from, to)` (one file's): a taking of them, with the budget left. */
  taking(from: number, to: number): TakenRecords {
    return new TakenRecords(this.offsetsOf(from, to), this.budget);
  }

  /** The offsets of the records `[from, to)`, in an array of their own (to hand to another thread). */
  offsetsOf(from: number, to: number): Float64Array {
    return this.offsets.slice(from, to);
  }

  /**
   * Keeps a file's taken records (`from` on), adopted in file order: records past the limit over
   * all files are forgotten, as a taking in one thread over every file in turn would not hold them.
   */
  adopt(from: number, taken: TakenRecords): void {
    const part = this.parts.length;
    this.parts.push(taken);
    this.partFrom.push(from);
    for (let i = 0; i < taken.count; i++) {
      const length = taken.heldLength(i);
      if (length < 0) continue;
      if (this.heldTotal + length > HELD_BYTES) taken.drop(i);
      else this.heldTotal += length;
    }
    this.partOf.fill(part, from, from + taken.count);
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
 * differs (the first such pair in order, as one thread comparing them in turn finds it). The
 * basis's replaced records are taken out of the blocks read (`ReplacedRecords`). With `threads`
 * (the index threads, idle while the continuation is opened) the files are compared there, a file
 * per thread at a time, so that the two copies out of the page cache and the comparisons run on
 * as many cores; otherwise here, one file at a time.
 */
export async function comparePrefixes(
  pairs: readonly SharedFile[],
  replaced: ReplacedRecords,
  onProgress?: (progress: OpenProgress) => void,
  threads?: IndexWorkerPool,
): Promise<string | undefined> {
  // Bytes of both storages compared, as progress: the comparison reads as much as an index build.
  const bytesTotal = 2 * pairs.reduce((n, p) => n + p.length, 0);
  let bytesDone = 0;
  let filesDone = 0;
  const compared = (pair: SharedFile): void => {
    bytesDone += 2 * pair.length;
    onProgress?.({ filesDone: ++filesDone, filesTotal: pairs.length, bytesDone, bytesTotal, entities: 0 });
  };
  // The replaced records of each file: the next ones (both in the basis's file order).
  const from: number[] = [];
  let next = 0;
  for (const pair of pairs) {
    from.push(next);
    while (next < replaced.count && replaced.channel(next) === pair.channel && replaced.slot(next) === pair.slot) next++;
  }
  from.push(next);
  const differs = (i: number): string => `${pairs[i]!.b}: differs from ${pairs[i]!.a}`;
  if (threads === undefined) {
    for (const [i, pair] of pairs.entries()) {
      const taken = replaced.taking(from[i]!, from[i + 1]!);
      if (!samePrefix(pair, taken)) return differs(i);
      replaced.adopt(from[i]!, taken);
      compared(pair);
      await nextTurn(); // one file at a time: the event loop (progress, other work) goes on between
    }
    return undefined;
  }
  // Each file's taking has what the files finished before it left of the budget; the files are
  // adopted in order, and what passes the budget over all of them is dropped there.
  let finishedBytes = 0;
  const done: (TakenRecords | undefined)[] = [];
  let adopted = 0;
  const first = await threads.comparePrefixes(
    pairs.length,
    (i) => ({ files: pairs[i]!, offsets: replaced.offsetsOf(from[i]!, from[i + 1]!), budget: Math.max(0, HELD_BYTES - finishedBytes) }),
    (i, taken) => {
      finishedBytes += taken.heldBytes;
      done[i] = taken;
      compared(pairs[i]!);
      for (; done[adopted] !== undefined; adopted++) replaced.adopt(from[adopted]!, done[adopted]!);
    },
  );
  return first < 0 ? undefined : differs(first);
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
