import { mkdtempSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { padDictionary } from '../helpers/corpora/large-dictionary.js';
import { corpusStorage } from '../security/server.js';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';
import { copyStorage } from '../helpers/corpora/storage-copy.js';

/**
 * `check`, `analyze`, `export` and `rescue` take the two options their messages suggest:
 * `--allow-external-links` (channels on another disk) and `--max-dictionary-bytes`. A dictionary
 * over the limit is reported as over the limit, not as invalid nor as one MicroStream refuses.
 */

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-reading-limits-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let copies = 0;
/** A fresh copy of a corpus storage; `copies` numbers what each test puts beside it. */
function copyOf(corpus: string): string {
  copies++;
  return copyStorage(corpusStorage(corpus), work);
}

const cli = (...argv: string[]): Promise<CliRun> => runCliInProcess(argv);

/** The command line of each command on a storage, with extra options. */
const COMMANDS: [string, (dir: string, ...extra: string[]) => string[]][] = [
  ['check', (dir, ...extra) => ['check', dir, ...extra]],
  ['analyze', (dir, ...extra) => ['analyze', dir, ...extra]],
  ['export', (dir, ...extra) => ['export', dir, '--type', 'java.lang.String', ...extra]],
  ['rescue', (dir, ...extra) => ['rescue', dir, '--out', join(work, `rescued-${++copies}`), ...extra]],
];

describe.each(COMMANDS)('%s', (_name, argv) => {
  it('takes --allow-external-links for a channel kept elsewhere', async () => {
    const dir = copyOf('graph');
    const away = join(work, `channel-away-${copies}`);
    renameSync(join(dir, 'channel_1'), away);
    symlinkSync(away, join(dir, 'channel_1'));
    const refused = await cli(...argv(dir));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('(--allow-external-links allows it)');
    const allowed = await cli(...argv(dir, '--allow-external-links'));
    expect(allowed.code, allowed.stderr).toBe(0);
  });

  it('takes --max-dictionary-bytes, both ways', async () => {
    const dir = corpusStorage('graph');
    const size = statSync(join(dir, 'PersistenceTypeDictionary.ptd')).size;
    const below = await cli(...argv(dir, '--max-dictionary-bytes', String(size - 1)));
    expect(below.code).toBe(1);
    expect(below.stderr).toContain(`is ${size} bytes, more than the limit of ${size - 1} bytes for a type dictionary (--max-dictionary-bytes raises it)`);
    expect(below.stdout).not.toMatch(/DICTIONARY_INVALID|would not start|refuses start/);
    const at = await cli(...argv(dir, '--max-dictionary-bytes', String(size)));
    expect(at.code, at.stderr).toBe(0);
    expect((await cli(...argv(dir, '--max-dictionary-bytes', 'Infinity'))).code).toBe(2);
  });
});

describe('check on a large but valid dictionary (70 MB)', () => {
  it('is over the default limit, not invalid; with the limit raised MicroStream would start', async () => {
    const dir = copyOf('graph');
    const dictionary = join(dir, 'PersistenceTypeDictionary.ptd');
    padDictionary(dictionary, 70_000_000);
    const size = statSync(dictionary).size;
    const over = await cli('check', dir);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(`is ${size} bytes, more than the limit of ${64 * 1024 * 1024} bytes for a type dictionary (--max-dictionary-bytes raises it)`);
    expect(over.stdout).not.toMatch(/DICTIONARY_INVALID|would not start|refuses start/);
    const raised = await cli('check', dir, '--max-dictionary-bytes', '100000000');
    expect(raised.code, raised.stdout + raised.stderr).toBe(0);
    expect(raised.stdout).toContain('MicroStream 4.1 would start on this storage.');
  });
});
