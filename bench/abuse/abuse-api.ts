/**
 * The /api/v1 scenarios of `npm run bench:abuse` (see abuse.ts), each against `storage-inspector
 * serve` in a child process, with one client asking for /root every 50 ms throughout:
 *
 *   api-limits  8 clients send non-finite and out-of-range numbers to every numeric parameter
 *               (limit=Infinity, 1e309, offset=-Infinity, ...) and ask for the paths of the deepest
 *               object of a 40-level diamond (2^40 shortest paths). Prints the statuses and bytes.
 *   export      N connections (default 200) open the NDJSON export of the largest type of a
 *               generated storage (ABUSE_ENTITIES, default 300,000) and never read; 10 more read
 *               it whole. Prints the readers' times, the server's peak RSS.
 *   versions    N connections (default 100) ask for a 10,000-version page of an object stored
 *               100,001 times and never read. Prints the statuses and the server's peak RSS.
 *
 * Storages are written once into bench/.storages. ABUSE_SECONDS: how long the load lasts (default 15).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STORAGES = join(ROOT, 'bench/.storages');
const SERVER = process.env.ABUSE_SERVER ?? join(ROOT, 'dist/cli/main.js');
const SECONDS = Number(process.env.ABUSE_SECONDS ?? 15);

/** Writes a storage once (into a temporary directory renamed into place when complete), with what the scenario needs to know of it beside it. */
function storage(name: string, write: (directory: string) => Record<string, string>): { directory: string; facts: Record<string, string> } {
  const directory = join(STORAGES, name);
  const factsFile = `${directory}.json`;
  if (!existsSync(directory) || !existsSync(factsFile)) {
    mkdirSync(STORAGES, { recursive: true });
    const partial = `${directory}.partial`;
    rmSync(partial, { recursive: true, force: true });
    rmSync(directory, { recursive: true, force: true });
    const facts = write(partial);
    renameSync(partial, directory);
    writeFileSync(factsFile, JSON.stringify(facts));
  }
  return { directory, facts: JSON.parse(readFileSync(factsFile, 'utf8')) as Record<string, string> };
}

/** Lists referring to lists: each level's two lists both hold the next level's two; the deepest has 2^(levels-1) shortest paths. */
function diamond(levels: number): { directory: string; deepest: string } {
  const { directory, facts } = storage(`diamond-${levels}`, (dir) => {
    const writer = StorageWriter.create(dir, { channelCount: 1 });
    const list = writer.dictionary.require('java.util.ArrayList');
    const store = writer.beginStore();
    let below: bigint[] = [writer.newObjectId(), writer.newObjectId()];
    for (const id of below) store.add(list, id, [BigInt64Array.from([])]);
    const deepest = below[0]!;
    for (let level = 1; level < levels; level++) {
      const above = [writer.newObjectId(), writer.newObjectId()];
      for (const id of above) store.add(list, id, [BigInt64Array.from(below)]);
      below = above;
    }
    const root = writer.newObjectId();
    store.add(list, root, [BigInt64Array.from(below)]);
    writer.setRoot(root);
    writer.store(store);
    writer.close();
    return { deepest: String(deepest) };
  });
  return { directory, deepest: facts['deepest']! };
}

function versions(stores: number): { directory: string; objectId: string } {
  const { directory, facts } = storage(`versions-${stores}`, (dir) => {
    const writer = StorageWriter.create(dir, { channelCount: 1, fileMaximumSize: 64 * 1024 * 1024 });
    const text = writer.dictionary.require('java.lang.String');
    const id = writer.newObjectId();
    const store = writer.beginStore();
    for (let i = 0; i < stores; i++) {
      store.add(text, id, [`version ${i}`]);
      if (i % 1000 === 999 || i === stores - 1) {
        if (i === stores - 1) writer.setRoot(id);
        writer.store(store);
        store.clear();
      }
    }
    writer.close();
    return { objectId: String(id) };
  });
  return { directory, objectId: facts['objectId']! };
}

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
}

async function startServer(directory: string): Promise<Server> {
  const child = spawn(process.execPath, [SERVER, 'serve', directory, '--port', '0', '--quiet', '--no-follow'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /serving .* at http:\/\/[^:]+:(\d+)\//.exec(stderr);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`server exited:\n${stderr}`)));
  });
  // The graph index, before the load.
  for (;;) {
    if ((await get(port, '/api/v1/types?limit=1')).status === 200) break;
    await sleep(200);
  }
  return { child, port };
}

function get(port: number, path: string, agent: Agent | false = false): Promise<{ status: number; ms: number; bytes: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (bytes < 1 << 20) chunks.push(d);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes, body: Buffer.concat(chunks).toString() }));
      res.on('error', () => resolve({ status: 0, ms: performance.now() - started, bytes, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, bytes: 0, body: '' }));
    req.end();
  });
}

