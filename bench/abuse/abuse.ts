/**
 * `npm run bench:abuse -- <scenario>`: the server under hostile or careless clients, measured from
 * a separate process (this one) against `storage-inspector serve` in a child process.
 *
 *   slow-readers   N connections (default 300) ask for a big answer (collections object
 *                  1000000000000000071?references=true, 7.1 MiB) and never read it; meanwhile one
 *                  client asks for /root every 100 ms. Prints the server's peak RSS and /root latency.
 *   idle-sockets   N idle connections (default: as many as this process may open, at most 20,000)
 *                  that never send a request; then new clients ask for /root. Prints the server's
 *                  open descriptors, how the new clients were answered, and EMFILE lines on stderr.
 *   sigterm        N clients (default 66) ask for the big answer and read it slowly (ABUSE_READ_KIB_S,
 *                  default 1024 KiB/s each); SIGTERM once ABUSE_SIGNAL_AT (default 8) are receiving
 *                  at the same time. Prints how many got their whole answer, and the server's words.
 *   api-limits, export, versions: /api/v1 under non-finite numbers, NDJSON exports that are not
 *                  read, and big version pages that are not read (abuse-api.ts).
 *   search-flood   many parallel searches and one MCP batch of searches, /health p99 and peak RSS
 *                  meanwhile (abuse-search.ts).
 *   sql-flood      huge SQL answers (JSON and CSV), the issue's repeat statements and statements
 *                  that run until the timeout, four at once; /health p99 and peak RSS (abuse-sql.ts).
 *
 * Environment: ABUSE_CLIENTS (N), ABUSE_SECONDS (slow-readers duration, default 40),
 * ABUSE_SERVER (path of the CLI's main.js to run, default dist/cli/main.js), ABUSE_ARGS (extra
 * serve options), ABUSE_SERVER_NOFILE (the server's descriptor limit), ABUSE_NODE_ARGS (node options for the server, e.g. --cpu-prof). Not part of `npm test`: the tests check the same behaviour at CI-safe sizes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STORAGE = join(ROOT, 'test/fixtures/conformance/storages/collections');
const BIG = '/microstream/object/1000000000000000071?references=true';
const BIG_BYTES = 7447633;
const SERVER = process.env.ABUSE_SERVER ?? join(ROOT, 'dist/cli/main.js');
const EXTRA_ARGS = (process.env.ABUSE_ARGS ?? '').split(' ').filter((a) => a !== '');
const NODE_ARGS = (process.env.ABUSE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  stderr(): string;
  stdout(): string;
}

async function startServer(): Promise<Server> {
  const args = [...NODE_ARGS, SERVER, 'serve', STORAGE, '--port', '0', '--quiet', ...EXTRA_ARGS];
  // ABUSE_SERVER_NOFILE: the server's descriptor limit (ulimit -n), lower than this process's.
  const nofile = process.env.ABUSE_SERVER_NOFILE;
  const child =
    nofile === undefined
      ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('/bin/sh', ['-c', `ulimit -n ${Number(nofile)} && exec "$0" "$@"`, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /serving .* at http:\/\/[^:]+:(\d+)\//.exec(stderr);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on('exit', () => reject(new Error(`server exited:\n${stderr}`)));
  });
  return { child, port, stderr: () => stderr, stdout: () => stdout };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function rawGet(port: number, target: string): Socket {
  const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
  socket.on('error', () => undefined);
  return socket;
}

/** GET with a fresh connection; resolves with status and milliseconds (status 0: failed). */
function timedGet(port: number, path: string, agent: Agent | false = false, timeoutMs = 30_000): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body }));
      res.on('error', () => resolve({ status: 0, ms: performance.now() - started, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, body: '' }));
    req.end();
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function slowReaders(): Promise<void> {
  const clients = Number(process.env.ABUSE_CLIENTS ?? 300);
  const seconds = Number(process.env.ABUSE_SECONDS ?? 40);
  const server = await startServer();
  const pid = server.child.pid!;
  const baseline = rssMiB(pid);
  const sockets: Socket[] = [];
  for (let i = 0; i < clients; i++) {
    const socket = rawGet(server.port, BIG);
    socket.pause(); // never reads
    sockets.push(socket);
  }
  let peak = baseline;
  const latencies: number[] = [];
  const slow: string[] = [];
  const failures: string[] = [];
  const begin = Date.now();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const end = Date.now() + seconds * 1000;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  while (Date.now() < end) {
    const r = await timedGet(server.port, '/microstream/root', agent);
    latencies.push(r.ms);
    if (r.ms > 500) slow.push(`${r.ms.toFixed(0)} ms at ${((Date.now() - begin) / 1000).toFixed(1)} s`);
    if (r.status !== 200) failures.push(`status ${r.status}`);
    await sleep(100);
  }
  clearInterval(sampler);
  const final = rssMiB(pid);
  for (const s of sockets) s.destroy();
  agent.destroy();
  server.child.kill(NODE_ARGS.length > 0 ? 'SIGINT' : 'SIGKILL');
  console.log(`slow-readers: ${clients} connections asking for ${BIG} (${BIG_BYTES} bytes) and never reading, ${seconds} s`);
  console.log(`  server RSS: ${baseline.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB, ${final.toFixed(0)} MiB at the end`);
  console.log(
    `  /root every 100 ms: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
      `max ${Math.max(...latencies).toFixed(1)} ms, over 1 s: ${latencies.filter((ms) => ms > 1000).length}, failed: ${failures.length}`,
  );
  if (slow.length > 0) console.log(`  /root over 500 ms: ${slow.join('; ')}`);
}

async function idleSockets(): Promise<void> {
  const want = Number(process.env.ABUSE_CLIENTS ?? 20_000);
  const server = await startServer();
  const pid = server.child.pid!;
  const sockets: Socket[] = [];
  let refusedAtConnect = 0;
  for (let i = 0; i < want; i++) {
    try {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => refusedAtConnect++);
      sockets.push(socket);
    } catch {
      break; // this process is out of descriptors
    }
    if (i % 500 === 499) await sleep(20);
  }
  await sleep(2000);
  const descriptors = openDescriptors(pid);
  const alive = sockets.filter((s) => !s.destroyed).length;
  const results: { status: number; ms: number }[] = [];
  for (let i = 0; i < 20; i++) {
    results.push(await timedGet(server.port, '/microstream/root', false, 40_000));
    await sleep(250);
  }
  await sleep(1500);
  const emfile = server.stderr().split('\n').filter((l) => /EMFILE/.test(l)).length;
  const emfileLog = server.stdout().split('\n').filter((l) => /EMFILE/.test(l)).length;
  const descriptorsAfter = openDescriptors(pid);
  for (const s of sockets) s.destroy();
  server.child.kill('SIGKILL');
  const statuses: Record<string, number> = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  console.log(`idle-sockets: ${sockets.length} connections opened, never sending a request (${alive} still open after 2 s; ${refusedAtConnect} errors)`);
  console.log(`  server descriptors: ${descriptors} with the idle sockets, ${descriptorsAfter} after the new clients`);
  console.log(
    `  20 new clients asking for /root: statuses ${JSON.stringify(statuses)}, latency p50 ${percentile(results.map((r) => r.ms), 50).toFixed(1)} ms, max ${Math.max(...results.map((r) => r.ms)).toFixed(1)} ms`,
  );
  console.log(`  server lines mentioning EMFILE: ${emfile} on stderr, ${emfileLog} in the JSON log (stdout)`);
}

async function sigterm(): Promise<void> {
  const clients = Number(process.env.ABUSE_CLIENTS ?? 66);
  const kibPerSecond = Number(process.env.ABUSE_READ_KIB_S ?? 1024);
  const server = await startServer();
  const outcomes: Promise<{ bytes: number; expected: number; status: number }>[] = [];
  let started = 0;
  let ended = 0;
  let receivingNow = 0;
  for (let i = 0; i < clients; i++) {
    outcomes.push(
      new Promise((resolve) => {
        const finish = (result: { bytes: number; expected: number; status: number }): void => {
          ended++;
          resolve(result);
        };
        const req = request({ host: '127.0.0.1', port: server.port, path: BIG, agent: false }, (res) => {
          const expected = Number(res.headers['content-length'] ?? -1);
          let bytes = 0;
          const counted = res.statusCode === 200;
          if (counted) {
            started++;
            receivingNow++;
          }
          res.on('close', () => {
            if (counted) receivingNow--;
          });
          // Read at about kibPerSecond: pause after each chunk for as long as it "took".
          res.on('data', (d: Buffer) => {
            bytes += d.length;
            res.pause();
            setTimeout(() => res.resume(), (d.length / 1024 / kibPerSecond) * 1000);
          });
          res.on('end', () => finish({ bytes, expected, status: res.statusCode ?? 0 }));
          res.on('error', () => finish({ bytes, expected, status: res.statusCode ?? 0 }));
          res.on('aborted', () => finish({ bytes, expected, status: res.statusCode ?? 0 }));
        });
        req.on('error', () => finish({ bytes: 0, expected: -1, status: 0 }));
        req.end();
      }),
    );
  }
  // Signal while as many answers as possible are being received (or all have started).
  const target = Math.min(clients, Number(process.env.ABUSE_SIGNAL_AT ?? 8));
  const deadline = Date.now() + 120_000;
  while (receivingNow < target && ended < clients && Date.now() < deadline) await sleep(10);
  const receiving = receivingNow;
  const endedBefore = ended;
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  const results = await Promise.all(outcomes);
  const exitMs = await new Promise<number>((resolve) => {
    if (server.child.exitCode !== null) resolve(performance.now() - signalled);
    else server.child.on('exit', () => resolve(performance.now() - signalled));
  });
  const complete = results.filter((r) => r.status === 200 && r.bytes === r.expected && r.bytes === BIG_BYTES).length;
  const cut = results.filter((r) => r.status === 200 && r.bytes !== r.expected);
  const others: Record<string, number> = {};
  for (const r of results) if (r.status !== 200) others[r.status] = (others[r.status] ?? 0) + 1;
  console.log(`sigterm: ${clients} clients reading the ${BIG_BYTES}-byte answer at ~${kibPerSecond} KiB/s; SIGTERM while ${receiving} were receiving (${endedBefore} requests done before, ${started} answers started by then or later)`);
  console.log(`  complete: ${complete}, cut: ${cut.length}${cut.length > 0 ? ` (${cut.map((r) => r.bytes).join(', ')} bytes)` : ''}, not 200: ${JSON.stringify(others)}`);
  console.log(`  server exited ${exitMs.toFixed(0)} ms after the signal; its stderr after the signal:`);
  const lines = server.stderr().split('\n');
  const from = lines.findIndex((l) => /SIGTERM/.test(l));
  for (const line of lines.slice(from)) if (line !== '') console.log(`    ${line}`);
}

const scenario = process.argv[2];
if (scenario === 'slow-readers') await slowReaders();
else if (scenario === 'idle-sockets') await idleSockets();
else if (scenario === 'sigterm') await sigterm();
else if (scenario !== undefined && (await (await import('./abuse-api.js')).runApiScenario(scenario))) {
  // An /api/v1 scenario (abuse-api.ts): api-limits, export, versions.
} else if (scenario !== undefined && (await (await import('./abuse-search.js')).runSearchScenario(scenario))) {
  // The search flood (abuse-search.ts).
} else if (scenario !== undefined && (await (await import('./abuse-sql.js')).runSqlScenario(scenario))) {
  // The SQL floods (abuse-sql.ts).
} else {
  console.error('usage: npm run bench:abuse -- slow-readers | idle-sockets | sigterm | api-limits | export | versions | search-flood | sql-flood');
  process.exit(2);
}
