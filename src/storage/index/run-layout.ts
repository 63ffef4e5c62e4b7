/**
 * How a position of an object index's dense run is laid out (object-index.ts): 2 words, 8 bytes,
 * no id stored. The first word, the tag, packs the file slot + 1 (the 12 high bits) and the
 * record length (the 20 low bits); 0 is an empty position, `IN_HASH` (all ones) one whose id's
 * location is in the hash table beside the run (a record of 1 MiB or more, or one in a channel's
 * 4,095th file or beyond). The second word is the record's offset. Shared by the index and the
 * builder that loads a channel's records in one go (index-builder.ts).
 *
 * The run matters for opening large storages: the index's memory is written once, and the first
 * write to each page of fresh memory costs a page fault (measured 2.5–9 µs a 4 KiB page on the
 * development machine, up to half of an open's CPU time with the hash table alone, which touches
 * 27 bytes an entity instead of 8). Packing a position into 8 bytes instead of 12 (file slot,
 * offset and length a word each) took a third of those faults off: opening the benchmark storages
 * warm, 316 → 304 ms at 10M entities and 2,340 → 1,950 ms at 100M (medians of 8 and 4 alternated
 * opens).
 *
 * Those modules copy these constants into constants of their own, and pack a tag in place: V8
 * folds a module's own constants into the code it compiles, but loads an imported one wherever
 * it is used, and calls an imported function. Opening the 1M benchmark storage (indexed in the
 * opening thread, whose modules are not bundled): 138 ms with imported constants and helpers, 119
 * with local copies, 130 with local constants and imported helpers (medians of 12 alternated
 * opens).
 */

/** Words a position of the dense run: the tag, the offset. */
export const RUN_WORDS = 2;
/** Bits of a tag that hold the record length (the low ones); the file slot + 1 is above them. */
export const RUN_LENGTH_BITS = 20;
export const RUN_LENGTH_MASK = (1 << RUN_LENGTH_BITS) - 1;
/** File slots a tag holds: slot + 1 takes the 12 high bits, and all ones is `IN_HASH`. */
export const RUN_SLOTS = 2 ** (32 - RUN_LENGTH_BITS) - 2;
/** A tag saying that the id's location is in the hash table. */
export const IN_HASH = -1;
/** The run grows (copying) for an id at most this many times its length past its start. */
export const RUN_GROWTH_REACH = 2;

/**
 * The length a run starting at key `runStart` grows to so that it holds `position` (within
 * reach: a sample underestimated the channel), or 0 when it does not grow (too far, or past the
 * keys an `idShift` leaves).
 */
export function grownRunLength(runLength: number, runStart: number, position: number, idShift: number): number {
  if (position >= runLength * RUN_GROWTH_REACH) return 0;
  const length = Math.min(Math.max(position + 1, Math.ceil(runLength * 1.5)), 2 ** (32 - idShift) - runStart);
  return position < length ? length : 0;
}

/**
 * A run reserved for about `expectedEntities` ids from `low`/`high` (the lowest id seen in a
 * sample) on: its first key (`low >>> idShift`), the id bits every key shares, and its length
 * (bounded by the keys an `idShift` leaves).
 */
export function runPlacement(expectedEntities: number, low: number, high: number, idShift: number): { start: number; high: number; lowBits: number; length: number } {
  const start = (low | 0) >>> idShift;
  return { start, high: high | 0, lowBits: low & ((1 << idShift) - 1), length: Math.min(Math.ceil(expectedEntities), 2 ** (32 - idShift) - start) };
}
