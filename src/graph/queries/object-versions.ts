import { setImmediate as nextTurn } from 'node:timers/promises';
import { isAppError } from '../../errors.js';
import { RECORD_HEADER_SIZE } from '../../format/entity-record.js';
import { channelOf } from '../../format/ids.js';
import type { Commit, CommitTimeline } from '../../storage/history/commit-timeline.js';
import type { Storage, StorageFile } from '../../storage/storage.js';
import type { GraphIndex } from '../model/graph-index.js';

/**
 * Every record of an object still on disk, newest first: the latest (from the primary index)
 * and the superseded ones the graph noted, each tied to the transaction log entry that made it
 * valid. Records in files that housekeeping deleted are gone and not listed.
 */

export interface ObjectVersion {
  readonly channel: number;
  readonly file: StorageFile;
  readonly offset: number;
  readonly length: number;
  readonly typeId: bigint;
  readonly current: boolean;
  /** The store (or housekeeping transfer) that committed the record, when the log tells. */
  readonly commit: Commit | undefined;
}

/** Versions `offset` on of an object (newest first), and how many it has on disk. */
export interface VersionPage {
  readonly total: number;
  readonly versions: readonly ObjectVersion[];
}

/** A record of an object at a known place, with its content. */
export interface VersionRecord {
  readonly objectId: bigint;
  readonly typeId: bigint;
  readonly content: Uint8Array;
  readonly file: string;
  readonly offset: number;
}

export class ObjectVersions {
  constructor(
    private readonly storage: Pick<Storage, 'channels' | 'readFileRange'>,
    private readonly timeline: CommitTimeline,
  ) {}

  /**
   * A page of the versions of an object, newest first, and how many there are (none when the
   * object is not stored). Only the page's records are read: an object stored a hundred thousand
   * times costs its places in typed arrays and the headers of one page.
   */
  async list(graph: GraphIndex, objectId: bigint, offset = 0, limit = Number.MAX_SAFE_INTEGER): Promise<VersionPage> {
    const channels = this.storage.channels;
    const channel = channels[channelOf(objectId, channels.length)];
    const latest = channel?.objects.get(objectId);
    const node = graph.nodes.nodeOfId(objectId);
    if (channel === undefined || latest === undefined || node < 0) return { total: 0, versions: [] };
    await this.timeline.update();
    const superseded = graph.superseded.of(node);
    // Places of records in files still there: file slot, offset and file number (for the order).
    const slots = new Int32Array(superseded.length + 1);
    const offsets = new Float64Array(superseded.length + 1);
    const numbers = new Float64Array(superseded.length + 1);
    let count = 0;
    const add = (fileSlot: number, at: number): void => {
      const file = channel.fileAt(fileSlot);
      if (file === undefined) return;
      slots[count] = fileSlot;
      offsets[count] = at;
      numbers[count] = Number(file.fileNumber);
      count++;
    };
    add(latest.fileSlot, latest.offset);
    for (const p of superseded) {
      if (p.channel === channel.index && !(p.fileSlot === latest.fileSlot && p.offset === latest.offset)) add(p.fileSlot, p.offset);
    }
    // Newest first: later files first, later offsets first within a file.
    const order = new Uint32Array(count);
    for (let i = 0; i < count; i++) order[i] = i;
    order.sort((a, b) => (numbers[b] as number) - (numbers[a] as number) || (offsets[b] as number) - (offsets[a] as number));
    const versions: ObjectVersion[] = [];
    const end = Math.min(count, offset + limit);
    for (let k = offset; k < end; k++) {
      // Header reads may be answered at once: a turn for other requests now and then.
      if ((k - offset) % 256 === 255) await nextTurn();
      const i = order[k] as number;
      const file = channel.fileAt(slots[i] as number)!;
      const at = offsets[i] as number;
      const header = await this.readHeader(file.path, at);
      if (header === undefined || header.objectId !== objectId) continue;
      versions.push({
        channel: channel.index,
        file,
        offset: at,
        length: header.length,
        typeId: header.typeId,
        current: slots[i] === latest.fileSlot && at === latest.offset,
        commit: this.timeline.commitOf(channel.index, file.fileNumber, at),
      });
    }
    return { total: count, versions };
  }

  /** The record of one version (its bytes as on disk). */
  async read(version: ObjectVersion, objectId: bigint): Promise<VersionRecord> {
    const bytes = await this.storage.readFileRange(version.file.path, version.offset, version.length);
    return {
      objectId,
      typeId: version.typeId,
      content: bytes.subarray(RECORD_HEADER_SIZE),
      file: version.file.path,
      offset: version.offset,
    };
  }

  private async readHeader(path: string, offset: number): Promise<{ length: number; typeId: bigint; objectId: bigint } | undefined> {
    let bytes: Buffer;
    try {
      bytes = await this.storage.readFileRange(path, offset, RECORD_HEADER_SIZE);
    } catch (error) {
      if (isAppError(error) && error.code === 'STORAGE_FILE_GONE') return undefined; // deleted meanwhile
      throw error;
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { length: Number(view.getBigInt64(0, true)), typeId: view.getBigInt64(8, true), objectId: view.getBigInt64(16, true) };
  }
}
