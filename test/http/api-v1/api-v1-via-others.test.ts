import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { ModelStorage } from '../../graph/model-storage.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * `via.others` of `/api/v1/objects/{oid}/referrers`: a referrer that holds the same reference in
 * several places names the first as `via` and every further one in `others`, in storage order, on
 * a storage the writer built with such referrers (a list holding the target three times, a map
 * holding it as key and as value, a node holding it once).
 */

let directory: string;
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;
const ids: Record<string, bigint> = {};

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'si-via-others-'));
  const model = ModelStorage.create(directory, 1);
  const target = model.putNode({ name: 'target' });
  const other = model.putNode({ name: 'other' });
  ids['target'] = target;
  ids['list'] = model.putList([target, other, target, target]);
  ids['map'] = model.putMap([
    [other, target],
    [target, other],
  ]);
  ids['node'] = model.putNode({ name: 'holder', next: target, children: ids['list'] });
  model.setRoot(model.putList([ids['node'], ids['map']]));
  model.commit();
  model.close();
  registered = await registeredStorage(directory);
  await graphsBuilt(registered.registry);
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
});
afterAll(async () => {
  await app?.close();
  await registered?.close();
  rmSync(directory, { recursive: true, force: true });
});

interface Referrer {
  objectId: string;
  via: { text: string; others?: string[] } | null;
}

describe('via.others', () => {
  it('lists every further place a referrer holds the reference, and none where it holds it once', async () => {
    const answer = (await app.inject({ url: `/api/v1/objects/${ids['target']}/referrers` })).json() as { total: number; referrers: Referrer[] };
    const by = new Map(answer.referrers.map((r) => [r.objectId, r.via]));
    expect(answer.total).toBe(3);
    expect(by.get(String(ids['list']))).toMatchObject({ text: 'elements[0]', others: ['elements[2]', 'elements[3]'] });
    // The map's entries in storage order: the target as the first entry's value, then as the second's key.
    expect(by.get(String(ids['map']))).toMatchObject({ text: 'elements[0].value', others: ['elements[1].key'] });
    expect(by.get(String(ids['node']))).toEqual(expect.objectContaining({ text: 'next' }));
    expect(by.get(String(ids['node']))?.others).toBeUndefined();
  });
});
