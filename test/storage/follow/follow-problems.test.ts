import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemTracker, type ProblemReport } from '../../../src/storage/follow-problems.js';
import { StorageFollower } from '../../../src/storage/follow/follow.js';
import { Storage } from '../../../src/storage/storage.js';
import { spawnCli } from '../../security/cli.js';
import { corpusStorage, send } from '../../security/server.js';
import { copyStorage } from '../../helpers/corpora/storage-copy.js';

/**
 * Following a storage whose files go wrong: each problem is told once when it appears and once
 * when it clears (not on every look), a data file cut inside its committed bytes is noticed, and
 * the current problems can be asked for (`StorageFollower.problems`, shown by /ready).
 */

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-follow-problems-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let copies = 0;
/** A fresh copy of a corpus storage; `copies` numbers what each test puts beside it. */
function copyOf(corpus: string): string {
  copies++;
  return copyStorage(corpusStorage(corpus), tmp);
}

/** A following storage whose looks are driven by the test (`look`), with every report kept. */
async function follow(dir: string): Promise<{ follower: StorageFollower; storage: Storage; reports: ProblemReport[]; look(times?: number): Promise<void>; close(): Promise<void> }> {
  const storage = await Storage.open(dir);
  const reports: ProblemReport[] = [];
  const follower = new StorageFollower(storage, { pollIntervalMs: 3_600_000, deferredProblemMs: 0, onProblem: (r) => reports.push(r) });
  return {
    follower,
    storage,
    reports,
    look: async (times = 1) => {
      for (let i = 0; i < times; i++) await follower.refreshNow();
    },
    close: async () => {
      await follower.stop();
      await storage.close();
    },
  };
}

/** The data files of channel 0, oldest first, and the head (last) one. */
function dataFiles(dir: string): { older: string[]; head: string } {
  const names = readdirSync(join(dir, 'channel_0'))
    .filter((n) => n.endsWith('.dat'))
    .sort((a, b) => Number(/_(\d+)\.dat$/.exec(a)?.[1]) - Number(/_(\d+)\.dat$/.exec(b)?.[1]));
  const paths = names.map((n) => join(dir, 'channel_0', n));
  return { older: paths.slice(0, -1), head: paths[paths.length - 1] as string };
}

const kinds = (reports: readonly ProblemReport[]): string[] => reports.map((r) => `${r.kind} ${r.problem.code}`);

describe('problems while following', () => {
  it('a damaged transaction log: told once while it lasts, and once when it is repaired', async () => {
    const dir = copyOf('graph');
    const f = await follow(dir);
    try {
      const log = join(dir, 'channel_0', 'transactions_0.sft');
      const original = readFileSync(log);
      // A complete entry of an unknown type at the end.
      const bad = Buffer.alloc(26);
      bad.writeBigInt64LE(26n, 0);
      bad.writeUInt8(99, 8);
      appendFileSync(log, bad);
      await f.look(5);
      expect(kinds(f.reports)).toEqual(['appeared FORMAT_BAD_LOG']);
      expect(f.reports[0]?.problem.message).toContain(`${log} at offset ${original.length}`);
      expect(f.follower.problems.map((p) => p.code)).toEqual(['FORMAT_BAD_LOG']);
      // The last complete state is still served.
      expect(f.storage.entityCount).toBe(1263);
      writeFileSync(log, original);
      await f.look(3);
      expect(kinds(f.reports)).toEqual(['appeared FORMAT_BAD_LOG', 'cleared FORMAT_BAD_LOG']);
      expect(f.follower.problems).toEqual([]);
    } finally {
      await f.close();
    }
  });

  it('a committed data file deleted, and a removed dictionary', async () => {
    const dir = copyOf('graph');
    const f = await follow(dir);
    try {
      const file = dataFiles(dir).older[0] as string;
      renameSync(file, join(tmp, `aside-${copies}`));
      await f.look(3);
      expect(kinds(f.reports)).toEqual(['appeared STORAGE_INCONSISTENT']);
      expect(f.reports[0]?.problem.message).toMatch(/non-deleted non-empty data file not found: channel 0, file \d+/);
      renameSync(join(tmp, `aside-${copies}`), file);
      await f.look();
      expect(kinds(f.reports)).toEqual(['appeared STORAGE_INCONSISTENT', 'cleared STORAGE_INCONSISTENT']);

      const dictionary = join(dir, 'PersistenceTypeDictionary.ptd');
      renameSync(dictionary, join(tmp, `dictionary-${copies}`));
      await f.look(3);
      // A dictionary can be absent for a moment while it is rewritten (delete, then insert): only
      // one that stays away longer than deferredProblemMs (0 here, 10 s by default) is a problem.
      expect(f.follower.problems.map((p) => p.message)).toEqual([
        'the storage has not been complete for over 0 s: type dictionary is being rewritten (absent right now); serving the previous state',
      ]);
      renameSync(join(tmp, `dictionary-${copies}`), dictionary);
      await f.look();
      expect(kinds(f.reports).slice(2)).toEqual(['appeared STORAGE_INCONSISTENT', 'cleared STORAGE_INCONSISTENT']);
    } finally {
      await f.close();
    }
  });

  it('a data file cut inside its committed records is noticed, until it has its bytes again', async () => {
    const dir = copyOf('graph');
    const f = await follow(dir);
    try {
      const file = dataFiles(dir).older[2] as string;
      const original = readFileSync(file);
      truncateSync(file, Math.floor(original.length / 2));
      await f.look(3);
      // Cut inside a record, the walk of the file also stops at the cut: told as damage.
      expect(kinds(f.reports).sort()).toEqual(['appeared FORMAT_BAD_RECORD', 'appeared STORAGE_TRUNCATED']);
      expect(f.reports.find((r) => r.problem.code === 'STORAGE_TRUNCATED')?.problem.message).toBe(
        `${file} is ${Math.floor(original.length / 2)} bytes long, but ${original.length} bytes of it are committed: committed records were cut off ` +
          '(objects whose latest record was there are now served from an older record, or not at all)',
      );
      writeFileSync(file, original);
      await f.look();
      expect(kinds(f.reports.slice(2)).sort()).toEqual(['cleared FORMAT_BAD_RECORD', 'cleared STORAGE_TRUNCATED']);
      expect(f.follower.problems).toEqual([]);
      expect(statSync(file).size).toBe(original.length);
      // Everything is served again as before.
      expect(f.storage.entityCount).toBe(1263);
    } finally {
      await f.close();
    }
  });
});

