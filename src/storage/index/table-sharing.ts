/**
 * Whether an `ObjectIndex`'s tables (object-index.ts) are still read elsewhere: by a graph build's
 * worker thread (`snapshot`) or by another index over the same tables (shared-copy-index.ts, a
 * storage opened as the continuation of another's: basis-open.ts). The index copies its tables
 * before its first change while any such reader counts, once. Apart from the index's file because
 * this bookkeeping is about who reads the tables, not about what they hold.
 */
export class TableSharing {
  /** Snapshots of the current tables another reader may still be reading. */
  private readers = 0;
  /** Counts the copies made (`copied`), so that a snapshot of older tables is not released twice. */
  private generation = 0;

  /** One more reader of the current tables; the function returned ends its reading (once). */
  share(): () => void {
    this.readers++;
    const generation = this.generation;
    let released = false;
    return (): void => {
      if (released) return;
      released = true;
      // Tables copied since no longer count this reader.
      if (generation === this.generation) this.readers--;
    };
  }

  /** Whether the tables must be copied before they change. */
  get shared(): boolean {
    return this.readers > 0;
  }

  /** The tables were copied: nobody else reads the new ones. */
  copied(): void {
    this.readers = 0;
    this.generation++;
  }
}
