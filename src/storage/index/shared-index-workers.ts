import { IndexWorkerPool } from './index-workers.js';

/**
 * Index worker threads lent to storages opened one after another (a diff's two sides): started by
 * the first open that wants threads, kept for the next, ended by `close`. A pool per storage
 * started its threads again (about 45 ms of CPU each) and compiled the header walk in each once
 * more: opening the second of two 10M-entity storages took 470–500 ms of CPU that way and
 * 405–410 ms with the first one's threads (alternated, load average 9).
 *
 * One open at a time: a worker thread answers one request at a time, so an open that asks while
 * another holds the threads gets none from here (and starts its own).
 */
export class SharedIndexWorkers {
  private pool: IndexWorkerPool | undefined;
  private threads = 0;
  private held = false;
  private closed = false;
  /** Pools started so far. */
  started = 0;

  /**
   * Threads for one open (at least `threads` of them: a smaller pool is replaced), or undefined
   * while another open holds them or after `close`. `release` gives them back; `usable: false`
   * (the open failed: the pool may have ended its threads) drops them.
   */
  lend(threads: number): { readonly pool: IndexWorkerPool; readonly release: (usable: boolean) => void } | undefined {
    if (this.held || this.closed || threads <= 0) return undefined;
    if (this.pool === undefined || this.threads < threads) {
      void this.pool?.close();
      this.pool = new IndexWorkerPool(threads);
      this.threads = threads;
      this.started++;
    }
    const pool = this.pool;
    this.held = true;
    let released = false;
    const release = (usable: boolean): void => {
      if (released) return;
      released = true;
      this.held = false;
      if (!usable && this.pool === pool) {
        this.pool = undefined;
        this.threads = 0;
        void pool.close();
      }
    };
    return { pool, release };
  }

  /** Ends the threads (never rejects); later opens start their own. */
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }
}
