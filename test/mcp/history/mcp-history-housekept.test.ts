import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { mcpInProcess, textOf, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The text of `commits` and `diff` where SEQ1's history branches beyond state S4: in S10 housekeeping
 * has removed the bytes of commits 1 to 9 (each listed with no main types and marked incomplete),
 * and S4 and S10 served side by side are compared as two storages (a, b) both ways, so a type with
 * only removals and a list that only lost elements are printed. Issue 48: the mutation run of
 * history-tools.ts left these lines untested (mcp-history-texts sees S4 only, all on disk).
 */

const state = (name: string) => join(SEQUENCE_DIR, 'states', name);
let tools: McpInProcess;
beforeAll(async () => {
  tools = await mcpInProcess({ default: state('S10'), s4: state('S4') });
}, 60_000);
afterAll(() => tools?.close());

const lines = async (tool: string, args: Record<string, unknown>): Promise<string[]> => (await tools.text(tool, args)).split('\n');

describe('commits after housekeeping', () => {
  it('marks commits whose bytes were removed as incomplete, without a types part when none is left', async () => {
    const list = await lines('commits', { limit: 3 });
    expect(list).toEqual([
      '10 commits, newest first:',
      '  #10 2026-11-22T04:03:22.214Z (timestamp 1795320202214000000): 9 objects (8 new, 1 updated), 752 bytes; String 4, Task 4, ArrayList 1',
      '  #9 2026-11-22T04:03:06.590Z (timestamp 1795320186590000000): 0 objects (0 new, 0 updated), 17600 bytes; incomplete on disk (housekeeping removed its bytes)',
      '  #8 2026-11-22T04:03:01.691Z (timestamp 1795320181691000000): 0 objects (0 new, 0 updated), 3400 bytes; incomplete on disk (housekeeping removed its bytes)',
      'truncated: 7 more commits; next cursor "3"',
    ]);
  });

  it('refuses a timestamp that is not 1 to 19 digits, saying so', async () => {
    // A server of its own, made in the test: the input schema is built when the tools register.
    const own = await mcpInProcess({ default: state('S4') });
    try {
      const result = await own.call('commits', { timestamp: 'x1' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('MCP error -32602: Input validation error: Invalid arguments for tool commits: a commit timestamp is 1 to 19 decimal digits at timestamp');
    } finally {
      await own.close();
    }
  });
});

describe('diff of two served storages', () => {
  it('lists a type whose objects were only removed (S10 before, S4 after)', async () => {
    expect(await lines('diff', { a: 'default', b: 's4', limit: 1 })).toEqual([
      '0 added, 12 removed, 126 changed, 548 unchanged objects',
      '  Task: +0 -4 ~120',
      '  String: +0 -6 ~0',
      '  ArrayList: +0 -1 ~2',
      '  Tracker: +0 -1 ~1',
      '  HashMap: +0 -0 ~1',
      '  PersistenceRootReference$Default: +0 -0 ~1',
      '  Project: +0 -0 ~1',
      '  changed Tracker 1000000000000000028',
      '    name: → 1000000000000000675 String "Acme tracker (renamed)" → → 1000000000000000029 String "Acme tracker"',
      '    revision: 1 → 0',
      'truncated: 137 more differing objects; next cursor "1"',
    ]);
  });

  it('names only the element changes a list has: removed without "0 added", added without "0 removed"', async () => {
    expect(await lines('diff', { a: 's4', b: 'default', type: 'java.util.ArrayList' })).toEqual([
      '1 added, 0 removed, 2 changed, 21 unchanged objects',
      '  ArrayList: +1 -0 ~2',
      '  changed ArrayList 1000000000000000333',
      '    elements: 22 → 17 elements, 5 removed',
      '  changed ArrayList 1000000000000000566',
      '    elements: 12 → 16 elements, 4 added',
      '  added ArrayList 1000000000000000678',
    ]);
  });
});
