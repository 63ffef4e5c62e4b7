/** Slots of the counter's direct-mapped table (type ids cluster: few collisions). */
const TYPE_SLOTS = 4096;

/** Counts per type id below 2^32 without a bigint or a Map lookup per object: a direct-mapped table in front of a Map. */
export class TypeCounter {
  private readonly keys = new Int32Array(TYPE_SLOTS).fill(-1);
  private readonly counts = new Float64Array(TYPE_SLOTS);
  private readonly spilled = new Map<number, number>();

  add(typeLow: number): void {
    const slot = typeLow & (TYPE_SLOTS - 1);
    const key = this.keys[slot]!;
    if (key === (typeLow | 0)) {
      this.counts[slot]!++;
      return;
    }
    if ((typeLow | 0) === -1) return this.spill(typeLow >>> 0, 1); // the empty slot's mark
    if (key !== -1) this.spill(key >>> 0, this.counts[slot]!);
    this.keys[slot] = typeLow;
    this.counts[slot] = 1;
  }

  private spill(typeLow: number, n: number): void {
    this.spilled.set(typeLow, (this.spilled.get(typeLow) ?? 0) + n);
  }

  entries(): [number, number][] {
    for (let slot = 0; slot < TYPE_SLOTS; slot++) {
      if (this.keys[slot] !== -1) this.spill(this.keys[slot]! >>> 0, this.counts[slot]!);
      this.keys[slot] = -1;
    }
    return [...this.spilled];
  }
}
