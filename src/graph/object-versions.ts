import { isAppError } from '../errors.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { channelOf } from '../format/ids.js';
import type { Commit, CommitTimeline } from '../storage/commit-timeline.js';
import type { Storage, StorageFile } from '../storage/storage.js';
import type { GraphIndex } from './graph-index.js';

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

  /** The versions of an object, newest first; empty when the object is not stored. */
  async list(graph: GraphIndex, objectId: bigint): Promise<ObjectVersion[]> {
    const channels = this.storage.channels;
    const channel = channels[channelOf(objectId, channels.length)];
    const latest = channel?.objects.get(objectId);
    const node = graph.nodes.nodeOfId(objectId);
    if (channel === undefined || latest === undefined || node < 0) return [];
    await this.timeline.update();
    const places = [{ fileSlot: latest.fileSlot, offset: latest.offset, current: true }];
    for (const p of graph.superseded.of(node)) {
      if (p.channel === channel.index && !(p.fileSlot === latest.fileSlot && p.offset === latest.offset)) {
        places.push({ fileSlot: p.fileSlot, offset: p.offset, current: false });
      }
    }
    const versions: ObjectVersion[] = [];
    for (const place of places) {
      const file = channel.fileAt(place.fileSlot);
      if (file === undefined) continue;
      const header = await this.readHeader(file.path, place.offset);
      if (header === undefined || header.objectId !== objectId) continue;
      versions.push({
        channel: channel.index,
        file,
        offset: place.offset,
        length: header.length,
        typeId: header.typeId,
        current: place.current,
        commit: this.timeline.commitOf(channel.index, file.fileNumber, place.offset),
      });
    }
    versions.sort((a, b) => (a.file.fileNumber !== b.file.fileNumber ? (a.file.fileNumber < b.file.fileNumber ? 1 : -1) : b.offset - a.offset));
    return versions;
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
