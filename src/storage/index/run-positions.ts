/**
 * An index's dense run seen as arithmetic plus one bit per position, for convert's reachability
 * (convert/walked-reachability.ts), which looks up every reference of a storage in random order.
 * Apart from object-index.ts because it only reads the index's tables (`ObjectIndexParts`) once,
 * for a purpose of one caller, and the index's file is kept to its own upkeep.
 */

import type { ObjectIndexParts } from './object-index-parts.js';
import * as layout from './run-layout.js';

// Local copies (run-layout.ts says why): the loop below reads every run position.
const RUN_WORDS = layout.RUN_WORDS;
const IN_HASH = layout.IN_HASH;

/** Where a run lies among the ids: ids with `high` and low bits `lowBits` from key `start` on, `length` positions. */
export interface RunArithmetic {
  readonly idShift: number;
  readonly high: number;
  readonly lowBits: number;
  readonly start: number;
  readonly length: number;
}

/**
 * `positionOf` for the run's ids as arithmetic and one bit per run position, for a walk that
 * looks up many ids in random order (convert's reachability: every reference): sets bit
 * `base + p` of `present` for each run position `p` that holds an entry, and returns the run's
 * placement. For an id with `high === run.high`, `(low & (2^idShift - 1)) === run.lowBits` and
 * `p = (low >>> idShift) - run.start` from 0 to `run.length - 1` whose bit is set, `positionOf`
 * is `p`; for every other id it is what `positionOf` answers. A bit is 1/64 of the run's 8 bytes a
 * position, so the bits of all channels stay in the processor's caches where the run does not
 * (at 10M entities the runs take 80 MB). Valid while nothing is set.
 */
export function markRunPositions(parts: ObjectIndexParts, present: Uint8Array, base: number): RunArithmetic {
  const { run, idShift } = parts;
  const [length, start, high, lowBits, , top] = parts.runFields;
  for (let position = 0; position < top; position++) {
    const tag = run[position * RUN_WORDS] as number;
    if (tag === 0 || tag === IN_HASH) continue;
    const bit = base + position;
    present[bit >>> 3]! |= 1 << (bit & 7);
  }
  return { idShift, high, lowBits, start, length };
}
