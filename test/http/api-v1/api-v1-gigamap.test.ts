import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { readGigaMap } from '../../../src/gigamap/gigamap-structure.js';
import { BITMAP_LEVEL2 } from '../../../src/gigamap/gigamap-type-names.js';
import { bytesMember, readRecord } from '../../../src/gigamap/record-fields.js';
import { damagedCopy, long, placeOf, removeCopies } from '../../gigamap/damaged-copy.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from '../../gigamap/gigamap-corpus.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The GigaMap routes of /api/v1 on the storage EclipseStore 4.1.0 wrote, against what its own
 * GigaMap API reported: the object view lands on the entities, the indices list their keys
 * with counts, a key lists its entities; limits are checked.
 */

const dump = loadApiDump();
const persons = dump.find((m) => m.label === 'persons')!;
const tags = dump.find((m) => m.label === 'tags')!;

let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  registered = await registeredStorage(GIGAMAP_STORAGE, 'gigamap');
  app = buildApp(registered.storage, { instance: 'store-data', api: registered.registry });
  await graphsBuilt(registered.registry);
});
afterAll(async () => {
  await app.close();
  await registered.close();
});

async function get(url: string) {
  const response = await app.inject({ url });
  return { status: response.statusCode, type: response.headers['content-type'], body: response.json() as Record<string, any> };
}

describe('a GigaMap in /api/v1/objects/{oid}', () => {
  it('shows its size and a page of its entities in entity-id order, the raw members still there', async () => {
    const { status, body } = await get(`/api/v1/objects/${persons.objectId}?offset=4900&limit=100`);
    expect(status).toBe(200);
    expect(body.typeName).toBe('org.eclipse.store.gigamap.types.GigaMap$Default');
    expect(body.members.map((m: { name: string }) => m.name)).toContain('level3');
    const g = body.gigamap;
    expect(g).toMatchObject({ size: '4919', listed: 4919, damaged: false, problems: [], offset: 4900, limit: 100 });
    expect(g.entities.map((e: { entityId: number; objectId: string }) => [e.entityId, e.objectId])).toEqual(persons.entities.slice(4900).map((e) => [e.entityId, e.objectId]));
    const last = persons.entities.at(-1)!;
    expect(g.entities.at(-1).typeName).toBe('conformance.gigamap.Person');
    expect(g.entities.at(-1).summary).toContain(`city=${last.city}`);
    expect(g.entities.at(-1).summary).toContain(`id=${last.id}`);
    expect(g.indices.map((i: { name: string }) => i.name).sort()).toEqual(['birthday', 'city', 'id']);
  });

  it('other objects have no gigamap part', async () => {
    const { body } = await get(`/api/v1/objects/${persons.entities[0]!.objectId}`);
    expect(body.gigamap).toBeUndefined();
  });
});

