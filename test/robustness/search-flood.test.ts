import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiV1Plugin } from '../../src/http/api-v1/api-v1-plugin.js';
import { lazySchemaCompilers } from '../../src/http/api-v1/machinery/lazy-schema-compilers.js';
import { mcpRoutes } from '../../src/mcp/http-route.js';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { searchSlotsOf } from '../../src/http/api-v1/search/search-slots.js';
import { buildApp } from '../../src/http/app.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';

/**
 * Many searches at once against a served storage (issue 40, item 5): as many run as there are
 * slots, the rest are refused at once with 503 and Retry-After (over /api/v1/search and, one per
 * message, in an MCP batch), and while the admitted ones scan the whole storage /health still
 * answers within a second. A client that goes away frees its slot.
 */

const SLOTS = 3;
/** Found in no record: every admitted search scans the whole storage. */
const NOWHERE = 'zq-nowhere-qz';
const SEARCH = `/api/v1/search?q=${NOWHERE}&maxMs=30000&limit=5`;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
  /** performance.now() when the whole answer was in. */
  readonly at: number;
}

let directory: string;
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;
let port: number;

function send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body: Buffer.concat(chunks).toString(), at: performance.now() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'si-search-flood-'));
  // About 22 MB of records: one search over them takes a second or more of the one thread.
  generateStorage({ directory: join(directory, 'st'), entities: 300_000, seed: 405 });
  registered = await registeredStorage(join(directory, 'st'));
  await graphsBuilt(registered.registry);
  app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry, searchMaxConcurrent: SLOTS, logger: false });
  await app.register(mcpRoutes, { registry: registered.registry, requestTimeoutMs: 30_000, api: apiV1Plugin, schemaCompilers: lazySchemaCompilers });
  port = await listenOnLoopback(app);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await registered?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('a flood of searches', () => {
  it(`runs ${SLOTS} at once, refuses the rest with 503 and Retry-After, and /health answers within 1 s meanwhile`, async () => {
    // Warm: the route's schemas and its problem answer are compiled when first asked for (not what this test measures).
    expect((await send('GET', `/api/v1/search?q=${NOWHERE}&maxMs=1`)).status).toBe(200);
    const held = Array.from({ length: SLOTS }, () => searchSlotsOf(registered.registry).take());
    expect((await send('GET', SEARCH)).status).toBe(503);
    for (const release of held) release();
    const searches = Array.from({ length: 12 }, () => send('GET', SEARCH));
    const ok: Answer[] = [];
    let settled = 0;
    for (const s of searches) void s.then((a) => {
      settled++;
      if (a.status === 200) ok.push(a);
    });
    // /health, one after the other, as long as an admitted search is still scanning.
    const health: { ms: number; status: number; duringSearch: boolean }[] = [];
    while (settled < searches.length) {
      const started = performance.now();
      const answer = await send('GET', '/health');
      health.push({ ms: answer.at - started, status: answer.status, duringSearch: settled < searches.length });
    }
    const answers = await Promise.all(searches);

    const refused = answers.filter((a) => a.status === 503);
    expect(answers.map((a) => a.status).sort()).toEqual([...Array<number>(SLOTS).fill(200), ...Array<number>(12 - SLOTS).fill(503)]);
    for (const a of refused) {
      expect(a.retryAfter).toBe('1');
      expect(JSON.parse(a.body)).toMatchObject({ status: 503, title: 'Too Many Searches', detail: `${SLOTS} searches are running, the limit is ${SLOTS} (--search-max-concurrent); ask again` });
    }
    // The admitted ones scanned everything and found nothing.
    for (const a of ok) {
      const result = JSON.parse(a.body) as { complete: boolean; scannedBytes: number; totalBytes: number; results: unknown[] };
      expect(result.complete).toBe(true);
      expect(result.scannedBytes).toBe(result.totalBytes);
      expect(result.totalBytes).toBeGreaterThan(20_000_000);
      expect(result.results).toEqual([]);
    }
    // Asked while the searches ran (several times: the scans take seconds), answered within 1 s each.
    const during = health.filter((h) => h.duringSearch);
    console.log(`search flood: /health asked ${during.length} times while ${SLOTS} searches ran: ${during.map((h) => h.ms.toFixed(0)).join(', ')} ms`);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.filter((h) => h.status !== 200 || h.ms >= 1000)).toEqual([]);
    expect(searchSlotsOf(registered.registry).inUse).toBe(0);
  }, 120_000);

  it('counts each message of an MCP batch as one search', async () => {
    const batch = Array.from({ length: 8 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'search', arguments: { query: NOWHERE, maxMs: 30_000 } } }));
    const answer = await send('POST', '/mcp', JSON.stringify(batch), { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    expect(answer.status).toBe(200);
    const messages = JSON.parse(answer.body) as { id: number; result: { isError?: boolean; content: { text: string }[] } }[];
    expect(messages.map((m) => m.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const refused = messages.filter((m) => m.result.isError === true).map((m) => m.result.content[0]!.text);
    expect(refused).toEqual(Array<string>(8 - SLOTS).fill(`Too Many Searches (503): ${SLOTS} searches are running, the limit is ${SLOTS} (--search-max-concurrent); ask again`));
    const found = messages.filter((m) => m.result.isError !== true).map((m) => m.result.content[0]!.text);
    expect(found).toEqual(Array<string>(SLOTS).fill(`0 hit(s) for "${NOWHERE}":`));
  }, 120_000);

  it('frees the slot of a client that goes away before its search ends', async () => {
    // How long one search alone takes to scan the storage.
    const alone = JSON.parse((await send('GET', SEARCH)).body) as { elapsedMs: number; complete: boolean };
    expect(alone.complete).toBe(true);
    const slots = searchSlotsOf(registered.registry);
    const req = request({ host: '127.0.0.1', port, path: SEARCH, agent: false });
    req.on('error', () => undefined);
    req.end();
    await expect.poll(() => slots.inUse, { timeout: 20_000, interval: 5 }).toBe(1);
    const started = performance.now();
    req.destroy();
    await expect.poll(() => slots.inUse, { timeout: 20_000, interval: 5 }).toBe(0);
    // Stopped at the scan's next pause, not at the end of its scan.
    expect(performance.now() - started).toBeLessThan(alone.elapsedMs / 2);
  }, 60_000);
});

describe('serve --search-max-concurrent', () => {
  it('takes an integer from 1 to 1000, and refuses anything else before starting', () => {
    expect(parseServeArgs(['dir', '--search-max-concurrent', '8'])).toMatchObject({ searchMaxConcurrent: 8 });
    expect(parseServeArgs(['dir'])).not.toHaveProperty('searchMaxConcurrent');
    for (const bad of ['0', '1001', 'Infinity', '-Infinity', 'NaN', '1e3', '2.5']) {
      expect(() => parseServeArgs(['dir', '--search-max-concurrent', bad]), bad).toThrow(/--search-max-concurrent.*an integer from 1 to 1000/);
    }
  });
});
