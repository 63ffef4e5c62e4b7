import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtSpread, spread, type Spread } from '../stats.js';

/**
 * Start-up: what a user waits for on every `serve` and `check` of a small storage (the bundled
 * demo), measured from outside with plain `node` on the built CLI, beside `node -e 0` (the floor
 * no Node program goes below). Rounds alternate the launches so that a busy moment of the
 * machine falls on all of them alike; each figure is the median with its spread.
 * - serve: launch until the first answer of /{instance}/root has arrived;
 * - check: launch until the process has exited;
 * - --version: launch until exit (the command word only, no command loaded).
 * Beside each wall time, the CPU time the launched process used (user + system; for serve, until its
 * first answer was sent): on a machine that other work keeps busy the wall times stretch, the CPU
 * times much less.
 * Runs alone with `tsx bench/startup/startup-bench.ts` (BENCH_STARTUP_ROUNDS, default 9).
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** BENCH_STARTUP_DIST: another build to measure (e.g. a copy of an earlier commit's dist/ inside the project). */
const CLI = join(process.env.BENCH_STARTUP_DIST ?? join(ROOT, 'dist'), 'cli', 'main.js');
const DEMO = join(ROOT, 'demo', 'graph');
/** The small storage of the conformance corpus a new user tried: 88 entities, one data file. */
const PRIMITIVES = join(ROOT, 'test', 'fixtures', 'conformance', 'storages', 'primitives');

/** The targets of the first five minutes (milliseconds). */
export const STARTUP_TARGETS = { serve: 250, check: 150 } as const;

/** Wall and CPU milliseconds of one kind of launch. */
export interface LaunchFigures {
  readonly wall: Spread;
  readonly cpu: Spread;
}

export interface StartupResult {
  readonly rounds: number;
  readonly nodeFloor: LaunchFigures;
  readonly version: LaunchFigures;
  readonly serve: LaunchFigures;
  /** `serve` as a user starts it (defaults: following, logging) on `primitives`, polled from outside. */
  readonly servePolled: LaunchFigures;
  readonly check: LaunchFigures;
}

interface Launch {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * The process's own CPU time, printed by a hook as it exits (stderr is a pipe: written
 * synchronously on Linux). Loading the hook itself is a data: URL, no file.
 */
const CPU_ON_EXIT = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-us '+(u.user+u.system)+'\\n')})`;

/**
 * The server's own CPU time when its first 200 answer has been sent (Node's http diagnostics
 * channel), printed to stderr: read from /proc after the answer arrived, it would also count what
 * the server does once it has answered (the graph index is built then) for as long as a busy
 * machine keeps the bench process from reading it.
 */
const CPU_AT_FIRST_ANSWER = `data:text/javascript,import dc from 'node:diagnostics_channel';let done=false;dc.subscribe('http.server.response.finish',({response})=>{if(done||response.statusCode!==200)return;done=true;const u=process.cpuUsage();process.stderr.write('\\ncpu-us '+(u.user+u.system)+'\\n')})`;

/** The CPU milliseconds CPU_AT_FIRST_ANSWER prints, once its line has come (stderr so far, and the stream). */
function cpuAtFirstAnswer(stderr: NodeJS.ReadableStream, sofar: () => string): Promise<number> {
  const found = (): number | undefined => {
    const us = /cpu-us (\d+)\n/.exec(sofar())?.[1];
    return us === undefined ? undefined : Number(us) / 1000;
  };
  return new Promise((resolve, reject) => {
    const now = found();
    if (now !== undefined) return resolve(now);
    const onData = (): void => {
      const cpu = found();
      if (cpu === undefined) return;
      stderr.off('data', onData);
      resolve(cpu);
    };
    stderr.on('data', onData);
    stderr.once('end', () => reject(new Error(`the server's stderr ended without its CPU line: ${sofar()}`)));
  });
}

