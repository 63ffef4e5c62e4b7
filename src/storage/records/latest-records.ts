import { int32At } from '../../format/int32-at.js';
import { RECORD_HEADER_SIZE } from '../../format/entity-record.js';
import type { SourceReads } from '../source/source.js';
import { streamRecords } from './record-stream.js';
import { walkRecordBytes } from './record-walk.js';
import { SmallIdSet, smallIdsOf } from './small-id-table.js';

/**
 * The latest records of chosen types, in file order, handed over one by one to an async handler
 * (which may write, await backpressure, read more): one sequential pass over the data files in
 * which only one chunk's worth of matching records is held at a time, so memory stays constant
 * whatever the storage's size.
 */

export interface LatestRecord {
  readonly objectId: bigint;
  readonly typeId: bigint;
  /**
   * The record's content (after the header): a copy the handler may keep, or, with `borrow`, a
   * view of the read buffer that stays valid until the handler's answer has settled.
   */
  readonly content: Uint8Array;
  readonly file: string;
  readonly offset: number;
}

/**
 * What a pass over the latest records needs of an opened storage (`Storage` has it): the channels'
 * data files and which record is an object's latest, and the source to read them from.
 */
export interface LatestRecordsSource {
  readonly channels: readonly {
    readonly files: readonly { readonly path: string; readonly slot: number; readonly totalLength: number }[];
    readonly objects: { isLatest(idLow: number, idHigh: number, fileSlot: number, offset: number): boolean };
  }[];
  readonly source: Pick<SourceReads, 'chunks'>;
}

export interface RecordPassProgress {
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly records: number;
}

/**
 * Sees the header of every latest record of a type the pass was given, whether or not it is
 * handed over, and answers whether it is: a pass that needs a row per object but the content of
 * a few types makes no object or bigint for the rest, and may read a simple record's content
 * where it lies. `offset` is the record's (its header's) offset in `file`, `length` the record's
 * length with its header; its content is `length - 24` bytes of `view` from `contentAt`, valid
 * only during the call.
 */
export type LatestHeaderVisitor = (
  idLow: number,
  idHigh: number,
  typeLow: number,
  typeHigh: number,
  file: string,
  offset: number,
  length: number,
  view: DataView,
  contentAt: number,
) => boolean;

/** `set.has(id)` for an id given as halves, without a bigint for ids below 2^32 (type ids are). */
export function typeIdMatcher(set: ReadonlySet<bigint>): (low: number, high: number) => boolean {
  // Asked of every record of every pass: by index, not hashed (small-id-table.ts).
  const ids = smallIdsOf(set);
  const small = new SmallIdSet(ids);
  for (const id of ids) small.add(id);
  const large = ids.length < set.size;
  if (!large) return (low, high) => high === 0 && small.has(low >>> 0);
  return (low, high) => (high === 0 ? small.has(low >>> 0) : set.has((BigInt(high) << 32n) | BigInt(low >>> 0)));
}

/**
 * The types whose records a pass takes: their ids, or a test of a type id's halves, asked of each
 * record before the index is asked whether it is its object's latest (which misses the processor's
 * caches): a pass may stop taking a type midway (the base pass of src/sql, once it has met a type
 * it does not decode).
 */
export type TypeChoice = ReadonlySet<bigint> | ((typeLow: number, typeHigh: number) => boolean);

