import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { GIGAMAP_STORAGE, loadApiDump } from '../../gigamap/gigamap-corpus.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * `_gigamap_entities` and `_gigamap_index` on the storage EclipseStore 4.1.0 wrote: listed in the
 * schema, and equal to what /api/v1/objects/{oid}/gigamap/... answers (entities page by page,
 * every index's keys with their counts, the entities under each key).
 */

const dump = loadApiDump();
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  registered = await registeredStorage(GIGAMAP_STORAGE, 'gigamap');
  app = buildApp(registered.storage, { instance: 'store-data', api: registered.registry, sql: {} });
  await graphsBuilt(registered.registry);
});
afterAll(async () => {
  await app.close();
  await registered.close();
});

async function get(url: string): Promise<Record<string, any>> {
  const response = await app.inject({ url });
  expect(response.statusCode, url).toBe(200);
  return response.json() as Record<string, any>;
}

async function sql(statement: string): Promise<unknown[][]> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify({ sql: statement, limit: 10000 }), headers: { 'content-type': 'application/json' } });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { rows: unknown[][]; truncated: boolean };
  expect(body.truncated).toBe(false);
  return body.rows;
}

/** Every page of a paged GigaMap route, joined. */
async function allPages(url: string, field: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = (await get(`${url}${url.includes('?') ? '&' : '?'}offset=${offset}&limit=500`))[field] as Record<string, any>[];
    out.push(...page);
    if (page.length < 500) return out;
  }
}

describe('the GigaMap tables', () => {
  it('are listed in the schema as system tables, object id columns marked', async () => {
    const { tables } = await get('/api/v1/sql/schema');
    const entities = tables.find((t: { name: string }) => t.name === '_gigamap_entities');
    const index = tables.find((t: { name: string }) => t.name === '_gigamap_index');
    expect(entities).toMatchObject({ kind: 'system', alias: null, typeName: null });
    expect(entities.columns).toEqual([
      { name: 'gigamap', type: 'BIGINT', objectId: true },
      { name: 'entity_id', type: 'BIGINT', objectId: false },
      { name: 'oid', type: 'BIGINT', objectId: true },
    ]);
    expect(index.columns.map((c: { name: string; type: string }) => `${c.name} ${c.type}`)).toEqual(['gigamap BIGINT', 'index_name VARCHAR', 'key VARCHAR', 'entity_id BIGINT']);
  });

  it('_gigamap_entities equals the entities route of every GigaMap', async () => {
    expect(dump.length).toBeGreaterThan(1);
    const maps = (await sql('SELECT DISTINCT gigamap FROM _gigamap_entities ORDER BY gigamap')).map((r) => r[0]);
    expect(maps).toEqual(dump.map((m) => m.objectId).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    for (const map of dump) {
      const rows = await sql(`SELECT entity_id, oid FROM _gigamap_entities WHERE gigamap = ${map.objectId} ORDER BY entity_id`);
      const api = await allPages(`/api/v1/objects/${map.objectId}/gigamap/entities`, 'entities');
      expect(rows.length).toBe(map.entities.length);
      expect(rows).toEqual(api.map((e) => [String(e.entityId), e.objectId]));
      // Entities are rows of their type's table too.
      const joined = await sql(`SELECT count(*) FROM _gigamap_entities g JOIN _objects o ON o.oid = g.oid WHERE g.gigamap = ${map.objectId}`);
      expect(joined[0]![0]).toBe(String(map.entities.length));
    }
  });

  it('_gigamap_index equals every index: keys with their counts, and the entities under each key', async () => {
    let checkedKeys = 0;
    for (const map of dump) {
      const info = await get(`/api/v1/objects/${map.objectId}/gigamap`);
      expect(info.indices.length).toBeGreaterThan(0);
      for (const index of info.indices as { name: string }[]) {
        const name = encodeURIComponent(index.name);
        const keys = await allPages(`/api/v1/objects/${map.objectId}/gigamap/indices/${name}/keys`, 'keys');
        const counts = await sql(`SELECT key, count(*) FROM _gigamap_index WHERE gigamap = ${map.objectId} AND index_name = '${index.name.replaceAll("'", "''")}' GROUP BY key`);
        const byKey = new Map(counts.map(([k, n]) => [k as string, n as string]));
        expect(byKey.size).toBe(keys.length);
        for (const k of keys) expect(byKey.get(k.key), `${index.name} ${k.key}`).toBe(String(k.count));
        // The entities under the first and the last key (in the keys route's order), id by id.
        for (const k of [keys[0]!, keys.at(-1)!]) {
          const api = await allPages(`/api/v1/objects/${map.objectId}/gigamap/indices/${name}/entities?key=${encodeURIComponent(k.key)}`, 'entities');
          const rows = await sql(`SELECT entity_id FROM _gigamap_index WHERE gigamap = ${map.objectId} AND index_name = '${index.name.replaceAll("'", "''")}' AND key = '${String(k.key).replaceAll("'", "''")}' ORDER BY entity_id`);
          expect(rows.map((r) => r[0])).toEqual(api.map((e) => String(e.entityId)));
          checkedKeys++;
        }
      }
    }
    expect(checkedKeys).toBeGreaterThan(4);
  });

  it('answers "persons per city" as one GROUP BY, as the city index counts them', async () => {
    const persons = dump.find((m) => m.label === 'persons')!;
    const rows = await sql(`SELECT key AS city, count(*) AS persons FROM _gigamap_index WHERE gigamap = ${persons.objectId} AND index_name = 'city' GROUP BY city ORDER BY persons DESC, city`);
    const byCity = new Map<string, number>();
    for (const e of persons.entities) byCity.set(String(e.city), (byCity.get(String(e.city)) ?? 0) + 1);
    expect(rows.length).toBe(byCity.size);
    for (const [city, n] of rows) expect(Number(n), String(city)).toBe(byCity.get(city as string));
  });
});

describe("docs/gigamap.md's SQL", () => {
  it('runs on the GigaMap storage and answers rows', async () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'gigamap.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## In SQL'), doc.indexOf('\n## ', doc.indexOf('## In SQL') + 1));
    const queries = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().replace(/;$/, ''));
    expect(queries).toHaveLength(2);
    for (const query of queries) expect((await sql(query)).length, query).toBeGreaterThan(0);
  });
});
