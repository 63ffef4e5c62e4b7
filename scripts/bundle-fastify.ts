/**
 * Build step after `tsc` (beside bundle-typebox.ts): fastify and the CommonJS packages it
 * `require`s at load time (avvio, find-my-way, pino, semver, light-my-request …, about 85 files)
 * are bundled into one file, dist/vendor/fastify.js, and the compiled modules import that file
 * instead of the package. Node finds, reads and compiles a CommonJS package file by file; on
 * every `serve` that cost about 40 ms of CPU before the first answer (docs/benchmarks.md,
 * Start-up). The code is the packages' own, unchanged; the types still come from the package.
 *
 * Left outside, so that they still load only when first needed (and test/cli/startup-loading
 * sees when they do): the schema compilers (ajv, fast-json-stringify and fastify's wrappers,
 * loaded on a route's first schema) and pino's pretty printer and transports.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const VENDOR_FILE = join(DIST, 'vendor', 'fastify.js');
const require = createRequire(join(ROOT, 'package.json'));

/** Packages fastify requires only when asked (a schema, a pretty log): they stay in node_modules. */
const LOADED_WHEN_NEEDED = [
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'ajv',
  'ajv-formats',
  'fast-json-stringify',
  'pino-pretty',
];

const fastify = require('fastify') as Record<string, unknown>;
const version = (JSON.parse(readFileSync(require.resolve('fastify/package.json'), 'utf8')) as { version: string }).version;
/** The package's named exports as Node's CommonJS interop offers them to `import { … } from 'fastify'`. */
const named = Object.keys(fastify).filter((name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name));

await build({
  stdin: {
    contents: `import __fastify from 'fastify';\nexport default __fastify;\nexport const { ${named.join(', ')} } = __fastify;\n`,
    resolveDir: ROOT,
    sourcefile: 'fastify-entry.js',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: VENDOR_FILE,
  external: LOADED_WHEN_NEEDED,
  // The bundled CommonJS code `require`s node: builtins and the packages left outside.
  banner: { js: `/* fastify ${version} (MIT) and the packages it requires at load time, bundled from node_modules */\nimport { createRequire as __vendorRequire } from 'node:module';\nconst require = __vendorRequire(import.meta.url);` },
  legalComments: 'inline',
  logLevel: 'warning',
});

/** `from 'fastify'` (static imports, as tsc writes them) in every compiled module. */
const IMPORT = /(\bfrom\s*)(['"])fastify\2/g;
let rewritten = 0;
for (const path of readdirSync(DIST, { recursive: true, encoding: 'utf8' })) {
  if (!path.endsWith('.js') || path.startsWith(`vendor${sep}`)) continue;
  const file = join(DIST, path);
  const code = readFileSync(file, 'utf8');
  if (!IMPORT.test(code)) continue;
  let target = relative(dirname(file), VENDOR_FILE).split(sep).join('/');
  if (!target.startsWith('.')) target = `./${target}`;
  writeFileSync(file, code.replace(IMPORT, (_match, from: string, quote: string) => `${from}${quote}${target}${quote}`));
  rewritten++;
}
if (rewritten === 0) throw new Error("bundling fastify: no compiled module imports 'fastify' (has the import changed?)");
