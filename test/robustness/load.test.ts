import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../../src/writer/generator/prng.js';
import { CONFORMANCE_DIR, loadCases } from '../helpers/corpora/conformance.js';
import { corpusStorage, startServer, type TestServer } from '../security/server.js';

/**
 * A bounded load test on loopback: 64 keep-alive connections, 30 requests each, against the
 * collections storage, mixing every route, object answers with references=true and windows over
 * the 50,000-element list (object ...071), and now and then its unbounded answer (7 MB, every
 * element described). Zero errors; afterwards, with the clients gone, the server holds nothing for
 * them (connections, responses in flight, bytes of unsent answers). Client and server share this
 * process (2 cores): the figures logged are a floor, not a benchmark (`npm run bench` measures).
 */

const CONNECTIONS = 64;
/** A fixed amount of work (a fixed duration made the test depend on the machine's speed). */
const REQUESTS_PER_CONNECTION = 30;
const BIG_LIST = '1000000000000000071';

interface Outcome {
  readonly status: number;
  readonly bytes: number;
  readonly ms: number;
}

function get(agent: Agent, port: number, path: string): Promise<Outcome> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Object ids that answer 200 (from the recorded Java answers). */
function okIds(): string[] {
  const { cases } = loadCases(join(CONFORMANCE_DIR, 'cases', 'collections.jsonl'));
  return cases.filter((c) => c.kind === 'object' && c.status === 200).map((c) => c.request.slice('/microstream/object/'.length));
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

describe('load', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(corpusStorage('collections'));
  });
  afterAll(() => server.close());

  it(`${CONNECTIONS} connections × ${REQUESTS_PER_CONNECTION} requests mixing all routes: no errors, nothing held afterwards`, async () => {
    const ids = okIds().filter((id) => id !== BIG_LIST);
    const random = new Prng(64);
    const pick = (): { path: string; kind: string } => {
      const r = random.below(1000);
      if (r < 80) return { path: '/microstream/root', kind: 'root' };
      if (r < 160) return { path: '/microstream/dictionary', kind: 'dictionary' };
      if (r < 240) return { path: '/microstream/maintenance/filesStatistics', kind: 'statistics' };
      if (r < 280) return { path: '/', kind: 'routes' };
      if (r < 560) return { path: `/microstream/object/${random.pick(ids)}`, kind: 'object' };
      if (r < 760) return { path: `/microstream/object/${random.pick(ids)}?references=true`, kind: 'object+references' };
      if (r < 998) {
        const offset = random.below(50_000);
        return { path: `/microstream/object/${BIG_LIST}?references=true&variableOffset=${offset}&variableLength=${1 + random.below(500)}`, kind: 'big list window+references' };
      }
      return { path: `/microstream/object/${BIG_LIST}?references=true`, kind: 'big list unbounded+references' };
    };

    // Warm up, then the baseline.
    const warm = new Agent({ keepAlive: true, maxSockets: 4 });
    for (let i = 0; i < 50; i++) await get(warm, server.port, pick().path);
    warm.destroy();

    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const latencies: number[] = [];
    const errors: string[] = [];
    const kinds = new Map<string, number>();
    let bytes = 0;
    let peakRss = 0;
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const worker = async (): Promise<void> => {
      for (let n = 0; n < REQUESTS_PER_CONNECTION; n++) {
        const { path, kind } = pick();
        try {
          const outcome = await get(agent, server.port, path);
          latencies.push(outcome.ms);
          bytes += outcome.bytes;
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          if (outcome.status !== 200) errors.push(`${outcome.status} ${path}`);
        } catch (error) {
          errors.push(`${String(error)} ${path}`);
        }
        if (latencies.length % 200 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    const seconds = (Date.now() - started) / 1000;
    agent.destroy();

    latencies.sort((a, b) => a - b);
    const mib = (n: number): string => (n / 1048576).toFixed(1);
    console.log(
      `load: ${latencies.length} requests in ${seconds.toFixed(1)} s over ${CONNECTIONS} connections = ${Math.round(latencies.length / seconds)} req/s, ` +
        `${mib(bytes / seconds)} MiB/s; latency p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies[latencies.length - 1]?.toFixed(1)} ms; ` +
        `errors ${errors.length}; RSS ${mib(rssBefore)} MiB before, peak ${mib(peakRss)} MiB; mix ${JSON.stringify(Object.fromEntries(kinds))}`,
    );
    expect(errors.slice(0, 10), `${errors.length} errors`).toEqual([]);
    expect(latencies.length).toBe(CONNECTIONS * REQUESTS_PER_CONNECTION);
    expect(kinds.get('big list unbounded+references') ?? 0).toBeGreaterThan(0);
    await expect.poll(() => server.app.connections.stats.open, { timeout: 20_000 }).toBe(0);
    expect(server.app.connections.stats.inFlight).toBe(0);
    expect(server.app.unsentAnswers.held).toBe(0);
    expect(server.app.unsentAnswers.waiters).toBe(0);
  });
});
