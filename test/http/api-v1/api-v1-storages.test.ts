import { join } from 'node:path';
import { expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/** `/api/v1/storages` lists the storages served and those that could not be opened, with why. */
it('lists served and failed storages with their instance paths', async () => {
  const { storage, registry, close } = await registeredStorage(join(CONFORMANCE_DIR, 'storages', 'graph'), 'shop', { instance: 'microstream' });
  registry.addUnavailable({ name: 'bad', instance: 'microstream', reason: 'bad: no storage in this directory' });
  const app = buildApp(storage, { instance: 'microstream', api: registry });
  try {
    const response = await app.inject({ url: '/api/v1/storages' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      storages: [
        { name: 'shop', state: 'served', instance: 'microstream/shop' },
        { name: 'bad', state: 'failed', instance: 'microstream/bad', reason: 'bad: no storage in this directory' },
      ],
    });
    const document = (await app.inject({ url: '/api/v1/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/api/v1/storages');
  } finally {
    await app.close();
    await close();
  }
});
