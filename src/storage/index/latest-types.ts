import { HashedLocations } from './hashed-locations.js';
import { grownRunLength, runPlacement } from './run-layout.js';
import { TypeCounter } from './type-counter.js';

/**
 * The type of each object's latest record, kept while a channel is indexed in one go, only when
 * the opener asks (`OpenOptions.countLatestTypes`: a diff's unchanged objects per type without
 * visiting their records), and given back as counts per type. Records arrive in file order, and
 * the later record of an id overwrites the earlier: the type kept is the latest record's, by the
 * same rule as the index (object-index.ts), whichever table the index keeps the id in.
 *
 * Ids of the channel's dense run (placed as the index places its run) keep their type as an
 * ordinal (1, 2, ... in the order the channel's types are first met; 0: no record) in an array of
 * one byte a position, two once a channel has more than 255 types: at 10M entities 10 MB written
 * instead of 40 MB of a type's low word per position, whose fresh pages cost page faults as the
 * index's do (object-index.ts). Any other id, a type id of 2^32 or more, and the types past 65,535
 * go to a hash table (fileSlot 0, the type's halves as offset and length).
 */
/** Slots of the direct-mapped cache of ordinals (type ids cluster: few collisions). */
const CACHED_TYPES = 1024;

export class LatestTypes {
  private readonly lowMask: number;
  private dense: Uint8Array | Uint16Array = new Uint8Array(0);
  /** The type (low word) of each ordinal; ordinal 0 is no type. */
  private readonly typeOfOrdinal: number[] = [0];
  private readonly ordinals = new Map<number, number>();
  /** Ordinals by the type's low bits (direct-mapped, in front of the Map: a lookup per record). */
  private readonly cachedTypes = new Int32Array(CACHED_TYPES);
  private readonly cachedOrdinals = new Uint16Array(CACHED_TYPES);
  private start = 0;
  private high = 0;
  private lowBits = 0;
  private readonly hashed: HashedLocations;

  constructor(private readonly idShift: number) {
    this.lowMask = (1 << idShift) - 1;
    this.hashed = new HashedLocations(idShift);
  }

  /** Room for about `expectedEntities` ids from `low`/`high` on, as the index reserves its run. */
  reserve(expectedEntities: number, low: number, high: number): void {
    if (expectedEntities <= 0 || this.dense.length > 0) return;
    const run = runPlacement(expectedEntities, low, high, this.idShift);
    [this.start, this.high, this.lowBits] = [run.start, run.high, run.lowBits];
    this.dense = new Uint8Array(run.length);
  }

  /** The next record in file order: its object id and type id, each as two 32-bit halves. */
  set(idLow: number, idHigh: number, typeLow: number, typeHigh: number): void {
    if (typeHigh === 0 && typeLow !== 0 && idHigh === this.high && (idLow & this.lowMask) === this.lowBits && this.dense.length > 0) {
      const position = (idLow >>> this.idShift) - this.start;
      const cached = typeLow & (CACHED_TYPES - 1);
      const ordinal = this.cachedTypes[cached] === typeLow && this.cachedOrdinals[cached] !== 0 ? this.cachedOrdinals[cached]! : this.ordinalOf(typeLow);
      if (ordinal > 0 && position >= 0 && (position < this.dense.length || this.grow(position))) {
        this.dense[position] = ordinal;
        return;
      }
    }
    this.setAside(idLow, idHigh, typeLow, typeHigh);
  }

  private setAside(idLow: number, idHigh: number, typeLow: number, typeHigh: number): void {
    // An id in the dense range whose type goes aside: its dense entry (an earlier record's) is dropped.
    const position = (idLow >>> this.idShift) - this.start;
    if (idHigh === this.high && (idLow & this.lowMask) === this.lowBits && position >= 0 && position < this.dense.length) this.dense[position] = 0;
    this.hashed.set(idLow, idHigh, 0, typeLow, typeHigh);
  }

  private grow(position: number): boolean {
    const length = grownRunLength(this.dense.length, this.start, position, this.idShift);
    if (length === 0) return false;
    const grown = this.dense instanceof Uint8Array ? new Uint8Array(length) : new Uint16Array(length);
    grown.set(this.dense);
    this.dense = grown;
    return true;
  }

  /** The ordinal of a type (numbered when first met; 0 past 65,535 types: kept aside). */
  private ordinalOf(typeLow: number): number {
    let ordinal = this.ordinals.get(typeLow);
    if (ordinal === undefined) {
      ordinal = this.typeOfOrdinal.length;
      if (ordinal > 0xffff) return 0;
      if (ordinal === 0x100 && this.dense instanceof Uint8Array) this.dense = Uint16Array.from(this.dense);
      this.typeOfOrdinal.push(typeLow);
      this.ordinals.set(typeLow, ordinal);
    }
    this.cachedTypes[typeLow & (CACHED_TYPES - 1)] = typeLow;
    this.cachedOrdinals[typeLow & (CACHED_TYPES - 1)] = ordinal;
    return ordinal;
  }

  /**
   * Latest records per type, as `[typeLow, typeHigh, count]` triples (flat, halves unsigned and
   * signed). An id kept in both tables counts once: a dense entry is cleared whenever its id's
   * type goes aside, so one left set was written later than the id's entry aside.
   */
  counts(): number[] {
    const small = new TypeCounter();
    const dense = this.dense;
    const big: number[] = [];
    this.hashed.forEach((low, high, _slot, typeLow, typeHigh) => {
      const position = (low >>> this.idShift) - this.start;
      if ((high | 0) === this.high && (low & this.lowMask) === this.lowBits && position >= 0 && position < dense.length && dense[position] !== 0) return;
      if (typeHigh === 0) small.add(typeLow);
      else big.push(typeLow, typeHigh | 0);
    });
    const perOrdinal = new Uint32Array(this.typeOfOrdinal.length);
    for (let from = 0; from < dense.length; from += COUNT_BLOCK) countOrdinals(dense, from, Math.min(dense.length, from + COUNT_BLOCK), perOrdinal);
    const triples: number[] = [];
    const fromDense = new Map<number, number>();
    for (let ordinal = 1; ordinal < perOrdinal.length; ordinal++) {
      if (perOrdinal[ordinal]! > 0) fromDense.set(this.typeOfOrdinal[ordinal]! >>> 0, perOrdinal[ordinal]!);
    }
    for (const [typeLow, n] of small.entries()) fromDense.set(typeLow, (fromDense.get(typeLow) ?? 0) + n);
    for (const [typeLow, n] of fromDense) triples.push(typeLow, 0, n);
    for (let i = 0; i < big.length; i += 2) triples.push(big[i]!, big[i + 1]!, 1);
    return triples;
  }
}

/**
 * Run positions counted per call of `countOrdinals`. The count runs once per channel, so a single
 * loop over the run ran largely before V8 had compiled it (and each increment of a Float64Array
 * there made a heap number); in blocks the function is compiled after a few calls (as
 * index-builder.ts counts its run). Counting runs of 2.5M positions (a channel at 10M entities),
 * eight in a fresh process: 13.5, 9.1, 6.7, 5.0 ms for the first four in one loop, 8.0, 5.4, 4.3,
 * 4.2 ms in blocks (an index thread counts two channels at 10M).
 */
const COUNT_BLOCK = 1 << 12;

/** Adds the run positions `[from, to)` to the counts per ordinal (ordinal 0: no record). */
function countOrdinals(dense: Uint8Array | Uint16Array, from: number, to: number, perOrdinal: Uint32Array): void {
  for (let position = from; position < to; position++) perOrdinal[dense[position]!]!++;
}
