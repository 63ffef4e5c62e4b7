import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, also without `--expose-gc` (vitest workers do not have it): the flag
 * is switched on at run time and `gc` taken from a fresh context.
 */
let gc: (() => void) | undefined;

export function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
}

/** Heap in use after a full collection, in bytes. */
export function settledHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
