/**
 * Child of tick-shape.test.ts, run with --expose-gc and --allow-natives-syntax: holds a tick
 * object, runs many ticks, then three full collections while no tick is queued (an idle server),
 * and prints whether the tick objects made afterwards still have the held one's hidden class.
 */
import { executionAsyncResource } from 'node:async_hooks';
import { heldTick, holdTickShape } from '../../../src/http/java/tick-shape.js';

// V8's own test intrinsic, parsed only with --allow-natives-syntax.
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const takeTick = (): Promise<object> => new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

holdTickShape();
for (let i = 0; i < 100_000; i++) await new Promise((resolve) => process.nextTick(resolve));
await pause(10);
for (let i = 0; i < 3; i++) {
  gc();
  await pause(20);
}
const held = heldTick();
const fresh = await takeTick();
process.stdout.write(
  `${JSON.stringify({
    held: held !== undefined,
    heldIsTick: held !== undefined && Object.getOwnPropertySymbols(held).some((s) => s.description === 'async_id_symbol'),
    sameMap: held !== undefined && sameMap(held, fresh),
  })}\n`,
);
