/**
 * What the per-size part of `npm run bench` (size-bench.ts) measures at one storage size, as
 * medians with their spread; size-report.ts prints it as a table row, targets and noise.
 */
import type { Spread } from './stats.js';

export interface SizeResult {
  readonly entities: number;
  readonly bytes: number;
  readonly files: number;
  readonly warmFloor: Spread;
  readonly warmOpen: Spread;
  readonly warmRatio: Spread;
  /** Threads opening indexes in (and the threaded reading uses). */
  readonly threads: number;
  /** Reading the files once shared by `threads` threads, and opening against that. */
  readonly warmThreaded: Spread;
  readonly warmThreadedRatio: Spread;
  readonly warmOpenCpu: Spread;
  readonly coldFloor?: Spread;
  readonly coldOpen?: Spread;
  readonly coldRatio?: Spread;
  readonly coldThreaded?: Spread;
  readonly coldThreadedRatio?: Spread;
  readonly indexBytesPerEntity: number;
  readonly rssAfterOpen: Spread;
  readonly ceiling: Spread;
  readonly object: Spread;
  readonly objectRatio: Spread;
  /** `/object` served without the cache of records read lately (`--record-cache-bytes 0`): every record read from its file. */
  readonly uncached: Spread;
  readonly uncachedRatio: Spread;
  readonly uncachedP99: Spread;
  readonly objectP50: Spread;
  readonly objectP99: Spread;
  readonly root: Spread;
  readonly rootRatio: Spread;
  readonly rootP99: Spread;
  /** Server CPU per request (µs): independent of how much of the machine the run had. */
  readonly cpuPerRequest: { readonly ceiling: Spread; readonly object: Spread; readonly uncached: Spread; readonly root: Spread };
  readonly errors: number;
  /** Cores other processes used during the load runs; cores the load generator used at the ceiling. */
  readonly others: Spread;
  readonly loadAtCeiling: Spread;
  /**
   * MB the server read from disk in each `/object` run: pages of the storage the kernel had
   * dropped from its cache since the server opened it (with them, a record read waits for the disk).
   */
  readonly objectDiskMb: Spread;
  readonly uncachedDiskMb: Spread;
  /** Building the graph index once after a warm open (and once with the page cache dropped first). */
  readonly graph?: {
    readonly ms: number;
    readonly cpuMs: number;
    readonly bytesPerEntity: number;
    readonly rssMb: number;
    readonly bytesPerReference: number;
    readonly nodeBytesPerEntity: number;
    readonly coldMs: number | undefined;
    /** Warm and cold build times of every round (one round at 100M: a build takes a minute). */
    readonly warmRuns: Spread;
    readonly coldRuns: Spread | undefined;
    /**
     * Reading the files once with the page cache dropped, measured right before each cold build
     * (the floor of the open rounds is minutes away, and the machine drifts), and each cold build
     * against its own floor.
     */
    readonly coldFloors: Spread | undefined;
    readonly coldRatios: Spread | undefined;
  };
  /** Our own API at 64 connections on random existing objects: p50/p99 ms and req/s. */
  readonly api?: Readonly<Record<'objects' | 'referrers' | 'paths', { readonly p50: number; readonly p99: number; readonly rps: number; readonly errors: number }>>;
}
