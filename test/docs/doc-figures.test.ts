import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../viewer/browser.js';

/**
 * Figures in the documentation that the build decides: checked against it, so that they cannot
 * drift (a change of the viewer that changes its size makes this fail with the figures to write).
 */

const VIEWER_DOC = join(REPO_ROOT, 'docs', 'viewer.md');
const ASSETS = join(REPO_ROOT, 'dist', 'viewer', 'assets');

/** kB as Vite prints them (1,000 bytes), one decimal. */
const kB = (bytes: number): string => (bytes / 1000).toFixed(1);

describe('documented figures', () => {
  it('the viewer bundle sizes are those of the build', () => {
    expect(existsSync(ASSETS), 'the viewer is not built: npm run build').toBe(true);
    // The Query view and its editor are chunks of their own, loaded when that view is opened.
    const lazy = (f: string): boolean => f.startsWith('query-view-') || f.startsWith('sql-editor-');
    const sized = (pick: (f: string) => boolean): { raw: number; gzip: number } => {
      const files = readdirSync(ASSETS).filter(pick);
      expect(files.length).toBeGreaterThan(0);
      return files
        .map((f) => readFileSync(join(ASSETS, f)))
        .reduce((sum, bytes) => ({ raw: sum.raw + bytes.length, gzip: sum.gzip + gzipSync(bytes).length }), { raw: 0, gzip: 0 });
    };
    const js = sized((f) => f.endsWith('.js') && !lazy(f));
    const css = sized((f) => f.endsWith('.css'));
    const query = sized((f) => f.endsWith('.js') && lazy(f));
    const expected =
      `about ${Math.round((js.raw + css.raw) / 1000)} kB, ${Math.round((js.gzip + css.gzip) / 1000)} kB gzipped ` +
      `(JS ${kB(js.raw)} kB / ${kB(js.gzip)} kB, CSS ${kB(css.raw)} kB / ${kB(css.gzip)} kB); ` +
      `the Query view with its editor is a chunk of its own, ${kB(query.raw)} kB / ${kB(query.gzip)} kB,`;
    const text = readFileSync(VIEWER_DOC, 'utf8').replace(/\s+/g, ' ');
    expect(text).toContain(expected);
  });
});
