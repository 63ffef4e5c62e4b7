import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { COMPILED_SOURCES_VARIABLE } from '../../../src/threads/worker-thread.js';

/**
 * How a test starts a TypeScript script of its own (a child in test/, or a module text given to
 * `node -e`) as a process: against the run's compiled copy of src/ (compiled-cli.ts), as the
 * started commands are, instead of through tsx. tsx's loader registered in a child cost it
 * 0.4-0.9 s of CPU (compiled-cli.ts); here the child imports the very modules the commands
 * started in the same run import. In a run without that copy, the sources through tsx as before.
 */

const SOURCE_ROOT = resolve(import.meta.dirname, '..', '..', '..', 'src');

function compiledSources(): string | undefined {
  const compiled = process.env[COMPILED_SOURCES_VARIABLE];
  return compiled !== undefined && compiled !== '' ? compiled : undefined;
}

/** The compiled copy's module for a module of src/ (`.ts` or `.js` in the import), or undefined outside src/. */
function compiledModule(compiled: string, path: string): string | undefined {
  const inside = relative(SOURCE_ROOT, path);
  if (inside.startsWith('..') || inside === '') return undefined;
  return join(compiled, inside.replace(/\.(ts|js)$/, '.js'));
}

/**
 * The path of a module of src/ for a `node -e` module text (`src/sql/duck-module.ts`, relative to
 * the repository), with `nodeImports()` the arguments that text needs to load it.
 */
export function sourceModule(pathInRepository: string): string {
  const source = resolve(SOURCE_ROOT, '..', pathInRepository);
  const compiled = compiledSources();
  return compiled === undefined ? source : compiledModule(compiled, source)!;
}

/** The `node` arguments that loading `sourceModule`s needs: none from the compiled copy, tsx's loader from the sources. */
export function nodeImports(): string[] {
  return compiledSources() === undefined ? ['--import', 'tsx'] : [];
}

const compiledScripts = new Map<string, Promise<string>>();

/**
 * The `node` arguments that run `script` (a .ts file of the tests): the script with the test
 * helpers it imports compiled into one file beside the compiled copy (so its packages resolve
 * from the repository's node_modules), every module of src/ it reaches imported from the copy,
 * not bundled into it. Compiled once per test process.
 */
export async function childScript(script: string): Promise<string[]> {
  const compiled = compiledSources();
  if (compiled === undefined) return ['--import', 'tsx', script];
  let done = compiledScripts.get(script);
  if (done === undefined) {
    // A name of its own: test files in other processes of the run may compile the same script at once.
    const out = join(dirname(compiled), 'test-children', `${randomUUID()}.mjs`);
    mkdirSync(dirname(out), { recursive: true });
    done = build({
      entryPoints: [script],
      outfile: out,
      bundle: true,
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'error',
      plugins: [
        {
          name: 'sources-from-the-compiled-copy',
          setup(context) {
            context.onResolve({ filter: /^\./ }, (args) => {
              const module = compiledModule(compiled, resolve(args.resolveDir, args.path));
              return module === undefined ? undefined : { path: module, external: true };
            });
          },
        },
      ],
    }).then(() => out);
    compiledScripts.set(script, done);
  }
  return [await done];
}
