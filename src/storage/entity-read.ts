import { FormatError } from '../errors.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { channelOf, classifyId } from '../format/ids.js';
import type { ChannelState } from './channel-state.js';
import type { RecordCache } from './record-cache.js';
import type { StorageSource } from './source/source.js';
import type { StoredEntity } from './storage-types.js';

/**
 * The latest record of an object, or undefined when the id is not an entity of the storage. Like
 * Java, only the channel `id & (channels - 1)` is asked. Read through the cache of records read
 * lately when there is one; a record whose header does not match its index entry is an error.
 */
export async function readLatestRecord(
  channels: readonly ChannelState[],
  records: RecordCache | undefined,
  source: StorageSource,
  objectId: bigint,
): Promise<StoredEntity | undefined> {
  const kind = classifyId(objectId);
  if (kind === 'null' || kind === 'undefined') return undefined;
  const channel = channels[channelOf(objectId, channels.length)];
  const location = channel?.objects.get(objectId);
  if (channel === undefined || location === undefined) return undefined;
  const file = channel.slots[location.fileSlot];
  if (file === undefined || file.removed) return undefined;
  const cached = records?.get(channel.index, location.fileSlot, location.offset, location.length);
  // A cache emptied while the file is read (an index rebuilt meanwhile) does not take the record.
  const clears = records?.clears;
  const bytes = cached ?? (await source.read(file.path, location.offset, location.length, file.totalLength));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The length as two 32-bit halves: no bigint made for it on every read.
  if (view.getUint32(0, true) !== location.length || view.getUint32(4, true) !== 0 || view.getBigInt64(16, true) !== objectId) {
    throw new FormatError('FORMAT_BAD_RECORD', `record of object ${objectId} changed since it was indexed`, {
      file: file.path,
      offset: location.offset,
    });
  }
  if (cached === undefined && records !== undefined && records.clears === clears) records.put(channel.index, location.fileSlot, location.offset, bytes);
  return {
    objectId,
    typeId: view.getBigInt64(8, true),
    content: bytes.subarray(RECORD_HEADER_SIZE),
    file: file.path,
    offset: location.offset,
  };
}
