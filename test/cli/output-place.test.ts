import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';
import { writeModelStorage } from '../graph/model-storage.js';
import { diffSnapshots, snapshotTree, type TreeSnapshot } from '../security/snapshot.js';

/**
 * One rule for every command that writes a file or a directory: never inside a storage, never onto
 * one of its files (a channel directory linked from elsewhere included), whatever the command.
 */

const cli = (...args: string[]): Promise<CliRun> => runCliInProcess(args);

describe('no command writes into a storage', () => {
  let base: string;
  let storage: string;
  let linked: string;
  let outside: string;
  let before: TreeSnapshot;
  let beforeLinked: TreeSnapshot;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'output-place-'));
    storage = join(base, 'storage');
    writeModelStorage(storage);
    // A second storage whose channel directory lives elsewhere, reached by a symbolic link.
    linked = join(base, 'linked');
    outside = join(base, 'disk2-channel');
    cpSync(storage, linked, { recursive: true });
    renameSync(join(linked, 'channel_0'), outside);
    symlinkSync(outside, join(linked, 'channel_0'));
    before = snapshotTree(storage);
    beforeLinked = snapshotTree(outside);
  });
  afterAll(() => {
    expect(diffSnapshots(before, snapshotTree(storage))).toEqual([]);
    expect(diffSnapshots(beforeLinked, snapshotTree(outside))).toEqual([]);
    rmSync(base, { recursive: true, force: true });
  });

  const refusals: [string, () => string[]][] = [
    ['sql --out a new data file in a channel', () => ['sql', storage, 'SELECT 1', '--out', join(storage, 'channel_0', 'channel_0_99.dat')]],
    ['sql --out onto the type dictionary', () => ['sql', storage, 'SELECT 1', '--out', join(storage, 'PersistenceTypeDictionary.ptd')]],
    ['sql --out into a channel linked from elsewhere', () => ['sql', linked, 'SELECT 1', '--out', join(outside, 'channel_0_99.dat')]],
    ['sql --out into another storage', () => ['sql', linked, 'SELECT 1', '--format', 'csv', '--out', join(storage, 'answer.csv')]],
    ['export --type --out', () => ['export', storage, '--type', 'gen.Node', '--out', join(storage, 'nodes.ndjson')]],
    ['export --out DIR (tables)', () => ['export', storage, '--format', 'parquet', '--out', join(storage, 'channel_0', 'tables')]],
    ['export into a channel linked from elsewhere', () => ['export', linked, '--type', 'gen.Node', '--out', join(outside, 'nodes.ndjson')]],
    ['rescue --out', () => ['rescue', storage, '--out', join(storage, 'channel_0', 'rescued')]],
    ['rescue --out into a channel linked from elsewhere', () => ['rescue', linked, '--out', join(outside, 'rescued')]],
    ['generate --out inside a storage', () => ['generate', '--entities', '1000', '--out', join(storage, 'generated')]],
    ['generate --out inside a channel directory', () => ['generate', '--entities', '1000', '--out', join(outside, 'generated')]],
    ['serve --log-file', () => ['serve', storage, '--log-file', join(storage, 'channel_0', 'server.log')]],
  ];
  it.each(refusals)('%s is refused before anything is written', async (_name, args) => {
    const result = await cli(...args());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/(--out|--log-file) \S+ lies inside the storage \S+: nothing is ever written into a storage/);
  });

  it('writes where no storage is', async () => {
    const out = join(base, 'answers', 'one.csv');
    mkdirSync(join(base, 'answers'));
    const result = await cli('sql', storage, 'SELECT 42 AS answer', '--format', 'csv', '--out', out);
    expect(result.stderr).not.toMatch(/lies inside|error/);
    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('answer\r\n42\r\n');
    expect(existsSync(join(storage, 'channel_0', 'channel_0_99.dat'))).toBe(false);
  });
});
