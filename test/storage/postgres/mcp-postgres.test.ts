import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageRegistry } from '../../../src/registry/storage-registry.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, readerUrl } from '../../helpers/real-systems/postgres.js';
import { stdioClient } from '../../mcp/stdio-client.js';

/**
 * `storage-inspector mcp` on a storage kept in PostgreSQL (the URL, --table and a password file,
 * as `serve` takes them), spawned as an assistant would: objects answer as from the directory the
 * tables were made of, and `check_storage` checks the tables.
 */
describe('mcp on a storage kept in PostgreSQL', () => {
  let database: string;
  let passwordFile: string;

  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'mcp');
    passwordFile = join(postgresInfo().root, `mcp-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await dropDatabase(database);
  });

  it('answers as the directory does, and checks the tables', async () => {
    const { client } = await stdioClient([readerUrl(database), '--table', 'ms_graph', '--pg-password-file', passwordFile]);
    const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
    const registry = new StorageRegistry();
    registry.add('default', storage);
    const app = buildApp(storage, { instance: 'microstream', api: registry });
    try {
      registry.startAll();
      await registry.get('default')!.graph.ready();
      // The MCP server waits for the dominator tree before it answers (an object's retained size): so does this side.
      await registry.get('default')!.graph.dominators.ready();
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
      const overview = await call('storage_overview', {});
      const root = (overview.structuredContent as { storage: { rootObjectId: string; entities: number } }).storage;
      expect(root.entities).toBe(1263);
      const view = await call('describe_object', { objectId: root.rootObjectId, limit: 5 });
      expect(view.structuredContent).toEqual((await app.inject({ url: `/api/v1/objects/${root.rootObjectId}?offset=0&limit=5` })).json());
      const paths = await call('paths_from_root', { objectId: '1000000000000000568' });
      expect(paths.structuredContent).toEqual((await app.inject({ url: '/api/v1/objects/1000000000000000568/paths?limit=3' })).json());
      const check = await call('check_storage', {});
      expect(check.isError, JSON.stringify(check.content)).toBeFalsy();
      expect(check.structuredContent).toMatchObject({ kind: 'postgresql', javaStarts: true });
    } finally {
      await client.close();
      await app.close();
      await registry.close();
      await storage.close();
    }
  }, 60_000);
});
