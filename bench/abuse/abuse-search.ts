/**
 * The search flood of `npm run bench:abuse -- search-flood` (see abuse.ts), against
 * `storage-inspector serve` in a child process on a generated storage (ABUSE_ENTITIES, default
 * 1,000,000: about 75 MB), once its graph index is built:
 *
 *   1. ABUSE_CLIENTS (default 50) clients each ask /api/v1/search for a text found nowhere (the whole
 *      storage is scanned, maxMs=30000), again and again, for ABUSE_SECONDS (default 30);
 *   2. one POST /mcp carrying a JSON-RPC batch of 100 `search` tool calls.
 *
 * Throughout, one client asks /health every 100 ms (a new connection each time, 30 s timeout).
 * Prints the searches' statuses, /health p50/p99/max and how many took over 1 s, and the
 * server's peak RSS. ABUSE_ARGS: extra serve options (e.g. --search-max-concurrent 8).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STORAGES = join(ROOT, 'bench/.storages');
const SERVER = process.env.ABUSE_SERVER ?? join(ROOT, 'dist/cli/main.js');
const NODE_ARGS = (process.env.ABUSE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const EXTRA_ARGS = (process.env.ABUSE_ARGS ?? '').split(' ').filter((a) => a !== '');
/** A text no generated record holds: every search scans the whole storage. */
const NOWHERE = 'zq-nowhere-qz';

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
}

export function send(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, timeout: 120_000, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(chunks).toString() }));
      res.on('error', () => resolve({ status: 0, ms: performance.now() - started, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, body: '' }));
    req.end(body);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The generated storage, written once into bench/.storages (renamed into place when complete). */
function generated(entities: number): string {
  const directory = join(STORAGES, `search-${entities}`);
  if (!existsSync(directory)) {
    mkdirSync(STORAGES, { recursive: true });
    const partial = `${directory}.partial`;
    rmSync(partial, { recursive: true, force: true });
    generateStorage({ directory: partial, entities, channelCount: 1, seed: 405 });
    renameSync(partial, directory);
  }
  return directory;
}

export async function startServer(directory: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...NODE_ARGS, SERVER, 'serve', directory, '--port', '0', '--quiet', '--no-follow', ...EXTRA_ARGS], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /serving .* at http:\/\/[^:]+:(\d+)\//.exec(stderr);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`server exited:\n${stderr}`)));
  });
  // The graph index, before the load (searches then name owners, as they do once it is built).
  while ((await send(port, 'GET', '/api/v1/types?limit=1')).status !== 200) await sleep(200);
  return { child, port };
}

/** /health every 100 ms and the server's RSS every 100 ms until `until` settles. */
export async function healthWhile(pid: number, port: number, until: Promise<unknown>): Promise<string> {
  let peak = rssMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  const latencies: number[] = [];
  let failed = 0;
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    const r = await send(port, 'GET', '/health');
    latencies.push(r.ms);
    if (r.status !== 200) failed++;
    await sleep(100);
  }
  clearInterval(sampler);
  return (
    `/health every 100 ms: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
    `max ${Math.max(...latencies).toFixed(1)} ms, over 1 s: ${latencies.filter((ms) => ms > 1000).length}, failed ${failed}; server peak RSS ${peak.toFixed(0)} MiB`
  );
}

function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

async function searchFlood(): Promise<void> {
  const entities = Number(process.env.ABUSE_ENTITIES ?? 1_000_000);
  const clients = Number(process.env.ABUSE_CLIENTS ?? 50);
  const seconds = Number(process.env.ABUSE_SECONDS ?? 30);
  const server = await startServer(generated(entities));
  const pid = server.child.pid!;
  const rssBefore = rssMiB(pid);

  const statuses = new Map<string, number>();
  const end = Date.now() + seconds * 1000;
  const flood = Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        const r = await send(server.port, 'GET', `/api/v1/search?q=${NOWHERE}&maxMs=30000&limit=10`);
        tally(statuses, `${r.status}${r.status === 503 ? ' (Retry-After)' : ''}`);
        // A refused client asks again a little later, as Retry-After says (sooner, to press).
        if (r.status === 503) await sleep(100);
      }
    }),
  );
  const floodLine = await healthWhile(pid, server.port, flood);

  const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'search', arguments: { query: NOWHERE, maxMs: 30000 } } }));
  const outcomes = new Map<string, number>();
  const mcp = send(server.port, 'POST', '/mcp', JSON.stringify(batch), { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }).then((r) => {
    if (r.status !== 200) return tally(outcomes, `HTTP ${r.status}`);
    for (const message of JSON.parse(r.body) as { result?: { isError?: boolean; content?: { text: string }[] }; error?: { message: string } }[]) {
      if (message.error !== undefined) tally(outcomes, 'JSON-RPC error');
      else if (message.result?.isError === true) tally(outcomes, `tool error: ${/^[^(]*\(\d+\)/.exec(message.result.content?.[0]?.text ?? '')?.[0] ?? 'other'}`);
      else tally(outcomes, 'answered');
    }
  });
  const batchLine = await healthWhile(pid, server.port, mcp);
  server.child.kill('SIGKILL');

  console.log(`search-flood: ${entities} entities, server RSS ${rssBefore.toFixed(0)} MiB before`);
  console.log(`  ${clients} clients searching "${NOWHERE}" (maxMs 30000) for ${seconds} s: ${[...statuses].map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  console.log(`    ${floodLine}`);
  console.log(`  one /mcp batch of 100 search calls: ${[...outcomes].map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  console.log(`    ${batchLine}`);
}

export async function runSearchScenario(name: string): Promise<boolean> {
  if (name !== 'search-flood') return false;
  await searchFlood();
  return true;
}