/** Wall milliseconds from spawn until the process exits (0 expected), and its CPU milliseconds. */
function timeToExit(args: readonly string[]): Promise<Launch> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', CPU_ON_EXIT, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wall = Number(process.hrtime.bigint() - started) / 1e6;
      const cpu = /cpu-us (\d+)/.exec(err)?.[1];
      if (code === 0 && cpu !== undefined) resolve({ wall, cpu: Number(cpu) / 1000 });
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${err}`));
    });
  });
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

/** Milliseconds from spawn of `serve` until /{instance}/root has answered (the URL comes from its start-up line). */
function timeToFirstRoot(): Promise<Launch> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', CPU_AT_FIRST_ANSWER, CLI, 'serve', DEMO, '--port', '0', '--no-follow', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise<Launch>((resolve, reject) => {
    let err = '';
    const onData = (chunk: Buffer): void => {
      err += chunk.toString();
      const url = /at (http:\/\/\S+\/root)/.exec(err)?.[1];
      if (url === undefined) return;
      child.stderr.off('data', onData);
      get(url).then((status) => {
        const wall = Number(process.hrtime.bigint() - started) / 1e6;
        if (status === 200) cpuAtFirstAnswer(child.stderr, () => err).then((cpu) => resolve({ wall, cpu }), reject);
        else reject(new Error(`${url} answered ${status}`));
      }, reject);
      child.stderr.on('data', (more: Buffer) => (err += more.toString()));
    };
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before answering: ${err}`)));
  }).finally(() => {
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
  });
}

/** A port no one listens on now (the user's `--port`, known before the launch as a stopwatch user knows it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** One GET of url: its status, or 0 when nothing listens yet. */
function tryGet(url: string): Promise<number> {
  return get(url).catch(() => 0);
}

/**
 * Launch to the first 200 of /microstream/root the way a user measures it: `serve STORAGE --port P`
 * with every default (following the storage, logging each request), and a poller outside the
 * server process asking from the moment of the launch, without waiting for any line the server
 * prints. The poll interval (2 ms) is the resolution.
 */
export async function timeToFirstRootPolled(extra: readonly string[] = []): Promise<Launch> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/microstream/root`;
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', CPU_AT_FIRST_ANSWER, CLI, 'serve', PRIMITIVES, '--port', String(port), ...extra], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  try {
    for (;;) {
      if (exited !== undefined) throw new Error(`serve exited with ${exited} before answering: ${err}`);
      const status = await tryGet(url);
      if (status === 200) {
        const wall = Number(process.hrtime.bigint() - started) / 1e6;
        return { wall, cpu: await cpuAtFirstAnswer(child.stderr, () => err) };
      }
      // 503: listening, the storage not yet open (with Retry-After): a user's poller asks again.
      if (status !== 0 && status !== 503) throw new Error(`${url} answered ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGKILL');
  }
}

export async function benchStartup(rounds = Math.max(1, Number(process.env.BENCH_STARTUP_ROUNDS ?? 9))): Promise<StartupResult> {
  const floor: Launch[] = [];
  const version: Launch[] = [];
  const serve: Launch[] = [];
  const servePolled: Launch[] = [];
  const check: Launch[] = [];
  // One launch of each first: the files in the page cache, as on a user's second try.
  await timeToExit(['-e', '0']);
  await timeToFirstRoot();
  await timeToFirstRootPolled();
  await timeToExit([CLI, 'check', DEMO]);
  for (let i = 0; i < rounds; i++) {
    floor.push(await timeToExit(['-e', '0']));
    version.push(await timeToExit([CLI, '--version']));
    serve.push(await timeToFirstRoot());
    servePolled.push(await timeToFirstRootPolled());
    check.push(await timeToExit([CLI, 'check', DEMO]));
  }
  const figures = (launches: readonly Launch[]): LaunchFigures => ({ wall: spread(launches.map((l) => l.wall)), cpu: spread(launches.map((l) => l.cpu)) });
  return { rounds, nodeFloor: figures(floor), version: figures(version), serve: figures(serve), servePolled: figures(servePolled), check: figures(check) };
}

export function startupLines(r: StartupResult): string[] {
  const met = (s: Spread, target: number): string => (s.median <= target ? `target <= ${target} ms met` : `target <= ${target} ms NOT met`);
  const line = (what: string, f: LaunchFigures, target?: number): string =>
    `  ${what.padEnd(38)} ${fmtSpread(f.wall, 0, ' ms').padEnd(20)} cpu ${fmtSpread(f.cpu, 0, ' ms').padEnd(20)}${target === undefined ? '' : ` ${met(f.wall, target)}`}`;
  return [
    `Start-up on the demo storage (plain node, medians of ${r.rounds} alternated launches, [min–max]; cpu: the launched process's user + system time):`,
    line('node -e 0', r.nodeFloor),
    line('storage-inspector --version', r.version),
    line('serve: launch to first /root answer', r.serve, STARTUP_TARGETS.serve),
    line("serve primitives, defaults, polled", r.servePolled, STARTUP_TARGETS.serve),
    line('check: launch to exit', r.check, STARTUP_TARGETS.check),
  ];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(startupLines(await benchStartup()).join('\n'));
}
