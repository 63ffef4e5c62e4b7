/**
 * Build step after `tsc`: typebox (the /api/v1 schemas) is bundled into one file,
 * dist/vendor/typebox.js, and the compiled modules import that file instead of the package.
 * typebox ships as 373 small ES modules; Node loads an ES module graph file by file, and loading
 * it cost every `serve` about 130 ms of CPU before the first answer, the bundle about 12 ms
 * (`process.cpuUsage()` around the import, three runs each). The code is typebox's own,
 * unchanged; the types still come from the package (only .js files are rewritten).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const VENDOR_FILE = join(DIST, 'vendor', 'typebox.js');

/** The package's ES module entry, as Node resolves `import 'typebox'`. */
const entry = fileURLToPath(import.meta.resolve('typebox'));
/** The package's own package.json (not exported: found beside its build/ folder). */
const version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;

const bundle = await rollup({
  input: entry,
  onwarn(warning) {
    // typebox's modules import each other in circles (functions only, called after loading): kept as they are.
    if (warning.code === 'CIRCULAR_DEPENDENCY') return;
    throw new Error(`bundling typebox: ${warning.message}`);
  },
});
await bundle.write({ file: VENDOR_FILE, format: 'es', banner: `/* typebox ${version} (MIT), bundled from ${relative(join(DIST, '..'), entry).split(sep).join('/')} */` });
await bundle.close();

/** `from 'typebox'` (static imports and re-exports, as tsc writes them) in every compiled module. */
const IMPORT = /(\bfrom\s*)(['"])typebox\2/g;
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
if (rewritten === 0) throw new Error("bundling typebox: no compiled module imports 'typebox' (has the import changed?)");
