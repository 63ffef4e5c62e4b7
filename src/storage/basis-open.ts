import { setImmediate as nextTurn } from 'node:timers/promises';
import { ChannelState } from './channel-state.js';
import { samePrefix, type PrefixTask, type SharedFile } from './index/prefix-compare.js';
import { ReplacedRecords } from './index/replaced-records.js';
import type { SharedIndexWorkers } from './index/shared-index-workers.js';
import { readChannelLogs } from './log-reader.js';
import { DirectorySource } from './source/directory-source.js';
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
 * Where index threads are running (`workers`, a diff's: they indexed the basis), the files are
 * compared there, one pair a request: both cores read and compare, where this thread alone did.
 */
export async function comparePrefixes(
  pairs: readonly SharedFile[],
  replaced: ReplacedRecords,
  onProgress?: (progress: OpenProgress) => void,
  workers?: SharedIndexWorkers,
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
  const lent = pairs.length > 1 ? workers?.lendRunning() : undefined;
  if (lent !== undefined) {
    const tasks: PrefixTask[] = pairs.map((pair, k) => {
      const offsets = new Float64Array(from[k + 1]! - from[k]!);
      for (let i = 0; i < offsets.length; i++) offsets[i] = replaced.offset(from[k]! + i);
      return { pair, offsets };
    });
    let differs: string | undefined;
    let usable = false; // threads that failed a request are dropped, not lent again
    try {
      await lent.pool.comparePrefixes(tasks, (k, result) => {
        if (!result.same) {
          differs ??= `${pairs[k]!.b}: differs from ${pairs[k]!.a}`;
          return false;
        }
        replaced.adopt(from[k]!, result.taken);
        compared(pairs[k]!);
        return true;
      });
      usable = true;
    } finally {
      lent.release(usable);
    }
    return differs;
  }
  for (const [k, pair] of pairs.entries()) {
    if (!samePrefix(pair, replaced, from[k]!, from[k + 1]!)) return `${pair.b}: differs from ${pair.a}`;
    compared(pair);
    await nextTurn(); // one file at a time: the event loop (index threads' replies, progress) goes on between
  }
  return undefined;
}

/**
 * The basis's channels as the continuing storage starts from them: the same file slots (paths in
 * its own directory) and the basis's index, shared until either changes it.
 */
export function continuedChannels(channels: readonly ChannelState[], layout: StorageLayout): ChannelState[] {
  const paths = new Map(layout.channels.flatMap((c) => c.dataFiles.map((f) => [`${c.index}/${f.fileNumber}`, f.path] as const)));
  return channels.map((channel) => {
    const state = new ChannelState(channel.index, layout.channels[channel.index]!.directoryName, channels.length);
    for (const file of channel.slots) state.slots.push({ ...file, path: paths.get(`${channel.index}/${file.fileNumber}`) ?? file.path });
    state.objects = channel.objects.sharedCopy();
    return state;
  });
}

