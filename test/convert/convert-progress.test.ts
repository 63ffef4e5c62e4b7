import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertStorage } from '../../src/convert/convert-storage.js';
import { ConvertEta, durationText } from '../../src/convert/convert-progress.js';
import { CONFORMANCE_DIR } from '../helpers/conformance.js';

/**
 * `convert`'s estimate of the time left: the phases a run reports, in the order the estimate
 * expects them (the check's index and record walk, the copy's index, reachability, the copy),
 * weighted by their cost, the rate taken from the time so far.
 */

const work = mkdtempSync(join(tmpdir(), 'si-convert-progress-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Fractions and seconds as computed, to floating-point rounding. */
function expectEstimate(actual: { fraction: number; secondsLeft: number | undefined }, fraction: number, secondsLeft: number): void {
  expect(actual.fraction).toBeCloseTo(fraction, 9);
  expect(actual.secondsLeft).toBeCloseTo(secondsLeft, 6);
}

describe('the time left of a convert', () => {
  it('scales the time so far by the weighted work left, through both indexing phases', () => {
    let now = 0;
    const eta = new ConvertEta({ reachability: true }, () => now);
    // Weights: indexing 1, checking records 2.5, indexing 1, reachability 2, copying 2 (8.5 in all).
    now = 10_000;
    expectEstimate(eta.update('indexing', 50, 100), 0.5 / 8.5, (10 * 8) / 0.5);
    now = 20_000;
    expectEstimate(eta.update('checking records', 0, 100), 1 / 8.5, 20 * 7.5);
    now = 70_000;
    // The second indexing is the copy's (after the check), not the first one again.
    expectEstimate(eta.update('indexing', 100, 100), 4.5 / 8.5, (70 * 4) / 4.5);
    now = 85_000;
    expectEstimate(eta.update('copying', 100, 100), 1, 0);
  });

  it('without the reachability walk the copy follows the index; phases it does not know give no estimate', () => {
    let now = 0;
    const eta = new ConvertEta({ reachability: false }, () => now);
    expect(eta.update('rescuing: reading', 5, 10).secondsLeft).toBeUndefined();
    eta.update('indexing', 100, 100);
    eta.update('checking records', 100, 100);
    now = 35_000;
    // 1 + 2.5 + 1 = 4.5 of 6.5 done after 35 s: 2 weights left at the same rate.
    expectEstimate(eta.update('copying', 0, 100), 4.5 / 6.5, (35 * 2) / 4.5);
  });

  it('the phases convert reports are the ones the estimate expects, in its order', async () => {
    const seen: string[] = [];
    await convertStorage(join(CONFORMANCE_DIR, 'storages', 'graph'), { out: join(work, 'out'), onProgress: (phase) => seen.at(-1) !== phase && seen.push(phase) });
    expect(seen).toEqual(['indexing', 'checking records', 'indexing', 'finding reachable objects', 'copying']);
  });

  it('durations read as seconds, minutes, hours', () => {
    expect([durationText(4.4), durationText(185), durationText(7320)]).toEqual(['4 s', '3 min 5 s', '2 h 2 min']);
  });
});
