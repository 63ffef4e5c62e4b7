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
 * Ids of the channel's dense run (placed as the index places its run) keep their type's low word
 * in an array, 4 bytes a position (0: no record; no valid type id is 0); any other id, and any
 * type id of 2^32 or more, goes to a hash table (fileSlot 0, the type's halves as offset and length).
 */
export class LatestTypes {
  private readonly lowMask: number;
  private dense = new Int32Array(0);
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
    this.dense = new Int32Array(run.length);
  }

  /** The next record in file order: its object id and type id, each as two 32-bit halves. */
  set(idLow: number, idHigh: number, typeLow: number, typeHigh: number): void {
    if (typeHigh === 0 && typeLow !== 0 && idHigh === this.high && (idLow & this.lowMask) === this.lowBits && this.dense.length > 0) {
      const position = (idLow >>> this.idShift) - this.start;
      if (position >= 0 && (position < this.dense.length || this.grow(position))) {
        this.dense[position] = typeLow;
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
    const grown = new Int32Array(length);
    grown.set(this.dense);
    this.dense = grown;
    return true;
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
    for (let position = 0; position < dense.length; position++) {
      const type = dense[position]!;
      if (type !== 0) small.add(type);
    }
    const triples: number[] = [];
    for (const [typeLow, n] of small.entries()) triples.push(typeLow, 0, n);
    for (let i = 0; i < big.length; i += 2) triples.push(big[i]!, big[i + 1]!, 1);
    return triples;
  }
}
