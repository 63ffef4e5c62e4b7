import { BLOCK, BLOCK_BITS, BLOCK_MASK } from './target-lists.js';

/**
 * The depth-first search of convert's reachability (walked-reachability.ts) over the targets'
 * lists its record walk collected: one bit per object the roots entity (object number `roots`;
 * negative: none) reaches.
 */

/** Objects of the search's queue whose starts and first list entries are loaded together. */
const SEARCH_BATCH = 256;

/**
 * `starts`: per object, where its targets start in the list, + 1 (0: none); `blocks`/`fill`: the
 * list (each object's targets together, the last one marked by its sign: `~number`).
 */
export function searchReach(roots: number, positions: number, starts: Uint32Array, blocks: readonly Int32Array[], fill: number): Uint8Array<ArrayBuffer> {
  const reach = new Uint8Array(Math.ceil(positions / 8));
  if (roots >= 0) {
    // Marked objects whose targets are still to be marked, on a stack: the same objects are
    // reached in any order, and a stack's memory is touched only as deep as it grows (26,542
    // entries on the 10M benchmark storage), a breadth-first queue's for every object reached
    // (38 MB there, at the convert's peak RSS).
    const stack = new Uint32Array(positions);
    let top = 0;
    reach[roots >>> 3]! |= 1 << (roots & 7);
    stack[top++] = roots;
    // The stack is taken in batches, each in three loops: every object's start, then the first
    // entry at each start, then the targets. The loads of one loop do not wait on each other, so
    // the processor fetches them from memory at once; one loop per object waited for its start
    // and then for its list entries, in turn (at 10M entities both miss the caches for nearly
    // every object): 0.47-0.50 s of CPU instead of 0.71-0.79 s for the search, measured on the
    // benchmark storage.
    const batchStarts = new Uint32Array(SEARCH_BATCH);
    const batchFirsts = new Int32Array(SEARCH_BATCH);
    while (top > 0) {
      const n = Math.min(SEARCH_BATCH, top);
      top -= n;
      // Taken off before the targets are pushed over them.
      for (let k = 0; k < n; k++) batchStarts[k] = starts[stack[top + k] as number] as number;
      for (let k = 0; k < n; k++) {
        // 0: no targets, or the object's newest version was not met.
        const at = (batchStarts[k] as number) - 1;
        if (at >= 0) batchFirsts[k] = blocks[at >>> BLOCK_BITS]![at & BLOCK_MASK] as number;
      }
      for (let k = 0; k < n; k++) {
        let at = (batchStarts[k] as number) - 1;
        if (at < 0) continue;
        // The targets from the start up to the one marked last.
        let block = at >>> BLOCK_BITS;
        let targets = blocks[block]!;
        let i = at & BLOCK_MASK;
        let u = batchFirsts[k] as number;
        for (;;) {
          const end = u < 0;
          if (end) u = ~u;
          const bit = 1 << (u & 7);
          const byte = reach[u >>> 3] as number;
          if ((byte & bit) === 0) {
            reach[u >>> 3] = byte | bit;
            stack[top++] = u;
          }
          if (end || ++at >= fill) break;
          if (++i === BLOCK) {
            targets = blocks[++block]!;
            i = 0;
          }
          u = targets[i] as number;
        }
      }
    }
  }
  return reach;
}
