import { parentPort } from 'node:worker_threads';
import { sweepReachability, type SweepInput } from '../model/reachability.js';

/**
 * Worker thread entry (reachability-thread.ts starts it): sweeps reachability over rows held in
 * shared memory while the building thread fills in the rows' referrer halves, which the sweep
 * never reads. Answers `true` when done, or the error's message.
 */
parentPort?.on('message', (input: SweepInput) => {
  try {
    sweepReachability(input);
    parentPort?.postMessage(true);
  } catch (error) {
    parentPort?.postMessage(error instanceof Error ? error.message : String(error));
  }
});
