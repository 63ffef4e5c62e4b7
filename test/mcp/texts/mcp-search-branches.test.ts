import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, textOf, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The branches of `list_instances` and `search` (src/mcp/tools/search-tools.ts) that the texts of
 * mcp-tool-texts.test.ts do not reach, on the graph corpus: a filter on a reference to an entity
 * (compared by its id), on a null member, on a collection's own elements (never equal to a text),
 * a page past the last, and a search stopped by its time. Issue 48: a mutation run of
 * search-tools.ts found these unread.
 */

const LENA = '1000000000000000568';
const CUSTOMER_TYPE = '1000077';

let tools: McpInProcess;
beforeAll(async () => {
  tools = await mcpInProcess({ default: join(CONFORMANCE_DIR, 'storages', 'graph') });
}, 60_000);
afterAll(() => tools?.close());

const lines = async (tool: string, args: Record<string, unknown>): Promise<string[]> => (await tools.text(tool, args)).split('\n');

describe('list_instances filtered on a member', () => {
  it('compares a reference to an entity by its object id: the orders of a customer are its referrers via customer', async () => {
    const referrers = await tools.api<{ referrers: { objectId: string; via: unknown }[] }>(`/objects/${LENA}/referrers?limit=100`);
    const orders = referrers.referrers.filter((r) => JSON.stringify(r.via).includes('customer')).map((r) => r.objectId);
    expect(orders.length).toBe(2);
    expect(await lines('list_instances', { type: 'Order', member: 'customer', equals: LENA })).toEqual([
      `conformance.bookstore.Order [type id 1000078] where customer = "${LENA}": 2 match(es) among instances 0..59 of 60`,
      ...orders.map((id) => `  ${id}: customer = → ${LENA} Customer`),
    ]);
  });

  it('compares a null member as "null"', async () => {
    const ids = (await tools.api<{ objectIds: string[] }>('/types/1000078/instances?limit=100')).objectIds;
    const withoutNote: string[] = [];
    for (const id of ids) {
      const view = await tools.api<{ members: { name: string; value: unknown }[] }>(`/objects/${id}?limit=1`);
      if (view.members.find((m) => m.name === 'note')!.value === null) withoutNote.push(id);
    }
    expect(withoutNote.length).toBeGreaterThan(0);
    expect(withoutNote.length).toBeLessThan(ids.length);
    const result = await tools.call('list_instances', { type: 'Order', member: 'note', equals: 'null', limit: 200 });
    expect(textOf(result).split('\n')).toEqual([
      `conformance.bookstore.Order [type id 1000078] where note = "null": ${withoutNote.length} match(es) among instances 0..59 of 60`,
      ...withoutNote.map((id) => `  ${id}: note = null`),
    ]);
    expect((result.structuredContent as { matches: { objectId: string }[] }).matches.map((m) => m.objectId)).toEqual(withoutNote);
  });

  it('never matches a collection\'s own elements, neither as "null" nor by a part of a text, and is no error', async () => {
    for (const test of [{ equals: 'null' }, { contains: 'e' }]) {
      const result = await tools.call('list_instances', { type: 'ArrayList', member: 'elements', ...test });
      expect(result.isError, JSON.stringify(test)).toBeFalsy();
      expect(textOf(result)).toBe(`java.util.ArrayList [type id 43] where elements ${'equals' in test ? '= "null"' : 'contains "e"'}: 0 match(es) among instances 0..111 of 112`);
    }
  });

  it('says a cursor past the last instance looks at none, without a range or a cursor', async () => {
    const result = await tools.call('list_instances', { type: 'Customer', member: 'firstName', equals: 'Lena', cursor: '30' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('conformance.bookstore.Customer [type id 1000077] where firstName = "Lena": 0 match(es) no instance at 30 or after (30 in all)');
    expect((result.structuredContent as { nextCursor: unknown }).nextCursor).toBeNull();
  });

  it('gives as structured instances only those it looked at when it stops at its limit', async () => {
    const result = await tools.call('list_instances', { type: 'Customer', member: 'firstName', contains: 'EN', limit: 2 });
    const looked = (result.structuredContent as { instances: { objectIds: string[]; total: number } }).instances;
    expect(looked.objectIds).toEqual((await tools.api<{ objectIds: string[] }>(`/types/${CUSTOMER_TYPE}/instances?limit=6`)).objectIds);
    expect(looked.total).toBe(30);
  });
});

describe('list_instances unfiltered', () => {
  it('gives the API page as its structured content', async () => {
    const result = await tools.call('list_instances', { type: 'Customer', limit: 3, cursor: '5' });
    expect(result.structuredContent).toEqual(await tools.api(`/types/${CUSTOMER_TYPE}/instances?offset=5&limit=3`));
    const text = textOf(result).split('\n');
    expect(text[0]).toBe('30 instance(s) of conformance.bookstore.Customer [type id 1000077]; 5..7 shown:');
    expect(text[2]).toBe('truncated: 22 more instances; next cursor "8"');
  });

  it('says a page past the last is empty: no range, no line of ids, no cursor', async () => {
    expect(await tools.text('list_instances', { type: 'Customer', cursor: '30' })).toBe('30 instance(s) of conformance.bookstore.Customer [type id 1000077]; none in this page:');
  });
});

describe('search', () => {
  it('says when it stopped at its time, how far it scanned, and the cursor to go on', async () => {
    // No text of the corpus holds the query: only the time (1 ms, checked after each read) stops the scan before its end.
    const result = await tools.call('search', { query: 'no such text q7x', maxMs: 1 });
    const content = result.structuredContent as { stoppedBy: string; elapsedMs: number; scannedBytes: number; totalBytes: number; results: unknown[] };
    expect(content.stoppedBy).toBe('time');
    expect(content.results).toEqual([]);
    expect(content.scannedBytes).toBeLessThan(content.totalBytes);
    expect(textOf(result).split('\n')).toEqual([
      '0 hit(s) for "no such text q7x":',
      `truncated: stopped after ${content.elapsedMs} ms, scanned ${content.scannedBytes} of ${content.totalBytes} bytes; raise maxMs or narrow with type, then next cursor "0"`,
    ]);
  });

  it('names the range of a last page that needs no cursor', async () => {
    expect(await lines('search', { query: 'Lena', type: 'Customer', cursor: '1' })).toEqual(['1 hit(s) for "Lena" in conformance.bookstore.Customer; hits 1..1 shown:', '  1000000000000000814 Customer.firstName = "Lena"']);
  });

  it('asks the API for the page of the cursor and the limit given', async () => {
    const result = await tools.call('search', { query: 'e', type: 'Customer', limit: 2, cursor: '3', maxMs: 30_000 });
    const api = await tools.api<{ results: unknown[] }>(`/search?q=e&type=conformance.bookstore.Customer&offset=3&limit=2&maxMs=30000`);
    expect((result.structuredContent as { results: unknown[] }).results).toEqual(api.results);
    expect(api.results.length).toBe(2);
    expect(textOf(result).split('\n')[0]).toBe('2 hit(s) for "e" in conformance.bookstore.Customer; hits 3..4 shown:');
  });

  it('refuses a cursor past the hits the API pages through in its own words, and pages at that bound', async () => {
    const refused = await tools.call('search', { query: 'Lena', cursor: '100001' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Bad Request (400): cursor "100001" is past the first 100000 hits, the most this tool pages through');
    const last = await tools.call('search', { query: 'Lena', cursor: '100000' });
    expect(last.isError).toBeFalsy();
    expect((last.structuredContent as { results: unknown[] }).results).toEqual([]);
    expect(textOf(last)).toBe('0 hit(s) for "Lena"; none in this page:');
  });
});
