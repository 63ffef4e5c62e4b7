import { closeSync } from 'node:fs';

/**
 * Open read-only descriptors of data files, kept for every storage of the process in one
 * least-recently-used order under one bound: each storage's reader keeps the descriptors of its
 * files (a read never pays an open while they fit), but together they never hold more than the
 * bound, however many storages are served and however many files each has (50,000 small files
 * of one storage used to take every descriptor of the process, and a storage served beside it
 * failed with EMFILE).
 */

/** One kept descriptor; its owner finds it by path, the pool by age. */
export interface PooledDescriptor {
  readonly fd: number;
  readonly path: string;
  readonly owner: DescriptorOwner;
}

/** A reader's own map of the descriptors it keeps in the pool. */
export type DescriptorOwner = Map<string, PooledDescriptor>;

export class DescriptorPool {
  /** Every kept descriptor, oldest use first (a Set keeps insertion order). */
  private readonly byAge = new Set<PooledDescriptor>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.byAge.size;
  }

  /** The descriptor `owner` keeps for `path`, opened with `open` when it keeps none. */
  descriptor(owner: DescriptorOwner, path: string, open: (path: string) => number): number {
    const kept = owner.get(path);
    if (kept !== undefined) {
      // The order matters only once something may be evicted: with every file open, refreshing
      // it on each read would only cost a delete and an insert per read.
      if (this.byAge.size >= this.max) {
        this.byAge.delete(kept);
        this.byAge.add(kept);
      }
      return kept.fd;
    }
    const entry: PooledDescriptor = { fd: open(path), path, owner };
    owner.set(path, entry);
    this.byAge.add(entry);
    // Never the entry just added: it is the newest.
    while (this.byAge.size > this.max) this.drop(this.byAge.values().next().value as PooledDescriptor);
    return entry.fd;
  }

  /** Closes the descriptor `owner` keeps for `path`, if any. */
  forget(owner: DescriptorOwner, path: string): void {
    const kept = owner.get(path);
    if (kept !== undefined) this.drop(kept);
  }

  /** Closes every descriptor `owner` keeps. */
  forgetAll(owner: DescriptorOwner): void {
    for (const entry of [...owner.values()]) this.drop(entry);
  }

  private drop(entry: PooledDescriptor): void {
    this.byAge.delete(entry);
    entry.owner.delete(entry.path);
    closeSync(entry.fd);
  }
}
