import { StorageError } from '../errors.js';
import type { Storage } from '../storage/storage.js';
import { streamRecords } from '../storage/records/record-stream.js';
import { FileReadAhead } from '../storage/source/file-read-ahead.js';
import type { StorageWriter } from '../writer/storage-writer.js';
import { int32At } from '../format/int32-at.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { ShapeRewriter, type planCurrentShapes } from './current-shapes.js';
import type { TypeFigures } from './convert-report.js';
import type { CopyOrder } from './walked-reachability.js';
import { CopyPlanThread } from './copy-plan-thread.js';
import { WholeFileReads } from './whole-file-reads.js';
import { changedWhileConverted, fileCut, fileGone, wholeRanges } from './changed-source-reads.js';

/**
 * convert's copy: one walk over the source's data files in file order, the newest version of each
 * reachable object written through the storage writer, the rest counted per type.
 */

/** The per-type figures of a copy, with what --current-types did to the type's objects. */
export type Figures = TypeFigures & { typeId: bigint; rewritten: number; keptIds: string[] };

/** How `copyRecords` copies. */
export interface CopyPlan {
  /** The storage as messages name it. */
  readonly named: string;
  readonly shapes: ReturnType<typeof planCurrentShapes> | undefined;
  /**
   * Which records are newest versions, by their number in the walk (the check's walk met the
   * same records in the same order): no index lookup per record; and which of those the roots
   * reach (a bit per object, found by arithmetic for the ids in an index's run). Without it every
   * object's newest version is copied (told by the index).
   */
  readonly order: CopyOrder | undefined;
  /** Each store written in the thread pool while the next is filled (see `wantsWriteBehind`). */
  readonly writeBehind: boolean;
  /** Bytes per store of the new storage. */
  readonly batch: number;
  readonly onProgress: ((phase: string, done: number, total: number) => void) | undefined;
}

/**
 * Every record of the source in file order: the latest version of each reachable object written
 * (rewritten into its newest type definition where `shapes` maps it), the rest counted as
 * superseded or garbage, per type. The writer is closed at the end.
 */
