import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkSourceOpener } from '../../../src/mcp/check-sources.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { mcpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * `analyze_storage` and `check_storage` (src/mcp/tools/analysis-tools.ts) on a copy of the sound
 * graph corpus (10 garbage classes, 21 data files), the server made inside each test so that the
 * tools' registration runs in it. Issue 48: the mutation run of analysis-tools.ts found no test of
 * a list that fits exactly (10 classes at the default top of 10, 21 files at top 21: no
 * "truncated" line), of the order of the whole file list, of a check without findings, nor of
 * check_storage being offered when the storage can be checked, nor of a storage without garbage
 * (SEQ1 in state S4: no list of garbage classes at all).
 */

let work: string;
let dir: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-mcp-analysis-'));
  dir = join(work, 'graph');
  cpSync(join(CONFORMANCE_DIR, 'storages', 'graph'), dir, { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const served = () => mcpInProcess({ default: dir }, { checkSource: checkSourceOpener([{ name: undefined, directory: dir }], {}, 'default') });

it('lists every garbage class and every file when they fit, files by superseded + garbage bytes, most first', async () => {
  const tools = await served();
  try {
    const all = (await tools.text('analyze_storage', { top: 21 })).split('\n');
    expect(all.slice(12)).toEqual([
      'missing references: 0 id(s) referenced but not stored',
      'waste per data file (superseded old versions + garbage, most first):',
      '  channel_0/channel_0_12.dat: 4066 B, superseded 860 B, garbage 104 B (2 objects)',
      '  channel_0/channel_0_16.dat: 4314 B, superseded 720 B, garbage 180 B (3 objects)',
      '  channel_1/channel_1_14.dat: 4198 B, superseded 544 B, garbage 300 B (6 objects)',
      '  channel_0/channel_0_13.dat: 4079 B, superseded 320 B, garbage 455 B (8 objects)',
      '  channel_1/channel_1_7.dat: 4076 B, superseded 728 B, garbage 0 B (0 objects)',
      '  channel_1/channel_1_13.dat: 4096 B, superseded 264 B, garbage 308 B (6 objects)',
      '  channel_0/channel_0_15.dat: 4146 B, superseded 448 B, garbage 80 B (2 objects)',
      '  channel_0/channel_0_11.dat: 4068 B, superseded 473 B, garbage 0 B (0 objects)',
      '  channel_0/channel_0_14.dat: 4304 B, superseded 472 B, garbage 0 B (0 objects)',
      '  channel_1/channel_1_12.dat: 4073 B, superseded 257 B, garbage 154 B (3 objects)',
      '  channel_1/channel_1_11.dat: 4074 B, superseded 362 B, garbage 0 B (0 objects)',
      '  channel_1/channel_1_10.dat: 4042 B, superseded 339 B, garbage 0 B (0 objects)',
      '  channel_1/channel_1_15.dat: 4104 B, superseded 280 B, garbage 56 B (1 objects)',
      '  channel_0/channel_0_17.dat: 4137 B, superseded 320 B, garbage 0 B (0 objects)',
      '  channel_0/channel_0_10.dat: 4058 B, superseded 226 B, garbage 0 B (0 objects)',
      '  channel_1/channel_1_16.dat: 4012 B, superseded 88 B, garbage 138 B (2 objects)',
      '  channel_1/channel_1_9.dat: 4075 B, superseded 113 B, garbage 50 B (1 objects)',
      '  channel_1/channel_1_8.dat: 4083 B, superseded 113 B, garbage 0 B (0 objects)',
      '  channel_0/channel_0_8.dat: 4084 B, superseded 96 B, garbage 0 B (0 objects)',
      '  channel_0/channel_0_18.dat: 1696 B, superseded 0 B, garbage 44 B (1 objects)',
      '  channel_0/channel_0_9.dat: 3998 B, superseded 0 B, garbage 0 B (0 objects)',
    ]);
    const byDefault = (await tools.text('analyze_storage', {})).split('\n');
    expect(byDefault.slice(0, 2)).toEqual(['reachable: 1228 objects, 73 KiB; unreachable (garbage): 35 objects, 1869 B', 'garbage by class (largest first):']);
    expect(byDefault.slice(10, 13)).toEqual([
      '  conformance.bookstore.Country [type id 1000068]: 1 objects, 40 B',
      '  one.microstream.reference.Lazy$Default [type id 10000]: 1 objects, 32 B',
      'missing references: 0 id(s) referenced but not stored',
    ]);
  } finally {
    await tools.close();
  }
}, 60_000);

it('offers check_storage when the storage can be checked, and says a sound storage has no findings', async () => {
  const tools = await served();
  try {
    expect((await tools.client.listTools()).tools.map((t) => t.name)).toContain('check_storage');
    expect(await tools.text('check_storage', {})).toBe(
      ['check of default: Java would start on it; nothing unreadable', '2 channel(s), 21 data files, 83783 committed bytes, 1263 of 1263 objects readable', '0 finding(s)'].join('\n'),
    );
  } finally {
    await tools.close();
  }
}, 60_000);

it('lists no garbage classes, not even their heading, for a storage without garbage', async () => {
  const tools = await mcpInProcess({ default: join(SEQUENCE_DIR, 'states', 'S4') });
  try {
    expect((await tools.text('analyze_storage', {})).split('\n').slice(0, 3)).toEqual([
      'reachable: 674 objects, 57 KiB; unreachable (garbage): 0 objects, 0 B',
      'missing references: 0 id(s) referenced but not stored',
      'waste per data file (superseded old versions + garbage, most first):',
    ]);
  } finally {
    await tools.close();
  }
}, 60_000);
