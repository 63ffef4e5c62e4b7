import type { TypeInfo } from '../model/api-v1.js';
import { groupDigits, humanBytes } from '../ui/format.js';

/**
 * The GigaMap machinery among the types (`gigaMapMachinery` of `/api/v1/types`): its objects
 * apart from the user's entities, for the Types and Analysis views. Bytes are those of the types
 * that are machinery as a whole; of a type only partly so (Lazy$Default: the GigaMaps' segment
 * references beside the user's own Lazy references) only the objects are counted.
 */

export interface Machinery {
  readonly types: number;
  readonly objects: number;
  readonly bytes: number;
  /** Objects of types only partly machinery (their bytes are not in `bytes`). */
  readonly partObjects: number;
}

export function machineryOf(types: readonly TypeInfo[]): Machinery | undefined {
  let count = 0;
  let objects = 0;
  let bytes = 0;
  let partObjects = 0;
  for (const t of types) {
    const n = t.gigaMapMachinery ?? 0;
    if (n === 0) continue;
    count++;
    objects += n;
    if (n === t.instances) bytes += t.liveBytes;
    else partObjects += n;
  }
  return count === 0 ? undefined : { types: count, objects, bytes, partObjects };
}

/** "GigaMap machinery: 1,234 objects in 9 types, 56.7 KiB (and 12 Lazy segment references)". */
export function machineryText(m: Machinery): string {
  const whole = m.objects - m.partObjects;
  return `GigaMap machinery (levels, indices, bitmaps): ${groupDigits(whole)} objects, ${humanBytes(m.bytes)}${m.partObjects > 0 ? `, and ${groupDigits(m.partObjects)} Lazy segment references` : ''}, in ${groupDigits(m.types)} types; everything else is the application's data.`;
}

/** The label of a type row: machinery as a whole, or how many of its instances are. */
export function machineryLabel(t: TypeInfo): string | undefined {
  const n = t.gigaMapMachinery ?? 0;
  if (n === 0) return undefined;
  return n === t.instances ? 'GigaMap machinery' : `${groupDigits(n)} GigaMap segments`;
}
