import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGenerateArgs, run } from '../../src/cli/commands/generate.js';
import { UsageError } from '../../src/errors.js';
import { Storage } from '../../src/storage/storage.js';

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'generate-command-'));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } }, out, err };
}

describe('generate command', () => {
  it('parses its options', () => {
    expect(parseGenerateArgs(['--entities', '100', '--out', 'x'])).toEqual({ entities: 100, out: 'x', channels: 1, seed: 1, fileSize: 8388608, family: 'microstream', gigamap: undefined, checksums: 'none' });
    expect(parseGenerateArgs(['--entities', '100', '--out', 'x', '--channels', '8', '--seed', '7', '--file-size', '1048576'])).toEqual({
      entities: 100,
      out: 'x',
      channels: 8,
      seed: 7,
      fileSize: 1048576,
      family: 'microstream',
      gigamap: undefined,
      checksums: 'none',
    });
    expect(parseGenerateArgs(['--entities', '100', '--out', 'x', '--family', 'eclipsestore', '--checksums', 'sha256'])).toMatchObject({ checksums: 'sha256' });
    expect(parseGenerateArgs(['--entities', '100', '--out', 'x', '--family', 'eclipsestore'])).toMatchObject({ family: 'eclipsestore' });
    expect(parseGenerateArgs(['-h'])).toBe('help');
    for (const bad of [[], ['--out', 'x'], ['--entities', '100'], ['--entities', '1e3', '--out', 'x'], ['--entities', '10', '--out', 'x'],
      ['--entities', '100', '--out', 'x', '--channels', '3'], ['--entities', '100', '--out', 'x', '--bogus'],
      ['--entities', '100', '--out', 'x', '--family', 'eclipse'], ['--entities', '100', '--out', 'x', '--checksums', 'crc32c'],
      ['--entities', '100', '--out', 'x', '--family', 'eclipsestore', '--checksums', 'md5']]) {
      expect(() => parseGenerateArgs(bad), bad.join(' ')).toThrow(UsageError);
    }
  });

  it('generates a storage and prints a summary to stderr', async () => {
    const dir = join(base, 'out');
    const { io, out, err } = capture();
    await run(['--entities', '500', '--out', dir, '--channels', '2', '--seed', '3', '--file-size', '4096'], io);
    expect(out).toEqual([]);
    expect(err.join('')).toMatch(/^generated .*: 500 entities, [\d,]+ records in [\d,]+ stores, [\d,]+ files, \d{1,3}(,\d{3})* bytes, [\d.]+ s \([\d,]+ entities\/s\)\n$/);
    const storage = await Storage.open(dir);
    try {
      expect(storage.entityCount).toBe(500);
    } finally {
      await storage.close();
    }
  });

  it('refuses to write into a non-empty directory', async () => {
    const dir = join(base, 'full');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep.txt'), 'x');
    await expect(run(['--entities', '100', '--out', dir], capture().io)).rejects.toThrow(/not empty/);
    const empty = join(base, 'empty');
    mkdirSync(empty);
    await run(['--entities', '100', '--out', empty], capture().io);
  });
});
