/**
 * Build step after `tsc`: the files of src/ that are data, not code (`*.txt`: base-dictionary.txt,
 * the table of a fresh storage's type dictionary), copied to the same place in dist/, where the
 * module beside them reads them (`new URL('./…', import.meta.url)`; bundle-cli.ts keeps each
 * module's `import.meta.url`). tsc copies only what it compiles.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');

const DATA = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.txt'));
for (const path of DATA) {
  mkdirSync(dirname(join(DIST, path)), { recursive: true });
  copyFileSync(join(SRC, path), join(DIST, path));
}
