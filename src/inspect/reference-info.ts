import { channelOf } from '../format/ids.js';
import { layoutEntity } from '../format/entity-layout.js';
import type { TypeEntry } from '../format/type-dictionary.js';
import { UTC } from '../javatext/java-time-zones.js';
import type { Storage } from '../storage/storage.js';
import type { ReferenceInfo } from './object-view.js';
import { simplifiedRenderer } from './simplified-value.js';

/**
 * What an object view says about the objects it refers to, without the graph: each id's type name
 * from its record header, and for a JDK value (String, BigDecimal, Date...) its Java text, cut
 * after `textLimit` characters (with …). Nothing is kept between calls: memory stays constant for
 * a pass over millions of objects (`export`, the library's instances).
 */
export async function referenceInfos(storage: Storage, ids: readonly bigint[], textLimit: number): Promise<Map<bigint, ReferenceInfo>> {
  const out = new Map<bigint, ReferenceInfo>();
  for (const id of ids) {
    const channel = storage.channels[channelOf(id, storage.channels.length)];
    const location = channel?.objects.get(id);
    const file = location === undefined ? undefined : channel!.fileAt(location.fileSlot);
    if (location === undefined || file === undefined) {
      out.set(id, { objectId: String(id), typeName: null });
      continue;
    }
    const header = await storage.readFileRange(file.path, location.offset, 24);
    const typeId = new DataView(header.buffer, header.byteOffset, 24).getBigInt64(8, true);
    const entry = storage.dictionary.byId.get(typeId);
    const text = entry === undefined ? undefined : await valueText(storage, entry, id, textLimit);
    out.set(id, text === undefined ? { objectId: String(id), typeName: entry?.typeName ?? null } : { objectId: String(id), typeName: entry!.typeName, text });
  }
  return out;
}

/** The Java text of a referenced JDK value, cut after `limit` characters; undefined for other objects. */
async function valueText(storage: Storage, entry: TypeEntry, id: bigint, limit: number): Promise<string | undefined> {
  const renderer = simplifiedRenderer(entry, storage.dictionary);
  if (renderer === undefined) return undefined;
  try {
    const entity = await storage.readEntity(id);
    if (entity === undefined) return undefined;
    const text = renderer(layoutEntity(entry, entity.content), { dictionary: storage.dictionary, timeZone: UTC, objectId: id });
    return text.length > limit ? `${text.slice(0, limit)}…` : text;
  } catch {
    return undefined; // a value Java could not rebuild either: the type name alone
  }
}
