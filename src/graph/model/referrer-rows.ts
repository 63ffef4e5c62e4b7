/**
 * Fills in the referrer half of the rows once the forward halves are written: for every edge
 * v → u (visited in ascending v), v is appended at `cursor[u]`. Done directly, each edge is a
 * write to a random place in arrays far larger than the processor's caches, which dominates the
 * build of a large graph; so the edges are first partitioned by their target's range of nodes
 * (in batches of sources, keeping ascending v within each range) and then written range by range,
 * where the cursors and rows being written fit in cache.
 */

/** adjacency.ts's flag of forward entries (not imported: adjacency.ts imports this file). */
const FORWARD_FLAG = 0x80000000;
/** Nodes per target range: their cursors and rows stay within a few hundred KiB. */
export const RANGE_BITS = 15;
/** Sources per block of a target histogram: batches are whole blocks. */
export const BLOCK_BITS = 17;
/**
 * Edges partitioned per batch (at least one block's): bounds the scratch memory (8 bytes an edge,
 * 16 MiB: what a chunk of the build's forward lists holds, which the build lends once it is read).
 */
const BATCH_EDGES = 1 << 21;

/** Target ranges of a graph of `nodeCount` nodes. */
export function targetRanges(nodeCount: number): number {
  return (nodeCount >>> RANGE_BITS) + 1;
}

/** Blocks of sources of a graph of `nodeCount` nodes. */
function sourceBlocks(nodeCount: number): number {
  return (nodeCount >>> BLOCK_BITS) + 1;
}

/**
 * Length of a target histogram: per block of sources (`BLOCK_BITS`), per target range, the number
 * of forward entries from those sources into that range. The build counts it while it writes the
 * forward halves (forward-lists.ts), so that appending referrers need not read every row once
 * more only to size its partitions.
 */
export function histogramLength(nodeCount: number): number {
  return sourceBlocks(nodeCount) * targetRanges(nodeCount);
}

/**
 * `rowStart` (length nodeCount + 1) bounds each row; each row starts with its forward targets
 * (flagged, ending at the first unflagged entry or the row's end); `cursor[u]` is where u's next
 * referrer goes. `histogram` (see `histogramLength`) is counted here when not given; `scratch`,
 * if given, holds the partitioned edges as far as it goes (its contents are lost). `batchEdges`
 * bounds the edges partitioned at a time (smaller in tests).
 */
export function appendReferrers(
  nodeCount: number,
  rowStart: Uint32Array,
  rows: Uint32Array,
  cursor: Uint32Array | Int32Array,
  histogram?: Uint32Array,
  scratch?: Uint32Array,
  batchEdges = BATCH_EDGES,
): void {
  const ranges = targetRanges(nodeCount);
  if (ranges <= 4) {
    appendDirectly(0, nodeCount, rowStart, rows, cursor);
    return;
  }
  const counts = histogram ?? countHistogram(nodeCount, rowStart, rows);
  const blocks = sourceBlocks(nodeCount);
  const starts = new Uint32Array(ranges + 1);
  let pairs = scratch ?? new Uint32Array(0);
  for (let block = 0; block < blocks; ) {
    // A batch of whole blocks with at most `batchEdges` forward entries (at least one block).
    starts.fill(0);
    let edges = 0;
    let last = block;
    for (; last < blocks; last++) {
      let inBlock = 0;
      const base = last * ranges;
      for (let r = 0; r < ranges; r++) inBlock += counts[base + r] as number;
      if (edges + inBlock > batchEdges && last > block) break;
      edges += inBlock;
      for (let r = 0; r < ranges; r++) starts[r + 1] = (starts[r + 1] as number) + (counts[base + r] as number);
    }
    for (let r = 0; r < ranges; r++) starts[r + 1] = (starts[r + 1] as number) + (starts[r] as number);
    if (pairs.length < 2 * edges) pairs = new Uint32Array(2 * edges);
    const to = Math.min(nodeCount, last << BLOCK_BITS);
    for (let v = block << BLOCK_BITS; v < to; v++) {
      const end = rowStart[v + 1] as number;
      for (let i = rowStart[v] as number; i < end; i++) {
        const x = rows[i] as number;
        if (x < FORWARD_FLAG) break;
        const u = x & 0x7fffffff;
        const r = u >>> RANGE_BITS;
        const at = starts[r] as number;
        starts[r] = at + 1;
        pairs[2 * at] = u;
        pairs[2 * at + 1] = v;
      }
    }
    for (let p = 0; p < 2 * edges; p += 2) {
      const u = pairs[p] as number;
      const at = cursor[u] as number;
      rows[at] = pairs[p + 1] as number;
      cursor[u] = at + 1;
    }
    block = last;
  }
}

/** The target histogram of rows whose forward halves are written (see `histogramLength`). */
function countHistogram(nodeCount: number, rowStart: Uint32Array, rows: Uint32Array): Uint32Array {
  const ranges = targetRanges(nodeCount);
  const histogram = new Uint32Array(histogramLength(nodeCount));
  for (let v = 0; v < nodeCount; v++) {
    const base = (v >>> BLOCK_BITS) * ranges;
    const end = rowStart[v + 1] as number;
    for (let i = rowStart[v] as number; i < end; i++) {
      const x = rows[i] as number;
      if (x < FORWARD_FLAG) break;
      const r = base + ((x & 0x7fffffff) >>> RANGE_BITS);
      histogram[r] = (histogram[r] as number) + 1;
    }
  }
  return histogram;
}

function appendDirectly(from: number, to: number, rowStart: Uint32Array, rows: Uint32Array, cursor: Uint32Array | Int32Array): void {
  for (let v = from; v < to; v++) {
    const end = rowStart[v + 1] as number;
    for (let i = rowStart[v] as number; i < end; i++) {
      const x = rows[i] as number;
      if (x < FORWARD_FLAG) break;
      const u = x & 0x7fffffff;
      rows[cursor[u] as number] = v;
      cursor[u] = (cursor[u] as number) + 1;
    }
  }
}