export async function copyRecords(storage: Storage, writer: StorageWriter, copy: CopyPlan): Promise<Map<bigint, Figures>> {
  const figures = new Map<bigint, Figures>();
  const figuresOf = (typeId: bigint): Figures => {
    let f = figures.get(typeId);
    if (f === undefined) {
      f = { typeId, typeName: storage.dictionary.byId.get(typeId)?.typeName ?? `unknown type ${typeId}`, written: 0, writtenBytes: 0, superseded: 0, supersededBytes: 0, garbage: 0, garbageBytes: 0, rewritten: 0, keptIds: [] };
      figures.set(typeId, f);
    }
    return f;
  };
  const figureKeys = new Int32Array(FIGURE_SLOTS).fill(-1);
  const figureSlots: (Figures | undefined)[] = new Array<Figures | undefined>(FIGURE_SLOTS).fill(undefined);
  const rewriter = new ShapeRewriter();
  const { shapes, order, batch } = copy;
  // The next file's first read is under way while one is walked: a data file is about one read
  // (8 MiB), and waiting for each file's open and read in turn left the copy's thread idle for
  // most of a second at 10M entities (measured: see the commit).
  const walked = storage.channels.flatMap((channel) => channel.files.map((file) => ({ channel, file, end: file.problem?.offset ?? file.totalLength })));
  // The later channels' decisions made in a thread of their own while this one walks the first
  // channels' records (copy-plan-thread.ts); not with --current-types, whose rewrites are made here.
  const planned = order !== undefined && shapes === undefined ? CopyPlanThread.start(storage, order, writer.channelCount, copy.named) : undefined;
  const plannedFrom = planned === undefined ? -1 : walked.findIndex((w) => w.channel.index >= planned.channel);
  const firstPlanned = plannedFrom < 0 ? walked.length : plannedFrom;
  const ahead = new FileReadAhead(
    wholeRanges(storage.source, copy.named),
    walked.slice(0, firstPlanned).map((w) => ({ path: w.file.path, from: 0, to: w.end })),
  );
  const plannedReads = new WholeFileReads(
    walked.slice(firstPlanned).map((w) => ({ path: w.file.path, end: w.end })),
    (path, problem) =>
      problem.gone
        ? fileGone(path, copy.named, problem.cause)
        : fileCut(path, problem.at, problem.end, copy.named),
  );
  // The record's number in the walk, and the newest versions' (with `order`).
  let ordinal = 0;
  let newest = 0;
  const latestBits = order?.latest;
  const reach = order?.reach;
  const ordered = order?.records ?? 0;
  // With `writeBehind`, two builders: one is filled while the other's store is written in the
  // thread pool (`storeInBackground`). A store falls due at the record that fills the batch and
  // is planned before the next record is added (so the stores and files are the same either way);
  // that next record's visit waits for the previous store's writes, plans this one and goes on.
  // A channel's part of a store grows to the batch at once (a quarter more for the record that
  // ends it): a copy walks one source channel after the other, so one part takes nearly all of a
  // batch, and growing by doubling from 256 KiB left 16 MB of written buffers as garbage per
  // builder and channel, which the copy's first stores met on top of the reachability's lists not
  // yet collected (the peak RSS at 10M entities).
  const partGrowsTo = batch + Math.ceil(batch / 4);
  let builder = writer.beginStore(partGrowsTo);
  let spare = copy.writeBehind ? writer.beginStore(partGrowsTo) : builder;
  let writing: Promise<unknown> | undefined;
  let storeDue = false;
  const storeNow = async (): Promise<void> => {
    if (!copy.writeBehind) {
      storeDue = false;
      writer.store(builder);
      builder.clear();
      return;
    }
    if (writing !== undefined) await writing;
    writing = undefined;
    spare.clear();
    const sealed = builder;
    builder = spare;
    spare = sealed;
    storeDue = false;
    const written = writer.storeInBackground(sealed);
    // Its failure is thrown where it is awaited (the next store, or the end); not an unhandled rejection meanwhile.
    written.catch(() => undefined);
    writing = written;
  };
  try {
    let inBatch = 0;
    // A run of records to write that lie back to back in the chunk being walked and go to one
    // channel: copied with one call (most records of a file go to one channel when the channel
    // count stays; superseded versions and garbage end runs). Used up before the chunk is.
    const channelMask = writer.channelCount - 1;
    let runBytes: Buffer | undefined;
    let runStart = 0;
    let runEnd = 0;
    let runFirst = 0;
    let runRecords = 0;
    let runChannel = -1;
    const flushRun = (): void => {
      if (runBytes === undefined) return;
      builder.addRecordsAt(runBytes, runStart, runEnd - runStart, runFirst, runRecords);
      runBytes = undefined;
    };
    const bytesTotal = storage.channels.reduce((n, c) => n + c.files.reduce((m, f) => m + f.totalLength, 0), 0);
    let bytesDone = 0;
    copy.onProgress?.('copying', 0, bytesTotal);
    for (let index = 0; index < walked.length; index++) {
      const { channel, file, end } = walked[index]!;
      if (planned !== undefined && index >= firstPlanned) {
        if (ordinal !== planned.ordinal) {
          throw new StorageError('STORAGE_INCONSISTENT', `the copy met ${ordinal} records before channel ${planned.channel} where the check's walk met ${planned.ordinal}: ${changedWhileConverted(copy.named)}`);
        }
        if (storeDue) await storeNow();
        const bytes = await plannedReads.read(index - firstPlanned);
        const { runs, count } = await planned.thread.next();
        for (let r = 0; r < count; r++) {
          const start = runs[r * 3] as number;
          const stop = runs[r * 3 + 1] as number;
          if (inBatch + (stop - start) < batch) {
            builder.addRecordsAt(bytes, start, stop - start, int32At(bytes, start) >>> 0, runs[r * 3 + 2] as number);
            inBatch += stop - start;
            continue;
          }
          // The record that fills the batch ends the store: the run is cut after it.
          let from = start;
          let records = 0;
          for (let at = start; at < stop; ) {
            const length = int32At(bytes, at) >>> 0;
            // The planning thread read this file too: a record it did not see here is a file
            // rewritten in place between the two reads (a length of 0 would loop for ever).
            if (length < RECORD_HEADER_SIZE || length > stop - at) {
              throw new StorageError('STORAGE_INCONSISTENT', `${file.path} at offset ${at}: a record of ${length} bytes where the planned run ends at ${stop}: ${changedWhileConverted(copy.named)}`);
            }
            at += length;
            records++;
            inBatch += length;
            if (inBatch >= batch) {
              builder.addRecordsAt(bytes, from, at - from, int32At(bytes, from) >>> 0, records);
              from = at;
              records = 0;
              inBatch = 0;
              await storeNow();
            }
          }
          if (records > 0) builder.addRecordsAt(bytes, from, stop - from, int32At(bytes, from) >>> 0, records);
        }
        bytesDone += file.totalLength;
        copy.onProgress?.('copying', bytesDone, bytesTotal);
        continue;
      }
      const visit = (bytes: Buffer, at: number, offset: number, length: number): void => {
        const low = int32At(bytes, at + 16);
        const high = int32At(bytes, at + 20);
        // The figures of the record's type: by the low half of its id from a small table (a
        // bigint and a Map lookup per record cost more than the copy), else by the bigint.
        const typeLow = int32At(bytes, at + 8);
        const slot = typeLow & (FIGURE_SLOTS - 1);
        let f = int32At(bytes, at + 12) === 0 && figureKeys[slot] === typeLow ? figureSlots[slot] : undefined;
        if (f === undefined) {
          f = figuresOf(bytes.readBigInt64LE(at + 8));
          if (int32At(bytes, at + 12) === 0) {
            figureKeys[slot] = typeLow;
            figureSlots[slot] = f;
          }
        }
        const typeId = f.typeId;
        const n = ordinal++;
        let latest: boolean;
        let reached = true;
        if (latestBits !== undefined) {
          latest = n < ordered && ((latestBits[n >>> 3] as number) & (1 << (n & 7))) !== 0;
          if (latest) {
            newest++;
            reached = reach!.reachable(low, high);
          }
        } else {
          latest = channel.objects.isLatest(low, high, file.slot, offset);
        }
        if (!latest) {
          f.superseded++;
          f.supersededBytes += length;
        } else if (!reached) {
          f.garbage++;
          f.garbageBytes += length;
        } else {
          const mapping = shapes?.mappings.get(typeId);
          let written = length;
          if (mapping !== undefined) {
            const record = rewriter.rewrite(mapping, bytes.subarray(at, at + length), file.path, offset);
            flushRun();
            builder.addRecord(record);
            written = record.length;
            f.rewritten++;
          } else {
            if (shapes !== undefined && f.keptIds.length < LISTED_KEPT && shapes.ambiguous.has(typeId)) f.keptIds.push(bytes.readBigInt64LE(at + 16).toString());
            if (runBytes === bytes && runEnd === at && (low & channelMask) === runChannel) {
              runEnd += length;
              runRecords++;
            } else {
              flushRun();
              runBytes = bytes;
              runStart = at;
              runEnd = at + length;
              runFirst = length;
              runRecords = 1;
              runChannel = low & channelMask;
            }
          }
          f.written++;
          f.writtenBytes += written;
          // Counted here: the builder's byteLength sums its channels at every call.
          inBatch += written;
          if (inBatch >= batch) {
            flushRun();
            storeDue = true;
            inBatch = 0;
          }
        }
      };
      // A record met while a store is due: the store first (its planning waits for the
      // previous store's writes), then the record. `bytes` stays valid: streamRecords waits.
      const visitOrStore = (bytes: Buffer, at: number, offset: number, length: number): void | Promise<void> => {
        if (!storeDue) return visit(bytes, at, offset, length);
        return storeNow().then(() => visit(bytes, at, offset, length));
      };
      // The records that lie whole in the chunk, in this loop: streamRecords' call of `visit`
      // serves every walk over records and is not inlined; this one is (gaps, records cut by the
      // chunk's end and malformed lengths are left to streamRecords).
      const run = (bytes: Buffer, at: number, offset: number, chunkEnd: number): number => {
        const limit = Math.min(chunkEnd, at + (end - offset));
        // A due store stops the loop: the next record goes to visitOrStore.
        while (!storeDue && limit - at >= RECORD_HEADER_SIZE) {
          const length = int32At(bytes, at) >>> 0;
          if (int32At(bytes, at + 4) !== 0 || length < RECORD_HEADER_SIZE || length > limit - at) break;
          visit(bytes, at, offset, length);
          at += length;
          offset += length;
        }
        return at;
      };
      await streamRecords({ chunks: () => ahead.chunks(index) }, file.path, 0, end, visitOrStore, flushRun, run);
      flushRun();
      bytesDone += file.totalLength;
      copy.onProgress?.('copying', bytesDone, bytesTotal);
    }
    if (planned !== undefined) {
      const theirs = await planned.thread.done();
      newest += theirs.newest;
      for (const t of theirs.figures) {
        const f = figuresOf(t.typeId);
        f.written += t.written;
        f.writtenBytes += t.writtenBytes;
        f.superseded += t.superseded;
        f.supersededBytes += t.supersededBytes;
        f.garbage += t.garbage;
        f.garbageBytes += t.garbageBytes;
      }
    }
    if (order !== undefined && newest !== order.newest) {
      throw new StorageError('STORAGE_INCONSISTENT', `the copy met ${newest} newest versions where the check's walk met ${order.newest}: ${changedWhileConverted(copy.named)}`);
    }
    if (storeDue) await storeNow();
    if (writing !== undefined) await writing;
    writing = undefined;
    // Also an empty storage gets its first store (each channel's file and log entries).
    if (builder.records > 0 || writer.channels.every((c) => c.headNumber === 0n)) writer.store(builder);
  } finally {
    // After a failure a store's writes may still be under way: they land before the files close.
    await writing?.catch(() => undefined);
    // A read started ahead and not taken (a failure stopped the walk): its file closed.
    await ahead.close();
    await plannedReads.close();
    await planned?.thread.close();
    writer.close();
  }
  return figures;
}

/**
 * From this many bytes of data files on, the copy writes behind (`CopyPlan.writeBehind`). Measured
 * with built code, alternated: at 10M entities (986 MB, 700 MB written) the walk's thread spent
 * 0.7-1.1 s less CPU copying; at 1M (98 MB) it spent none less, and the second builder raised the
 * peak RSS by 15-20 MB (the copy holds the peak there; at 10M the check's walk does).
 */
export const WRITE_BEHIND_FROM_BYTES = 256 * 1024 * 1024;

/** Whether a copy writes behind: `asked` (the caller's choice), else by the source's data bytes. */
export function wantsWriteBehind(asked: boolean | undefined, sourceBytes: number): boolean {
  return asked ?? sourceBytes >= WRITE_BEHIND_FROM_BYTES;
}

/** Slots of the per-type figures' direct-mapped table. */
const FIGURE_SLOTS = 1024;

/** At most this many object ids are listed per type whose objects keep an older shape. */
export const LISTED_KEPT = 20;
