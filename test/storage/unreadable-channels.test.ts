import { cpSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Storage } from '../../src/storage/storage.js';
import { corpusStorage } from '../security/server.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';

/**
 * A channel directory the storage needs that cannot be read (a link to a disk that is not mounted,
 * a link that loops, a plain file in its place) is a problem like any other: opening fails naming
 * it, and `analyze` and `check` exit 1, instead of serving the other channel's half of the objects.
 */

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-channels-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let copies = 0;
/** The graph corpus storage (two channels) with channel_1 replaced by what `replace` puts there. */
function withChannel1(replace: (path: string) => void): string {
  const dir = join(tmp, `graph-${++copies}`);
  cpSync(corpusStorage('graph'), dir, { recursive: true });
  renameSync(join(dir, 'channel_1'), join(tmp, `channel_1-away-${copies}`));
  replace(join(dir, 'channel_1'));
  return dir;
}

const CASES: [string, (path: string) => void, RegExp][] = [
  ['a dangling link', (path) => symlinkSync(join(tmp, 'not-mounted', 'channel_1'), path), /is a symbolic link to nothing that exists/],
  ['a looping link', (path) => symlinkSync(path, path), /is a symbolic link that loops/],
  ['a plain file', (path) => writeFileSync(path, 'x'), /is not a directory/],
];

const run = runCliInProcess;

describe.each(CASES)('channel_1 as %s', (_label, replace, why) => {
  it('fails to open, naming the channel', async () => {
    const dir = withChannel1(replace);
    const error = await Storage.open(dir).then(
      async (storage) => {
        const served = storage.entityCount;
        await storage.close();
        return new Error(`opened with ${served} entities`);
      },
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error.message).toContain(`${join(dir, 'channel_1')} `);
    expect(error.message).toMatch(why);
    expect(error.message).toContain("the storage's channel 1 (after channel 0) cannot be read");
    expect((error as { code?: string }).code).toBe('STORAGE_REFUSED');
  });

  it('analyze and check exit 1 and say why on stderr', async () => {
    const dir = withChannel1(replace);
    for (const command of ['analyze', 'check']) {
      const result = await run([command, dir]);
      expect(result.code, `${command}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toMatch(why);
      expect(result.stderr).toContain('channel 1');
    }
  });
});

describe('channel directories that are not needed', () => {
  it('a plain file named channel_3 beside two channels changes nothing', async () => {
    const dir = join(tmp, `graph-${++copies}`);
    cpSync(corpusStorage('graph'), dir, { recursive: true });
    writeFileSync(join(dir, 'channel_3'), 'x');
    const storage = await Storage.open(dir);
    expect(storage.entityCount).toBe(1263);
    await storage.close();
  });
});
