/**
 * Where the older records of each object are (data files are append-only: a store writes a new
 * record and leaves the old one until housekeeping deletes its file). Three typed arrays sorted
 * by node, 12 bytes per superseded record; records superseded while following are appended
 * unsorted and merged in when they grow.
 */

export interface RecordPlace {
  readonly channel: number;
  readonly fileSlot: number;
  readonly offset: number;
}

/** Channel and file slot in one word: 10 bits of channel (at most 1024), 22 bits of slot. */
const SLOT_BITS = 22;
const SLOT_MASK = (1 << SLOT_BITS) - 1;

function fileKey(channel: number, fileSlot: number): number {
  return channel * (1 << SLOT_BITS) + fileSlot;
}

class RecordList {
  nodes: Uint32Array = new Uint32Array(16);
  keys: Uint32Array = new Uint32Array(16);
  offsets: Uint32Array = new Uint32Array(16);
  count = 0;

  push(node: number, key: number, offset: number): void {
    if (this.count === this.nodes.length) {
      const n = this.count * 2;
      const grow = (a: Uint32Array): Uint32Array => {
        const b = new Uint32Array(n);
        b.set(a);
        return b;
      };
      this.nodes = grow(this.nodes);
      this.keys = grow(this.keys);
      this.offsets = grow(this.offsets);
    }
    this.nodes[this.count] = node;
    this.keys[this.count] = key;
    this.offsets[this.count] = offset;
    this.count++;
  }

  get byteSize(): number {
    return this.nodes.byteLength * 3;
  }
}

export class SupersededRecords {
  private sorted = new RecordList();
  private recent = new RecordList();
  /** While a build adds records in bulk, they are sorted once at its end (`merge()`), not as they come. */
  bulk = false;

  get size(): number {
    return this.sorted.count + this.recent.count;
  }

  get byteSize(): number {
    return this.sorted.byteSize + this.recent.byteSize;
  }

  add(node: number, channel: number, fileSlot: number, offset: number): void {
    this.recent.push(node, fileKey(channel, fileSlot), offset);
    if (!this.bulk && this.recent.count > 4096 && this.recent.count > this.sorted.count / 8) this.merge();
  }

  /** Sorts what was added by node (stable: file order within a node). */
  merge(): void {
    const all = new RecordList();
    const total = this.sorted.count + this.recent.count;
    const nodes = new Uint32Array(total);
    const keys = new Uint32Array(total);
    const offsets = new Uint32Array(total);
    nodes.set(this.sorted.nodes.subarray(0, this.sorted.count));
    nodes.set(this.recent.nodes.subarray(0, this.recent.count), this.sorted.count);
    keys.set(this.sorted.keys.subarray(0, this.sorted.count));
    keys.set(this.recent.keys.subarray(0, this.recent.count), this.sorted.count);
    offsets.set(this.sorted.offsets.subarray(0, this.sorted.count));
    offsets.set(this.recent.offsets.subarray(0, this.recent.count), this.sorted.count);
    const order = radixOrder(nodes);
    all.nodes = gather(nodes, order);
    all.keys = gather(keys, order);
    all.offsets = gather(offsets, order);
    all.count = total;
    this.sorted = all;
    this.recent = new RecordList();
  }

  /**
   * The superseded records of a node, in the order they were added: file order within one
   * thread's files, but a threaded build merges the decode thread's files as they come, so callers
   * that need an order sort (object-versions.ts sorts by file and offset).
   */
  of(node: number): RecordPlace[] {
    const out: RecordPlace[] = [];
    const s = this.sorted;
    let lo = 0;
    let hi = s.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((s.nodes[mid] as number) < node) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < s.count && s.nodes[i] === node; i++) out.push(place(s.keys[i] as number, s.offsets[i] as number));
    const r = this.recent;
    for (let i = 0; i < r.count; i++) if (r.nodes[i] === node) out.push(place(r.keys[i] as number, r.offsets[i] as number));
    return out;
  }

  /** Drops the records in files `gone` accepts (deleted by housekeeping). */
  dropFiles(gone: (channel: number, fileSlot: number) => boolean): void {
    this.merge();
    const s = this.sorted;
    let kept = 0;
    for (let i = 0; i < s.count; i++) {
      const key = s.keys[i] as number;
      if (gone(Math.floor(key / (1 << SLOT_BITS)), key & SLOT_MASK)) continue;
      s.nodes[kept] = s.nodes[i] as number;
      s.keys[kept] = key;
      s.offsets[kept] = s.offsets[i] as number;
      kept++;
    }
    s.count = kept;
  }
}

function place(key: number, offset: number): RecordPlace {
  return { channel: Math.floor(key / (1 << SLOT_BITS)), fileSlot: key & SLOT_MASK, offset };
}

/** A stable order of indices by 32-bit key: two passes of 16-bit counting sort. */
function radixOrder(keys: Uint32Array): Uint32Array {
  const n = keys.length;
  let order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let spare = new Uint32Array(n);
  for (const shift of [0, 16]) {
    const counts = new Uint32Array(65537);
    for (let i = 0; i < n; i++) {
      const b = (((keys[i] as number) >>> shift) & 0xffff) + 1;
      counts[b] = (counts[b] as number) + 1;
    }
    for (let b = 1; b <= 65536; b++) counts[b] = (counts[b] as number) + (counts[b - 1] as number);
    for (let i = 0; i < n; i++) {
      const index = order[i] as number;
      const bucket = ((keys[index] as number) >>> shift) & 0xffff;
      spare[counts[bucket]!++] = index;
    }
    [order, spare] = [spare, order];
  }
  return order;
}

function gather(values: Uint32Array, order: Uint32Array): Uint32Array {
  const out = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = values[order[i] as number] as number;
  return out;
}
