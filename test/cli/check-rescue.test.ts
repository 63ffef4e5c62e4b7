import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';
import { SEQUENCE_DIR } from '../helpers/corpora/follow-sequence.js';
import { corpusStorage } from '../security/server.js';
import { diffSnapshots, snapshotTree } from '../security/snapshot.js';
import { cliCommand } from '../helpers/test-run/cli-command.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-check-cli-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<CliRun> {
  return runCliInProcess(args);
}

describe('storage-inspector check', () => {
  it('exits 0 on an intact storage and says MicroStream would start', async () => {
    const before = snapshotTree(corpusStorage('graph'));
    const { code, stdout } = await cli('check', corpusStorage('graph'));
    expect(code).toBe(0);
    expect(stdout).toContain('2 channels, 21 data files, 83,783 committed bytes, 1,263 objects (1,263 readable)');
    expect(stdout).toContain('MicroStream 4.1 would start on this storage. No problems found.');
    expect(diffSnapshots(before, snapshotTree(corpusStorage('graph')))).toEqual([]);
  });

  it('exits 1 naming file, offset and what MicroStream would say; --json gives the same report', async () => {
    const dir = join(work, 'cut');
    cpSync(corpusStorage('graph'), dir, { recursive: true });
    truncateSync(join(dir, 'channel_0', 'channel_0_12.dat'), 1000);
    const text = await cli('check', dir);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('MicroStream 4.1 would refuse to start.');
    expect(text.stdout).toMatch(/\[refuses start\] channel_0\/channel_0_12\.dat, offset 1000 {2}DATA_FILE_TOO_SHORT\n {2}MicroStream says: one\.microstream\.storage\.exceptions\.StorageException: 0 Length 1000 of file 12 is inconsinstent with the transactions entry's length of \d+\n {2}What it means: {4}.+\n {2}Rescue: {11}.+/);
    const json = await cli('check', dir, '--json');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { exitCode: number; javaStarts: boolean; problems: { code: string; file: string; offset: number; severity: string }[] };
    expect(report).toMatchObject({ exitCode: 1, javaStarts: false });
    expect(report.problems.find((p) => p.code === 'DATA_FILE_TOO_SHORT')).toMatchObject({ code: 'DATA_FILE_TOO_SHORT', file: join(dir, 'channel_0', 'channel_0_12.dat'), offset: 1000, severity: 'refuses-start' });
  });

  it('classifies references to missing objects by who holds them: reached at start, behind a Lazy, garbage', async () => {
    const dir = join(work, 'library');
    expect((await cli('generate', '--entities', '3000', '--channels', '2', '--seed', '5', '--file-size', '16384', '--out', dir)).code).toBe(0);
    truncateSync(join(dir, 'channel_1', 'channel_1_1.dat'), 66938);
    const { code, stdout } = await cli('check', dir, '--json');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { problems: { code: string; severity: string; count: number; java?: { message: string } }[] };
    const missing = report.problems.filter((p) => p.code === 'MISSING_REFERENCE_TARGET');
    expect(missing.map((p) => p.severity)).toEqual(['refuses-start', 'data-lost', 'harmless']);
    expect(missing[0]!.java?.message).toMatch(/^No entity found for objectId \d+$/);
    expect(missing.every((p) => p.count > 0)).toBe(true);
  });

  it('speaks of EclipseStore 4.1 on an EclipseStore storage, with its exception classes', async () => {
    const dir = join(work, 'eclipsestore');
    expect((await cli('generate', '--entities', '500', '--channels', '2', '--seed', '7', '--out', dir, '--family', 'eclipsestore')).code).toBe(0);
    truncateSync(join(dir, 'channel_0', 'channel_0_1.dat'), 5000);
    const { code, stdout } = await cli('check', dir);
    expect(code).toBe(1);
    expect(stdout).toContain('EclipseStore 4.1 would refuse to start.');
    expect(stdout).toMatch(/\n {2}EclipseStore says: org\.eclipse\.store\.storage\.exceptions\.StorageExceptionConsistency: 0 Length 5000 of file 1 is inconsistent with the transactions entry's length of \d+\n/);
    expect(stdout).not.toContain('MicroStream');
    expect(stdout).not.toContain('one.microstream');
  });

  it('--commits lists every commit and whether it can be rebuilt', async () => {
    const { code, stdout } = await cli('check', join(SEQUENCE_DIR, 'states', 'S10'), '--commits');
    expect(code).toBe(0);
    expect(stdout).toContain('Commits (10, oldest first;');
    expect(stdout).toMatch(/\n {5}10 {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}\d{19} {2}ch0 file 9 \+752 {2}recoverable\n/);
    expect(stdout).toMatch(/\n {6}7 .* not recoverable: channel_0\/channel_0_3\.dat \(16,334 bytes then, deleted since\), channel_0\/channel_0_6\.dat \(11,048 bytes then, deleted since\)\n/);
    const json = JSON.parse((await cli('check', join(SEQUENCE_DIR, 'states', 'S10'), '--commits', '--json')).stdout) as { commits: { number: number; timestamp: string; recoverable: boolean }[] };
    expect(json.commits.map((c) => c.recoverable)).toEqual([false, false, false, false, false, false, false, false, true, true]);
    expect(json.commits[9]!.timestamp).toMatch(/^\d{19}$/);
  });

  it('exits 2 on usage errors, 1 on a directory that is not a storage', async () => {
    expect((await cli('check')).code).toBe(2);
    expect((await cli('check', 'a', 'b')).code).toBe(2);
    expect((await cli('check', corpusStorage('graph'), '--bogus')).code).toBe(2);
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const result = await cli('check', empty);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not a MicroStream or EclipseStore storage');
  });

  it('runs as a process with the exit code of the report', () => {
    const dir = join(work, 'locked');
    cpSync(corpusStorage('noroot'), dir, { recursive: true });
    writeFileSync(join(dir, 'used.lock'), `${Date.now()};${Date.now() + 3_600_000};app-1`);
    const result = spawnSync(process.execPath, [...cliCommand(), 'check', dir], { cwd: ROOT, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('MicroStream says: one.microstream.storage.exceptions.StorageException: Storage already in use by: app-1');
  });
});

describe('storage-inspector rescue', () => {
  it('writes a new storage and reports what it kept', async () => {
    const out = join(work, 'rescued');
    const { code, stdout, stderr } = await cli('rescue', corpusStorage('graph'), '--out', out);
    expect(code).toBe(0);
    expect(stdout).toContain('kept 1,263 objects (76,760 bytes) in 2 channels; lost 0 objects whose id is known');
    expect(stderr).toContain(`check the new storage with: storage-inspector check ${out}`);
    expect((await cli('check', out)).code).toBe(0);
  });

  it('--as-of takes a commit number, a timestamp or a time; the report says which commit', async () => {
    const source = join(SEQUENCE_DIR, 'states', 'S4');
    const number = await cli('rescue', source, '--out', join(work, 'as-of-3'), '--as-of', '3');
    expect(number.code).toBe(0);
    expect(number.stdout).toMatch(/as of commit 3 \(\d{4}-.+Z, timestamp \d{19}\)/);
    const json = JSON.parse((await cli('rescue', source, '--out', join(work, 'as-of-json'), '--as-of', '3', '--json')).stdout) as { asOf: { timestamp: string; time: number } };
    const byTimestamp = await cli('rescue', source, '--out', join(work, 'as-of-ts'), '--as-of', json.asOf.timestamp);
    expect(byTimestamp.stdout).toContain('as of commit 3 ');
    const byTime = await cli('rescue', source, '--out', join(work, 'as-of-time'), '--as-of', new Date(json.asOf.time).toISOString());
    expect(byTime.stdout).toContain('as of commit 3 ');
    const missing = await cli('rescue', source, '--out', join(work, 'as-of-99'), '--as-of', '99');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no commit 99 (6 commits; list them with check --commits)');
    const incomplete = await cli('rescue', join(SEQUENCE_DIR, 'states', 'S10'), '--out', join(work, 'as-of-2'), '--as-of', '2');
    expect(incomplete.code).toBe(1);
    expect(incomplete.stderr).toContain('the history is incomplete');
  });

  it('writes only to a new or empty directory outside the storage', async () => {
    const source = join(work, 'source');
    cpSync(corpusStorage('noroot'), source, { recursive: true });
    const before = snapshotTree(source);
    const full = join(work, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'x'), 'x');
    const results = [
      await cli('rescue', source),
      await cli('rescue', source, '--out', full),
      await cli('rescue', source, '--out', join(source, 'copy')),
      await cli('rescue', source, '--out', source),
      await cli('rescue', source, '--out', join(work, 'x'), '--as-of', 'yesterday'),
    ];
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
    expect(results[1]!.stderr).toContain('exists and is not empty');
    expect(results[2]!.stderr).toContain('lies inside the storage');
    expect(diffSnapshots(before, snapshotTree(source))).toEqual([]);
    const empty = join(work, 'empty-out');
    mkdirSync(empty);
    expect((await cli('rescue', source, '--out', empty)).code).toBe(0);
  });
});
