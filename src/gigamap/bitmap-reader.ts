import { FormatError } from '../errors.js';
import { decodeLevel2, LEVEL2_IDS } from './bitmap-level2.js';
import { BITMAP_ENTRY, BITMAP_LEVEL2, BITMAP_LEVEL3 } from './gigamap-type-names.js';
import { IdList } from './id-list.js';
import { bytesMember, referenceColumn, referenceMember, requireRecord, type RecordSource } from './record-fields.js';

/**
 * One stored bitmap, from its `BitmapEntry` through `BitmapLevel3` to the `BitmapLevel2`
 * segments (docs/gigamap.md §5), as the ascending entity ids it holds.
 */

export interface BitmapRead {
  /** The ids (only when asked for). */
  readonly ids: Float64Array | undefined;
  readonly count: number;
  /** Bytes of the records the bitmap is stored in (entry, level 3, level 2 segments). */
  readonly bytes: number;
}

export async function readBitmap(source: RecordSource, entryId: bigint, withIds: boolean): Promise<BitmapRead> {
  const entry = await requireRecord(source, entryId, 'BitmapEntry', [BITMAP_ENTRY]);
  let bytes = entry.bytes;
  const level3Id = referenceMember(entry, 'level3');
  const out = withIds ? new IdList() : undefined;
  let count = 0;
  if (level3Id !== 0n) {
    const level3 = await requireRecord(source, level3Id, 'BitmapLevel3', [BITMAP_LEVEL3]);
    bytes += level3.bytes;
    const segments = referenceColumn(level3, 'segments');
    for (let l = 0; l < segments.length; l++) {
      if (segments[l] === 0n) continue;
      const level2 = await requireRecord(source, segments[l]!, 'BitmapLevel2', [BITMAP_LEVEL2]);
      bytes += level2.bytes;
      const { data, fileOffset } = bytesMember(level2, 'data');
      const summary = decodeLevel2(data, out, { file: level2.file, offset: fileOffset });
      if (summary.level3Index !== l) {
        throw new FormatError('FORMAT_BAD_RECORD', `bitmap segment ${level2.objectId} says it covers ids from ${summary.level3Index * LEVEL2_IDS} but is slot ${l} of ${level3Id}`, { file: level2.file, offset: fileOffset });
      }
      count += summary.count;
    }
  }
  return { ids: out?.toArray(), count, bytes };
}