describe('/api/v1/objects/{oid}/gigamap…', () => {
  it('describes the map and every index: kind, unique, keys, entities', async () => {
    const { status, body } = await get(`/api/v1/objects/${persons.objectId}/gigamap`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ size: '4919', listed: 4919, damaged: false, level1Segments: 20, level2Segments: 1 });
    const byName = Object.fromEntries(body.indices.map((i: { name: string }) => [i.name, i]));
    expect(byName.id).toMatchObject({ kind: 'binary', unique: true, keys: 4919, entities: 4919, strayEntityIds: [] });
    expect(byName.city).toMatchObject({ kind: 'hashing', unique: false, keys: expectedKeys(persons, 'city').size, entities: 4919 });
    expect(byName.birthday).toMatchObject({ kind: 'composite', keys: expectedKeys(persons, 'birthday').size });
    expect(byName.birthday.parts).toHaveLength(3);
    expect(byName.city.bitmapBytes).toBeGreaterThan(0);
  });

  it('pages the entities like any big collection', async () => {
    const { body } = await get(`/api/v1/objects/${tags.objectId}/gigamap/entities?offset=5&limit=3`);
    expect(body.entities.map((e: { entityId: number }) => e.entityId)).toEqual(tags.entities.slice(5, 8).map((e) => e.entityId));
    expect(body.entities[0].summary).toMatch(/^Tag\{label=.*, weight=\d+\}$/);
  });

  it('finds an entity by its entity id; a removed one is not there', async () => {
    const first = await get(`/api/v1/objects/${persons.objectId}/gigamap/entities/0`);
    expect(first.body.objectId).toBe(persons.entities[0]!.objectId);
    const removed = persons.entities.findIndex((e, i) => e.entityId !== i);
    expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/entities/${removed}`)).status).toBe(404);
  });

  it('lists an index’s keys with their counts, by key or by count', async () => {
    const want = expectedKeys(persons, 'city');
    const byKey = await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/keys`);
    expect(byKey.body.total).toBe(want.size);
    expect(byKey.body.keys).toEqual([...want].map(([key, ids]) => ({ key, count: ids.length })).sort((a, b) => (a.key < b.key ? -1 : 1)));
    const byCount = await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/keys?order=count&limit=2`);
    const counts = [...want.values()].map((ids) => ids.length).sort((a, b) => b - a);
    expect(byCount.body.keys.map((k: { count: number }) => k.count)).toEqual(counts.slice(0, 2));
  });

  it("lists a key's entities from its bitmap, paged", async () => {
    const want = expectedKeys(persons, 'city').get('Graz')!;
    const page = await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/entities?key=Graz&offset=10&limit=50`);
    expect(page.body.total).toBe(want.length);
    expect(page.body.entities.map((e: { entityId: number }) => e.entityId)).toEqual(want.slice(10, 60));
    const composite = await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/birthday/entities?key=${encodeURIComponent('[null]')}&limit=10000`);
    expect(composite.body.entities.map((e: { entityId: number }) => e.entityId)).toEqual(expectedKeys(persons, 'birthday').get('[null]'));
  });

  it('answers 404 for what is not a GigaMap, an index or a key, 400 for limits out of bounds (non-finite numbers too)', async () => {
    const notMap = await get(`/api/v1/objects/${persons.entities[0]!.objectId}/gigamap`);
    expect(notMap.status).toBe(404);
    expect(notMap.type).toMatch(/problem\+json/);
    expect(notMap.body.detail).toMatch(/not a GigaMap/);
    expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/nope/keys`)).status).toBe(404);
    expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/entities?key=Atlantis`)).status).toBe(404);
    for (const query of ['limit=Infinity', 'limit=NaN', 'offset=-Infinity', 'limit=1e999', 'limit=0', 'limit=10001', 'offset=1.5']) {
      expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/entities?${query}`)).status, query).toBe(400);
      expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/keys?${query}`)).status, query).toBe(400);
    }
    expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/entities/Infinity`)).status).toBe(400);
    expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/keys?order=random`)).status).toBe(400);
    expect((await get(`/api/v1/objects/${persons.objectId}/gigamap/indices/city/entities`)).status).toBe(400);
  });

  it('is in the OpenAPI document, for the default and named storages', async () => {
    const { body } = await get('/api/v1/openapi.json');
    for (const path of ['/objects/{oid}/gigamap', '/objects/{oid}/gigamap/entities', '/objects/{oid}/gigamap/entities/{entityId}', '/objects/{oid}/gigamap/indices/{index}/keys', '/objects/{oid}/gigamap/indices/{index}/entities']) {
      expect(Object.keys(body.paths)).toContain(`/api/v1${path}`);
      expect(Object.keys(body.paths)).toContain(`/api/v1/storages/{storage}${path}`);
    }
    expect(body.tags.map((t: { name: string }) => t.name)).toContain('gigamap');
  });
});

describe('an unreadable GigaMap', () => {
  afterAll(removeCopies);

  it('with an index that cannot be read: every route answers 200 saying so in damaged and problems, files named relative to the storage', async () => {
    // The first bitmap segment of the persons map's indices gets a type EclipseStore never writes.
    const dir = await damagedCopy(async (s) => {
      const map = await readGigaMap(s, BigInt(persons.objectId));
      const segments: bigint[] = [];
      for (const channel of s.channels) channel.objects.forEach((low, high) => void segments.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
      for (const id of segments.sort((a, b) => (a < b ? -1 : 1))) {
        const record = await readRecord(s, id);
        if (record?.typeName !== BITMAP_LEVEL2) continue;
        // (The first segment by object id in the corpus is one of the persons map's.)
        const { fileOffset } = bytesMember(record, 'data');
        return [{ file: record.file, offset: fileOffset + 4, bytes: Buffer.from([9]) }];
      }
      throw new Error(`no bitmap segment in the GigaMap ${map.objectId}`);
    });
    const damaged = await registeredStorage(dir, 'damaged');
    await graphsBuilt(damaged.registry);
    const damagedApp = buildApp(damaged.storage, { instance: 'store-data', api: damaged.registry });
    const answer = async (url: string) => {
      const response = await damagedApp.inject({ url });
      expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(200);
      expect(response.body).not.toContain(dir);
      return response.json() as { damaged: boolean; problems: string[]; gigamap?: { damaged: boolean; problems: string[] }; indices?: { name: string; keys: number; problem?: string }[] };
    };
    try {
      const info = await answer(`/api/v1/objects/${persons.objectId}/gigamap`);
      expect(info.damaged).toBe(true);
      expect(info.problems).toHaveLength(1);
      const [, index] = /^index (\w+) cannot be read: channel_\d\/channel_\d_\d+\.dat at offset \d+: bitmap segment of type 9 \(only type 2 is stored by EclipseStore\)$/.exec(info.problems[0]!) ?? [];
      expect(index, info.problems[0]).toBeDefined();
      const broken = info.indices!.find((i) => i.name === index)!;
      expect(broken).toMatchObject({ keys: 0, problem: expect.stringContaining('bitmap segment of type 9') });
      expect(info.indices!.filter((i) => i.problem !== undefined)).toHaveLength(1);
      // The same damage wherever the map is shown.
      const entities = await answer(`/api/v1/objects/${persons.objectId}/gigamap/entities?limit=5`);
      expect({ damaged: entities.damaged, problems: entities.problems }).toEqual({ damaged: true, problems: info.problems });
      const view = await answer(`/api/v1/objects/${persons.objectId}`);
      expect({ damaged: view.gigamap!.damaged, problems: view.gigamap!.problems }).toEqual({ damaged: true, problems: info.problems });
      // Its keys cannot be listed: a 500 naming the place, relative to the storage as well.
      const keys = await damagedApp.inject({ url: `/api/v1/objects/${persons.objectId}/gigamap/indices/${index}/keys` });
      expect(keys.statusCode).toBe(500);
      expect(keys.json()).toMatchObject({ title: 'Unreadable GigaMap Index', detail: info.problems[0]!.replace(`index ${index} cannot be read: `, '') });
      // The other map is intact.
      expect((await answer(`/api/v1/objects/${tags.objectId}/gigamap`)).damaged).toBe(false);
    } finally {
      await damagedApp.close();
      await damaged.close();
    }
  });

  it('still shows its raw members in the object view, with the problem; the GigaMap routes answer 500 naming it', async () => {
    // The level3 reference points at a Person: the segments cannot be walked.
    const dir = await damagedCopy(async (s) => [{ ...(await placeOf(s, BigInt(persons.objectId), 'level3')), bytes: long(BigInt(persons.entities[0]!.objectId)) }]);
    const damaged = await registeredStorage(dir, 'damaged');
    await graphsBuilt(damaged.registry);
    const damagedApp = buildApp(damaged.storage, { instance: 'store-data', api: damaged.registry });
    try {
      const view = await damagedApp.inject({ url: `/api/v1/objects/${persons.objectId}` });
      expect(view.statusCode).toBe(200);
      const body = view.json() as { members: { name: string }[]; gigamap: { size: null; damaged: boolean; problems: string[] } };
      expect(body.members.map((m) => m.name)).toContain('level3');
      expect(body.gigamap).toMatchObject({ size: null, damaged: true });
      expect(body.gigamap.problems[0]).toMatch(/GigaLevel3 \d+ is a conformance\.gigamap\.Person/);
      const info = await damagedApp.inject({ url: `/api/v1/objects/${persons.objectId}/gigamap` });
      expect(info.statusCode).toBe(500);
      expect(info.json().detail).toMatch(/is a conformance\.gigamap\.Person, not org\.eclipse\.store\.gigamap\.types\.GigaLevel3/);
      // The other GigaMap is served as before.
      expect((await damagedApp.inject({ url: `/api/v1/objects/${tags.objectId}/gigamap` })).statusCode).toBe(200);
    } finally {
      await damagedApp.close();
      await damaged.close();
    }
  });
});
