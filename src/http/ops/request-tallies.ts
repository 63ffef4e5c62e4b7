import type { Histogram, Registry } from 'prom-client';

/** prom-client, loaded by the first scrape (metrics.ts). */
export type PromClient = typeof import('prom-client');

/**
 * The per-request metrics (requests by route, method and status; latency by route and method;
 * bytes by route) tallied in plain numbers and typed arrays, and handed to prom-client only when
 * scraped. prom-client's own `inc` and `observe` build label hashes and objects on every call:
 * measured under load on `/object` at 64 connections, the three calls per request cost about 7 µs
 * of the server's CPU (15 %), the tally well under one. What /metrics shows is unchanged: the same
 * metric names, labels, buckets and values, cumulative since startup. Tallying needs no
 * prom-client: it is loaded, and the metrics registered, on the first scrape.
 */

interface Tally {
  readonly route: string;
  readonly method: string;
  /** Requests by status code. */
  readonly statuses: Map<number, number>;
  /** Requests per latency bucket (not cumulative; the last one is +Inf). */
  readonly buckets: Float64Array;
  seconds: number;
  count: number;
  bytes: number;
}

export interface RequestTalliesOptions {
  readonly prefix: string;
  readonly buckets: readonly number[];
}

export class RequestTallies {
  /** Route → method → tally: no key string is built per request. */
  private readonly byRoute = new Map<string, Map<string, Tally>>();
  private readonly bounds: Float64Array;

  constructor(private readonly options: RequestTalliesOptions) {
    this.bounds = Float64Array.from(options.buckets);
  }

  /** Registers the request metrics, read from the tallies when scraped. */
  register(prom: PromClient, registry: Registry): void {
    const options = this.options;
    const tallies = (): Tally[] => [...this.byRoute.values()].flatMap((m) => [...m.values()]);
    new prom.Counter({
      name: `${options.prefix}http_requests_total`,
      help: 'HTTP requests answered, by route (the route pattern, not the path), method and status code',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const t of tallies()) for (const [status, n] of t.statuses) this.inc({ route: t.route, method: t.method, status }, n);
      },
    });
    const bounds = this.bounds;
    const TalliedHistogram = talliedHistogramClass(prom);
    new TalliedHistogram(
      {
        name: `${options.prefix}http_request_duration_seconds`,
        help: 'Time from receiving a request to having sent its answer, by route and method',
        labelNames: ['route', 'method'] as const,
        buckets: [...options.buckets],
        registers: [registry],
      },
      () => tallies().map((t) => ({ labels: { route: t.route, method: t.method }, buckets: t.buckets, sum: t.seconds, count: t.count })),
      bounds,
    );
    new prom.Counter({
      name: `${options.prefix}http_response_bytes_total`,
      help: 'Body bytes of the answers sent (answers of known length), by route',
      labelNames: ['route'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const byRoute = new Map<string, number>();
        for (const t of tallies()) if (t.bytes > 0) byRoute.set(t.route, (byRoute.get(t.route) ?? 0) + t.bytes);
        for (const [route, bytes] of byRoute) this.inc({ route }, bytes);
      },
    });
  }

  /** Records one answered request. */
  record(route: string, method: string, status: number, seconds: number, bytes: number): void {
    let methods = this.byRoute.get(route);
    if (methods === undefined) this.byRoute.set(route, (methods = new Map()));
    let tally = methods.get(method);
    if (tally === undefined) {
      tally = { route, method, statuses: new Map(), buckets: new Float64Array(this.bounds.length + 1), seconds: 0, count: 0, bytes: 0 };
      methods.set(method, tally);
    }
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    const bounds = this.bounds;
    let b = 0;
    while (b < bounds.length && seconds > (bounds[b] as number)) b++;
    tally.buckets[b] = (tally.buckets[b] as number) + 1;
    tally.seconds += seconds;
    tally.count++;
    tally.bytes += bytes;
  }
}

interface HistogramTally {
  readonly labels: Record<string, string>;
  /** Observations per bucket (the last one above every bound). */
  readonly buckets: Float64Array;
  readonly sum: number;
  readonly count: number;
}

/**
 * A prom-client histogram whose values come from tallies when scraped instead of `observe`. Its
 * exposition is prom-client's own (the cumulative `_bucket` series with `le` first, `_sum`,
 * `_count`): the registry asks `getForPromString` for the text and `get` for JSON.
 */
function talliedHistogramClass(prom: PromClient) {
  return class TalliedHistogram extends prom.Histogram<'route' | 'method'> {
    private readonly metricName: string;
    private readonly helpText: string;

    constructor(
      configuration: ConstructorParameters<typeof Histogram<'route' | 'method'>>[0],
      private readonly tallies: () => HistogramTally[],
      private readonly bounds: Float64Array,
    ) {
      super(configuration);
      this.metricName = configuration.name;
      this.helpText = configuration.help;
    }

    async getForPromString(): Promise<Awaited<ReturnType<Histogram['get']>>> {
      const name = this.metricName;
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const t of this.tallies()) {
        let cumulative = 0;
        this.bounds.forEach((bound, i) => {
          cumulative += t.buckets[i] as number;
          values.push({ labels: { le: bound, ...t.labels }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', ...t.labels }, value: t.count, metricName: `${name}_bucket` });
        values.push({ labels: { ...t.labels }, value: t.sum, metricName: `${name}_sum` });
        values.push({ labels: { ...t.labels }, value: t.count, metricName: `${name}_count` });
      }
      return { name, help: this.helpText, type: 'histogram', values, aggregator: 'sum' } as unknown as Awaited<ReturnType<Histogram['get']>>;
    }

    override get(): ReturnType<Histogram['get']> {
      return this.getForPromString();
    }

    override reset(): void {
      // The tallies are cumulative since startup, as prom-client's own counts are.
    }
  };
}
