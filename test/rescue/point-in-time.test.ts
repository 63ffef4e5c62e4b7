import { cpSync, mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerRequest } from '../../src/http/java/java-service.js';
import { rescueStorage } from '../../src/rescue/rescue-storage.js';
import { CommitHistory } from '../../src/storage/history/commit-history.js';
import { committedLengthsAt } from '../../src/storage/history/point-in-time.js';
import { scanStorageDirectory } from '../../src/storage/source/storage-dir.js';
import { Storage } from '../../src/storage/storage.js';
import { compareWithCase, type RecordedCase } from '../helpers/corpora/conformance.js';
import { loadStateCases, SEQUENCE_DIR } from '../helpers/corpora/follow-sequence.js';
import { corpusStorage } from '../security/server.js';
import { diffSnapshots, snapshotTree } from '../security/snapshot.js';

/**
 * Point in time on a real history: the follow sequence SEQ1 is one MicroStream 4.1 storage recorded
 * at eleven moments with the Java service's answers. Its commits: 1 is Java's first start (no
 * recorded state), 2–6 lead to S0–S4 (S5 is housekeeping after commit 6), 7–9 to S6–S8 (S9 is
 * housekeeping after 9), 10 to S10. Rebuilding a commit from a later directory must answer every
 * object, the root and the absent ids exactly as Java did at that state; where housekeeping has
 * deleted the files that held a state, the rebuild must refuse and name them.
 */

const OBJECT_KINDS = new Set(['root', 'object', 'objectReferences', 'absent']);

/** (directory state, commit, recorded states that commit produced). */
const CASES: readonly (readonly [string, number, readonly string[]])[] = [
  ['S4', 2, ['S0']],
  ['S4', 3, ['S1']],
  ['S4', 4, ['S2']],
  ['S4', 5, ['S3']],
  ['S4', 6, ['S4']],
  ['S8', 6, ['S4', 'S5']],
  ['S8', 7, ['S6']],
  ['S8', 8, ['S7']],
  ['S8', 9, ['S8']],
  ['S10', 9, ['S8', 'S9']],
  ['S10', 10, ['S10']],
];

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-as-of-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function mismatches(storage: Storage, state: string): Promise<{ problems: string[]; compared: number }> {
  const recorded = loadStateCases(state);
  const problems: string[] = [];
  let compared = 0;
  for (const c of recorded.cases) {
    if (!OBJECT_KINDS.has(c.kind)) continue;
    const answer = await answerRequest(storage, { instance: 'microstream' }, { method: 'GET', url: c.request, headers: { host: '127.0.0.1:4567' } });
    const problem = compareWithCase(c as RecordedCase, recorded.storageDir, storage.directory, answer);
    if (problem !== undefined) problems.push(`${c.request}: ${problem}`);
    compared++;
  }
  return { problems, compared };
}

