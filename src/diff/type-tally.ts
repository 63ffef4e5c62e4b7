/**
 * Counts per type id into a map a run at a time: the records a diff looks at come in runs of one
 * type (a String changed after a String), and a map keyed by bigints hashes the key on every
 * lookup. The map holds every count after `flush`, each type inserted when its first run ends,
 * before any type met after it: the map's order is the one counting one by one gives.
 */
export class TypeTally {
  private typeId: bigint | undefined;
  private pending = 0;

  constructor(readonly counts: Map<bigint, number>) {}

  add(typeId: bigint): void {
    if (typeId === this.typeId) {
      this.pending++;
      return;
    }
    this.flush();
    this.typeId = typeId;
    this.pending = 1;
  }

  /** Every count in the map (counting may go on after it). */
  flush(): void {
    if (this.typeId !== undefined && this.pending > 0) this.counts.set(this.typeId, (this.counts.get(this.typeId) ?? 0) + this.pending);
    this.pending = 0;
  }
}

/** Adds to a set a run at a time (the set's order as adding one by one gives it). */
export class TypeSet {
  private last: bigint | undefined;

  constructor(readonly ids: Set<bigint>) {}

  add(typeId: bigint): void {
    if (typeId === this.last) return;
    this.ids.add(typeId);
    this.last = typeId;
  }
}
