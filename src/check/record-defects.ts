import { isAppError } from '../errors.js';
import { fixedSizeOf, layoutEntity, type EntityLayout } from '../format/entity-layout.js';
import { classifyId } from '../format/ids.js';
import type { TypeDictionary, TypeEntry } from '../format/type-dictionary.js';
import { unloadableReason } from '../inspect/simplified-value.js';
import { STORAGE_EXCEPTION, type JavaFailure } from './problem.js';

/**
 * What is wrong with one record, as MicroStream 4.1 sees the newest version of an object when it
 * starts (`StorageEntityCache.initialCreateEntity`, `StorageEntityType.validateEntities`) and when it
 * loads it, plus whether its content decodes with its type's member list.
 */

export type DefectKind = 'unknown-type' | 'invalid-length' | 'invalid-id' | 'wrong-channel' | 'unreadable';

export interface RecordDefect {
  readonly kind: DefectKind;
  /** Java refuses to start over it (else the object fails or is missing when loaded). */
  readonly refusesStart: boolean;
  readonly java: JavaFailure | undefined;
  readonly message: string;
}

export interface RecordHeader {
  readonly length: number;
  readonly typeId: bigint;
  readonly objectId: bigint;
}

export function readHeader(record: Uint8Array): RecordHeader {
  const view = new DataView(record.buffer, record.byteOffset, 24);
  return { length: Number(view.getBigInt64(0, true)), typeId: view.getBigInt64(8, true), objectId: view.getBigInt64(16, true) };
}

/** Java's minimum and maximum entity length of a type: header plus members (lists at least their header). */
export function entityLengthBounds(entry: TypeEntry): { min: number; max: number } {
  let cached = bounds.get(entry);
  if (cached === undefined) {
    let min = 24;
    let variable = false;
    for (const field of entry.fields) {
      const size = fixedSizeOf(field);
      if (size === undefined) {
        min += 16;
        variable = true;
      } else {
        min += size;
      }
    }
    cached = { min, max: variable ? Number.POSITIVE_INFINITY : min };
    bounds.set(entry, cached);
  }
  return cached;
}

const bounds = new WeakMap<TypeEntry, { min: number; max: number }>();

export interface CheckedRecord {
  readonly entry: TypeEntry;
  /**
   * Undefined for a type whose handler writes another layout than its dictionary entry declares
   * (`opaque` says why): the application reads such records, the generic decoder cannot.
   */
  readonly layout: EntityLayout | undefined;
  readonly opaque?: string | undefined;
}

/**
 * Checks a complete record of channel `channel` (of `channelCount`); returns the decoded layout, or
 * the defect. `where` names the record for messages.
 */
export function checkRecord(
  dictionary: TypeDictionary,
  record: Uint8Array,
  channel: number,
  channelCount: number,
  where: { readonly file: string; readonly offset: number },
): CheckedRecord | RecordDefect {
  const header = readHeader(record);
  const entry = dictionary.byId.get(header.typeId);
  if (entry === undefined) {
    return {
      kind: 'unknown-type',
      refusesStart: true,
      java: { exception: STORAGE_EXCEPTION, message: `TypeId not resolvable via type dictionary: ${header.typeId}` },
      message: `object ${header.objectId} has type id ${header.typeId}, which the type dictionary does not define`,
    };
  }
  const { min, max } = entityLengthBounds(entry);
  if (header.length < min || header.length > max) {
    return {
      kind: 'invalid-length',
      refusesStart: true,
      java: {
        exception: STORAGE_EXCEPTION,
        message: `Invalid entity length for objectId ${header.objectId} of type ${header.typeId} ${entry.typeName} : ${header.length} ${header.length < min ? '<' : '>'} ${header.length < min ? min : max}`,
      },
      message: `the record of object ${header.objectId} is ${header.length} bytes long; a ${entry.typeName} takes ${max === min ? `exactly ${min}` : `at least ${min}`}`,
    };
  }
  const kind = classifyId(header.objectId);
  if (kind !== 'object' && kind !== 'constant') {
    return {
      kind: 'invalid-id',
      refusesStart: true,
      java: { exception: STORAGE_EXCEPTION, message: `Invalid OID: ${header.objectId}` },
      message: `the record's object id ${header.objectId} is not an object id`,
    };
  }
  if (Number(header.objectId & BigInt(channelCount - 1)) !== channel) {
    return {
      kind: 'wrong-channel',
      refusesStart: false,
      java: undefined,
      message: `object ${header.objectId} belongs to channel ${Number(header.objectId & BigInt(channelCount - 1))}, not ${channel}: MicroStream never looks for it here`,
    };
  }
  const opaque = unloadableReason(entry);
  if (opaque !== undefined) return { entry, layout: undefined, opaque };
  try {
    const layout = layoutEntity(entry, record.subarray(24), { file: where.file, offset: where.offset + 24 });
    return { entry, layout };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return {
      kind: 'unreadable',
      refusesStart: false,
      java: undefined,
      message: `object ${header.objectId} (${entry.typeName}) cannot be decoded: ${error.message}`,
    };
  }
}

export function isDefect(result: CheckedRecord | RecordDefect): result is RecordDefect {
  return 'kind' in result;
}
