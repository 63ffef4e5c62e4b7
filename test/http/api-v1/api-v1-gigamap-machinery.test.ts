import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { GIGAMAP_STORAGE } from '../../gigamap/gigamap-corpus.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * `/api/v1/types` marks a GigaMap's machinery apart from the user's entities, on the storage
 * EclipseStore 4.1.0 wrote: the GigaMap module's own types as a whole, and of `Lazy$Default`
 * exactly the references the levels hold (checked against the stored references, by SQL).
 */

const PACKAGE = 'org.eclipse.store.gigamap.types.';
const LAZY = 'org.eclipse.serializer.reference.Lazy$Default';

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

interface TypeRow {
  typeName: string;
  instances: number;
  gigaMapMachinery?: number;
}

describe('GigaMap machinery in /api/v1/types', () => {
  it('counts the module types whole, the levels’ Lazy references of Lazy$Default, and none of the entities', async () => {
    const types = (await app.inject({ url: '/api/v1/types?limit=10000' })).json().types as TypeRow[];
    const withInstances = types.filter((t) => t.instances > 0);
    const module = withInstances.filter((t) => t.typeName.startsWith(PACKAGE));
    expect(module.map((t) => t.typeName)).toEqual(expect.arrayContaining([`${PACKAGE}GigaMap$Default`, `${PACKAGE}GigaLevel1`, `${PACKAGE}BitmapLevel2`]));
    for (const t of module) expect(t.gigaMapMachinery, t.typeName).toBe(t.instances);

    const sql = `SELECT count(DISTINCT r.to_oid) AS n FROM _references r JOIN _objects f ON f.oid = r.from_oid JOIN _objects t ON t.oid = r.to_oid
      WHERE f.type_name IN ('${PACKAGE}GigaLevel3', '${PACKAGE}GigaLevel2') AND t.type_name = '${LAZY}'`;
    const answer = (await app.inject({ method: 'POST', url: '/api/v1/sql', payload: { sql } })).json() as { rows: number[][] };
    const levelLazies = Number(answer.rows[0]![0]);
    expect(levelLazies).toBeGreaterThan(0);
    const lazy = withInstances.find((t) => t.typeName === LAZY)!;
    expect(lazy.gigaMapMachinery).toBe(levelLazies);

    const others = withInstances.filter((t) => !t.typeName.startsWith(PACKAGE) && t.typeName !== LAZY);
    expect(others.map((t) => t.typeName)).toContain('conformance.gigamap.Person');
    for (const t of others) expect(t.gigaMapMachinery, t.typeName).toBeUndefined();
  });
});
