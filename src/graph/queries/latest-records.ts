import type { Storage } from '../../storage/storage.js';
import { walkRecordBytes } from '../build/record-walk.js';

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

export interface RecordPassProgress {
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly records: number;
}

export async function forEachLatestRecord(
  storage: Pick<Storage, 'channels' | 'source'>,
  typeIds: ReadonlySet<bigint>,
  /** May answer synchronously (undefined): a pass of millions of records then awaits nothing per record. */
  handle: (record: LatestRecord) => Promise<void> | void,
  onProgress?: (progress: RecordPassProgress) => void,
  /**
   * Hands over views of the read buffers instead of copies: a record is handled before the walk
   * goes on to the next chunk (whose read reuses the buffer), so a handler that is done with the
   * content once its answer settled saves a copy per record.
   */
  borrow = false,
): Promise<void> {
  const files = storage.channels.flatMap((channel) => channel.files.map((file) => ({ channel, file })));
  const bytesTotal = files.reduce((n, f) => n + f.file.totalLength, 0);
  let bytesDone = 0;
  let records = 0;
  const pending: LatestRecord[] = [];
  const drain = async (): Promise<void> => {
    for (const record of pending.splice(0)) {
      const done = handle(record);
      if (done !== undefined) await done;
      records++;
    }
  };
  for (const { channel, file } of files) {
    let fileDone = 0;
    await walkRecordBytes(
      storage.source.chunks(file.path, 0, file.totalLength),
      file.totalLength,
      (view, at, offset, length, typeLow, typeHigh, idLow, idHigh) => {
        fileDone = offset + length;
        const typeId = (BigInt(typeHigh) << 32n) | BigInt(typeLow >>> 0);
        if (!typeIds.has(typeId) || !channel.objects.isLatest(idLow, idHigh, file.slot, offset)) return;
        pending.push({
          objectId: (BigInt(idHigh) << 32n) | BigInt(idLow >>> 0),
          typeId,
          content: borrow ? new Uint8Array(view.buffer, view.byteOffset + at + 24, length - 24) : new Uint8Array(view.buffer, view.byteOffset + at + 24, length - 24).slice(),
          file: file.path,
          offset,
        });
      },
      async () => {
        await drain();
        onProgress?.({ bytesDone: bytesDone + fileDone, bytesTotal, records });
      },
    );
    await drain();
    bytesDone += file.totalLength;
    onProgress?.({ bytesDone, bytesTotal, records });
  }
}
