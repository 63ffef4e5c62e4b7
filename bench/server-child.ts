/**
 * Benchmark child: opens a storage, reports open time and memory, then serves it on loopback.
 * Prints one JSON line on stdout once listening; runs until killed.
 * Usage: server-child.ts <dir> [--follow] [--ceiling]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// The built code (dist/, as `npm start` and `npx storage-inspector` run it) unless BENCH_SOURCE=1:
// under tsx the worker thread that indexes channels would compile TypeScript first.
const from = process.env.BENCH_SOURCE === '1' ? '../src' : '../dist';
const { buildApp } = (await import(`${from}/http/app.js`)) as typeof import('../src/http/app.js');
const { StorageFollower } = (await import(`${from}/storage/follow.js`)) as typeof import('../src/storage/follow.js');
const { Storage } = (await import(`${from}/storage/storage.js`)) as typeof import('../src/storage/storage.js');

const [dir = '', ...flags] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 20));
  }
}

if (flags.includes('--ceiling')) {
  // The Node ceiling: a plain node:http server answering a fixed small JSON body.
  const body = Buffer.from('{"name":"ROOT","objectId":"1000000000000000028"}');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
} else {
  await settle();
  const before = process.memoryUsage();
  const started = performance.now();
  const storage = await Storage.open(dir);
  const openMs = performance.now() - started;
  await settle();
  const after = process.memoryUsage();
  const entities = storage.entityCount;
  // A sample of existing object ids for the load generator (reservoir over the index).
  const sample: string[] = [];
  let seen = 0;
  let seed = 12345;
  for (const channel of storage.channels) {
    channel.objects.forEach((low, high) => {
      seen++;
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const id = ((BigInt(high) << 32n) | BigInt(low)).toString();
      if (sample.length < 20000) sample.push(id);
      else if (seed % seen < 20000) sample[seed % 20000] = id;
    });
  }
  const follower = flags.includes('--follow') ? new StorageFollower(storage, { pollIntervalMs: 100 }) : undefined;
  const app = buildApp(storage, { instance: 'microstream', ...(follower === undefined ? {} : { catchUp: () => follower.refreshNow() }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  follower?.start();
  process.stdout.write(
    `${JSON.stringify({
      port: (app.server.address() as AddressInfo).port,
      openMs,
      entities,
      files: storage.channels.reduce((n, c) => n + c.files.length, 0),
      rssPerEntity: (after.rss - before.rss) / entities,
      heapPerEntity: (after.heapUsed - before.heapUsed) / entities,
      indexBytesPerEntity: storage.channels.reduce((n, c) => n + c.objects.byteSize, 0) / entities,
      externalPerEntity: (after.external - before.external) / entities,
      rootObjectId: storage.rootObjectId.toString(),
      sample,
    })}\n`,
  );
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
