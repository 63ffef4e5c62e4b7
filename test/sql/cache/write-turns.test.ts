import { describe, expect, it } from 'vitest';
import { WriteTurns } from '../../../src/sql/cache/write-turns.js';

/**
 * Fills (writers, any number at once) and the copy into the cache (alone) take turns at the
 * database file: the copy starts only once the writers under way are done, and a writer that
 * comes while the copy waits or runs starts after it.
 */

/** A piece of work that runs until `finish` is called; `started` says whether it has begun. */
function work(log: string[], name: string): { run: () => Promise<void>; finish: () => void; started: () => boolean } {
  let finish!: () => void;
  let started = false;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: async () => {
      started = true;
      log.push(`${name} start`);
      await done;
      log.push(`${name} end`);
    },
    finish: () => finish(),
    started: () => started,
  };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('write turns', () => {
  it('lets writers share, and a copy wait for them and hold back the writers after it', async () => {
    const turns = new WriteTurns();
    const log: string[] = [];
    const a = work(log, 'fill a');
    const b = work(log, 'fill b');
    const copy = work(log, 'copy');
    const c = work(log, 'fill c');
    const running = [turns.shared(a.run), turns.shared(b.run)];
    await settle();
    expect([a.started(), b.started()]).toEqual([true, true]);
    running.push(turns.alone(copy.run));
    running.push(turns.shared(c.run));
    await settle();
    expect(copy.started()).toBe(false);
    a.finish();
    await settle();
    expect(copy.started()).toBe(false);
    b.finish();
    await settle();
    expect(copy.started()).toBe(true);
    expect(c.started()).toBe(false);
    copy.finish();
    await settle();
    expect(c.started()).toBe(true);
    c.finish();
    await Promise.all(running);
    expect(log).toEqual(['fill a start', 'fill b start', 'fill a end', 'fill b end', 'copy start', 'copy end', 'fill c start', 'fill c end']);
  });
});
