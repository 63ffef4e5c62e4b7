import { measureMemory } from 'node:vm';

/**
 * Asks V8 for a full collection now. A graph build leaves its temporary arrays behind as garbage
 * (the forward lists in file order, the decode thread's buffers: about 80 MB at 10M entities), and
 * a server idle after its build would hold them until V8's next collection, which only further
 * allocation brings: at 10M entities the process held 452 MB once the index was ready and 341 MB
 * after a collection (bench/startup/startup-large-bench.ts measures it). `vm.measureMemory` with eager
 * execution is the one API that starts a full collection without `--expose-gc` (which, set at run
 * time, would also make every later worker thread start without Node's startup snapshot). It is
 * experimental in Node 20; its one-time warning about that is not shown, and nothing else changes.
 */
export async function collectGarbageNow(): Promise<void> {
  const emitWarning = process.emitWarning;
  let measured: Promise<unknown>;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]): void => {
    if (typeof warning === 'string' && warning.includes('vm.measureMemory')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    measured = measureMemory({ mode: 'summary', execution: 'eager' });
  } finally {
    process.emitWarning = emitWarning;
  }
  await measured.catch(() => undefined);
}
