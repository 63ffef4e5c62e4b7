import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { send } from '../../security/server.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/**
 * `versions` of an object stored 100,001 times: paged like every other list (offset, limit,
 * total), reading only the page; and a page past the default is admitted like a big answer of the
 * Java routes, so clients that ask for big pages and do not read them stop at --max-unsent-bytes
 * while `/root` keeps answering.
 */

const STORES = 100_001;
const CAPACITY = 1024 * 1024;

let directory: string;
let objectId: bigint;
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'si-versions-'));
  const writer = StorageWriter.create(directory, { channelCount: 1, fileMaximumSize: 64 * 1024 * 1024 });
  const text = writer.dictionary.require('java.lang.String');
  objectId = writer.newObjectId();
  const store = writer.beginStore();
  for (let i = 0; i < STORES; i++) {
    store.add(text, objectId, [`version ${i}`]);
    // A commit every thousand records (each record its own version either way).
    if (i % 1000 === 999 || i === STORES - 1) {
      if (i === STORES - 1) writer.setRoot(objectId);
      writer.store(store);
      store.clear();
    }
  }
  writer.close();
  registered = await registeredStorage(directory);
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, maxUnsentBytes: CAPACITY, requestTimeoutMs: 3000 });
  port = await listenOnLoopback(app);
  await graphsBuilt(registered.registry);
}, 120_000);

afterAll(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app.close();
  await registered.close();
  rmSync(directory, { recursive: true, force: true });
});

interface VersionList {
  total: number;
  offset: number;
  limit: number;
  versions: { n: number; current: boolean; offset: number }[];
}

describe('versions of an object stored 100,001 times', () => {
  it('are paged: offset, limit (default 100), total', async () => {
    const first = await app.inject(`/api/v1/objects/${objectId}/versions`);
    expect(first.statusCode).toBe(200);
    const page = first.json() as VersionList;
    expect(page).toMatchObject({ total: STORES, offset: 0, limit: 100 });
    expect(page.versions.map((v) => v.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(page.versions[0]!.current).toBe(true);
    expect(page.versions.slice(1).every((v) => !v.current)).toBe(true);
    // Newest first: within the one data file, later records first.
    for (let i = 1; i < page.versions.length; i++) expect(page.versions[i]!.offset).toBeLessThan(page.versions[i - 1]!.offset);
    expect(first.body.length).toBeLessThan(100 * 400);

    const last = (await app.inject(`/api/v1/objects/${objectId}/versions?offset=${STORES - 2}&limit=10`)).json() as VersionList;
    expect(last).toMatchObject({ total: STORES, offset: STORES - 2, limit: 10 });
    expect(last.versions.map((v) => v.n)).toEqual([STORES - 2, STORES - 1]);
    expect((await app.inject(`/api/v1/objects/${objectId}/versions?offset=${STORES}`)).json()).toMatchObject({ total: STORES, versions: [] });
    for (const limit of ['10001', 'Infinity', '0']) expect((await app.inject(`/api/v1/objects/${objectId}/versions?limit=${limit}`)).statusCode, limit).toBe(400);
  });

  it('gives the oldest version and what changed from it, reading only what it needs', async () => {
    const oldest = await app.inject(`/api/v1/objects/${objectId}/versions/${STORES - 1}`);
    expect(oldest.statusCode).toBe(200);
    expect(oldest.json()).toMatchObject({ version: { n: STORES - 1, current: false }, view: { text: 'version 0' }, comparedWith: STORES - 2 });
    expect((await app.inject(`/api/v1/objects/${objectId}/versions/0`)).json()).toMatchObject({ version: { n: 0, current: true }, view: { text: `version ${STORES - 1}` }, comparedWith: null });
    const past = await app.inject(`/api/v1/objects/${objectId}/versions/${STORES}`);
    expect(past.statusCode).toBe(404);
    expect(past.json()).toMatchObject({ detail: `object ${objectId} has ${STORES} versions on disk (0 to ${STORES - 1})` });
  });

  it('big pages wait for room among unsent answers; clients that do not read them hold the budget, /root is answered', { timeout: 60_000 }, async () => {
    const big = `/api/v1/objects/${objectId}/versions?limit=10000`;
    const size = (await app.inject(big)).body.length;
    expect(size).toBeGreaterThan(CAPACITY);
    // Clients that ask for big pages and never read them (three each, pipelined: the kernel's
    // socket buffers take a whole answer or two of a connection, not three).
    for (let i = 0; i < 4; i++) {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${big} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`.repeat(3)));
      socket.pause();
      socket.on('error', () => undefined);
      sockets.push(socket);
    }
    await expect.poll(() => app.unsentAnswers.held, { timeout: 20_000 }).toBeGreaterThanOrEqual(CAPACITY);
    // The rest wait: at most the two building slots' answers beyond the budget.
    expect(app.unsentAnswers.held).toBeLessThan(CAPACITY + 3 * size);
    const refused = await send(port, 'GET', big);
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ title: 'Server Busy', detail: expect.stringContaining('--max-unsent-bytes') });
    // Small answers never wait: the Java routes' and /api/v1's default pages.
    expect((await send(port, 'GET', '/microstream/root')).status).toBe(200);
    expect((await send(port, 'GET', `/api/v1/objects/${objectId}/versions`)).status).toBe(200);
    for (const s of sockets.splice(0)) s.destroy();
    await expect.poll(() => app.unsentAnswers.held, { timeout: 10_000 }).toBe(0);
  });
});
