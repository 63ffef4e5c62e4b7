/**
 * Build step after `tsc`: each worker thread's entry in dist/ is replaced by a bundle of the
 * modules it imports (npm packages stay imports). A worker thread starts with an empty module
 * cache, and loading a dozen small ES modules one by one cost each thread about 8 ms of CPU while
 * the opening thread and the other workers start too: opening the 10M benchmark storage (two index
 * threads) took 313 instead of 323 ms (medians of six alternated opens), the graph build's decode
 * thread started 6 ms sooner. The code is the same; only how it is loaded changes.
 */
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/**
 * The files `startWorker` (src/storage/worker-thread.ts) starts, relative to dist/: by the
 * project's naming, `<name>-worker.js`, so that a new worker thread is bundled too.
 */
const WORKER_ENTRIES = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('-worker.js'));

for (const entry of WORKER_ENTRIES) {
  const path = join(DIST, entry);
  // In place: esbuild reads every input (and the source maps tsc wrote beside them) before it
  // writes, so the bundle's map leads back to the TypeScript sources.
  await build({
    entryPoints: [path],
    outfile: path,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}
