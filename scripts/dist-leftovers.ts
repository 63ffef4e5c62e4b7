import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What in dist/ no source of src/ makes any more: tsc writes over dist/ but never removes the
 * output of a source file moved, renamed or removed, which stayed loadable by a path src/ no
 * longer has (and packed by npm pack). The bundles are written whole by their own steps.
 */

/** Written as a whole by their own build steps (rollup's chunks, the vendored bundles, vite's viewer). */
export const BUNDLE_FOLDERS: readonly string[] = ['cli/chunks/', 'vendor/', 'viewer/'];

/** The source in src/ a file of dist/ comes from: tsc's outputs from the .ts, a data file from itself. */
function sourceOf(path: string): string {
  return path.replace(/\.(js|d\.ts|js\.map)$/, '.ts');
}

/**
 * Every path under `dist` (relative to it), folders before what they hold. Links are listed, never
 * followed (readdirSync's `recursive` follows a link to a folder and lists what lies outside).
 */
function walk(dist: string, folder = ''): { readonly path: string; readonly folder: boolean }[] {
  const found: { path: string; folder: boolean }[] = [];
  for (const entry of readdirSync(join(dist, folder), { withFileTypes: true })) {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    found.push({ path, folder: entry.isDirectory() });
    if (entry.isDirectory()) found.push(...walk(dist, path));
  }
  return found;
}

/** The files (and links) of `dist` outside the bundles whose source is not in `src`, as paths relative to `dist`. */
export function sourcelessFiles(dist: string, src: string): string[] {
  return walk(dist)
    .filter((entry) => !entry.folder && !BUNDLE_FOLDERS.some((bundle) => entry.path.startsWith(bundle)))
    .map((entry) => entry.path)
    .filter((path) => !existsSync(join(src, sourceOf(path))))
    .sort();
}

/**
 * Removes `sourcelessFiles` and the folders that leaves empty; what was removed. A link is removed,
 * never followed: nothing outside `dist` is touched.
 */
export function pruneDist(dist: string, src: string): string[] {
  const removed = sourcelessFiles(dist, src);
  for (const path of removed) rmSync(join(dist, path), { force: true });
  const folders = walk(dist).filter((entry) => entry.folder).map((entry) => entry.path);
  // Deepest first, so that a folder holding only empty folders goes too.
  for (const folder of folders.reverse()) {
    if (readdirSync(join(dist, folder)).length === 0) rmdirSync(join(dist, folder));
  }
  return removed;
}
