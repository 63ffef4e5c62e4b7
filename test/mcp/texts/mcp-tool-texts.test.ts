import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, textOf, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The text of the MCP tools' answers on the graph corpus (demo/graph), where they branch: a page
 * in the middle, a page past the end, a filter that matches and one that is malformed, a version
 * with changes and one without, a type restriction. Issue 48: the tests compared the structured
 * content with /api/v1 and checked the texts only for their cursor, so a wrong range, a lost
 * "(current)" or a filter answered for the wrong member went unnoticed. The values are the
 * corpus's own (docs/mcp.md's conversation shows the same storage).
 */

const BOOKSTORE = '1000000000000000028';
const CUSTOMERS = '1000000000000000033';
const LENA = '1000000000000000568';

let tools: McpInProcess;
beforeAll(async () => {
  tools = await mcpInProcess({ default: join(CONFORMANCE_DIR, 'storages', 'graph') });
}, 60_000);
afterAll(() => tools?.close());

const lines = async (tool: string, args: Record<string, unknown>): Promise<string[]> => (await tools.text(tool, args)).split('\n');

describe('list_types', () => {
  it('names the range of a middle page and the cursor of the next', async () => {
    expect(await lines('list_types', { limit: 3, cursor: '2' })).toEqual([
      '121 type ids; 2..4:',
      'conformance.bookstore.OrderLine [type id 1000079]: 146 instances, 6424 B, 3 unreachable',
      'java.math.BigDecimal [type id 38]: 126 instances, 6380 B, 4 unreachable',
      'conformance.bookstore.Order [type id 1000078]: 60 instances, 4800 B, 2 unreachable',
      'truncated: 116 more types; next cursor "5"',
    ]);
  });

  it('says a page past the end is empty, without a cursor', async () => {
    expect(await tools.text('list_types', { cursor: '500' })).toBe('121 type ids; none in this page:');
  });

  it('sorts as asked', async () => {
    const byId = await lines('list_types', { sort: 'typeId', limit: 3 });
    const api = await tools.api<{ types: { typeId: string }[] }>('/types?sort=typeId&limit=3');
    expect(byId.slice(1, 4).map((l) => /\[type id (\d+)\]/.exec(l)![1])).toEqual(api.types.map((t) => t.typeId));
    expect(api.types.map((t) => t.typeId)).not.toEqual((await tools.api<{ types: { typeId: string }[] }>('/types?sort=bytes&limit=3')).types.map((t) => t.typeId));
  });
});

describe('type_dictionary', () => {
  it('shows each version with its instances and bytes, marks the current one, and the entry as the .ptd writes it', async () => {
    const text = await lines('type_dictionary', { type: 'Customer' });
    expect(text.slice(0, 4)).toEqual([
      'conformance.bookstore.Customer: 1 version(s) in the dictionary',
      'type id 1000077: 30 instances, 2550 B, current',
      '  0000000000001000077 conformance.bookstore.Customer{',
      '    java.lang.String               conformance.bookstore.NamedEntity#name          ,',
    ]);
    expect(text.at(-1)).toBe('  }');
  });
});

