/**
 * The SQL tables kept between runs, as a user meets them: `storage-inspector sql DIR "<query>"`
 * run twice, each a fresh process of the built command (dist/), with a cache directory of its own.
 * The first run builds the tables (and the one the query names), prints its answer, then keeps the
 * database in the cache before it exits; the second finds the storage unchanged and copies the
 * kept tables into its private directory. Wall times from the spawn: to the answer on stdout
 * (what the user waits for) and to the exit; the entry's size on disk.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli', 'main.js');

export interface CacheRun {
  readonly answerMs: number;
  readonly exitMs: number;
  readonly stdout: string;
}

export interface CacheRuns {
  readonly cold: CacheRun;
  readonly cached: CacheRun;
  readonly entryBytes: number;
}

function runSql(dir: string, sql: string, cacheDir: string): Promise<CacheRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'sql', dir, sql, '--format', 'csv', '--cache-dir', cacheDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let answerMs: number | undefined;
  child.stdout.on('data', (d: Buffer) => {
    answerMs ??= performance.now() - started;
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('close', (code) => {
      if (code !== 0 || answerMs === undefined) reject(new Error(`sql exited with ${code}: ${stderr}`));
      else resolve({ answerMs, exitMs: performance.now() - started, stdout });
    });
  });
}

function bytesBelow(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const stats = statSync(join(dir, name));
    if (stats.isFile()) total += stats.size;
  }
  return total;
}

export async function cacheRuns(dir: string, sql: string): Promise<CacheRuns> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'sql-bench-cache-'));
  try {
    const cold = await runSql(dir, sql, cacheDir);
    const entryBytes = bytesBelow(cacheDir);
    const cached = await runSql(dir, sql, cacheDir);
    if (cached.stdout !== cold.stdout) throw new Error(`the cached run answered differently:\n${cold.stdout}\n---\n${cached.stdout}`);
    return { cold, cached, entryBytes };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
