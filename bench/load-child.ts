/**
 * Benchmark load generator, run in a process of its own so that it never shares an event loop
 * (or a core's worth of JavaScript) with the server it measures or with the orchestrator.
 * Reads its job as one JSON line on stdin, warms the server up, measures, and prints one JSON
 * line: throughput, latency percentiles, errors and the CPU each side used meanwhile.
 */
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { cpuBetween, cpuSnapshot, diskReadBytes } from './cpu.js';

export interface LoadJob {
  readonly port: number;
  /** Request paths, taken in turn. */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  /** Unmeasured run first (JIT, connection set-up). */
  readonly warmupSeconds: number;
  /** Process id of the server, for its CPU figure. */
  readonly serverPid: number;
}

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** Cores used on average while measuring: server, this load generator, everything else. */
  readonly serverCores?: number | undefined;
  readonly loadCores?: number | undefined;
  readonly otherCores?: number;
  /** Bytes the server read from disk while measuring (the page cache did not hold them). */
  readonly serverDiskBytes?: number | undefined;
}

async function run(job: LoadJob, seconds: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: `http://127.0.0.1:${job.port}`,
    connections: job.connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          request.path = job.paths[next++ % job.paths.length] as string;
          return request;
        },
      },
    ],
  });
}

const line = await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
const job = JSON.parse(line) as LoadJob;
if (job.warmupSeconds > 0) await run(job, job.warmupSeconds);
const before = cpuSnapshot([job.serverPid, process.pid]);
const diskBefore = diskReadBytes(job.serverPid);
const result = await run(job, job.seconds);
const cpu = cpuBetween(before, cpuSnapshot([job.serverPid, process.pid]));
const diskAfter = diskReadBytes(job.serverPid);
const out: LoadResult = {
  rps: result.requests.total / result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.errors + result.non2xx + result.timeouts,
  ...(cpu === undefined
    ? {}
    : { serverCores: cpu.processes.get(job.serverPid), loadCores: cpu.processes.get(process.pid), otherCores: cpu.others }),
  ...(diskBefore === undefined || diskAfter === undefined ? {} : { serverDiskBytes: diskAfter - diskBefore }),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
