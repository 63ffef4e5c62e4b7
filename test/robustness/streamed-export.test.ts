import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_BATCH_BYTES } from '../../src/http/api-v1/objects/ndjson-export.js';
import { buildApp } from '../../src/http/app.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { rawRequest } from '../helpers/serving/raw-http.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';

/**
 * The NDJSON export (`/api/v1/types/{id}/instances.ndjson`) of a generated storage shares the
 * process: clients that open it and do not read stop it after a batch or so (back-pressure), its
 * unsent bytes count against --max-unsent-bytes, and other requests are answered while it
 * streams, before it ends (it yields between batches).
 */

const CAPACITY = 1024 * 1024;
const NON_READERS = 6;

let directory: string;
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;
let port: number;
let exportPath: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'si-export-'));
  generateStorage({ directory, entities: 150_000, channelCount: 2, seed: 36, fileMaximumSize: 4 * 1024 * 1024 });
  registered = await registeredStorage(directory);
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, maxUnsentBytes: CAPACITY });
  port = await listenOnLoopback(app);
  await graphsBuilt(registered.registry);
  const types = (await app.inject('/api/v1/types?sort=bytes&limit=1')).json() as { types: { typeId: string; instances: number }[] };
  expect(types.types[0]!.instances).toBeGreaterThan(1000);
  exportPath = `/api/v1/types/${types.types[0]!.typeId}/instances.ndjson`;
}, 180_000);

afterAll(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app.close();
  await registered.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A connection that asks for the export and never reads. */
function nonReader(): Socket {
  const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${exportPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
  socket.pause();
  socket.on('error', () => undefined);
  sockets.push(socket);
  return socket;
}

describe('the NDJSON export', () => {
  it('is stopped by clients that do not read, counted against --max-unsent-bytes, while /root keeps answering', { timeout: 120_000 }, async () => {
    const total = (await app.inject(exportPath)).body.length;
    // Far more than the kernel's socket buffers take for a client that does not read.
    expect(total).toBeGreaterThan(8 * 1024 * 1024);
    // The server's side of each connection: an export held back by its client waits for 'drain'.
    const served: Socket[] = [];
    const track = (socket: Socket): void => void served.push(socket);
    app.server.on('connection', track);
    for (let i = 0; i < NON_READERS; i++) nonReader();
    await expect.poll(() => app.unsentAnswers.held, { timeout: 20_000 }).toBeGreaterThan(0);
    // Every export stopped by its client: its socket's buffer is full and waits to drain.
    await expect.poll(() => served.filter((s) => s.writableNeedDrain).length, { timeout: 60_000, interval: 100 }).toBe(NON_READERS);
    app.server.off('connection', track);
    const heldWhenStopped = app.unsentAnswers.held;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 10; i++) {
        const root = await rawRequest(agent, port, 'GET', '/microstream/root', { Host: `127.0.0.1:${port}` });
        expect(root.status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
    // Stopped exports make no progress while other requests are answered, beyond the batch each may
    // have been writing when its socket filled (on a busy machine it is finished after that moment).
    expect(app.unsentAnswers.held).toBeGreaterThanOrEqual(heldWhenStopped);
    expect(app.unsentAnswers.held - heldWhenStopped).toBeLessThanOrEqual(NON_READERS * (EXPORT_BATCH_BYTES + 64 * 1024));
    expect(served.filter((s) => s.writableNeedDrain).length).toBe(NON_READERS);
    // Each export holds at most what is buffered ahead of its client and one batch (its line may pass the bound).
    expect(app.unsentAnswers.held).toBeLessThan(NON_READERS * (3 * EXPORT_BATCH_BYTES + 64 * 1024));
    expect(app.connections.stats.inFlight).toBe(NON_READERS);
    // When they go, their bytes are released.
    for (const s of sockets.splice(0)) s.destroy();
    await expect.poll(() => app.unsentAnswers.held, { timeout: 10_000 }).toBe(0);
  });

  it('answers other requests between its batches, before it ends', { timeout: 120_000 }, async () => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${exportPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    sockets.push(socket);
    let received = 0;
    let ended = false;
    const events: string[] = [];
    const end = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (d: Buffer) => (received += d.length));
    socket.on('end', () => {
      ended = true;
      events.push('export ended');
    });
    await expect.poll(() => received, { timeout: 20_000 }).toBeGreaterThan(0);
    // Ten /root requests one after the other while the export streams to a client that reads.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let rootsDuringExport = 0;
    try {
      for (let i = 0; i < 10; i++) {
        const root = await rawRequest(agent, port, 'GET', '/microstream/root', { Host: `127.0.0.1:${port}` });
        expect(root.status).toBe(200);
        if (!ended) rootsDuringExport++;
      }
    } finally {
      agent.destroy();
    }
    events.push('roots answered');
    await end;
    expect(events).toEqual(['roots answered', 'export ended']);
    expect(rootsDuringExport).toBe(10);
  });
});
