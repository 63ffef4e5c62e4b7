/**
 * Build step after `tsc`: each worker thread's entry in dist/ is replaced by a bundle of the
 * modules it imports (npm packages and node: builtins stay imports). A worker thread starts with
 * an empty module cache, and loading a dozen small ES modules one by one cost each thread about
 * 8 ms of CPU while the opening thread and the other workers start too: opening the 10M benchmark
 * storage (two index threads) took 313 instead of 323 ms (medians of six alternated opens), the
 * graph build's decode thread started 6 ms sooner. The code is the same; only how it is loaded
 * changes.
 *
 * Rollup, not esbuild: esbuild turns every top-level `const` of a bundle into `var`, and V8
 * folds a module's `const` numbers into compiled code but loads a `var` each time it is used
 * (the run's word count, the bits of a packed run entry, the record header's size in the walk
 * over every record): with esbuild's bundle, opening the 10M benchmark storage took 302 ms, with
 * the same bundle's constants declared `const` 283 ms (medians of eight alternated opens).
 */
import { readdirSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { withTscMaps } from './tsc-source-maps.js';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/**
 * The files `startWorker` (src/threads/worker-thread.ts) starts, relative to dist/: by the
 * project's naming, `<name>-worker.js`, so that a new worker thread is bundled too.
 */
const WORKER_ENTRIES = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('-worker.js'));

/** Our own modules are bundled; npm packages and node: builtins are left to Node to load. */
const external = (id: string): boolean => !id.startsWith('.') && !isAbsolute(id);

for (const entry of WORKER_ENTRIES) {
  const path = join(DIST, entry);
  // In place: rollup has read every input before `write`.
  const bundle = await rollup({
    input: path,
    external,
    plugins: [withTscMaps],
    onwarn(warning) {
      throw new Error(`bundling ${entry}: ${warning.message}`);
    },
  });
  await bundle.write({ file: path, format: 'es', sourcemap: true });
  await bundle.close();
}