function nonReader(port: number, target: string): Socket {
  const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
  socket.pause();
  socket.on('error', () => undefined);
  return socket;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** /root every 50 ms and the server's RSS every 100 ms until `until` resolves. */
async function underLoad(server: Server, until: Promise<unknown>): Promise<string> {
  const pid = server.child.pid!;
  let peak = rssMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  const latencies: number[] = [];
  let failed = 0;
  let done = false;
  void until.finally(() => (done = true));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  while (!done) {
    const r = await get(server.port, '/microstream/root', agent);
    latencies.push(r.ms);
    if (r.status !== 200) failed++;
    await sleep(50);
  }
  agent.destroy();
  clearInterval(sampler);
  return (
    `/root every 50 ms: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
    `max ${Math.max(...latencies).toFixed(1)} ms, failed ${failed}; server peak RSS ${peak.toFixed(0)} MiB`
  );
}

async function apiLimits(): Promise<void> {
  const { directory, deepest } = diamond(40);
  const server = await startServer(directory);
  const bad = ['Infinity', '-Infinity', '1e309', 'NaN', '10001', '1e15'];
  const targets = bad.flatMap((v) => [
    `/api/v1/objects/${deepest}/paths?limit=${v}`,
    `/api/v1/search?q=e&limit=${v}&maxMs=${v}`,
    `/api/v1/objects/${deepest}?limit=${v}`,
    `/api/v1/types?limit=${v}`,
    `/api/v1/analysis?examples=${v}`,
    `/api/v1/types/1000001/instances?offset=-${v}`,
    `/api/v1/objects/${deepest}/referrers?limit=${v}`,
    `/api/v1/objects/${deepest}/versions?limit=${v}`,
  ]);
  const statuses = new Map<string, number>();
  let pathBytes = 0;
  let pathAnswers = 0;
  const end = Date.now() + SECONDS * 1000;
  const load = Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let i = client; Date.now() < end; i++) {
        const target = i % 4 === 0 ? `/api/v1/objects/${deepest}/paths?limit=100` : targets[i % targets.length]!;
        const r = await get(server.port, target);
        const key = `${target.includes('paths?limit=100') ? 'diamond paths?limit=100' : 'non-finite/out-of-range'} → ${r.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (target.includes('paths?limit=100')) {
          pathBytes = Math.max(pathBytes, r.bytes);
          pathAnswers++;
        }
      }
    }),
  );
  const line = await underLoad(server, load);
  server.child.kill('SIGKILL');
  console.log(`api-limits: 8 clients for ${SECONDS} s against a 40-level diamond (2^40 shortest paths to ${deepest})`);
  console.log(`  answers: ${[...statuses].map(([k, n]) => `${k}: ${n}`).join(', ')}; largest paths answer ${pathBytes} bytes (${pathAnswers} answers)`);
  console.log(`  ${line}`);
}

async function ndjsonExport(): Promise<void> {
  const entities = Number(process.env.ABUSE_ENTITIES ?? 300_000);
  const clients = Number(process.env.ABUSE_CLIENTS ?? 200);
  const { directory } = storage(`generated-${entities}`, (dir) => {
    generateStorage({ directory: dir, entities, channelCount: 2, seed: 36 });
    return {};
  });
  const server = await startServer(directory);
  const types = JSON.parse((await get(server.port, '/api/v1/types?sort=bytes&limit=1')).body) as { types: { typeId: string; instances: number }[] };
  const path = `/api/v1/types/${types.types[0]!.typeId}/instances.ndjson`;
  const sockets = Array.from({ length: clients }, () => nonReader(server.port, path));
  await sleep(1000);
  const readers = Promise.all(Array.from({ length: 10 }, () => get(server.port, path)));
  const line = await underLoad(server, sleep(SECONDS * 1000).then(() => readers));
  const read = await readers;
  for (const s of sockets) s.destroy();
  server.child.kill('SIGKILL');
  console.log(`export: ${clients} connections open ${path} (${types.types[0]!.instances} instances of ${entities} entities) and never read; 10 read it whole`);
  console.log(`  readers: ${read.map((r) => `${r.status} ${(r.bytes / 1048576).toFixed(1)} MiB in ${(r.ms / 1000).toFixed(1)} s`).join('; ')}`);
  console.log(`  ${line}`);
}

async function versionPages(): Promise<void> {
  const clients = Number(process.env.ABUSE_CLIENTS ?? 100);
  const { directory, objectId } = versions(100_001);
  const server = await startServer(directory);
  const big = `/api/v1/objects/${objectId}/versions?limit=10000`;
  const sockets = Array.from({ length: clients }, () => nonReader(server.port, big));
  const statuses = new Map<number, number>();
  const end = Date.now() + SECONDS * 1000;
  const others = (async () => {
    while (Date.now() < end) {
      const r = await get(server.port, `/api/v1/objects/${objectId}/versions`);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      await sleep(100);
    }
  })();
  const line = await underLoad(server, others);
  for (const s of sockets) s.destroy();
  server.child.kill('SIGKILL');
  console.log(`versions: ${clients} connections ask for ${big} (of 100,001 versions) and never read, ${SECONDS} s`);
  console.log(`  default pages meanwhile: ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}`);
  console.log(`  ${line}`);
}

export async function runApiScenario(name: string): Promise<boolean> {
  if (name === 'api-limits') await apiLimits();
  else if (name === 'export') await ndjsonExport();
  else if (name === 'versions') await versionPages();
  else return false;
  return true;
}
