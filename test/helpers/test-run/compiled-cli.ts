import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { COMPILED_CLI_VARIABLE } from './cli-command.js';

/**
 * The sources of today compiled once per test run, for the tests that start the command as a
 * process: through tsx each start registered its loader, and each worker thread of the command its
 * own again, which cost 0.4-0.9 s of CPU more a start than compiled code (`check` on the graph
 * corpus: 0.7 s against 0.15 s). esbuild does here what tsx does per module (it is tsx's compiler),
 * once for all of src/, without bundling: every module stays a file of its own, so what a command
 * loads, and when, is what it loads from the sources.
 *
 * The tree is laid out as the repository is (`src/…` beside `package.json`, `node_modules`, `demo`
 * and `dist`, those linked), so the paths the code finds beside itself (the package's version, the
 * demo storage, the built viewer, the base dictionary) are the ones it finds from the sources. A
 * global setup: the path goes to the test workers in STORAGE_INSPECTOR_TEST_CLI, and the tree is
 * removed after the run.
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
  const before = process.env[COMPILED_CLI_VARIABLE];
  process.env[COMPILED_CLI_VARIABLE] = join(tree, 'src', 'cli', 'main.js');
  return () => {
    if (before === undefined) delete process.env[COMPILED_CLI_VARIABLE];
    else process.env[COMPILED_CLI_VARIABLE] = before;
    rmSync(tree, { recursive: true, force: true });
  };
}
