import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIGAMAP_TABLES } from '../../../src/gigamap/sql-rows.js';
import { GIGAMAP } from '../../../src/gigamap/gigamap-type-names.js';
import type { SqlEngine } from '../../../src/mcp/sql-engine-contract.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, textOf, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The MCP tools' pages (issue 41, item 8, and issue 48's finding): `referrers`, `object_versions`
 * and `search` each continue with the cursor their last page gives, exactly where the API's next
 * page starts; `describe_object` of a GigaMap shows its entities and indices; `sql_query` names
 * the GigaMap tables; an argument a tool does not know is a tool error.
 */

const FIXTURES = join(CONFORMANCE_DIR, '..');
/** Versions of the object stored again and again (more than the API's default page of 100). */
const STORES = 130;

type Tools = McpInProcess;

/** The tools over one storage named default, its graph index built (with the SQL engine, when given). */
const toolsOver = async (directory: string, sqlEngine?: () => SqlEngine | undefined): Promise<Tools> =>
  mcpInProcess({ default: directory }, sqlEngine === undefined ? {} : { sqlEngine });

/** The cursor a page's last line gives. */
function cursorOf(result: CallToolResult): string {
  const match = /next cursor "(\d+)"/.exec(textOf(result));
  expect(match, textOf(result)).not.toBeNull();
  return match![1]!;
}

describe('pages with cursors on the graph corpus', () => {
  let tools: Tools;
  beforeAll(async () => {
    tools = await toolsOver(join(CONFORMANCE_DIR, 'storages', 'graph'));
  }, 60_000);
  afterAll(() => tools.close());

  it('referrers: the second page differs from the first and continues it exactly', async () => {
    // The object with the most referrers.
    const types = await tools.api<{ types: { typeId: string; instances: number }[] }>('/types?limit=10000');
    let best = { id: '', referrers: 0 };
    for (const type of types.types.filter((t) => t.instances > 0)) {
      const ids = (await tools.api<{ objectIds: string[] }>(`/types/${type.typeId}/instances?limit=50`)).objectIds;
      for (const id of ids) {
        const view = await tools.api<{ referrers: number }>(`/objects/${id}?limit=1`);
        if (view.referrers > best.referrers) best = { id, referrers: view.referrers };
      }
    }
    expect(best.referrers).toBeGreaterThanOrEqual(6);
    const first = await tools.call('referrers', { objectId: best.id, limit: 3 });
    const cursor = cursorOf(first);
    expect(cursor).toBe('3');
    const second = await tools.call('referrers', { objectId: best.id, limit: 3, cursor });
    const ids = (r: CallToolResult): string[] => (r.structuredContent as { referrers: { objectId: string; via: unknown }[] }).referrers.map((x) => `${x.objectId} ${JSON.stringify(x.via)}`);
    const whole = (await tools.api<{ referrers: { objectId: string; via: unknown }[] }>(`/objects/${best.id}/referrers?limit=6`)).referrers.map((x) => `${x.objectId} ${JSON.stringify(x.via)}`);
    expect(ids(second)).not.toEqual(ids(first));
    expect([...ids(first), ...ids(second)]).toEqual(whole);
    expect(textOf(second)).toContain(`; 3..5 shown`);
  }, 120_000);

  it('search: the second page differs from the first and continues it exactly', async () => {
    const whole = await tools.api<{ results: { objectId: string; member: string }[] }>('/search?q=e&limit=8&maxMs=30000');
    expect(whole.results.length).toBe(8);
    const first = await tools.call('search', { query: 'e', limit: 4, maxMs: 30_000 });
    expect(first.isError).toBeFalsy();
    const cursor = cursorOf(first);
    expect(cursor).toBe('4');
    const second = await tools.call('search', { query: 'e', limit: 4, maxMs: 30_000, cursor });
    const hits = (r: CallToolResult): string[] => (r.structuredContent as { results: { objectId: string; member: string }[] }).results.map((h) => `${h.objectId}.${h.member}`);
    expect(hits(second)).not.toEqual(hits(first));
    expect([...hits(first), ...hits(second)]).toEqual(whole.results.map((h) => `${h.objectId}.${h.member}`));
    expect(textOf(second)).toContain('hits 4..7 shown');
  }, 60_000);

  it('refuses an argument a tool does not know, naming it', async () => {
    const misspelt = await tools.call('search', { query: 'e', limt: 3 });
    expect(misspelt.isError).toBe(true);
    expect(textOf(misspelt)).toMatch(/search.*limt/s);
    const noPages = await tools.call('paths_from_root', { objectId: '1000000000000000001', cursor: '3' });
    expect(noPages.isError).toBe(true);
    expect(textOf(noPages)).toMatch(/paths_from_root.*cursor/s);
    // Every tool says so in its input schema.
    const listed = await tools.client.listTools();
    expect(listed.tools.filter((t) => t.inputSchema['additionalProperties'] !== false).map((t) => t.name)).toEqual([]);
  });
});

describe('object_versions pages past the API default page', () => {
  let directory: string;
  let objectId: string;
  let tools: Tools;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'si-mcp-versions-'));
    const writer = StorageWriter.create(directory, { channelCount: 1 });
    const text = writer.dictionary.require('java.lang.String');
    const id = writer.newObjectId();
    objectId = String(id);
    for (let i = 0; i < STORES; i++) {
      const store = writer.beginStore();
      store.add(text, id, [`version ${i}`]);
      if (i === STORES - 1) writer.setRoot(id);
      writer.store(store);
    }
    writer.close();
    tools = await toolsOver(directory);
  }, 60_000);
  afterAll(async () => {
    await tools.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('the second page differs from the first and continues it exactly, also beyond the 100th version', async () => {
    const numbers = (r: CallToolResult): number[] => (r.structuredContent as { versions: { n: number }[] }).versions.map((v) => v.n);
    const first = await tools.call('object_versions', { objectId, limit: 10 });
    expect(numbers(first)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(textOf(first)).toContain(`truncated: ${STORES - 10} more versions; next cursor "10"`);
    const second = await tools.call('object_versions', { objectId, limit: 10, cursor: cursorOf(first) });
    expect(numbers(second)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    const api = await tools.api<{ versions: { n: number; offset: number }[] }>(`/objects/${objectId}/versions?offset=10&limit=10`);
    expect((second.structuredContent as { versions: unknown[] }).versions).toEqual(api.versions);
    const late = await tools.call('object_versions', { objectId, limit: 10, cursor: '115' });
    expect(numbers(late)).toEqual([115, 116, 117, 118, 119, 120, 121, 122, 123, 124]);
    expect(textOf(late)).toContain(`truncated: 5 more versions; next cursor "125"`);
  }, 60_000);
});

describe('describe_object of a GigaMap', () => {
  let tools: Tools;
  beforeAll(async () => {
    tools = await toolsOver(join(FIXTURES, 'conformance-es-gigamap', 'storages', 'gigamap'));
  }, 60_000);
  afterAll(() => tools.close());

  it('shows its entities and indices as the API does, not its segments, paged by cursor', async () => {
    const types = await tools.api<{ types: { typeId: string; typeName: string; instances: number }[] }>('/types?limit=10000');
    const type = types.types.find((t) => t.typeName === GIGAMAP && t.instances > 0)!;
    const mapId = (await tools.api<{ objectIds: string[] }>(`/types/${type.typeId}/instances?limit=1`)).objectIds[0]!;
    interface GigaMapView {
      members: { name: string }[];
      gigamap: { size: string; listed: number; entities: { entityId: number; objectId: string; summary: string }[]; indices: { name: string; kind: string; unique: boolean }[] };
    }
    const api = await tools.api<GigaMapView>(`/objects/${mapId}?offset=0&limit=3`);
    expect(api.gigamap.listed).toBeGreaterThan(3);
    const first = await tools.call('describe_object', { objectId: mapId, limit: 3 });
    // (The whole view may differ by the retained sizes, which the tool waits for.)
    expect((first.structuredContent as unknown as GigaMapView).gigamap).toEqual(api.gigamap);
    const text = textOf(first);
    const lines = text.split('\n');
    expect(lines[1]).toBe(`  GigaMap of ${api.gigamap.size} entities, showing 0..2`);
    expect(lines[2]).toBe(`  indexed by: ${api.gigamap.indices.map((i) => `${i.name} (${i.kind}${i.unique ? ', unique' : ''}, ${(i as unknown as { objectId: string }).objectId})`).join('; ')}`);
    for (const entity of api.gigamap.entities) expect(text).toContain(`[${entity.entityId}] → ${entity.objectId} `);
    // Its members (the segments and levels) are not listed.
    for (const member of api.members) expect(lines.some((l) => l.startsWith(`  ${member.name}:`)), member.name).toBe(false);
    expect(text).toContain(`truncated: ${api.gigamap.listed - 3} more entities; next cursor "3"`);
    const second = await tools.call('describe_object', { objectId: mapId, limit: 3, cursor: '3' });
    const page = (r: CallToolResult): number[] => (r.structuredContent as unknown as GigaMapView).gigamap.entities.map((e) => e.entityId);
    const whole = (await tools.api<GigaMapView>(`/objects/${mapId}?offset=0&limit=6`)).gigamap.entities.map((e) => e.entityId);
    expect([...page(first), ...page(second)]).toEqual(whole);
  }, 60_000);
});

describe('sql_query', () => {
  it('names the GigaMap tables and their columns in its description', async () => {
    // The description only: no statement runs, so an engine that is never asked will do.
    const tools = await toolsOver(join(CONFORMANCE_DIR, 'storages', 'graph'), () => ({}) as SqlEngine);
    try {
      const tool = (await tools.client.listTools()).tools.find((t) => t.name === 'sql_query')!;
      for (const table of GIGAMAP_TABLES) expect(tool.description).toContain(`${table.name}(${table.columns.map((c) => c.name).join(', ')})`);
    } finally {
      await tools.close();
    }
  });
});