describe('list_instances', () => {
  it('lists a page of ids with its range and the cursor of the next', async () => {
    expect(await lines('list_instances', { type: 'Customer', limit: 3 })).toEqual([
      '30 instance(s) of conformance.bookstore.Customer [type id 1000077]; 0..2 shown:',
      '1000000000000000568 1000000000000000576 1000000000000000585',
      'truncated: 27 more instances; next cursor "3"',
    ]);
  });

  it('filters on a member by its exact text, looking at every instance', async () => {
    const result = await tools.call('list_instances', { type: 'Customer', member: 'firstName', equals: 'Lena' });
    expect(textOf(result).split('\n')).toEqual([
      'conformance.bookstore.Customer [type id 1000077] where firstName = "Lena": 2 match(es) among instances 0..29 of 30',
      '  1000000000000000568: firstName = → 1000000000000000157 String "Lena"',
      '  1000000000000000814: firstName = → 1000000000000000157 String "Lena"',
    ]);
    const content = result.structuredContent as { where: unknown; matches: { objectId: string }[]; nextCursor: unknown; instances: { objectIds: string[] } };
    expect(content.where).toEqual({ member: 'firstName', equals: 'Lena' });
    expect(content.matches.map((m) => m.objectId)).toEqual([LENA, '1000000000000000814']);
    expect(content.nextCursor).toBeNull();
    expect(content.instances.objectIds.length).toBe(30);
  });

  it('filters by a part of the text ignoring case, stops at the limit and gives the cursor to go on', async () => {
    const result = await tools.call('list_instances', { type: 'Customer', member: 'firstName', contains: 'EN', limit: 2 });
    expect(textOf(result).split('\n')).toEqual([
      'conformance.bookstore.Customer [type id 1000077] where firstName contains "EN": 2 match(es) among instances 0..5 of 30',
      '  1000000000000000568: firstName = → 1000000000000000157 String "Lena"',
      '  1000000000000000613: firstName = → 1000000000000000559 String "Quentin"',
      'truncated: 24 more instances not looked at yet; next cursor "6"',
    ]);
    expect((result.structuredContent as { where: unknown; nextCursor: unknown }).where).toEqual({ member: 'firstName', contains: 'EN' });
    expect((result.structuredContent as { nextCursor: unknown }).nextCursor).toBe('6');
    const next = await lines('list_instances', { type: 'Customer', member: 'firstName', contains: 'EN', limit: 2, cursor: '6' });
    expect(next[0]).toMatch(/ among instances 6\.\.\d+ of 30$/);
  });

  it('compares a primitive member by its value text', async () => {
    const all = await tools.api<{ objectIds: string[] }>('/types/1000077/instances?limit=100');
    const counts = new Map<string, number>();
    for (const id of all.objectIds) {
      const view = await tools.api<{ members: { name: string; value: unknown }[] }>(`/objects/${id}?limit=1`);
      const value = String(view.members.find((m) => m.name === 'loyaltyPoints')!.value);
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    const [value, count] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(count).toBeLessThan(30);
    const text = await lines('list_instances', { type: 'Customer', member: 'loyaltyPoints', equals: value, limit: 200 });
    expect(text[0]).toBe(`conformance.bookstore.Customer [type id 1000077] where loyaltyPoints = "${value}": ${count} match(es) among instances 0..29 of 30`);
    expect(text.slice(1).every((l) => l.endsWith(`: loyaltyPoints = ${value}`))).toBe(true);
    expect(text.length).toBe(1 + count);
  });

  it('refuses a filter without its member or its value, and a member the class does not have', async () => {
    for (const args of [{ type: 'Customer', equals: 'Lena' }, { type: 'Customer', member: 'firstName' }]) {
      const result = await tools.call('list_instances', args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Bad Request (400): a filter needs "member" together with "equals" or "contains"');
    }
    const missing = await tools.call('list_instances', { type: 'Customer', member: 'surname', equals: 'x' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('Bad Request (400): conformance.bookstore.Customer has no member "surname" (see type_dictionary)');
  });
});

describe('search', () => {
  it('names the class it was restricted to, and finds only in it', async () => {
    expect(await lines('search', { query: 'Lena', type: 'Customer' })).toEqual([
      '2 hit(s) for "Lena" in conformance.bookstore.Customer:',
      '  1000000000000000568 Customer.firstName = "Lena"',
      '  1000000000000000814 Customer.firstName = "Lena"',
    ]);
    const byId = (await tools.call('search', { query: 'Lena', type: '1000077' })).structuredContent as { results: unknown[] };
    expect(byId.results).toEqual((await tools.api<{ results: unknown[] }>('/search?q=Lena&type=1000077&offset=0&limit=20')).results);
    expect(byId.results.length).toBe(2);
  });
});

describe('object_versions', () => {
  it('lists the versions newest first, the current one marked, with commit, type, bytes and place', async () => {
    const text = await lines('object_versions', { objectId: CUSTOMERS, limit: 2 });
    expect(text[0]).toBe(`2 version(s) of ${CUSTOMERS} on disk, newest first:`);
    expect(text[1]).toMatch(/^ {2}version 0 \(current\): store 2026-11-22T03:49:14\.290Z; TreeMap \[type id 57\], 512 bytes in .*channel_1_16\.dat @3190$/);
    expect(text[2]).toMatch(/^ {2}version 1: store 2026-11-22T03:49:14\.199Z; TreeMap \[type id 57\], 528 bytes in .*channel_1_7\.dat @3548$/);
    expect(text.length).toBe(3);
  });

  it('pages the list: the range shown, the cursor of the next page, none past the last', async () => {
    const first = await lines('object_versions', { objectId: CUSTOMERS, limit: 1 });
    expect(first[0]).toBe(`2 version(s) of ${CUSTOMERS} on disk, newest first; 0..0 shown:`);
    expect(first.at(-1)).toBe('truncated: 1 more versions; next cursor "1"');
    const second = await lines('object_versions', { objectId: CUSTOMERS, limit: 1, cursor: '1' });
    expect(second[0]).toBe(`2 version(s) of ${CUSTOMERS} on disk, newest first; 1..1 shown:`);
    expect(second[1]).toMatch(/^ {2}version 1: /);
    expect(second.length).toBe(2);
    expect(await tools.text('object_versions', { objectId: CUSTOMERS, cursor: '2' })).toBe(`2 version(s) of ${CUSTOMERS} on disk, newest first; none in this page:`);
  });

  it('shows the current version as having no newer one, and an older one with its changes', async () => {
    const current = await lines('object_versions', { objectId: CUSTOMERS, version: 0, limit: 2 });
    expect(current.slice(0, 3)).toEqual([`version 0 of ${CUSTOMERS} (current): store 2026-11-22T03:49:14.290Z`, 'no newer version: nothing changed since', `  java.util.TreeMap ${CUSTOMERS} (type id 57, reachable, 1 referrer)`]);
    const older = await lines('object_versions', { objectId: CUSTOMERS, version: 1, limit: 2 });
    expect(older.slice(0, 3)).toEqual([`version 1 of ${CUSTOMERS}: store 2026-11-22T03:49:14.199Z`, 'changes from version 1 to version 0:', '  elements: 30 ⇒ 29']);
  });
});

describe('referrers', () => {
  it('lists every referrer without a range when all fit, and the range of a cut page', async () => {
    expect(await lines('referrers', { objectId: LENA })).toEqual([
      `3 object(s) refer to ${LENA}:`,
      '  1000000000000000033 TreeMap via elements[0].value (key 1000000000000000570 String "C-0000")',
      '  1000000000000000951 Order via customer',
      '  1000000000000000992 Order via customer',
    ]);
    expect(await lines('referrers', { objectId: LENA, limit: 1, cursor: '1' })).toEqual([`3 object(s) refer to ${LENA}; 1..1 shown:`, '  1000000000000000951 Order via customer', 'truncated: 1 more referrers; next cursor "2"']);
  });

  it('says a page past the last is empty, without a range or a cursor', async () => {
    expect(await tools.text('referrers', { objectId: LENA, cursor: '3' })).toBe(`3 object(s) refer to ${LENA}; none in this page:`);
  });
});

describe('paths_from_root', () => {
  it('says an unreachable object is garbage', async () => {
    const garbage = (await tools.api<{ unreachable: { byType: { typeId: string }[] } }>('/analysis')).unreachable.byType[0]!;
    const ids = (await tools.api<{ objectIds: string[] }>(`/types/${garbage.typeId}/instances?limit=10000`)).objectIds;
    for (const id of ids) {
      const paths = await tools.api<{ reachable: boolean }>(`/objects/${id}/paths?limit=1`);
      if (paths.reachable) continue;
      expect(await tools.text('paths_from_root', { objectId: id })).toBe(`${id} is not reachable from the root: it is garbage (kept on disk until housekeeping removes it)`);
      return;
    }
    expect.unreachable('the corpus has garbage of its largest garbage class');
  });
});

describe('retained', () => {
  it('shows the retained set by class on the first page only, and numbers a later page on from its cursor', async () => {
    const first = await lines('retained', { objectId: BOOKSTORE, limit: 1 });
    expect(first[0]).toBe(`${BOOKSTORE} Bookstore (96 B itself) retains 1190 objects, 70 KiB: 95.8% of the reachable bytes`);
    expect(first[1]).toBe('what deleting it would free, by class:');
    expect(first[2]).toBe('  String: 374 objects, 25 KiB');
    expect(first).toContain('  … 81 objects of other classes');
    expect(first.at(-2)).toBe('  1. 1000000000000000024 PersistenceRootReference$Default: retains 1191 objects, 70 KiB (95.9%) {…}');
    expect(first.at(-1)).toBe('truncated: 1 more dominators; next cursor "1"');
    const second = await lines('retained', { objectId: BOOKSTORE, limit: 1, cursor: '1' });
    expect(second).toEqual([
      `${BOOKSTORE} Bookstore (96 B itself) retains 1190 objects, 70 KiB: 95.8% of the reachable bytes`,
      'what keeps it alive (2 dominators, the immediate one first, up to the roots object):',
      '  2. 1000000000000000001 PersistenceRoots$Default: retains 1228 objects, 73 KiB (100.0%) {…}',
    ]);
  });
});

describe('analyze_storage', () => {
  it('cuts the garbage classes and the files at top, saying how many more', async () => {
    const text = await lines('analyze_storage', { top: 2, examples: 1 });
    expect(text.slice(0, 5)).toEqual([
      'reachable: 1228 objects, 73 KiB; unreachable (garbage): 35 objects, 1869 B',
      'garbage by class (largest first):',
      '  java.lang.String [type id 30]: 14 objects, 792 B',
      '  java.math.BigDecimal [type id 38]: 4 objects, 204 B',
      '  truncated: 8 more classes (raise top, at most 100)',
    ]);
    expect(text[5]).toBe('missing references: 0 id(s) referenced but not stored');
    expect(text[6]).toBe('waste per data file (superseded old versions + garbage, most first):');
    expect(text[7]).toMatch(/channel_0_12\.dat: 4066 B, superseded 860 B, garbage 104 B \(2 objects\)$/);
    expect(text[8]).toMatch(/channel_0_16\.dat: 4314 B, superseded 720 B, garbage 180 B \(3 objects\)$/);
    expect(text[9]).toBe('  truncated: 19 more files (raise top, at most 100)');
    expect(text.length).toBe(10);
  });
});
