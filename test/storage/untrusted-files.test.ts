import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { quoteForeign } from '../../src/format/foreign-text.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { StorageFollower } from '../../src/storage/follow/follow.js';
import { Storage } from '../../src/storage/storage.js';
import { spawnCli } from '../security/cli.js';
import { corpusStorage } from '../security/server.js';
import { copyStorage } from '../helpers/corpora/storage-copy.js';

/**
 * A storage directory is input like any other: it may hold links to files elsewhere (/etc/passwd
 * named like a data file), FIFOs, devices, or a dictionary of gigabytes. Only regular files inside
 * the storage directory are read, the dictionary has a size limit, and messages quote at most a
 * few escaped characters of what a file holds.
 */

const FOREIGN_TEXT = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n';

let tmp: string;
let outside: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-untrusted-'));
  outside = join(tmp, 'passwd');
  writeFileSync(outside, FOREIGN_TEXT);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let copies = 0;
/** A fresh copy of a corpus storage; `copies` numbers what each test puts beside it. */
function copyOf(corpus: string): string {
  copies++;
  return copyStorage(corpusStorage(corpus), tmp);
}

async function openError(dir: string, options: Parameters<typeof Storage.open>[1] = {}): Promise<Error & { code?: string }> {
  try {
    const storage = await Storage.open(dir, options);
    await storage.close();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error(`${dir} opened`);
}

const DICTIONARY = 'PersistenceTypeDictionary.ptd';

describe('files outside the storage directory', () => {
  it('refuses a dictionary that links outside, naming the link, without quoting the target', async () => {
    const dir = copyOf('graph');
    rmSync(join(dir, DICTIONARY));
    symlinkSync(outside, join(dir, DICTIONARY));
    const error = await openError(dir);
    expect(error.code).toBe('STORAGE_REFUSED');
    expect(error.message).toBe(`${join(dir, DICTIONARY)} is a symbolic link that leads outside the storage directory; refusing to read it (--allow-external-links allows it)`);
    expect(error.message).not.toContain('root');
  });

  it('with --allow-external-links reads it, and quotes at most a few escaped characters of it', async () => {
    const dir = copyOf('graph');
    rmSync(join(dir, DICTIONARY));
    symlinkSync(outside, join(dir, DICTIONARY));
    const error = await openError(dir, { allowExternalLinks: true });
    expect(error.code).toBe('FORMAT_DICTIONARY_SYNTAX');
    expect(error.message).toContain('invalid type id "root:x:0:0:root:/root:/b"… (31 characters)');
    expect(error.message).not.toContain('daemon');
  });

  it('refuses a data file that links outside, and does not count it', async () => {
    const dir = copyOf('graph');
    symlinkSync(outside, join(dir, 'channel_0', 'channel_0_99.dat'));
    const error = await openError(dir);
    expect(error.code).toBe('STORAGE_REFUSED');
    expect(error.message).toContain(`${join(dir, 'channel_0', 'channel_0_99.dat')} is a symbolic link that leads outside the storage directory`);
  });

  it('refuses a channel directory that links outside', async () => {
    const dir = copyOf('graph');
    renameSync(join(dir, 'channel_1'), join(tmp, `moved-channel-${copies}`));
    symlinkSync(join(tmp, `moved-channel-${copies}`), join(dir, 'channel_1'));
    expect((await openError(dir)).message).toContain(`${join(dir, 'channel_1')} is a symbolic link that leads outside the storage directory`);
    const storage = await Storage.open(dir, { allowExternalLinks: true });
    expect(storage.entityCount).toBe(1263);
    await storage.close();
  });

  it('follows links that stay inside the storage directory', async () => {
    const dir = copyOf('graph');
    mkdirSync(join(dir, 'kept'));
    const file = readdirSync(join(dir, 'channel_0')).find((name) => name.endsWith('.dat')) as string;
    renameSync(join(dir, 'channel_0', file), join(dir, 'kept', file));
    symlinkSync(join('..', 'kept', file), join(dir, 'channel_0', file));
    const storage = await Storage.open(dir);
    expect(storage.entityCount).toBe(1263);
    await storage.close();
  });
});

describe('files that are not regular files', () => {
  it('refuses a dictionary that is a FIFO at once (no hang)', async () => {
    const dir = copyOf('graph');
    rmSync(join(dir, DICTIONARY));
    execFileSync('mkfifo', [join(dir, DICTIONARY)]);
    const error = await openError(dir);
    expect(error.code).toBe('STORAGE_REFUSED');
    expect(error.message).toBe(`${join(dir, DICTIONARY)} is not a regular file (it is a FIFO); refusing to read it`);
  });

  it('refuses a dictionary linked to /dev/zero even when external links are allowed', async () => {
    const dir = copyOf('graph');
    rmSync(join(dir, DICTIONARY));
    symlinkSync('/dev/zero', join(dir, DICTIONARY));
    expect((await openError(dir)).message).toContain('leads outside the storage directory');
    expect((await openError(dir, { allowExternalLinks: true })).message).toContain('is not a regular file (it is a character device)');
  });

  it('refuses a transaction log that is a FIFO', async () => {
    const dir = copyOf('graph');
    const log = join(dir, 'channel_0', 'transactions_0.sft');
    rmSync(log);
    execFileSync('mkfifo', [log]);
    expect((await openError(dir)).message).toBe(`${log} is not a regular file (it is a FIFO); refusing to read it`);
  });
});

describe('the lock file', () => {
  it('is read only when it is a regular file: a FIFO is unreadable, not a hang', async () => {
    const dir = copyOf('graph');
    execFileSync('mkfifo', [join(dir, 'used.lock')]);
    const storage = await Storage.open(dir);
    try {
      expect(await storage.readLockFile()).toEqual({
        path: join(dir, 'used.lock'),
        state: 'unreadable',
        problem: `${join(dir, 'used.lock')} is not a regular file (it is a FIFO); refusing to read it`,
      });
    } finally {
      await storage.close();
    }
  });
});

describe('the size of the type dictionary', () => {
  it('is limited, with a message naming the limit and the option that raises it', async () => {
    const dir = copyOf('graph');
    const error = await openError(dir, { maxDictionaryBytes: 4096 });
    expect(error.code).toBe('STORAGE_REFUSED');
    expect(error.message).toMatch(
      new RegExp(`^${join(dir, DICTIONARY).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is \\d+ bytes, more than the limit of 4096 bytes for a type dictionary \\(--max-dictionary-bytes raises it\\)$`),
    );
    const storage = await Storage.open(dir);
    expect(storage.entityCount).toBe(1263);
    await storage.close();
    expect(parseServeArgs(['dir', '--max-dictionary-bytes', '1048576'])).toMatchObject({ maxDictionaryBytes: 1048576 });
    expect(() => parseServeArgs(['dir', '--max-dictionary-bytes', '10'])).toThrow(/invalid --max-dictionary-bytes "10": a size from 1 KiB/);
  });

  it('is also checked while following: a dictionary replaced by a FIFO or a huge file is a problem, not a hang', async () => {
    const dir = copyOf('graph');
    const storage = await Storage.open(dir, { maxDictionaryBytes: 1024 * 1024 });
    const follower = new StorageFollower(storage, { pollIntervalMs: 3_600_000 });
    try {
      const path = join(dir, DICTIONARY);
      renameSync(path, join(dir, 'saved.ptd'));
      execFileSync('mkfifo', [path]);
      await follower.refreshNow();
      expect(follower.problems.map((p) => p.message)).toEqual([`${path} is not a regular file (it is a FIFO); refusing to read it`]);
      rmSync(path);
      writeFileSync(path, ' '.repeat(2 * 1024 * 1024));
      await follower.refreshNow();
      expect(follower.problems.map((p) => p.message)).toEqual([`${path} is ${2 * 1024 * 1024} bytes, more than the limit of 1048576 bytes for a type dictionary (--max-dictionary-bytes raises it)`]);
      // Meanwhile the previous state is served.
      expect(storage.entityCount).toBe(1263);
      rmSync(path);
      renameSync(join(dir, 'saved.ptd'), path);
      await follower.refreshNow();
      expect(follower.problems).toEqual([]);
    } finally {
      await follower.stop();
      await storage.close();
    }
  });
});

describe('the serve command', () => {
  it('exits 1 naming a refused file, with --allow-external-links in the hint', async () => {
    const dir = copyOf('graph');
    symlinkSync(outside, join(dir, 'channel_0', 'channel_0_99.dat'));
    const run = spawnCli(['serve', dir, '--port', '0', '--quiet']);
    expect((await run.exit).code).toBe(1);
    expect(run.stderr()).toContain('channel_0_99.dat is a symbolic link that leads outside the storage directory; refusing to read it (--allow-external-links allows it)');
  });
});

describe('quoting foreign text', () => {
  it('quotes a few characters, escaped, and counts the rest', () => {
    expect(quoteForeign('abc')).toBe('"abc"');
    expect(quoteForeign('a"b\\c\n\u0000\u001b[31m')).toBe('"a\\"b\\\\c\\n\\u0000\\u001b[31m"');
    expect(quoteForeign('x'.repeat(100))).toBe(`"${'x'.repeat(24)}"… (100 characters)`);
    expect(quoteForeign('é😀', 24)).toBe('"\\u00e9\\u{1f600}"');
  });

  it('is what dictionary errors show of the text', () => {
    const secret = 'AKIAEXAMPLESECRETKEY0123456789abcdef';
    expect(() => parseTypeDictionary(`${secret} x{}`, 'd.ptd')).toThrow(`invalid type id "AKIAEXAMPLESECRETKEY0123"… (36 characters)`);
    // A terminal control sequence (CSI) in a type name is escaped, not sent to the terminal.
    expect(() => parseTypeDictionary('1 a\u009b2J{ int x,', 'd.ptd')).toThrow('missing "}" closing type "a\\u009b2J"');
  });
});
