import { afterEach, describe, expect, it } from 'vitest';
import { parseGenerateArgs } from '../../src/cli/commands/generate.js';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { parseSqlArgs } from '../../src/cli/commands/sql.js';
import { parseSize } from '../../src/cli/options/option-values.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';

/** Every option that takes a size takes it as bytes or with a unit (`512MB`, `1GiB`), and says so. */

describe('sizes', () => {
  afterEach(() => {
    delete process.env['STORAGE_INSPECTOR_SQL_MEMORY_LIMIT'];
  });

  it('are read with decimal and binary units, in any case, or as plain bytes', () => {
    expect(['1048576', '512MB', '512 mb', '1GiB', '1.5GiB', '64kib', '2kB', '3TB', '1TiB', '7b'].map(parseSize)).toEqual([
      1048576, 512_000_000, 512_000_000, 2 ** 30, 1.5 * 2 ** 30, 65536, 2000, 3e12, 2 ** 40, 7,
    ]);
    for (const bad of ['', 'MB', '-1MB', '1e9', '1.5', '0.3kib', '12 XB', 'Infinity', 'NaN', '9999999TiB', '1 G']) expect(parseSize(bad), bad).toBeUndefined();
  });

  it('are taken by every size option: --sql-memory-limit as docs/sql.md shows it, the server limits, generate --file-size', async () => {
    expect((await parseSqlArgs(['dir', 'SELECT 1', '--sql-memory-limit', '512MB'])) as object).toMatchObject({ limits: { memoryLimitBytes: 512_000_000 } });
    expect(parseServeArgs(['dir', '--sql-memory-limit', '1GiB', '--max-response-bytes', '64MiB', '--max-dictionary-bytes', '2MB', '--record-cache-bytes', '0'])).toMatchObject({
      sql: { memoryLimitBytes: 2 ** 30 },
      maxResponseBytes: 64 * 2 ** 20,
      maxDictionaryBytes: 2_000_000,
      recordCacheBytes: 0,
    });
    expect(parseGenerateArgs(['--entities', '1000', '--out', 'x', '--file-size', '1MB'])).toMatchObject({ fileSize: 1_000_000 });
    process.env['STORAGE_INSPECTOR_SQL_MEMORY_LIMIT'] = '768MiB';
    expect(parseServeArgs(['dir'])).toMatchObject({ sql: { memoryLimitBytes: 768 * 2 ** 20 } });
  });

  it('out of range or unreadable are refused naming the range and how sizes are written', () => {
    expect(() => parseServeArgs(['dir', '--sql-memory-limit', '1MB'])).toThrow(
      /invalid --sql-memory-limit "1MB": a size from 16 MiB to 16 TiB is expected: bytes, or a number with a unit \(kB, MB, GB, TB, KiB, MiB, GiB, TiB\)/,
    );
    expect(() => parseServeArgs(['dir', '--max-response-bytes', '12 parsecs'])).toThrow(/invalid --max-response-bytes "12 parsecs": a size from 1 KiB/);
  });

  it('are explained in the help of each command that takes one, and in the general help', async () => {
    expect((await runCliInProcess(['help'])).stdout).toContain('Sizes are bytes or a number with a unit: 512MB (decimal), 1GiB (binary).');
    for (const [command, flag] of [
      ['serve', '--sql-memory-limit <size>'],
      ['sql', '--sql-memory-limit <size>'],
      ['serve', '--max-response-bytes <size>'],
      ['generate', '--file-size <size>'],
      ['check', '--max-dictionary-bytes <size>'],
    ] as const) {
      const help = (await runCliInProcess(['help', command])).stdout.replace(/\s+/g, ' ');
      expect(help, `${command} ${flag}`).toMatch(new RegExp(`${flag.replace(/[<>-]/g, '\\$&')} .*?; bytes, or with a unit: 512MB, 1GiB\\)`));
    }
  });
});
