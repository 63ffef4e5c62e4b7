import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build/graph-build.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { adminClient, cloneStorageDatabase, dropDatabase, postgresInfo, readerEnv, readerUrl } from '../../helpers/real-systems/postgres.js';
import { spawnCli, type ServeProcess } from '../../security/cli.js';

/** A source of the reader role (its password from the password file, as the CLI finds it). */
function readerSource(database: string): ReturnType<typeof openStorageSource> {
  process.env['PGPASSFILE'] = postgresInfo().passwordFile;
  return openStorageSource(readerUrl(database), { table: 'ms_graph' });
}

/**
 * Serving a storage kept in PostgreSQL while following it, from start to a normal SIGTERM: no
 * warning of node-postgres (a query sent while another runs on the same client), and the end
 * of the process is not reported as a failure of the graph index.
 */
describe('serve and follow a storage kept in PostgreSQL, then SIGTERM', () => {
  let database: string;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'quiet');
  });
  afterAll(async () => {
    for (const p of running) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exit));
    await dropDatabase(database);
  });

  it('prints no DeprecationWarning and no "graph index failed", in several runs', async () => {
    for (let run = 0; run < 3; run++) {
      const p = spawnCli(['serve', readerUrl(database), '--table', 'ms_graph', '--port', '0', '--quiet', '--poll-interval', '10'], {
        ...(readerEnv() as Record<string, string>),
        NODE_OPTIONS: '--trace-deprecation',
      });
      running.push(p);
      const port = await p.port;
      // Requests while the graph index is built and the follower looks.
      const paths = ['/microstream/root', '/microstream/object/1000000000000000028', '/api/v1/storage', '/microstream/maintenance/filesStatistics'];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => fetch(`http://127.0.0.1:${port}${paths[i % paths.length]}`)));
      for (const answer of answers) expect(answer.status).toBeLessThan(500);
      if (run > 0) await p.waitForStderr(/graph index ready/);
      p.child.kill('SIGTERM');
      expect((await p.exit).code, p.stderr()).toBe(0);
      expect(p.stderr()).not.toMatch(/DeprecationWarning|deprecat/i);
      expect(p.stderr()).not.toMatch(/graph index failed/);
    }
  });
});

describe('reads of a storage kept in PostgreSQL', () => {
  let database: string;
  beforeAll(async () => {
    database = await cloneStorageDatabase('graph', 'reads');
  });
  afterAll(async () => {
    await dropDatabase(database);
  });

  it('one snapshot answers many reads at once without node-postgres queueing them (no DeprecationWarning)', async () => {
    const warnings: string[] = [];
    const listen = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', listen);
    const source = readerSource(database);
    try {
      await source.snapshot(async (reader) => {
        const root = await reader.listRoot();
        const files = (await Promise.all(root.folders.map((folder) => reader.listFolder(folder)))).flat().filter((f) => f.name.endsWith('.dat'));
        expect(files.length).toBeGreaterThan(4);
        const streamed = async (path: string): Promise<number> => {
          let n = 0;
          for await (const chunk of reader.chunks(path, 0, 100)) n += chunk.length;
          return n;
        };
        const sizes = await Promise.all([
          ...files.slice(0, 4).map((f) => reader.read(f.path, 0, 16).then((b) => b.length)),
          ...files.slice(0, 4).map((f) => streamed(f.path)),
          ...files.slice(0, 2).map((f) => reader.readWhole(f.path).then((b) => b.length)),
        ]);
        expect(sizes.slice(0, 4)).toEqual([16, 16, 16, 16]);
        expect(sizes.slice(4, 8).every((n) => n === 100)).toBe(true);
      });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
      await source.close();
    }
    expect(warnings.filter((w) => /DeprecationWarning/.test(w))).toEqual([]);
  });

  it('the graph index is built over a connection of its own', async () => {
    const storage = await Storage.open(readerSource(database));
    try {
      const { graph } = await buildGraph(storage, {});
      expect(graph.nodeCount).toBeGreaterThan(1000);
      const admin = await adminClient('postgres');
      try {
        const result = await admin.query<{ name: string }>('SELECT application_name AS name FROM pg_stat_activity WHERE datname = $1', [database]);
        const names = result.rows.map((r) => r.name);
        expect(names).toContain('storage-inspector (graph index)');
      } finally {
        await admin.end();
      }
    } finally {
      await storage.close();
    }
  });
});
