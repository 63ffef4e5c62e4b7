import { executionAsyncResource } from 'node:async_hooks';

/**
 * Keeps one of Node's `process.nextTick` objects alive for as long as the process runs, so that
 * V8 keeps the hidden classes its literal (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …,
 * callback, args }`) builds its objects through.
 *
 * Why: those hidden classes are held only weakly by the literal's type feedback. When a full
 * garbage collection runs while no tick object is alive (before the first request: opening a
 * storage and building its graph index collect; later, any full collection that finds the
 * server idle),
 * they are collected, the feedback is cleared, and from then on every tick object is built in
 * V8's runtime instead of by the compiled literal, for the rest of the process's life (a loop
 * awaiting one promise resolved by one tick: 220 ns a step with a tick held, 450 ns without). A
 * server calls `nextTick` several times per request (Node's streams: after each write, at the end
 * of each request body, on resume). Measured on `/object` at 10M entities, 10,000 requests/s:
 * those runtime paths took about 6 % of the server's CPU (`perf`) and are gone with a tick held;
 * server CPU per request 52 → 47 µs after the benchmark's three forced collections, and
 * 59 → 49 µs for `storage-inspector serve` (whose graph build collects) — five alternated rounds.
 */
let held: object | undefined;

/** Holds a tick object (once per process); call before the server's first idle collection. */
export function holdTickShape(): void {
  if (held !== undefined) return;
  // Inside a nextTick callback, the current async resource is that tick's object.
  process.nextTick(() => {
    held = executionAsyncResource();
  });
}

/** The tick object held (undefined until the tick has run): for tests. */
export function heldTick(): object | undefined {
  return held;
}