describe('problem reports', () => {
  it('are rate-limited per problem, saying how often it came and went meanwhile', () => {
    let now = 0;
    const reports: ProblemReport[] = [];
    const tracker = new ProblemTracker((r) => reports.push(r), 60_000, () => now);
    const p = { key: 'errno:EMFILE', code: 'EMFILE', message: 'EMFILE: too many open files' };
    tracker.update([p]);
    tracker.update([p]);
    expect(kinds(reports)).toEqual(['appeared EMFILE']);
    // It clears: told at once. Then it flaps every 500 ms for most of a minute: held back.
    now += 500;
    tracker.update([]);
    for (let i = 0; i < 116; i++) {
      now += 500;
      tracker.update(i % 2 === 0 ? [p] : []);
    }
    expect(reports.map((r) => [r.kind, r.unreported])).toEqual([
      ['appeared', 0],
      ['cleared', 0],
    ]);
    // A minute after the first report, the state it is in now is told, with the changes between.
    now = 60_000;
    tracker.update([p]);
    expect(reports.map((r) => [r.kind, r.unreported])).toEqual([
      ['appeared', 0],
      ['cleared', 0],
      ['appeared', 116],
    ]);
    expect(tracker.current.map((c) => c.code)).toEqual(['EMFILE']);
    // A problem seen at startup (told then) is current but not reported again.
    tracker.seed([{ key: 'k', code: 'STORAGE_TRUNCATED', message: 'cut' }]);
    tracker.update([p, { key: 'k', code: 'STORAGE_TRUNCATED', message: 'cut' }]);
    expect(reports).toHaveLength(3);
    expect(tracker.current.map((c) => c.key)).toEqual(['errno:EMFILE', 'k']);
  });
});

describe('serve while the storage goes wrong', () => {
  it('tells the problem once on stderr and in the log, shows it in /ready, and tells when it is solved', async () => {
    const dir = copyOf('graph');
    const run = spawnCli(['serve', dir, '--port', '0', '--poll-interval', '50']);
    try {
      const port = await run.port;
      const log = join(dir, 'channel_0', 'transactions_0.sft');
      const original = readFileSync(log);
      const bad = Buffer.alloc(26);
      bad.writeBigInt64LE(26n, 0);
      bad.writeUInt8(99, 8);
      appendFileSync(log, bad);
      await run.waitForStderr(/following: problem: /);
      // Forty more looks at the damaged log (failed refreshes, as /metrics counts them).
      const failedLooks = async (): Promise<number> => {
        const metrics = (await send(port, 'GET', '/metrics')).body.toString();
        return Number(/follow_refreshes_total\{outcome="failed"\} (\d+)/.exec(metrics)?.[1] ?? 0);
      };
      const looked = await failedLooks();
      expect(looked).toBeGreaterThan(0);
      await expect.poll(failedLooks, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(looked + 40);
      const ready = JSON.parse((await send(port, 'GET', '/ready')).body.toString()) as { problems: { code: string; message: string }[] };
      expect(ready.problems.map((p) => p.code)).toEqual(['FORMAT_BAD_LOG']);
      // Put back in one step (a look between a truncation and a write would see another problem).
      writeFileSync(`${log}.new`, original);
      renameSync(`${log}.new`, log);
      await run.waitForStderr(/following: solved: /);
    } finally {
      run.child.kill('SIGTERM');
    }
    await run.exit;
    const stderr = run.stderr();
    expect(stderr.match(/following: problem: /g)).toHaveLength(1);
    expect(stderr).toMatch(/following: problem: .*transactions_0\.sft at offset \d+: .*; serving the last complete state\n/);
    expect(stderr.match(/following: solved: /g)).toHaveLength(1);
    const lines = run
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { msg: string; err?: unknown });
    expect(lines.filter((l) => l.msg === 'following problem')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'following problem solved')).toHaveLength(1);
    // No stack traces on every look any more.
    expect(lines.filter((l) => l.err !== undefined)).toEqual([]);
  });
});
