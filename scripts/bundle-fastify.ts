/**
 * Build step after `tsc` (beside bundle-typebox.ts): fastify and the CommonJS packages it
 * `require`s at load time (avvio, find-my-way, pino, semver, light-my-request …, about 85 files)
 * are bundled into one file, dist/vendor/fastify.cjs, and the compiled modules import
 * dist/vendor/fastify.js, which loads it, instead of the package. Node finds, reads and compiles a
 * CommonJS package file by file; on every `serve` that cost about 40 ms of CPU before the first
 * answer (docs/benchmarks.md, Start-up). The code is the packages' own, unchanged; the types still
 * come from the package.
 *
 * dist/vendor/fastify.js compiles the bundle with V8's code cache (node:vm `cachedData`), made
 * here by a Node process that loads it and runs a small server through a request: what fastify
 * compiles to start and answer is then read, not compiled, on every launch (Node 20 has no compile
 * cache of its own). V8 refuses a cache made by another V8 version or with other flags; the
 * bundle is then compiled as without one.
 *
 * Left outside, so that they still load only when first needed (and test/cli/startup-loading
 * sees when they do): the schema compilers (ajv, fast-json-stringify and fastify's wrappers,
 * loaded on a route's first schema) and pino's pretty printer and transports.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const VENDOR_FILE = join(DIST, 'vendor', 'fastify.js');
const BUNDLE_FILE = join(DIST, 'vendor', 'fastify.cjs');
const CACHE_FILE = `${BUNDLE_FILE}.cache`;
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
  stdin: { contents: `module.exports = require('fastify');\n`, resolveDir: ROOT, sourcefile: 'fastify-entry.js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: BUNDLE_FILE,
  external: LOADED_WHEN_NEEDED,
  banner: { js: `/* fastify ${version} (MIT) and the packages it requires at load time, bundled from node_modules */` },
  legalComments: 'inline',
  logLevel: 'warning',
});

/**
 * The module the compiled code imports: the bundle compiled as Node compiles a CommonJS file (the
 * same function wrapper, `require` from its place), with the code cache when there is one. The
 * script is exported for the step below, which makes the cache.
 */
writeFileSync(
  VENDOR_FILE,
  `/* fastify ${version} (MIT) and the packages it requires at load time: fastify.cjs, compiled with V8's code cache fastify.cjs.cache (scripts/bundle-fastify.ts) */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
const file = fileURLToPath(new URL('./fastify.cjs', import.meta.url));
let cachedData;
try {
  cachedData = readFileSync(\`\${file}.cache\`);
} catch {
  // No cache (not made, or removed): compiled as without one.
}
export const vendorScript = new Script(\`(function (exports, require, module, __filename, __dirname) {\${readFileSync(file, 'utf8')}\\n})\`, { filename: file, cachedData });
const module = { exports: {} };
vendorScript.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
export default module.exports;
export const { ${named.join(', ')} } = module.exports;
`,
);

/**
 * The code cache: made by a Node process of its own (the flags of a plain \`node\`, as the command
 * line runs), after a server has started, answered three requests (a route with a parameter,
 * another, a 404) and closed, so that what fastify compiles lazily on those paths is in it too.
 */
rmSync(CACHE_FILE, { force: true });
const training = `
import { writeFileSync } from 'node:fs';
const { default: fastify, vendorScript } = await import(${JSON.stringify(pathToFileURL(VENDOR_FILE).href)});
const app = fastify({ logger: { level: 'info', stream: { write() {} } } });
app.addHook('onRequest', async () => {});
app.addHook('onSend', async (_request, _reply, payload) => payload);
await app.register(async (scope) => {
  scope.get('/things/:id', async (request) => ({ id: request.params.id }));
}, { prefix: '/api' });
app.get('/', async (_request, reply) => reply.type('application/json').send('{}'));
await app.ready();
await app.listen({ host: '127.0.0.1', port: 0 });
const base = 'http://127.0.0.1:' + app.server.address().port;
for (const path of ['/api/things/1', '/', '/nothing']) await (await fetch(base + path)).text();
await app.close();
writeFileSync(${JSON.stringify(CACHE_FILE)}, vendorScript.createCachedData());
`;
const { NODE_OPTIONS: _ignored, ...plainEnv } = process.env;
execFileSync(process.execPath, ['--input-type=module', '-e', training], { stdio: 'inherit', env: plainEnv });

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
