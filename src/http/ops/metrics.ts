import type { Registry } from 'prom-client';
import { RequestTallies, type PromClient } from './request-tallies.js';
import type { StorageChannel } from '../../storage/storage.js';
import type { FollowStatus } from '../../storage/follow/follow-status.js';
import type { RecordCacheStats } from '../../storage/record-cache.js';

/**
 * Prometheus metrics (prom-client): requests by route, method and status, latency histograms and
 * bytes sent, fed by the app's onResponse hook and the Java routes' lane (request-tallies.ts);
 * storage and following gauges computed when scraped from the state being served; the process's
 * own (memory, CPU, event loop) metrics.
 * One registry per app, so that several apps in one process (tests) do not share counters.
 * prom-client is loaded, and the registry made, on the first scrape: a server that is never
 * scraped does not load it (about 30 ms of CPU at start-up). Requests are tallied from the start
 * all the same; the process metrics that sample (event loop delay, GC) begin with the first scrape.
 */

export const METRICS_PREFIX = 'storage_inspector_';

/** What the storage gauges read: the state being served (a Storage, or one of its snapshots). */
export interface MetricsSource {
  readonly channels: readonly Pick<StorageChannel, 'files' | 'objects'>[];
  /** Epoch nanoseconds of the last complete commit; 0 or absent when unknown. */
  readonly lastCommitTimestamp?: bigint;
  readonly generation?: number;
  readonly warnings?: readonly string[];
  /** The cache of records read lately (absent when none are kept). */
  readonly recordCache?: RecordCacheStats | undefined;
}

export interface ServiceMetrics {
  /** The registry (prom-client loaded and the metrics registered on the first call). */
  registry(): Promise<Registry>;
  /** Records one answered request. */
  observe(route: string, method: string, status: number, seconds: number, bytes: number): void;
}

/** Latency buckets from half a millisecond (a cached answer) to the default request timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(source: () => MetricsSource, follow: FollowStatus | undefined): ServiceMetrics {
  const requests = new RequestTallies({ prefix: METRICS_PREFIX, buckets: LATENCY_BUCKETS });
  let registry: Promise<Registry> | undefined;
  return {
    registry: () =>
      (registry ??= import('prom-client').then((prom) => {
        const made = new prom.Registry();
        prom.collectDefaultMetrics({ register: made, prefix: METRICS_PREFIX });
        requests.register(prom, made);
        storageGauges(prom, made, source);
        followMetrics(prom, made, follow);
        return made;
      })),
    observe(route, method, status, seconds, bytes) {
      requests.record(route, method, status, seconds, bytes);
    },
  };
}

function storageGauges(prom: PromClient, registry: Registry, source: () => MetricsSource): void {
  const gauge = (name: string, help: string, value: (s: MetricsSource) => number | undefined): void => {
    new prom.Gauge({
      name: `${METRICS_PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        const v = value(source());
        if (v !== undefined) this.set(v);
      },
    });
  };
  const sum = (s: MetricsSource, of: (c: MetricsSource['channels'][number]) => number): number => s.channels.reduce((n, c) => n + of(c), 0);
  gauge('storage_entities', 'Objects in the storage (distinct object ids with a latest record)', (s) => sum(s, (c) => c.objects.size));
  gauge('storage_channels', 'Channels of the storage', (s) => s.channels.length);
  gauge('storage_data_files', 'Data files of the storage', (s) => sum(s, (c) => c.files.length));
  gauge('storage_live_bytes', 'Bytes of the latest record of every object (liveDataLength of the statistics)', (s) =>
    sum(s, (c) => c.files.reduce((n, f) => n + f.liveLength, 0)),
  );
  gauge('storage_total_bytes', 'Committed bytes of all data files (totalDataLength of the statistics)', (s) =>
    sum(s, (c) => c.files.reduce((n, f) => n + f.totalLength, 0)),
  );
  gauge('storage_index_bytes', 'Memory held by the object index (object id to file, offset, length)', (s) => sum(s, (c) => c.objects.byteSize));
  gauge('storage_last_commit_timestamp_seconds', 'Time of the last complete commit, from the transaction logs (Unix seconds)', (s) =>
    s.lastCommitTimestamp === undefined || s.lastCommitTimestamp === 0n ? undefined : Number(s.lastCommitTimestamp / 1000n) / 1e6,
  );
  gauge('storage_generation', 'Changes of the served state since startup (+1 per commit taken over)', (s) => s.generation);
  gauge('storage_warnings', 'Problems tolerated so far (damaged records, files Java would refuse); see the log', (s) => s.warnings?.length);
  gauge('record_cache_bytes', 'Memory held by the cache of records read lately (--record-cache-bytes)', (s) => s.recordCache?.bytes ?? 0);
  countedTotals(
    prom,
    registry,
    'record_cache_lookups_total',
    'Record reads by whether the cache of records read lately answered them (hit) or a data file did (miss)',
    'result',
    () => {
      const stats = source().recordCache;
      return stats === undefined ? undefined : { hit: stats.hits, miss: stats.misses };
    },
  );
}

/**
 * A counter of totals kept elsewhere, one per label value, brought up to date when scraped. A
 * total that went down (its source started over: another snapshot, a reopened storage) is
 * counted on from there.
 */
function countedTotals(
  prom: PromClient,
  registry: Registry,
  name: string,
  help: string,
  label: string,
  totals: () => Readonly<Record<string, number>> | undefined,
): void {
  const reported = new Map<string, number>();
  new prom.Counter({
    name: `${METRICS_PREFIX}${name}`,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      for (const [value, total] of Object.entries(totals() ?? {})) {
        const delta = total - (reported.get(value) ?? 0);
        if (delta >= 0) this.inc({ [label]: value }, delta);
        reported.set(value, total);
      }
    },
  });
}

function followMetrics(prom: PromClient, registry: Registry, follow: FollowStatus | undefined): void {
  new prom.Gauge({
    name: `${METRICS_PREFIX}ready`,
    help: '1 when /ready answers 200 (indexed, and following without errors), else 0',
    registers: [registry],
    collect() {
      this.set(follow?.problem() === undefined ? 1 : 0);
    },
  });
  new prom.Gauge({
    name: `${METRICS_PREFIX}follow_lag_seconds`,
    help: 'Seconds since the served state was last confirmed to be the latest complete commit (0 with --no-follow)',
    registers: [registry],
    collect() {
      this.set(follow?.lagSeconds() ?? 0);
    },
  });
  if (follow === undefined) return;
  countedTotals(
    prom,
    registry,
    'follow_refreshes_total',
    'Looks for new commits by outcome: changed, unchanged, deferred (a file being rewritten), failed (refresh errors)',
    'outcome',
    () => follow.refreshes,
  );
}
