/**
 * Values by type id for the passes over every record, looked up by the walk's low half of the id
 * (`high` 0: every type id a dictionary holds is below 2^32). A pass asks one or more such
 * questions per record (is the type taken, what is done with it): a `Map` or `Set` of numbers
 * costs a hash and a bucket walk each time, tens of millions of times in an export of 10M
 * objects. A dictionary's ids lie in two clusters (the JDK's types from 1, an application's from
 * about 1,000,000), so they are kept in two arrays, by `id` and by `id - from`; an id outside both
 * (one the dictionary lacks, met in a damaged or foreign record) goes to a map beside them, so
 * every id is answered alike.
 */

/** Ids below this are kept by `id` (entries of 8 bytes: at most 512 KB). */
const LOW_SPAN = 1 << 16;
/** Widest span of the other ids kept by `id - from` (at most 2 MB). */
const MAX_SPAN = 1 << 18;

interface Spans {
  /** Ids below it are kept by `id`. */
  readonly low: number;
  /** The other window, [from, from + length). */
  readonly from: number;
  readonly length: number;
}

/**
 * The spans the arrays cover, from the ids expected (the dictionary's): every id below LOW_SPAN,
 * and the window of at most MAX_SPAN ids above that holds the most of them.
 */
function spansOf(expected: Iterable<number>): Spans {
  const ids = [...expected].filter((id) => Number.isInteger(id) && id >= 0 && id < 2 ** 32).sort((a, b) => a - b);
  let low = 0;
  while (low < ids.length && ids[low]! < LOW_SPAN) low++;
  const lowLength = low === 0 ? 0 : ids[low - 1]! + 1;
  let best = -1;
  let bestCount = 0;
  for (let first = low, last = low; last < ids.length; last++) {
    while (ids[last]! - ids[first]! >= MAX_SPAN) first++;
    if (last - first + 1 > bestCount) {
      bestCount = last - first + 1;
      best = first;
    }
  }
  if (best < 0) return { low: lowLength, from: 0, length: 0 };
  return { low: lowLength, from: ids[best]!, length: ids[best + bestCount - 1]! - ids[best]! + 1 };
}

/** A map from type ids below 2^32 (unsigned) to values (never undefined). */
export class SmallIdMap<T> {
  private readonly lowSlots: (T | undefined)[];
  private readonly from: number;
  private readonly slots: (T | undefined)[];
  private readonly rest = new Map<number, T>();

  /** `expected`: the ids most lookups will be of (the dictionary's); any id may still be set. */
  constructor(expected: Iterable<number>) {
    const spans = spansOf(expected);
    this.from = spans.from;
    // Filled (not holey): reads of unset slots stay on the fast path.
    this.lowSlots = Array.from({ length: spans.low }, () => undefined);
    this.slots = Array.from({ length: spans.length }, () => undefined);
  }

  get(id: number): T | undefined {
    if (id >= 0 && id < this.lowSlots.length) return this.lowSlots[id];
    const i = id - this.from;
    return i >= 0 && i < this.slots.length ? this.slots[i] : this.rest.get(id);
  }

  set(id: number, value: T): void {
    const i = id - this.from;
    if (id >= 0 && id < this.lowSlots.length) this.lowSlots[id] = value;
    else if (i >= 0 && i < this.slots.length) this.slots[i] = value;
    else this.rest.set(id, value);
  }
}

/** A set of type ids below 2^32 (unsigned). */
export class SmallIdSet {
  private readonly lowBits: Uint8Array;
  private readonly from: number;
  private readonly bits: Uint8Array;
  private readonly rest = new Set<number>();

  constructor(expected: Iterable<number>) {
    const spans = spansOf(expected);
    this.from = spans.from;
    this.lowBits = new Uint8Array(spans.low);
    this.bits = new Uint8Array(spans.length);
  }

  has(id: number): boolean {
    if (id >= 0 && id < this.lowBits.length) return this.lowBits[id] === 1;
    const i = id - this.from;
    return i >= 0 && i < this.bits.length ? this.bits[i] === 1 : this.rest.has(id);
  }

  add(id: number): void {
    const i = id - this.from;
    if (id >= 0 && id < this.lowBits.length) this.lowBits[id] = 1;
    else if (i >= 0 && i < this.bits.length) this.bits[i] = 1;
    else this.rest.add(id);
  }
}

/** The ids of a set of bigint type ids that are below 2^32, as numbers. */
export function smallIdsOf(ids: Iterable<bigint>): number[] {
  const out: number[] = [];
  for (const id of ids) if (id >= 0n && id < 1n << 32n) out.push(Number(id));
  return out;
}
