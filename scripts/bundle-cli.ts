/**
 * Build step after `tsc` and the other bundles: the command line's entries (dist/cli/main.js, the
 * `storage-inspector` command, and dist/cli/start.js, `npm start`) are replaced by bundles of our
 * modules they import, split where they import lazily (each command, and what a command loads only
 * when asked: PostgreSQL, SQL, MCP, the documentation server...) into dist/cli/chunks/. Node loads
 * an ES module graph file by file (find, read, parse, link each), and `serve` imported about 190 of
 * ours before its first answer: see docs/benchmarks/startup.md for what this saved. npm packages
 * and node: builtins stay imports, as does the vendored typebox (one file already); the modules
 * stay in dist/ as tsc wrote them for the library entry (dist/library/index.js) and the worker threads.
 *
 * Each module's `import.meta.url` is rewritten to the URL of the module it came from, so that
 * what it finds relative to itself (worker threads' files, package.json, the viewer, the demo
 * storage) is where it always was. Source maps lead to the TypeScript sources.
 */
import { rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { withTscMaps } from './tsc-source-maps.js';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const CLI = join(DIST, 'cli');
const CHUNKS = 'chunks';
const VENDOR = join(DIST, 'vendor') + sep;

/** Our own modules are bundled; npm packages, node: builtins and the vendored bundles are left to Node to load. */
const external = (id: string, _importer: string | undefined, isResolved: boolean): boolean =>
  isResolved ? id.startsWith(VENDOR) : !id.startsWith('.') && !isAbsolute(id);

rmSync(join(CLI, CHUNKS), { recursive: true, force: true });
const bundle = await rollup({
  input: { main: join(CLI, 'main.js'), start: join(CLI, 'start.js') },
  external,
  plugins: [
    withTscMaps,
    {
      name: 'module-urls',
      resolveImportMeta(property, { chunkId, moduleId }) {
        if (property !== 'url') return null;
        const fromChunk = relative(dirname(join(CLI, chunkId)), moduleId).split(sep).join('/');
        return `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`;
      },
    },
  ],
  onwarn(warning) {
    throw new Error(`bundling the command line: ${warning.message}`);
  },
});
await bundle.write({ dir: CLI, format: 'es', sourcemap: true, entryFileNames: '[name].js', chunkFileNames: `${CHUNKS}/[name]-[hash].js` });
await bundle.close();
