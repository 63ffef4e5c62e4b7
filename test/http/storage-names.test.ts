import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { storageNameProblem } from '../../src/http/java/named-routes.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * One rule for storage names: every name `serve NAME=DIR` accepts is reachable under
 * `/api/v1/storages/{name}` (and the Java-compatible routes), and every name the API's schema
 * lets through is one `serve` accepts.
 */

const CANDIDATES = ['a', 'shop', 'Shop-2024.v1_b', '0', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), 'w'.repeat(200), '.hidden', '-dash', '_under', 'a b', 'ä', 'a/b', ''];

describe('storage names', () => {
  it('are accepted by serve exactly when the API routes them', async () => {
    const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
    const registry = new StorageRegistry();
    const accepted = CANDIDATES.filter((name) => storageNameProblem(name) === undefined);
    for (const name of accepted) registry.add(name, storage, {}, { instance: 'microstream' });
    const app = buildApp(storage, { instance: 'microstream', api: registry });
    try {
      expect(accepted).toContain('y'.repeat(64));
      expect(storageNameProblem('z'.repeat(65))).toBe('64 characters at most (it is 65)');
      for (const name of CANDIDATES) {
        if (name === '') continue;
        const answer = await app.inject(`/api/v1/storages/${encodeURIComponent(name)}/storage`);
        // Served names answer; any other is refused by the schema (400) or not served (404), never a name serve takes.
        if (accepted.includes(name)) {
          expect(answer.statusCode, name).toBe(200);
          expect((await app.inject(`/microstream/${name}/root`)).statusCode, name).toBe(200);
        } else {
          // (a name past fastify's parameter length matches no route at all: 404)
          expect([400, 404], name).toContain(answer.statusCode);
        }
      }
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
