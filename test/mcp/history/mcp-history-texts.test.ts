import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { mcpInProcess, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The text of `commits` and `diff` on SEQ1 in state S4 (six commits, all on disk), line by line
 * where they branch: a commit's counts and main types, a member changed in value or in elements
 * (added, removed, moved), a reference set where there was null, a diff with no differences, one
 * narrowed to a type, the per-type counts. Issue 48: mcp-history.test.ts checks the structured
 * content and the cursor; a wrong count or a lost "removed" in the text went unnoticed.
 */

let tools: McpInProcess;
let timestamps: Map<number, string>;
beforeAll(async () => {
  tools = await mcpInProcess({ default: join(SEQUENCE_DIR, 'states', 'S4') });
  const list = await tools.api<{ commits: { number: number; timestamp: string }[] }>('/commits?limit=10');
  timestamps = new Map(list.commits.map((c) => [c.number, c.timestamp]));
}, 60_000);
afterAll(() => tools?.close());

const lines = async (tool: string, args: Record<string, unknown>): Promise<string[]> => (await tools.text(tool, args)).split('\n');

describe('commits', () => {
  it('lists every commit with its counts, bytes and at most three main types, without a cursor when all fit', async () => {
    expect(await lines('commits', {})).toEqual([
      '6 commits, newest first:',
      '  #6 2026-11-22T04:02:47.057Z (timestamp 1795320167057000000): 1 objects (0 new, 1 updated), 10040 bytes; ArrayList 1',
      '  #5 2026-11-22T04:02:42.338Z (timestamp 1795320162338000000): 82 objects (69 new, 13 updated), 7608 bytes; String 28, Comment 24, ArrayList 12',
      '  #4 2026-11-22T04:02:37.885Z (timestamp 1795320157885000000): 33 objects (0 new, 33 updated), 2322 bytes; Task 30, Member 3',
      '  #3 2026-11-22T04:02:33.198Z (timestamp 1795320153198000000): 49 objects (46 new, 3 updated), 4304 bytes; String 24, Task 18, ArrayList 3',
      '  #2 2026-11-22T04:02:26.783Z (timestamp 1795320146783000000): 534 objects (532 new, 2 updated), 45962 bytes; String 287, Task 176, Member 36',
      '  #1 2026-11-22T04:02:26.390Z (timestamp 1795320146390000000): 27 objects (27 new, 0 updated), 2552 bytes; BigInteger 3, BigDecimal 3, Object[] 1',
    ]);
  });

  it("shows a list's change in elements: added, removed and moved", async () => {
    expect(await lines('commits', { timestamp: timestamps.get(6) })).toEqual([
      '#6 2026-11-22T04:02:47.057Z (timestamp 1795320167057000000): 1 objects (0 new, 1 updated), 10040 bytes; ArrayList 1',
      '  updated ArrayList 1000000000000000032',
      '    elements: 900 → 1250 elements, 100 added, 26 removed, 100 moved',
    ]);
  });

  it('shows values old → new, and the last page of a commit without a cursor', async () => {
    const page = await lines('commits', { timestamp: timestamps.get(4), limit: 2, cursor: '31' });
    expect(page).toEqual([
      '#4 2026-11-22T04:02:37.885Z (timestamp 1795320157885000000): 33 objects (0 new, 33 updated), 2322 bytes; Task 30, Member 3',
      '  updated Member 1000000000000000098',
      '    karma: 249 → 350',
      '  updated Member 1000000000000000048',
      '    karma: 133 → 235',
    ]);
    const cut = await lines('commits', { timestamp: timestamps.get(4), limit: 2, cursor: '30' });
    expect(cut.at(-1)).toBe('truncated: 1 more objects; next cursor "32"');
  });

  it('shows new objects, and a reference set where there was null', async () => {
    const page = await lines('commits', { timestamp: timestamps.get(5), limit: 2 });
    expect(page.slice(1)).toEqual(['  updated Task 1000000000000000274', '    comments: null → → 1000000000000000606 ArrayList', '  new ArrayList 1000000000000000606', 'truncated: 80 more objects; next cursor "2"']);
  });
});

describe('diff', () => {
  it('without points compares the last commit with the one before', async () => {
    expect(await lines('diff', {})).toEqual([
      '0 added, 0 removed, 1 changed, 673 unchanged objects',
      '  ArrayList: +0 -0 ~1',
      '  changed ArrayList 1000000000000000032',
      '    elements: 900 → 1250 elements, 100 added, 26 removed, 100 moved',
    ]);
  });

  it('says a point compared with itself has no differences', async () => {
    expect(await tools.text('diff', { from: '6', to: '6' })).toBe('no differences (674 objects unchanged)');
  });

  it('lists at most ten types with differences, then the differing objects of the page', async () => {
    const text = await lines('diff', { from: '1', to: '2', limit: 2 });
    expect(text.slice(0, 3)).toEqual(['532 added, 0 removed, 2 changed, 25 unchanged objects', '  String: +287 -0 ~0', '  Task: +176 -0 ~0']);
    expect(text.slice(10, 11)).toEqual(['  PersistenceRootReference$Default: +0 -0 ~1']);
    expect(text.slice(11)).toEqual([
      '  changed PersistenceRoots$Default 1000000000000000001',
      '    instances: 24 → 25 elements, 1 added',
      '    identifiers: 24 → 25 elements, 1 added',
      '  changed PersistenceRootReference$Default 1000000000000000024',
      '    root: null → → 1000000000000000028 Tracker',
      'truncated: 532 more differing objects; next cursor "2"',
    ]);
    const many = await lines('diff', { from: '1', to: '6', limit: 1 });
    expect(many.filter((l) => /^ {2}\S+: \+\d+ -\d+ ~\d+$/.test(l)).length).toBe(10);
  });

  it('narrows to one type', async () => {
    expect(await lines('diff', { from: '3', to: '6', type: 'tracker.Member', limit: 2 })).toEqual([
      '0 added, 0 removed, 3 changed, 34 unchanged objects',
      '  Member: +0 -0 ~3',
      '  changed Member 1000000000000000048',
      '    karma: 133 → 235',
      '  changed Member 1000000000000000052',
      '    karma: 72 → 172',
      'truncated: 1 more differing objects; next cursor "2"',
    ]);
  });
});
