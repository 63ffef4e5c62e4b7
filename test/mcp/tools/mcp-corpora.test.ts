import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpClient } from '../../helpers/serving/mcp-client.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * Every vendored storage of every generation (MicroStream 4.1, 8.1, EclipseStore 4.1), through the
 * SDK's client in this process: the tools' structured content is the /api/v1 answer, and where the
 * API answers a problem (a storage without a root) the tool answers an error with its detail.
 */

const FIXTURES = join(CONFORMANCE_DIR, '..');
const CORPORA = ['conformance', 'conformance-ms8', 'conformance-es'].flatMap((corpus) =>
  readdirSync(join(FIXTURES, corpus, 'storages')).map((name) => ({ corpus, name, dir: join(FIXTURES, corpus, 'storages', name) })),
);

interface Types {
  types: { typeId: string; typeName: string; instances: number; current: boolean }[];
}

describe.each(CORPORA)('$corpus/$name', ({ dir }) => {
  it('answers every tool as /api/v1 does', async () => {
    const { storage, registry, close } = await registeredStorage(dir);
    registry.startAll();
    const app = buildApp(storage, { instance: 'microstream', api: registry });
    const mcp = await mcpClient(registry);
    const call = mcp.call;
    /** The tool against its API answer: equal content, or the API's problem as a tool error. */
    const same = async (name: string, args: Record<string, unknown>, url: string) => {
      const result = await call(name, args);
      const response = await app.inject({ url: `/api/v1${url}` });
      if (response.statusCode === 200) {
        expect(result.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`).toBeFalsy();
        expect(result.structuredContent, `${name} ${JSON.stringify(args)}`).toEqual(response.json());
      } else {
        expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        expect((result.content[0] as { text: string }).text).toContain((response.json() as { detail: string }).detail);
      }
      return result;
    };
    try {
      await registry.get('default')!.graph.ready();
      const info = (await app.inject({ url: '/api/v1/storage' })).json() as { rootObjectId: string };
      await same('list_types', { sort: 'bytes', limit: 50 }, '/types?sort=bytes&offset=0&limit=50');
      await same('describe_object', { objectId: info.rootObjectId, limit: 5 }, `/objects/${info.rootObjectId}?offset=0&limit=5`);
      await same('referrers', { objectId: info.rootObjectId }, `/objects/${info.rootObjectId}/referrers?offset=0&limit=20`);
      await same('paths_from_root', { objectId: info.rootObjectId }, `/objects/${info.rootObjectId}/paths?limit=3`);
      await same('object_versions', { objectId: info.rootObjectId }, `/objects/${info.rootObjectId}/versions?offset=0&limit=20`);
      await same('analyze_storage', {}, '/analysis?examples=10&referrers=3');
      // Every type with instances: its instances, its dictionary rows, one instance described.
      const types = (await app.inject({ url: '/api/v1/types?limit=10000' })).json() as Types;
      for (const type of types.types.filter((t) => t.instances > 0).slice(0, 40)) {
        const listed = await same('list_instances', { type: type.typeId, limit: 3 }, `/types/${type.typeId}/instances?offset=0&limit=3`);
        const first = (listed.structuredContent as { objectIds: string[] }).objectIds[0]!;
        await same('describe_object', { objectId: first, limit: 3 }, `/objects/${first}?offset=0&limit=3`);
        const dictionary = await call('type_dictionary', { type: type.typeName });
        expect(dictionary.isError, type.typeName).toBeFalsy();
        const rows = (dictionary.structuredContent as { types: { typeName: string }[] }).types;
        expect(rows).toEqual(types.types.filter((t) => t.typeName === type.typeName));
      }
    } finally {
      await mcp.close();
      await app.close();
      await close();
    }
  }, 60_000);
});
