import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { FollowStatus } from '../../../src/storage/follow/follow-status.js';
import { StorageFollower, type FollowEvent } from '../../../src/storage/follow/follow.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { loadCases, type RecordedCase } from '../../helpers/corpora/conformance.js';
import { restartServer, startCluster, stopCluster, stopServer, type ClusterInfo } from '../../helpers/real-systems/postgres-cluster.js';
import { adminClient, grantReader, READER_PASSWORD, READER_USER, restoreDump, SQL_CONFORMANCE_DIR, storageTables } from '../../helpers/real-systems/postgres.js';

/**
 * A database that goes away while the inspector serves it (its own cluster, stopped and started
 * again): what is in memory keeps being served, what needs the database fails with a clear
 * STORAGE_UNAVAILABLE, following reports the failure (not ready) and recovers by itself once the
 * database is back. Nothing crashes.
 */
describe('a PostgreSQL storage whose database goes away and comes back', () => {
  const { cases } = loadCases(join(SQL_CONFORMANCE_DIR, 'cases', 'graph.jsonl'));
  const objects = cases.filter((c) => c.kind === 'object' && c.status === 200);
  let cluster: ClusterInfo;
  let storage: Storage;
  let follower: StorageFollower;
  let app: ReturnType<typeof buildApp>;
  const status = new FollowStatus({ following: true, staleAfterMs: 60_000 });
  const events: FollowEvent[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    const admin = await adminClient('postgres', cluster);
    await admin.query(`CREATE ROLE ${READER_USER} LOGIN PASSWORD '${READER_PASSWORD}'`);
    await admin.query('CREATE DATABASE app');
    await admin.end();
    const client = await adminClient('app', cluster);
    await restoreDump(client, 'graph');
    await grantReader(client, 'app', await storageTables(client, 'ms_graph'));
    await client.end();
    const passwordFile = join(cluster.root, 'password');
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    storage = await Storage.open(openStorageSource(`postgres://${READER_USER}@127.0.0.1:${cluster.port}/app#ms_graph`, { passwordFile }));
    follower = new StorageFollower(storage, {
      pollIntervalMs: 50,
      onRefresh: (event) => {
        events.push(event);
        status.record(event);
      },
    });
    app = buildApp(storage, { instance: 'microstream', follow: status, catchUp: () => follower.refreshNow() });
    follower.start();
  });
  afterAll(async () => {
    await follower?.stop();
    await app?.close();
    await storage?.close();
    if (cluster !== undefined) stopCluster(cluster);
  });

  const get = (url: string) => app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:4567' } });
  const answers = async (c: RecordedCase): Promise<boolean> => {
    const response = await get(c.request);
    return response.statusCode === c.status;
  };

  async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('keeps answering from memory, fails what needs the database clearly, and recovers', async () => {
    const cached = objects[0]!;
    expect(await answers(cached)).toBe(true);
    expect((await get('/ready')).statusCode).toBe(200);
    const rootBefore = (await get('/microstream/root')).body;

    stopServer(cluster);
    await until(() => events.some((e) => e.kind === 'failed'), 'a failed refresh');
    const failure = events.find((e) => e.kind === 'failed');
    expect(String((failure as { error: unknown }).error)).toMatch(/STORAGE_UNAVAILABLE|cannot reach the database/);
    expect(String((failure as { error: unknown }).error)).toContain(`127.0.0.1:${cluster.port}/app (table ms_graph)`);

    // From memory: root, dictionary, statistics, and an object whose rows are cached.
    expect((await get('/microstream/root')).body).toBe(rootBefore);
    expect((await get('/microstream/dictionary')).statusCode).toBe(200);
    expect((await get('/microstream/maintenance/filesStatistics')).statusCode).toBe(200);
    expect(await answers(cached)).toBe(true);
    // An object that needs the database: 500 with the reason.
    let unavailable: { statusCode: number; headers: Record<string, unknown> } | undefined;
    for (const c of objects.slice(1)) {
      const response = await get(c.request);
      if (response.statusCode !== 200) {
        unavailable = response;
        break;
      }
    }
    expect(unavailable?.statusCode).toBe(500);
    expect(String(unavailable?.headers['x-storage-inspector-error'])).toMatch(
      /^STORAGE_UNAVAILABLE: postgres:\/\/si_reader@127\.0\.0\.1:\d+\/app \(table ms_graph\): cannot reach the database \(.*(ECONNREFUSED|connect|terminat).*\)/,
    );
    const ready = await get('/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.body).toMatch(/cannot reach the database/);

    restartServer(cluster);
    await until(async () => (await get('/ready')).statusCode === 200, 'ready again');
    for (const c of objects.slice(0, 60)) expect(await answers(c), c.request).toBe(true);
  });

  it('writes nothing while it recovers (the role can only SELECT, and its sessions are read-only)', async () => {
    const client = new pg.Client({ host: cluster.socketDir, port: cluster.port, user: cluster.adminUser, database: 'app' });
    await client.connect();
    try {
      const sessions = await client.query<{ n: string }>("SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = 'storage-inspector' AND datname = 'app'");
      expect(Number(sessions.rows[0]?.n)).toBeGreaterThan(0);
      const writes = await client.query<{ n: string }>(
        "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS n FROM pg_stat_user_tables WHERE relname LIKE 'ms_graph%'",
      );
      // The dump's rows were inserted by the restore; nothing was added since (statistics are per table since the restore).
      const rows = await client.query<{ n: string }>(
        "SELECT (SELECT count(*) FROM ms_graph) + (SELECT count(*) FROM ms_graph_channel_0) + (SELECT count(*) FROM ms_graph_channel_1) AS n",
      );
      expect(Number(writes.rows[0]?.n)).toBe(Number(rows.rows[0]?.n));
    } finally {
      await client.end();
    }
  });
});
