import { charsText, type EntityLayout } from '../format/entity-layout.js';
import { builtinObjects } from '../writer/builtins.js';
import { ByteSink } from '../writer/byte-sink.js';
import { encodeRecord, type FieldValue } from '../writer/entity-encoder.js';
import { ROOT_IDENTIFIER } from '../writer/roots-registry.js';
import type { WriterDictionary } from '../writer/writer-dictionary.js';
import type { WriterFamily } from '../writer/writer-family.js';
import type { ReferenceReplacement } from './reference-replacement.js';

/**
 * The roots entity lists, besides the application's root (`ROOT`), the singletons the library
 * registers as constants on a storage's first start (its own and the JDK's: empty collections,
 * comparators, `BigDecimal.ZERO`, the empty `Optional`s …) and one `Object[]` per stored enum type
 * (`enum <type id>`). When the record of such an entry is lost, a null in its place is refused by
 * MicroStream 4.1 and EclipseStore 4.1 alike ("Persisted root entries have a duplicate root objectId
 * for entry (XEmpty:Table -> 0)": two nulls are the same id), and an id without a record ends the
 * start ("No entity found for objectId …"). Asked, both libraries start when the entry is left out
 * (they register the constant anew), and when the constant's record is there again. So `rescue`:
 * - writes the record of a lost built-in constant anew, under its old id, from the type dictionary
 *   and the values the library stores for it (see writer/builtins.ts): the objects that refer to the
 *   constant keep their references (a `BigDecimal` field holding `ZERO` stays `0`, not null);
 * - leaves out of the roots every other entry whose object is lost: the application's root
 *   reference (the application starts as on an empty storage) and an enum type's `Object[]` (the
 *   library registers the enum's constants again).
 */

export interface ConstantWrittenAnew {
  readonly identifier: string;
  readonly objectId: bigint;
  readonly typeName: string;
}

export interface RootEntries {
  readonly objectIds: readonly bigint[];
  readonly identifiers: readonly string[];
}

const LIST_HEADER = 16;

/** The entries of a roots entity (`instances`, then `identifiers`), from its decoded layout. */
export function rootEntries(layout: EntityLayout): RootEntries {
  const [instances, identifiers] = layout.slots;
  if (instances?.variable !== true || identifiers?.variable !== true || instances.count !== identifiers.count) return { objectIds: [], identifiers: [] };
  const view = layout.view;
  const objectIds: bigint[] = [];
  for (let i = 0; i < instances.count; i++) objectIds.push(view.getBigInt64(instances.elementsOffset + 8 * i, true));
  const names: string[] = [];
  let pos = identifiers.elementsOffset;
  for (let i = 0; i < identifiers.count; i++) {
    const total = Number(view.getBigInt64(pos, true));
    const count = Number(view.getBigInt64(pos + 8, true));
    names.push(charsText(view, pos + LIST_HEADER, count));
    pos += total;
  }
  return { objectIds, identifiers: names };
}

/**
 * Records (whole, header included) of the built-in constants among `entries` that `lost` names,
 * keyed by object id, written as the library writes them. A constant whose type the dictionary
 * lacks, or whose members differ from what the library stores, is not written (its entry is then
 * left out). A reference from a constant to an object that is not itself a root entry (the keys
 * and values views of `EmptyTable`) is null: its id is not known once the constant's record is gone.
 */
export function constantsAnew(
  dictionary: WriterDictionary,
  family: WriterFamily,
  entries: RootEntries,
  lost: (objectId: bigint) => boolean,
): Map<bigint, ConstantWrittenAnew & { readonly record: Buffer }> {
  const written = new Map<bigint, ConstantWrittenAnew & { readonly record: Buffer }>();
  let builtins: ReturnType<typeof builtinObjects>;
  try {
    builtins = builtinObjects(dictionary, family);
  } catch {
    return written; // a dictionary without the library's built-in types (an older storage): entries are left out
  }
  const idHere = new Map(entries.identifiers.map((identifier, i) => [identifier, entries.objectIds[i]!] as const));
  const plannedIdentifier = new Map(builtins.roots.entries.map((e) => [e.objectId, e.identifier] as const));
  const plannedEntity = new Map(builtins.entities.map((e) => [e.objectId, e] as const));
  // A reference of a constant, from the planned ids to this storage's: the entry of the same name, else null.
  const mapped = (planned: bigint): bigint => {
    const identifier = plannedIdentifier.get(planned);
    return identifier === undefined ? 0n : (idHere.get(identifier) ?? 0n);
  };
  const sink = new ByteSink(1024);
  entries.identifiers.forEach((identifier, i) => {
    const objectId = entries.objectIds[i]!;
    if (identifier === ROOT_IDENTIFIER || objectId === 0n || !lost(objectId)) return;
    const planned = builtins.roots.get(identifier);
    const entity = planned === undefined ? undefined : plannedEntity.get(planned);
    if (entity === undefined) return;
    const values = entity.values.map((v): FieldValue => (typeof v === 'bigint' ? mapped(v) : v instanceof BigInt64Array ? BigInt64Array.from(v, mapped) : v));
    if (values.some((v) => v instanceof BigInt64Array && v.includes(0n))) return; // an Object[] of enum constants missing one
    sink.clear();
    try {
      encodeRecord(sink, entity.entry, objectId, values);
    } catch {
      return;
    }
    written.set(objectId, { identifier, objectId, typeName: entity.entry.typeName, record: Buffer.from(sink.bytes()) });
  });
  return written;
}

/**
 * The roots record without the entries whose object `missing` names (a new buffer), or undefined
 * when every entry's object is there. Each entry left out is told as a replacement.
 */
export function leaveOutLostRootEntries(
  record: Buffer,
  layout: EntityLayout,
  missing: (objectId: bigint) => boolean,
  onReplace: (replacement: ReferenceReplacement, identifier: string) => void,
): Buffer | undefined {
  const entries = rootEntries(layout);
  const keep = entries.objectIds.map((id) => id === 0n || !missing(id));
  if (keep.every(Boolean)) return undefined;
  const owner = record.readBigInt64LE(16);
  const objectIds: bigint[] = [];
  const identifiers: string[] = [];
  entries.objectIds.forEach((id, i) => {
    const identifier = entries.identifiers[i]!;
    if (keep[i]) {
      objectIds.push(id);
      identifiers.push(identifier);
    } else {
      onReplace({ owner, ownerType: layout.entry.typeName, member: `instances[${i}] (${identifier})`, lost: id, action: 'entry-left-out' }, identifier);
    }
  });
  const sink = new ByteSink(record.length);
  encodeRecord(sink, layout.entry, owner, [BigInt64Array.from(objectIds), identifiers]);
  return Buffer.from(sink.bytes());
}