describe('the storage as of a commit of SEQ1', () => {
  it.each(CASES)('%s as of commit %i answers like the recorded state %j', async (dirState, commit, states) => {
    const source = join(SEQUENCE_DIR, 'states', dirState);
    const before = snapshotTree(source);
    const layout = await scanStorageDirectory(source);
    const history = await CommitHistory.read(layout);
    const point = history.pointInTime(commit, layout);
    expect(point.missingFiles).toEqual([]);

    // Reading the state in place...
    const storage = await Storage.open(source, { committedLengths: committedLengthsAt(point) });
    try {
      for (const state of states) {
        const { problems, compared } = await mismatches(storage, state);
        expect(problems.slice(0, 5), `${state}: ${problems.length} of ${compared} differ`).toEqual([]);
        expect(compared).toBeGreaterThan(500);
      }
      expect((await storage.refresh()).changed).toBe(false); // a fixed state
    } finally {
      await storage.close();
    }

    // ...and rebuilding it as a new storage.
    const out = join(work, `${dirState}-${commit}`);
    const report = await rescueStorage(source, { out, asOf: { commit } });
    expect(report.asOf?.number).toBe(commit);
    expect(report.lost).toEqual([]);
    const rescued = await Storage.open(out);
    try {
      expect(rescued.warnings).toEqual([]);
      for (const state of states) {
        const { problems } = await mismatches(rescued, state);
        expect(problems.slice(0, 5), state).toEqual([]);
      }
    } finally {
      await rescued.close();
    }
    expect(diffSnapshots(before, snapshotTree(source))).toEqual([]);
  });

  it('selects commits by number, by timestamp and by time', async () => {
    const source = join(SEQUENCE_DIR, 'states', 'S10');
    const layout = await scanStorageDirectory(source);
    const history = await CommitHistory.read(layout);
    const tenth = history.commit(10);
    expect(history.commitByTimestamp(tenth.timestamp)?.number).toBe(10);
    expect(history.commitAtOrBefore(tenth.time)?.number).toBe(10);
    expect(history.commitAtOrBefore(tenth.time - 1)?.number).toBe(9);
    expect(history.commitAtOrBefore(history.commit(1).time - 1)).toBeUndefined();
    const byTime = await rescueStorage(source, { out: join(work, 'by-time'), asOf: { time: tenth.time - 1 } });
    expect(byTime.asOf?.number).toBe(9);
    const byTimestamp = await rescueStorage(source, { out: join(work, 'by-timestamp'), asOf: { timestamp: tenth.timestamp } });
    expect(byTimestamp.asOf?.number).toBe(10);
  });

  it('refuses a commit whose files housekeeping deleted since, naming them', async () => {
    const source = join(SEQUENCE_DIR, 'states', 'S10');
    const layout = await scanStorageDirectory(source);
    const history = await CommitHistory.read(layout);
    // Commit 7 (state S6) lived in files 3–6; the housekeeping of S9 deleted files 3 and 6.
    expect(history.pointInTime(7, layout).missingFiles.map((m) => m.fileNumber)).toEqual([3n, 6n]);
    await expect(rescueStorage(source, { out: join(work, 'incomplete'), asOf: { commit: 7 } })).rejects.toThrow(
      /as of commit 7 .* cannot be rebuilt exactly: the history is incomplete.*channel 0 file 3 \(16334 bytes then, deleted since\), channel 0 file 6 \(11048 bytes then, deleted since\)/,
    );
  });
});

describe('which commit wrote a record', () => {
  it('follows housekeeping copies back to the commit that stored the version', async () => {
    const layout = await scanStorageDirectory(join(SEQUENCE_DIR, 'states', 'S10'));
    const history = await CommitHistory.read(layout);
    // File 9 gets commit 10's 752 bytes at offset 12490; before that it holds housekeeping copies.
    expect(history.commitOf(0, 9n, 12490)).toEqual({ commit: history.commit(10), copied: false });
    expect(history.commitOf(0, 9n, 13241)?.commit.number).toBe(10);
    expect(history.commitOf(0, 9n, 13242)).toBeUndefined();
    const copied = history.commitOf(0, 9n, 0);
    expect(copied?.copied).toBe(true);
    expect(copied!.commit.number).toBeLessThan(10);
    // Commit 2 (the initial root graph) wrote file 1 from 2552 on; file 1 is long gone but its log entries remain.
    expect(history.commitOf(0, 1n, 2552)?.commit.number).toBe(2);
    expect(history.commitOf(0, 1n, 0)?.commit.number).toBe(1);
  });
});

describe('damage after the point in time', () => {
  it('is not reported by rescue --as-of: the end of a file cut off that the commit did not reach yet', async () => {
    const dir = join(work, 'cut-later');
    cpSync(corpusStorage('graph'), dir, { recursive: true });
    truncateSync(join(dir, 'channel_1', 'channel_1_16.dat'), 3000);
    const latest = await rescueStorage(dir, { out: `${dir}-latest` });
    expect(latest.missingData.map((m) => m.missingBytes)).toEqual([{ from: 3000, to: 4012 }]);
    // Commit 150 is older than channel_1_16.dat: nothing that is gone touches it.
    const early = await rescueStorage(dir, { out: `${dir}-150`, asOf: { commit: 150 } });
    expect(early.missingData).toEqual([]);
    expect(early.unreadableRegions).toEqual([]);
    expect(early.lost).toEqual([]);
  });
});
