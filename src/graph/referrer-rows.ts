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
const RANGE_BITS = 15;
/** Edges partitioned per batch: bounds the scratch memory (8 bytes an edge). */
const BATCH_EDGES = 1 << 22;

/**
 * `rowStart` (length nodeCount + 1) bounds each row; each row starts with its forward targets
 * (flagged, ending at the first unflagged entry or the row's end); `cursor[u]` is where u's next
 * referrer goes. `batchEdges` bounds the edges partitioned at a time (smaller in tests).
 */
export function appendReferrers(
  nodeCount: number,
  rowStart: Uint32Array,
  rows: Uint32Array,
  cursor: Uint32Array | Int32Array,
  batchEdges = BATCH_EDGES,
): void {
  const ranges = (nodeCount >>> RANGE_BITS) + 1;
  if (ranges <= 4) {
    appendDirectly(0, nodeCount, rowStart, rows, cursor);
    return;
  }
  const starts = new Uint32Array(ranges + 1);
  let pairs = new Uint32Array(0);
  for (let from = 0; from < nodeCount; ) {
    // A batch of sources [from, to) with at most BATCH_EDGES forward entries (at least one source).
    starts.fill(0);
    let edges = 0;
    let to = from;
    for (; to < nodeCount; to++) {
      const start = rowStart[to] as number;
      const end = rowStart[to + 1] as number;
      let k = start;
      while (k < end && (rows[k] as number) >= FORWARD_FLAG) k++;
      if (edges + (k - start) > batchEdges && to > from) break;
      edges += k - start;
      for (let i = start; i < k; i++) {
        const r = ((rows[i] as number) & 0x7fffffff) >>> RANGE_BITS;
        starts[r + 1] = (starts[r + 1] as number) + 1;
      }
    }
    for (let r = 0; r < ranges; r++) starts[r + 1] = (starts[r + 1] as number) + (starts[r] as number);
    if (pairs.length < 2 * edges) pairs = new Uint32Array(2 * edges);
    for (let v = from; v < to; v++) {
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
    from = to;
  }
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

/**
 * Adds one to `degrees[x & 0x7fffffff]` for every x of `values[0, count)` (the referrer counts
 * of forward targets), partitioned by target range first for the same reason as above; `scratch`
 * holds at least `count` entries.
 */
export function countTargets(values: Uint32Array, count: number, degrees: Uint32Array, nodeCount: number, scratch: Uint32Array): void {
  const ranges = (nodeCount >>> RANGE_BITS) + 1;
  if (ranges <= 4) {
    for (let i = 0; i < count; i++) {
      const u = (values[i] as number) & 0x7fffffff;
      degrees[u] = (degrees[u] as number) + 1;
    }
    return;
  }
  const starts = new Uint32Array(ranges + 1);
  for (let i = 0; i < count; i++) {
    const r = ((values[i] as number) & 0x7fffffff) >>> RANGE_BITS;
    starts[r + 1] = (starts[r + 1] as number) + 1;
  }
  for (let r = 0; r < ranges; r++) starts[r + 1] = (starts[r + 1] as number) + (starts[r] as number);
  for (let i = 0; i < count; i++) {
    const u = (values[i] as number) & 0x7fffffff;
    const r = u >>> RANGE_BITS;
    const at = starts[r] as number;
    starts[r] = at + 1;
    scratch[at] = u;
  }
  for (let i = 0; i < count; i++) {
    const u = scratch[i] as number;
    degrees[u] = (degrees[u] as number) + 1;
  }
}
