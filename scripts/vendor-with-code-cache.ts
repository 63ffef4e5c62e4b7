/**
 * A CommonJS package and what it requires, bundled for the command line with V8's code cache
 * (bundle-fastify.ts, bundle-commander.ts). The bundle, dist/vendor/NAME.cjs, is the packages'
 * code, unchanged; dist/vendor/NAME.js, which the compiled modules import instead of the package,
 * compiles it as Node compiles a CommonJS file (the same function wrapper, `require` from its
 * place) through node:vm with `cachedData`, dist/vendor/NAME.cjs.cache. The cache is made here by
 * a plain `node` (the flags the command line runs with) that loads the bundle and runs `training`,
 * so that what the package compiles lazily on that path is in it too: then it is read, not
 * compiled, on every launch (Node 20 has no compile cache of its own; docs/benchmarks/startup.md).
 * V8 refuses a cache made by another V8 version or with other flags; the bundle is then
 * compiled as without one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');

export interface VendoredPackage {
  /** The package, as imported (`fastify`); its bundle is dist/vendor/NAME.js. */
  readonly name: string;
  /** Packages it requires that stay in node_modules (loaded when first needed). */
  readonly external: readonly string[];
  /**
   * Module code run by the process that makes the cache: `vendored` is the module's namespace
   * (default export: the package's exports). It should take the paths the command line takes.
   */
  readonly training: string;
}

export async function vendorWithCodeCache({ name, external, training }: VendoredPackage): Promise<void> {
  const require = createRequire(join(ROOT, 'package.json'));
  const vendorFile = join(DIST, 'vendor', `${name}.js`);
  const bundleFile = join(DIST, 'vendor', `${name}.cjs`);
  const cacheFile = `${bundleFile}.cache`;
  const exported = require(name) as Record<string, unknown>;
  const version = packageVersion(require.resolve(name), name);
  /** The package's named exports as Node's CommonJS interop offers them to `import { … } from 'NAME'`. */
  const named = Object.keys(exported).filter((key) => key !== 'default' && /^[A-Za-z_$][\w$]*$/.test(key));
  const what = `${name} ${version} and the packages it requires at load time, bundled from node_modules`;

  await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(name)});\n`, resolveDir: ROOT, sourcefile: `${name}-entry.js` },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundleFile,
    external: [...external],
    banner: { js: `/* ${what} (their licenses inline) */` },
    legalComments: 'inline',
    logLevel: 'warning',
  });

  // The script is exported for the step below, which makes the cache (and for a test that checks V8 takes it).
  writeFileSync(
    vendorFile,
    `/* ${what}: ${name}.cjs, compiled with V8's code cache ${name}.cjs.cache (scripts/vendor-with-code-cache.ts) */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
const file = fileURLToPath(new URL('./${name}.cjs', import.meta.url));
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

  rmSync(cacheFile, { force: true });
  const script = `import { writeFileSync } from 'node:fs';
const vendored = await import(${JSON.stringify(pathToFileURL(vendorFile).href)});
${training}
writeFileSync(${JSON.stringify(cacheFile)}, vendored.vendorScript.createCachedData());
`;
  const { NODE_OPTIONS: _ignored, ...plainEnv } = process.env;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit', env: plainEnv });

  /** `from 'NAME'` (static imports, as tsc writes them) in every compiled module. */
  const importOf = new RegExp(`(\\bfrom\\s*)(['"])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\2`, 'g');
  let rewritten = 0;
  for (const path of readdirSync(DIST, { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.js') || path.startsWith(`vendor${sep}`)) continue;
    const file = join(DIST, path);
    const code = readFileSync(file, 'utf8');
    importOf.lastIndex = 0;
    if (!importOf.test(code)) continue;
    let target = relative(dirname(file), vendorFile).split(sep).join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    writeFileSync(file, code.replace(importOf, (_match, from: string, quote: string) => `${from}${quote}${target}${quote}`));
    rewritten++;
  }
  if (rewritten === 0) throw new Error(`bundling ${name}: no compiled module imports '${name}' (has the import changed?)`);
}

/** The version in the package's package.json, found above its entry (not every package exports it). */
function packageVersion(entry: string, name: string): string {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const found = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (found.name === name && found.version !== undefined) return found.version;
  }
  throw new Error(`bundling ${name}: no package.json of it above ${entry}`);
}
