import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, textOf, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The text of `retained` (src/mcp/tools/retained-tool.ts) on the graph corpus where
 * mcp-retained.test.ts compares only structured content: the biggest retainers line by line with
 * their largest classes, the roots object (nothing above it), a garbage object, the last page the
 * tool pages through (the 1,000th retainer) and a cursor past it, refused in words. Issue 48: a
 * cursor of 1000 or more was passed on and refused by the API's query check ("querystring/offset
 * must be <= 999").
 */

const ROOTS = '1000000000000000001';

let tools: McpInProcess;
beforeAll(async () => {
  tools = await mcpInProcess({ default: join(CONFORMANCE_DIR, 'storages', 'graph') });
}, 60_000);
afterAll(() => tools?.close());

const lines = async (args: Record<string, unknown>): Promise<string[]> => (await tools.text('retained', args)).split('\n');

describe('retained without an object', () => {
  it('lists the biggest retainers numbered, each with its largest classes, and the cursor of the next page', async () => {
    expect(await lines({ limit: 2 })).toEqual([
      'biggest retainers of 73 KiB reachable (1228 objects); an object and what it holds may both be listed:',
      '  1. 1000000000000000024 PersistenceRootReference$Default: retains 1191 objects, 70 KiB (95.9%) {…}',
      '     mostly String 374 × 25 KiB, ArrayList 109 × 6968 B, OrderLine 143 × 6292 B',
      '  2. 1000000000000000028 Bookstore: retains 1190 objects, 70 KiB (95.8%) {name: "Chapter & Verse <Books>", …}',
      '     mostly String 374 × 25 KiB, ArrayList 109 × 6968 B, OrderLine 143 × 6292 B',
      'truncated: 1225 more retainers; next cursor "2"',
    ]);
  });

  it('ends at the 1,000th retainer without a cursor, and refuses a cursor past it in words', async () => {
    const last = await lines({ limit: 3, cursor: '999' });
    expect(last.length).toBe(3);
    expect(last[1]).toMatch(/^ {2}1000\. \d+ \S+: retains \d+ objects, \d+ B \(\d+\.\d%\)/);
    for (const cursor of ['1000', '1250']) {
      const refused = await tools.call('retained', { limit: 3, cursor });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(`Bad Request (400): cursor "${cursor}" is past the first 1000 retainers, the most this tool pages through`);
    }
    const chain = await tools.call('retained', { objectId: ROOTS, cursor: '1000' });
    expect(textOf(chain)).toBe('Bad Request (400): cursor "1000" is past the first 1000 dominators, the most this tool pages through');
  });
});

describe('retained of an object', () => {
  it('says the roots object has nothing above it, after its retained set by class and the rest', async () => {
    expect(await lines({ objectId: ROOTS, limit: 2 })).toEqual([
      `${ROOTS} PersistenceRoots$Default (1774 B itself) retains 1228 objects, 73 KiB: 100.0% of the reachable bytes`,
      'what deleting it would free, by class:',
      '  String: 379 objects, 25 KiB',
      '  ArrayList: 109 objects, 6968 B',
      '  OrderLine: 143 objects, 6292 B',
      '  BigDecimal: 122 objects, 6176 B',
      '  Date: 146 objects, 4672 B',
      '  Order: 58 objects, 4640 B',
      '  Book: 40 objects, 4520 B',
      '  Address: 51 objects, 2856 B',
      '  Customer: 29 objects, 2465 B',
      '  String[]: 40 objects, 2112 B',
      '  … 111 objects of other classes',
      'it is the roots object: nothing above it',
    ]);
  });

  it('lists every class it retains without an "other classes" line when all are listed, and numbers its dominator chain', async () => {
    expect(await lines({ objectId: '1000000000000000568', limit: 5 })).toEqual([
      '1000000000000000568 Customer (85 B itself) retains 20 objects, 1067 B: 1.4% of the reachable bytes',
      'what deleting it would free, by class:',
      '  OrderLine: 5 objects, 220 B',
      '  ArrayList: 3 objects, 176 B',
      '  String: 3 objects, 172 B',
      '  Order: 2 objects, 160 B',
      '  BigDecimal: 2 objects, 102 B',
      '  Customer: 1 objects, 85 B',
      '  Date: 2 objects, 64 B',
      '  Address: 1 objects, 56 B',
      '  Lazy$Default: 1 objects, 32 B',
      'what keeps it alive (4 dominators, the immediate one first, up to the roots object):',
      '  1. 1000000000000000033 TreeMap: retains 321 objects, 17 KiB (23.2%) 29 entries',
      '  2. 1000000000000000028 Bookstore: retains 1190 objects, 70 KiB (95.8%) {name: "Chapter & Verse <Books>", …}',
      '  3. 1000000000000000024 PersistenceRootReference$Default: retains 1191 objects, 70 KiB (95.9%) {…}',
      `  4. ${ROOTS} PersistenceRoots$Default: retains 1228 objects, 73 KiB (100.0%) {…}`,
    ]);
  });

  it('says a garbage object retains nothing, with its own size', async () => {
    const garbage = (await tools.api<{ unreachable: { byType: { typeId: string; typeName: string }[] } }>('/analysis')).unreachable.byType[0]!;
    expect(garbage.typeName).toBe('java.lang.String');
    const ids = (await tools.api<{ objectIds: string[] }>(`/types/${garbage.typeId}/instances?limit=10000`)).objectIds;
    for (const id of ids) {
      const answer = await tools.api<{ retained: unknown; ownBytes: number }>(`/objects/${id}/retained?chain=1`);
      if (answer.retained !== null) continue;
      const result = await tools.call('retained', { objectId: id });
      expect(textOf(result)).toBe(`${id} String is not reachable from the roots object: it retains nothing and nothing keeps it alive (it is garbage, ${answer.ownBytes} B)`);
      expect((result.structuredContent as { offset: number; chain: unknown[] }).offset).toBe(0);
      return;
    }
    expect.unreachable('the corpus has garbage Strings');
  });
});
