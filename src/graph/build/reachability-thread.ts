import { availableParallelism } from 'node:os';
import { WorkerThread } from '../../threads/worker-thread.js';
import type { SweepInput } from '../model/reachability.js';

/**
 * Reachability computed on a second core while the build lays out the referrer halves of its
 * rows (the two are independent: the sweep reads only forward entries, and those are written
 * before). The arrays are shared memory, so nothing is copied either way. At 10M entities the
 * sweep and the referrer halves take about 0.3 s each. A build with a decode thread sweeps there
 * instead (graph-build.ts), saving this thread's start-up.
 */

/** From this many nodes on, with more than one processor, a build sweeps in a worker thread. */
export const REACHABILITY_THREAD_FROM_NODES = 1_000_000;

export function wantsReachabilityThread(asked: boolean | undefined, nodes: number): boolean {
  return asked ?? (nodes >= REACHABILITY_THREAD_FROM_NODES && availableParallelism() > 1);
}

export class ReachabilityThread {
  /** Started when the build starts, so the thread has loaded its code by the time it is needed. */
  private readonly thread = new WorkerThread<SweepInput, true | string>(import.meta.url, 'reachability-worker', (code) => `the reachability thread stopped (exit code ${code})`);

  /** Sweeps in the thread; every array of `input` must be over shared memory. Resolves when done. */
  async sweep(input: SweepInput): Promise<void> {
    const reply = await this.thread.ask(input);
    if (reply instanceof Error) throw reply;
    if (reply !== true) throw new Error(reply);
  }

  close(): Promise<void> {
    return this.thread.terminate();
  }
}
