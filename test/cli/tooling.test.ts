import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirectories } from '../../src/writer/make-directories.js';
import { pruneDist, sourcelessFiles } from '../../scripts/dist-leftovers.js';
import { screenshotOutput } from '../../scripts/screenshot-output.js';
import { spawnCli } from '../security/cli.js';
import { browserSkipReason, chromiumPath, CHROMIUM_ENV, REPO_ROOT } from '../viewer/browser.js';

/** The tools around the code: output directories, the browser the tests drive, the screenshot script. */

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-tooling-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('output directories', () => {
  it('generate refuses an --out that cannot be created, at once (Node hangs creating /proc/x recursively)', async () => {
    if (!existsSync('/proc/self')) return; // the case only exists where /proc does
    const run = spawnCli(['generate', '--entities', '100', '--out', '/proc/storage-inspector-test/x']);
    const exit = await run.exit;
    expect(exit.code).toBe(2);
    expect(run.stderr()).toContain("--out cannot create the directory /proc/storage-inspector-test/x: ENOENT: no such file or directory, mkdir '/proc/storage-inspector-test'");
  });

  it('creates missing levels one by one, and names what is in the way', () => {
    makeDirectories(join(tmp, 'a', 'b', 'c'));
    expect(statSync(join(tmp, 'a', 'b', 'c')).isDirectory()).toBe(true);
    makeDirectories(join(tmp, 'a', 'b', 'c'));
    writeFileSync(join(tmp, 'file'), 'x');
    expect(() => makeDirectories(join(tmp, 'file', 'sub'))).toThrow(`cannot create the directory ${join(tmp, 'file', 'sub')}: ${join(tmp, 'file')} is not a directory`);
  });
});

describe('the browser of the tests', () => {
  it('is Debian chromium unless the environment names another', () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ [CHROMIUM_ENV]: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
  });

  it('when missing, the browser tests say so outside CI and fail in CI', () => {
    const missing = join(tmp, 'no-chromium');
    expect(browserSkipReason({ [CHROMIUM_ENV]: missing })).toBe(
      `${missing} is missing (apt-get install chromium, or name another chromium in ${CHROMIUM_ENV}); in CI they fail instead`,
    );
    expect(browserSkipReason({ [CHROMIUM_ENV]: missing, CI: 'true' })).toBeUndefined();
    expect(browserSkipReason({ [CHROMIUM_ENV]: process.execPath })).toBeUndefined();
  });
});

describe('npm run screenshots', () => {
  it('writes to test-artifacts unless asked to replace the README pictures', () => {
    expect(screenshotOutput([], REPO_ROOT)).toBe(join(REPO_ROOT, 'test-artifacts/screenshots'));
    expect(screenshotOutput(['--readme'], REPO_ROOT)).toBe(join(REPO_ROOT, 'docs/screenshots'));
    expect(screenshotOutput(['--out', join(tmp, 'shots')], REPO_ROOT)).toBe(join(tmp, 'shots'));
    expect(() => screenshotOutput(['--out'], REPO_ROOT)).toThrow('--out needs a directory');
  });
});

describe('npm run build', () => {
  it('leaves in dist/ only what the sources of today make: the output of a source moved or removed goes', () => {
    const dist = join(REPO_ROOT, 'dist');
    if (!existsSync(join(dist, 'cli', 'main.js'))) throw new Error('the package is not built: run npm run build');
    // tsc's output beside the modules of src/ (and the data files copied there); the bundles
    // (cli/chunks/, vendor/, viewer/) are written as a whole by their own steps.
    // Before, the build wrote over dist/ and never emptied it: the output of files moved since (dist/http/api-v1/object-routes.js and at least 30 more) stayed.
    expect(sourcelessFiles(dist, join(REPO_ROOT, 'src'))).toEqual([]);
  });

  it('prunes what no source makes any more, and nothing else: dist/ is never emptied', () => {
    // A dist/ and a src/ of their own: the step removes a moved module's outputs and the folder
    // they leave empty, keeps every output with a source, the data files and the bundles, and
    // removes a link without following it.
    const root = join(tmp, 'prune');
    const file = (path: string): void => {
      makeDirectories(dirname(join(root, path)));
      writeFileSync(join(root, path), path);
    };
    for (const path of ['src/cli/main.ts', 'src/format/base-types.txt', 'src/http/api-v1/sql-routes.ts']) file(path);
    const kept = ['cli/main.js', 'cli/main.d.ts', 'cli/main.js.map', 'format/base-types.txt', 'http/api-v1/sql-routes.js', 'cli/chunks/sql-engine-x.js', 'vendor/typebox.js', 'viewer/index.html'];
    const stale = ['http/api-v1/object-routes.js', 'http/api-v1/object-routes.d.ts', 'http/api-v1/object-routes.js.map', 'http/old/gone.js'];
    for (const path of [...kept, ...stale]) file(`dist/${path}`);
    const outside = join(root, 'outside');
    file('outside/keep.js');
    symlinkSync(outside, join(root, 'dist', 'http', 'linked'));
    expect(pruneDist(join(root, 'dist'), join(root, 'src'))).toEqual([...stale, 'http/linked'].sort());
    expect(readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(root, 'dist', path)).isFile()).sort()).toEqual([...kept].sort());
    expect(existsSync(join(root, 'dist', 'http', 'old'))).toBe(false);
    expect(readdirSync(outside)).toEqual(['keep.js']);
  });

  it('runs the prune right after tsc, and empties dist/ at no step: a failed or running build leaves it whole', () => {
    const steps = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build.split(' && ');
    expect(steps.slice(0, 2)).toEqual(['tsc -p tsconfig.build.json', 'tsx scripts/prune-dist.ts']);
    // Before, the first step removed dist/: for the 2 minutes of a build, and after one stopped by a
    // type error, the built command, the viewer and the data files were missing.
    expect(steps.filter((step) => /empty-dist|rm -rf|rimraf/.test(step))).toEqual([]);
  });
});
