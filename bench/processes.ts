import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-child.js';
import type { ChildInfo } from './server-child.js';
import { bundleChild } from './bundled-child.js';

/**
 * The benchmark's processes: servers (the storage server, the Node ceiling) and the load
 * generator each run in a process of their own; the orchestrator only starts them and reads
 * their one-line JSON reports.
 */

const HERE = dirname(fileURLToPath(import.meta.url));

/** `BENCH_CPU_PROF=<dir>`: write a CPU profile of every server child there (node --cpu-prof). */
function profileFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

async function firstLine<T>(child: ChildProcess, what: string): Promise<T> {
  const lines = createInterface({ input: child.stdout! });
  return new Promise<T>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
    child.once('close', (code) => reject(new Error(`${what} exited with ${code} before reporting`)));
  });
}

export interface ServerChild {
  readonly child: ChildProcess;
  readonly info: ChildInfo;
}

/**
 * `server-child.ts` as the servers run it: bundled into plain JavaScript (it loads the built code,
 * which runs as users run it), not through tsx's loader, whose presence in the server process
 * moved the figures it measures: in the benchmark's child at 10M, the graph build took 1,285–1,410
 * ms warm with tsx loaded against 1,157–1,324 without (eight alternated pairs; cold 1,366–1,418
 * against 1,281–1,390), and opening 281–300 against 294–326 (four). Written once per run, beside
 * the generated storages; with BENCH_SOURCE=1 the child serves the TypeScript sources and runs
 * through tsx.
 */
let serverChildScript: Promise<string> | undefined;

function serverChild(): Promise<string> {
  serverChildScript ??= (async () => {
    // Bundled are this folder's modules; the server's own code is imported from dist/ at run time.
    return bundleChild(join(HERE, 'server-child.ts'), join(HERE, '.children', 'server-child.mjs'));
  })();
  return serverChildScript;
}

/** Starts `server-child.ts` with the given arguments (and environment variables besides ours) and waits for its report. */
export async function startServer(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<ServerChild> {
  const script = process.env.BENCH_SOURCE === '1' ? ['--import', 'tsx', join(HERE, 'server-child.ts')] : [await serverChild()];
  // No --expose-gc: the child switches it on once it has measured (server-child.ts says why).
  const child = spawn(process.execPath, [...profileFlags(), ...script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_ROOT: join(HERE, '..'), ...env },
  });
  const info = await firstLine<ChildInfo>(child, 'benchmark server');
  return { child, info };
}

/** Opens a storage in a fresh process and returns what it reported (the process exits by itself). */
export async function measureOpen(dir: string, withGraph = false): Promise<ChildInfo> {
  const { child, info } = await startServer([dir, '--open-only', ...(withGraph ? ['--graph'] : [])]);
  if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  return info;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** One load run by a separate load-generator process (see load-child.ts). */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'load-child.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin!.end(`${JSON.stringify(job)}\n`);
  return firstLine<LoadResult>(child, 'load generator');
}
