import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSide } from '../../src/diff/open-points.js';
import { diffStorages, type ObjectChange } from '../../src/diff/storage-diff.js';
import { DirectorySource } from '../../src/storage/source/directory-source.js';
import { expectedBody } from '../helpers/corpora/conformance.js';
import { loadStateCases, SEQUENCE_DIR } from '../helpers/corpora/follow-sequence.js';

/**
 * The follow sequence SEQ1: one MicroStream 4.1 storage recorded at eleven moments by a running
 * Java application, with the Java service's answer for every object at each moment. For every pair
 * of recorded states, the diff must report exactly the objects whose recorded answers differ
 * (added: answered only in the later state, removed: only in the earlier, changed: both, with
 * different answers) and no other. The same holds between two points of one directory's history
 * (commits 2-6 are the states S0-S4 and are all still on disk in S4; 6-9 are S4/S5-S8 in S8).
 */

const STATES = Array.from({ length: 11 }, (_, i) => `S${i}`);
const IDENTITY_HASH = /("(?:[A-Za-z_$][A-Za-z0-9_$]*\.)+[A-Za-z_$][A-Za-z0-9_$]*)@[0-9a-f]{1,8}"/g;

/** Object id → the Java answer for it (the masks its `vary` names applied). */
function javaAnswers(state: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of loadStateCases(state).cases) {
    if (c.kind !== 'object') continue;
    const id = /\/object\/(\d+)$/.exec(c.request)?.[1];
    if (id === undefined) throw new Error(`${state}: ${c.request}`);
    let body = expectedBody(c).toString('utf8');
    if (c.vary?.includes('identityHashCode')) body = body.replace(IDENTITY_HASH, '$1@*"');
    out.set(id, body);
  }
  return out;
}

const answers = new Map(STATES.map((s) => [s, javaAnswers(s)]));

function expectedChanges(from: string, to: string): string[] {
  const a = answers.get(from)!;
  const b = answers.get(to)!;
  const out: string[] = [];
  for (const [id, body] of a) {
    const other = b.get(id);
    if (other === undefined) out.push(`removed ${id}`);
    else if (other !== body) out.push(`changed ${id}`);
  }
  for (const id of b.keys()) if (!a.has(id)) out.push(`added ${id}`);
  return out.sort();
}

/** `onBasis`: B opened on A, as the `diff` command opens two storages (basis-open.ts). */
async function reported(dirA: string, fromA: number | undefined, dirB: string, fromB: number | undefined, sameFiles: boolean, onBasis = false) {
  const a = await openSide(new DirectorySource(dirA), fromA === undefined ? undefined : { commit: fromA }, onBasis ? { countLatestTypes: true } : {});
  const b = await openSide(new DirectorySource(dirB), fromB === undefined ? undefined : { commit: fromB }, onBasis ? { basis: a.storage } : {});
  try {
    const found: ObjectChange[] = [];
    const report = await diffStorages(a.storage, b.storage, { sameFiles, limit: Number.MAX_SAFE_INTEGER, onObject: (c) => void found.push(c) });
    return { report, lines: found.map((c) => `${c.change} ${c.objectId}`).sort(), found, tookBasis: b.storage.basisOpening !== undefined };
  } finally {
    await a.storage.close();
    await b.storage.close();
  }
}

const PAIRS = STATES.flatMap((a, i) => STATES.slice(i + 1).map((b) => [a, b] as const));

describe('diff of two recorded states of SEQ1', () => {
  it.each(PAIRS)('%s → %s reports exactly the objects whose Java answers differ', async (from, to) => {
    const expected = expectedChanges(from, to);
    const { report, lines, found } = await reported(join(SEQUENCE_DIR, 'states', from), undefined, join(SEQUENCE_DIR, 'states', to), undefined, false);
    expect(lines).toEqual(expected);
    expect(report.equal).toBe(expected.length === 0);
    const count = (kind: string): number => expected.filter((l) => l.startsWith(kind)).length;
    expect([report.summary.added, report.summary.removed, report.summary.changed]).toEqual([count('added'), count('removed'), count('changed')]);
    expect(report.summary.unchanged).toBe(answers.get(from)!.size - count('removed') - count('changed'));
    // Every changed object names at least one member that changed (or a type change).
    for (const c of found) if (c.change === 'changed') expect(c.members!.length > 0 || c.typeIdBefore !== undefined, c.objectId).toBe(true);
  });

  it('the reverse direction swaps added and removed', async () => {
    const { lines } = await reported(join(SEQUENCE_DIR, 'states', 'S6'), undefined, join(SEQUENCE_DIR, 'states', 'S2'), undefined, false);
    expect(lines).toEqual(expectedChanges('S6', 'S2'));
    expect(lines.some((l) => l.startsWith('removed'))).toBe(true);
  });
});

/**
 * Housekeeping rewrote files between S4 and S5 and between S8 and S9: only pairs inside S0-S4,
 * S5-S8 and S9-S10 hold every committed byte of the earlier state, which is when B can be opened
 * on A. Every other pair must be opened whole.
 */
const RUNS_WITHOUT_HOUSEKEEPING = [[0, 4], [5, 8], [9, 10]] as const;
const appendedPair = (from: string, to: string): boolean =>
  RUNS_WITHOUT_HOUSEKEEPING.some(([first, last]) => [from, to].every((s) => Number(s.slice(1)) >= first && Number(s.slice(1)) <= last));

describe('diff of two recorded states of SEQ1, the later opened on the earlier (as the diff command does)', () => {
  it.each(PAIRS)('%s → %s: the same objects and the same report as opened whole', async (from, to) => {
    const whole = await reported(join(SEQUENCE_DIR, 'states', from), undefined, join(SEQUENCE_DIR, 'states', to), undefined, false);
    const onBasis = await reported(join(SEQUENCE_DIR, 'states', from), undefined, join(SEQUENCE_DIR, 'states', to), undefined, false, true);
    expect(onBasis.tookBasis).toBe(appendedPair(from, to));
    expect(onBasis.lines).toEqual(expectedChanges(from, to));
    expect(onBasis.report).toEqual(whole.report);
    expect(onBasis.found).toEqual(whole.found);
  });
});

/** (directory state, commit, the recorded state right after it). */
const POINTS: readonly (readonly [string, readonly (readonly [number, string])[]])[] = [
  ['S4', [[2, 'S0'], [3, 'S1'], [4, 'S2'], [5, 'S3'], [6, 'S4']]],
  ['S8', [[6, 'S5'], [7, 'S6'], [8, 'S7'], [9, 'S8']]],
];

const POINT_PAIRS = POINTS.flatMap(([dir, points]) => points.flatMap((p, i) => points.slice(i + 1).map((q) => [dir, p[0], p[1], q[0], q[1]] as const)));

describe('diff of two points of one directory of SEQ1', () => {
  it.each(POINT_PAIRS)('in %s, commit %i (%s) → commit %i (%s) reports exactly the objects whose Java answers differ', async (dir, fromCommit, fromState, toCommit, toState) => {
    const directory = join(SEQUENCE_DIR, 'states', dir);
    const { lines } = await reported(directory, fromCommit, directory, toCommit, true);
    expect(lines).toEqual(expectedChanges(fromState, toState));
  });

  it('names the files housekeeping deleted when a point can no longer be rebuilt', async () => {
    const directory = join(SEQUENCE_DIR, 'states', 'S10');
    await expect(reported(directory, 2, directory, undefined, true)).rejects.toThrow(/as of commit 2 .*channel 0 file 1 \(48514 bytes then, deleted since\)/);
  });
});
