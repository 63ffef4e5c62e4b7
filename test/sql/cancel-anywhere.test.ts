import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * A cancel ends a statement wherever its turn is when the cancel comes: waiting for the tables,
 * connecting, checking, beginning its transaction, preparing, or running. DuckDB clears an
 * interrupt at the start of each of a connection's queries, so a cancel heard between two of them
 * was lost, and a statement without a timeout ran on for ever (the SQL shell's Ctrl-C, seen in a
 * run beside CPU hogs). Here the cancel comes after 0, 7, 14, ... turns of the event loop, which
 * walks it across every step of the turn; a lost one never settles and the test times out.
 */

const ENDLESS = 'SELECT count(*) FROM generate_series(1, 1000000000000)';
/** Turns a whole short statement takes vary from a few hundred to a few thousand (DuckDB works in its threads meanwhile). */
const TURNS = 6_000;
const STEP = 7;

let storage: Storage;
let engine: SqlEngine;
beforeAll(async () => {
  storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
  engine = new SqlEngine({ storage, timeoutMs: 0 });
  await engine.schema();
});
afterAll(async () => {
  await engine.close();
  await storage.close();
});

function turns(n: number): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number): void => {
      if (left === 0) resolve();
      else setImmediate(step, left - 1);
    };
    step(n);
  });
}

describe('a cancel', () => {
  it(`ends an endless statement after 0 to ${TURNS} turns of the event loop, in steps of ${STEP}`, async () => {
    const outcomes = new Set<string>();
    for (let n = 0; n < TURNS; n += STEP) {
      const cancel = new AbortController();
      const answer = engine.query(ENDLESS, { limit: 1, signal: cancel.signal });
      await turns(n);
      cancel.abort();
      const error = await answer.then(
        () => undefined,
        (e: unknown) => e as Error & { kind?: string },
      );
      expect(error?.kind, `cancelled after ${n} turns`).toBe('cancelled');
      outcomes.add(error!.message);
    }
    // Heard before DuckDB ran anything or as DuckDB's interrupt, a cancel says the same.
    expect([...outcomes].sort()).toEqual(['the statement was cancelled']);
  }, 120_000);
});
