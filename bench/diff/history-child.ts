/**
 * The history routes on one storage (a child process of diff-bench.ts): the first
 * `GET /api/v1/commits` (it reads every commit's bytes once for the state), then the first page
 * and the newest commit's first page of objects asked again and again; prints one JSON line with
 * the first answer's time and the later ones' median and 99th percentile. The graph index is not
 * built: member changes are left out of a commit's objects, as while it is being built.
 */
import { buildApp } from '../../src/http/app.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';

const ASKED = 200;
const [dir] = process.argv.slice(2) as [string];
const storage = await Storage.open(dir);
const registry = new StorageRegistry();
registry.add('default', storage);
const app = buildApp(storage, { instance: 'microstream', api: registry });
const time = async (url: string): Promise<{ ms: number; body: string }> => {
  const started = performance.now();
  const response = await app.inject({ url });
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
  return { ms: performance.now() - started, body: response.body };
};
const cpuBefore = process.cpuUsage();
const first = await time('/api/v1/commits?limit=20');
const cpuFirst = process.cpuUsage(cpuBefore);
const newest = (JSON.parse(first.body) as { commits: { timestamp: string }[]; total: number }).commits[0]!.timestamp;
const quantiles = async (url: string): Promise<{ p50: number; p99: number }> => {
  const times: number[] = [];
  for (let i = 0; i < ASKED; i++) times.push((await time(url)).ms);
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(ASKED / 2)]!, p99: times[Math.floor(ASKED * 0.99)]! };
};
const list = await quantiles('/api/v1/commits?limit=20');
const commit = await quantiles(`/api/v1/commits/${newest}?limit=20`);
await app.close();
await registry.close();
await storage.close();
process.stdout.write(`${JSON.stringify({ firstMs: first.ms, firstCpuMs: (cpuFirst.user + cpuFirst.system) / 1000, commits: (JSON.parse(first.body) as { total: number }).total, list, commit })}\n`);
