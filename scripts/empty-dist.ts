/**
 * First build step: dist/ removed, so that the build writes it from nothing. tsc, the rollup
 * bundles and vite (dist/viewer/, `emptyOutDir`) overwrite what they write but tsc never removes
 * what it no longer writes: the output of a source file moved, renamed or removed stayed in dist/
 * (and in a package packed from it), loadable by a path that no longer exists in src/.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'), { recursive: true, force: true });
