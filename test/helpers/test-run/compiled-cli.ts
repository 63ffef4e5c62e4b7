import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { COMPILED_SOURCES_VARIABLE } from '../../../src/threads/worker-thread.js';

/**
 * The sources of today compiled once per test run, for the tests that start the command as a
 * process and for the worker threads our code starts in the tests' own processes: through tsx each
 * start of the command registered its loader, and each worker thread registered it again, which
 * cost 0.4-0.9 s of CPU more a command than compiled code (`check` on the graph corpus: 0.7 s
 * against 0.25 s) and 0.3-0.55 s more a thread (against 0.07-0.09 s). esbuild does here what tsx
 * does per module (it is tsx's compiler), once for all of src/, without bundling: every module
 * stays a file of its own, so what a command loads, and when, is what it loads from the sources.
 *
 * The tree is laid out as the repository is (`src/…` beside `package.json`, `node_modules`, `demo`
 * and `dist`, those linked), so the paths the code finds beside itself (the package's version, the
 * demo storage, the built viewer, the base dictionary) are the ones it finds from the sources. A
 * global setup: the copy's src/ goes to the test workers in STORAGE_INSPECTOR_COMPILED_SOURCES
 * (read by cliCommand and by src/threads/worker-thread.ts), and the tree is removed after the run.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export default async function setup(): Promise<() => void> {
  const tree = mkdtempSync(join(tmpdir(), 'storage-inspector-test-cli-'));
  await build({
    entryPoints: [join(ROOT, 'src', '**', '*.ts')],
    outbase: join(ROOT, 'src'),
    outdir: join(tree, 'src'),
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  // What the sources read beside themselves that is not TypeScript (the base dictionary's text).
  cpSync(join(ROOT, 'src'), join(tree, 'src'), { recursive: true, filter: (path) => !path.endsWith('.ts') && !path.endsWith('README.md') });
  for (const name of ['package.json', 'node_modules', 'demo', 'dist']) symlinkSync(join(ROOT, name), join(tree, name));
  const before = process.env[COMPILED_SOURCES_VARIABLE];
  process.env[COMPILED_SOURCES_VARIABLE] = join(tree, 'src');
  return () => {
    if (before === undefined) delete process.env[COMPILED_SOURCES_VARIABLE];
    else process.env[COMPILED_SOURCES_VARIABLE] = before;
    rmSync(tree, { recursive: true, force: true });
  };
}
