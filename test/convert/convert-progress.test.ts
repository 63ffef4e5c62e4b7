import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertStorage } from '../../src/convert/convert-storage.js';
import { ConvertEta, durationText } from '../../src/convert/convert-progress.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * `convert`'s estimate of the time left: the phases a run reports, in the order the estimate
 * expects them (the check's index and record walk, the reachability search, the copy),
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
  it('scales the time so far by the weighted work left, phase by phase', () => {
    let now = 0;
    const eta = new ConvertEta({ reachability: true }, () => now);
    // Weights: indexing 1, checking records 2, reachability 0.5, copying 1.5 (5 in all).
    now = 10_000;
    expectEstimate(eta.update('indexing', 50, 100), 0.5 / 5, (10 * 4.5) / 0.5);
    now = 20_000;
    expectEstimate(eta.update('checking records', 0, 100), 1 / 5, 20 * 4);
    now = 60_000;
    expectEstimate(eta.update('finding reachable objects', 1, 1), 3.5 / 5, (60 * 1.5) / 3.5);
    now = 85_000;
    expectEstimate(eta.update('copying', 100, 100), 1, 0);
  });

  it('without the reachability search the copy follows the record walk; phases it does not know give no estimate', () => {
    let now = 0;
    const eta = new ConvertEta({ reachability: false }, () => now);
    expect(eta.update('rescuing: reading', 5, 10).secondsLeft).toBeUndefined();
    eta.update('indexing', 100, 100);
    eta.update('checking records', 100, 100);
    now = 35_000;
    // 1 + 2 = 3 of 4.5 done after 35 s: 1.5 weights left at the same rate.
    expectEstimate(eta.update('copying', 0, 100), 3 / 4.5, (35 * 1.5) / 3);
  });

  it('the phases convert reports are the ones the estimate expects, in its order', async () => {
    const seen: string[] = [];
    await convertStorage(join(CONFORMANCE_DIR, 'storages', 'graph'), { out: join(work, 'out'), onProgress: (phase) => seen.at(-1) !== phase && seen.push(phase) });
    expect(seen).toEqual(['indexing', 'checking records', 'finding reachable objects', 'copying']);
  });

  it('durations read as seconds, minutes, hours', () => {
    expect([durationText(4.4), durationText(185), durationText(7320)]).toEqual(['4 s', '3 min 5 s', '2 h 2 min']);
  });
});
