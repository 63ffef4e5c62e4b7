/** Object ids as the two signed 32-bit halves the object index and the record walks use (no bigint per record). */

/** Splits an object id into the two 32-bit halves the index uses. */
export function splitId(id: bigint): [low: number, high: number] {
  return [Number(id & 0xffffffffn), Number((id >> 32n) & 0xffffffffn)];
}

/** Joins two 32-bit halves (either signedness) into an id. */
export function joinId(low: number, high: number): bigint {
  return (BigInt(high | 0) << 32n) | BigInt(low >>> 0);
}
