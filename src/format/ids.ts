/**
 * Object, type and constant ids: signed 64-bit values, always `bigint` (many exceed 2^53).
 * Ranges and the classification quirk follow MicroStream's `Persistence.IdType`.
 */
export type ObjectId = bigint;
export type TypeId = bigint;

export const NULL_ID = 0n;
const OID_START = 1_000_000_000_000_000_001n;
const CID_START = 9_000_000_000_000_000_001n;
const CID_END_EXCLUSIVE = 9_100_000_000_000_000_000n;

export type IdKind = 'null' | 'type' | 'object' | 'constant' | 'undefined';

/** Java's classification; note `1e18` is a type id and `9e18` an object id (boundary quirk). */
export function classifyId(id: bigint): IdKind {
  if (id >= OID_START) {
    if (id >= CID_START) return id >= CID_END_EXCLUSIVE ? 'undefined' : 'constant';
    return 'object';
  }
  if (id >= 1n) return 'type';
  return id === 0n ? 'null' : 'undefined';
}

/**
 * `classifyId(id) === 'object'` for an id given as its two 32-bit halves (either signedness),
 * without making a bigint: for walks over every reference of a storage. Object ids run from
 * 1e18 + 1 (high word 232830643, low word above 2808348672) to 9e18 (high word 2095475792, low
 * word up to 3800301568).
 */
export function isObjectIdHalves(low: number, high: number): boolean {
  high |= 0;
  if (high > 232830643 && high < 2095475792) return true;
  const unsignedLow = low >>> 0;
  if (high === 232830643) return unsignedLow > 2808348672;
  if (high === 2095475792) return unsignedLow <= 3800301568;
  return false;
}

/** A JVM-cached wrapper instance that Java references by a fixed constant id instead of storing it. */
export interface JdkConstant {
  /** Dictionary type name of the wrapper class. */
  readonly typeName: string;
  /** Java `toString()` of the value. */
  readonly text: string;
}

const CID_BASE = 9_000_000_000_000_000_000n;

/** The constant table of MicroStream 4.1 (`PersistenceObjectIdResolving` / JDK value caches). */
export function resolveJdkConstant(id: bigint): JdkConstant | undefined {
  const offset = id - CID_BASE;
  if (offset < 1000n || offset >= 7000n) return undefined;
  const group = Number(offset / 1000n);
  const index = Number(offset % 1000n);
  switch (group) {
    case 1:
      return index < 256 ? { typeName: 'java.lang.Byte', text: String(index - 128) } : undefined;
    case 2:
      return index < 2 ? { typeName: 'java.lang.Boolean', text: index === 1 ? 'true' : 'false' } : undefined;
    case 3:
      return index < 256 ? { typeName: 'java.lang.Short', text: String(index - 128) } : undefined;
    case 4:
      return index < 128 ? { typeName: 'java.lang.Character', text: String.fromCharCode(index) } : undefined;
    case 5:
      return index < 256 ? { typeName: 'java.lang.Integer', text: String(index - 128) } : undefined;
    case 6:
      return index < 256 ? { typeName: 'java.lang.Long', text: String(index - 128) } : undefined;
    default:
      return undefined;
  }
}

/** The channel that holds an object: `oid & (channelCount - 1)`. */
export function channelOf(id: bigint, channelCount: number): number {
  return Number(id & channelMask(channelCount));
}

/** `BigInt(channelCount - 1)`, made once per channel count (asked on every object read). */
const channelMasks: bigint[] = [];

function channelMask(channelCount: number): bigint {
  return (channelMasks[channelCount] ??= BigInt(channelCount - 1));
}