export async function forEachLatestRecord(
  storage: LatestRecordsSource,
  typeIds: TypeChoice,
  /** May answer synchronously (undefined): a pass of millions of records then awaits nothing per record. */
  handle: (record: LatestRecord) => Promise<void> | void,
  onProgress?: (progress: RecordPassProgress) => void,
  /**
   * Hands over views of the read buffers instead of copies: a record is handled before the walk
   * goes on to the next chunk (whose read reuses the buffer), so a handler that is done with the
   * content once its answer settled saves a copy per record.
   */
  borrow = false,
  /** Without it every latest record of `typeIds` is handed over. */
  visitHeader?: LatestHeaderVisitor,
): Promise<void> {
  const files = storage.channels.flatMap((channel) => channel.files.map((file) => ({ channel, file })));
  const bytesTotal = files.reduce((n, f) => n + f.file.totalLength, 0);
  const wanted = typeof typeIds === 'function' ? typeIds : typeIdMatcher(typeIds);
  let bytesDone = 0;
  let records = 0;
  // The records to hand over at the chunk's end, as numbers (PENDING_FIELDS each) and the views
  // they lie in: record objects made here lived until the chunk's end, 100,000 and more of them,
  // and the young generation's collections copied and promoted them all (10M objects: most of a
  // pass's garbage collection); made in `drain`, each is garbage before the next is made.
  let pending = new Float64Array(PENDING_FIELDS * 1024);
  let count = 0;
  const views: DataView[] = [];
  let lastView: DataView | undefined;
  const drain = async (path: string): Promise<void> => {
    try {
      for (let i = 0; i < count; i++) {
        const p = i * PENDING_FIELDS;
        const view = views[pending[p + 7]!]!;
        const at = pending[p + 4]!;
        const length = pending[p + 5]!;
        const idLow = pending[p]!;
        const typeLow = pending[p + 2]!;
        const content = new Uint8Array(view.buffer, view.byteOffset + at + 24, length - 24);
        const done = handle({
          objectId: (BigInt(pending[p + 1]!) << 32n) | BigInt(idLow >>> 0),
          typeId: (BigInt(pending[p + 3]!) << 32n) | BigInt(typeLow >>> 0),
          content: borrow ? content : content.slice(),
          file: path,
          offset: pending[p + 6]!,
        });
        if (done !== undefined) await done;
        records++;
      }
    } finally {
      // Also when a handler failed: the records after it are not handed over (by the walk's end either).
      count = 0;
      views.length = 0;
      lastView = undefined;
    }
  };
  // The walk stops inside a chunk where a file is damaged (the index stopped there too) and ends
  // the read, which gives its buffers back for the next read to fill (directory-source.ts): the
  // records waiting there are handed over first, while their bytes are still the chunk's.
  const held = (chunks: AsyncIterable<Uint8Array>, path: string): AsyncIterable<Uint8Array> => ({
    [Symbol.asyncIterator]: () => {
      const inner = chunks[Symbol.asyncIterator]();
      return {
        next: () => inner.next(),
        return: async () => {
          try {
            await drain(path);
          } finally {
            await inner.return?.();
          }
          return { done: true, value: undefined };
        },
      };
    },
  });
  for (const { channel, file } of files) {
    let fileDone = 0;
    const path = file.path;
    await walkRecordBytes(
      held(storage.source.chunks(path, 0, file.totalLength), path),
      file.totalLength,
      (view, at, offset, length, typeLow, typeHigh, idLow, idHigh) => {
        fileDone = offset + length;
        if (!wanted(typeLow, typeHigh) || !channel.objects.isLatest(idLow, idHigh, file.slot, offset)) return;
        if (visitHeader !== undefined && !visitHeader(idLow, idHigh, typeLow, typeHigh, path, offset, length, view, at + 24)) return;
        // Valid until the chunk is done (walkRecordBytes gives a record cut by a chunk's end a buffer of its own).
        if (view !== lastView) {
          views.push(view);
          lastView = view;
        }
        if ((count + 1) * PENDING_FIELDS > pending.length) {
          const bigger = new Float64Array(pending.length * 2);
          bigger.set(pending);
          pending = bigger;
        }
        const p = count++ * PENDING_FIELDS;
        pending[p] = idLow;
        pending[p + 1] = idHigh;
        pending[p + 2] = typeLow;
        pending[p + 3] = typeHigh;
        pending[p + 4] = at;
        pending[p + 5] = length;
        pending[p + 6] = offset;
        pending[p + 7] = views.length - 1;
      },
      async () => {
        await drain(path);
        onProgress?.({ bytesDone: bytesDone + fileDone, bytesTotal, records });
      },
    );
    await drain(path);
    bytesDone += file.totalLength;
    onProgress?.({ bytesDone, bytesTotal, records });
  }
}

/** A pending record's numbers: id halves, type id halves, where it lies in its view, its length, file offset, view. */
const PENDING_FIELDS = 8;

/** A channel as the byte-wise pass over latest records needs it (`StorageChannel` is one). */
export interface LatestRecordsChannel {
  readonly index: number;
  /** Each with where its scan stopped, if it did: records are read up to there. */
  readonly files: readonly { readonly path: string; readonly slot: number; readonly totalLength: number; readonly problem?: { readonly offset: number } | undefined }[];
  readonly objects: { isLatest(idLow: number, idHigh: number, fileSlot: number, offset: number): boolean };
}

/**
 * Every object's latest record, whole, channel by channel and file by file in file order, each
 * file up to where its scan stopped: `visit` gets the record at `bytes[at, at + length)` (valid
 * during the call only) with its file offset, channel, file and `ordinal`, the record's number
 * among all records this walk meets, older versions included (a walk over the same files that
 * meets the same records can tell the newest versions by it without the index: convert's copy);
 * `afterFile` is awaited after each file. For the passes that check or copy whole records (check,
 * rescue); nothing is allocated per record. Resolves with the number of records met.
 */
export async function forEachLatestRecordBytes<C extends LatestRecordsChannel>(
  storage: { readonly channels: readonly C[]; readonly source: Pick<SourceReads, 'chunks'> },
  visit: (bytes: Buffer, at: number, offset: number, length: number, channel: C, file: C['files'][number], ordinal: number) => void,
  afterFile?: (channel: C, file: C['files'][number]) => void | Promise<void>,
): Promise<number> {
  let records = 0;
  for (const channel of storage.channels) {
    const index = channel.objects;
    for (const file of channel.files) {
      const slot = file.slot;
      const end = file.problem?.offset ?? file.totalLength;
      const one = (bytes: Buffer, at: number, offset: number, length: number): void => {
        const ordinal = records++;
        if (index.isLatest(int32At(bytes, at + 16), int32At(bytes, at + 20), slot, offset)) visit(bytes, at, offset, length, channel, file, ordinal);
      };
      // The records that lie whole in the chunk, in this loop: streamRecords' call per record
      // serves every walk over records and is not inlined; this one is (gaps, records cut by the
      // chunk's end and malformed lengths are left to streamRecords).
      const run = (bytes: Buffer, at: number, offset: number, chunkEnd: number): number => {
        const limit = Math.min(chunkEnd, at + (end - offset));
        while (limit - at >= RECORD_HEADER_SIZE) {
          const length = int32At(bytes, at) >>> 0;
          if (int32At(bytes, at + 4) !== 0 || length < RECORD_HEADER_SIZE || length > limit - at) break;
          one(bytes, at, offset, length);
          at += length;
          offset += length;
        }
        return at;
      };
      await streamRecords(storage.source, file.path, 0, end, one, undefined, run);
      if (afterFile !== undefined) await afterFile(channel, file);
    }
  }
  return records;
}
