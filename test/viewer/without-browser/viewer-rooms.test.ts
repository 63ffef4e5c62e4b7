import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../browser.js';

/**
 * The viewer's rooms (viewer/src/*): imports point the way each room's README says, and each
 * README names every file of its room. The shell composes everything; views and grids reach the
 * shell only through view-host.ts and router.ts (the application reaches them, not the reverse).
 */

const SRC = path.join(REPO_ROOT, 'viewer', 'src');

/** Rooms each room may import from (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  model: [],
  ui: [],
  tree: ['model', 'ui'],
  grid: ['model', 'ui', 'shell/view-host.ts', 'shell/router.ts'],
  views: ['model', 'ui', 'tree', 'grid', 'shell/view-host.ts', 'shell/router.ts'],
  shell: ['model', 'ui', 'tree', 'grid', 'views'],
};

const rooms = readdirSync(SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => path.relative(SRC, path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts'))).split(path.sep).join('/'));
}

describe('viewer rooms', () => {
  it('are the rooms the plan names', () => {
    expect(rooms).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it.each(Object.keys(MAY_IMPORT))('%s imports only what it may', (room) => {
    const allowed = MAY_IMPORT[room]!;
    const wrong: string[] = [];
    for (const file of readdirSync(path.join(SRC, room)).filter((f) => f.endsWith('.ts'))) {
      for (const target of importsOf(path.join(SRC, room, file))) {
        const targetRoom = target.includes('/') ? target.slice(0, target.indexOf('/')) : '';
        if (targetRoom === room || target.endsWith('.css')) continue;
        if (!allowed.includes(targetRoom) && !allowed.includes(target)) wrong.push(`${room}/${file} → ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(Object.keys(MAY_IMPORT))('%s/README.md names each of its files', (room) => {
    const readme = readFileSync(path.join(SRC, room, 'README.md'), 'utf8');
    const files = readdirSync(path.join(SRC, room)).filter((f) => f.endsWith('.ts') || f.endsWith('.css'));
    expect(files.filter((f) => !readme.includes(`\`${f}\``))).toEqual([]);
  });
});
