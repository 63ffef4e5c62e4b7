import { layoutEntity } from '../format/entity-layout.js';
import { resolveJdkConstant } from '../format/ids.js';
import { UTC } from '../javatext/java-time-zones.js';
import type { ReferenceInfo } from '../inspect/object-view.js';
import { simplifiedRenderer } from '../inspect/simplified-value.js';
import type { Storage } from '../storage/storage.js';

/**
 * What a reference points at, as the typed `/api/v1` view shows it (type name, the Java text of a
 * value type such as a String or a date), from the storage alone: a diff has no graph index, and
 * each side's references are summarized in that side's own state.
 */

const TEXT_PREVIEW = 200;

export function referenceSummaries(storage: Storage): (ids: readonly bigint[]) => Promise<Map<bigint, ReferenceInfo>> {
  return async (ids) => {
    const out = new Map<bigint, ReferenceInfo>();
    const dictionary = storage.dictionary;
    for (const id of ids) {
      const constant = resolveJdkConstant(id);
      if (constant !== undefined) {
        out.set(id, { objectId: String(id), typeName: constant.typeName, text: constant.text });
        continue;
      }
      const entity = await storage.readEntity(id);
      const entry = entity === undefined ? undefined : dictionary.byId.get(entity.typeId);
      if (entity === undefined || entry === undefined) {
        out.set(id, { objectId: String(id), typeName: null, missing: true });
        continue;
      }
      const renderer = simplifiedRenderer(entry, dictionary);
      let text: string | undefined;
      if (renderer !== undefined) {
        try {
          text = renderer(layoutEntity(entry, entity.content), { dictionary, timeZone: UTC, objectId: id });
        } catch {
          text = undefined; // a value Java could not rebuild either: the type name alone
        }
      }
      out.set(
        id,
        text === undefined
          ? { objectId: String(id), typeName: entry.typeName }
          : { objectId: String(id), typeName: entry.typeName, text: text.length > TEXT_PREVIEW ? `${text.slice(0, TEXT_PREVIEW)}…` : text },
      );
    }
    return out;
  };
}
