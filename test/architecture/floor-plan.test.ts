import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLOOR_PLAN } from './floor-plan.js';

/**
 * Keeps the floor plan of src/ true (floor-plan.ts): every import of our own code points where the
 * plan allows, and no module imports itself through others (no circle, whatever the folders).
 * Imports are read as text: static `import`/`export … from`, and `import()` of a literal path.
 */
const SRC = 'src';
const IMPORT = /(?:(?:import|export)\s(?:[^'";]*?\sfrom\s*)?|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module below `root` (paths relative to it) with the modules of ours it imports. */
function moduleGraph(root: string): { files: string[]; imports: Map<string, string[]> } {
  const files = sourceFiles(root).map((path) => relative(root, path).split('\\').join('/'));
  const known = new Set(files);
  const imports = new Map<string, string[]>(
    files.map((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      const targets = [...text.matchAll(IMPORT)].map((m) => posix.normalize(posix.join(posix.dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
      return [file, targets.filter((target) => known.has(target))];
    }),
  );
  return { files, imports };
}

/** Modules that reach themselves through others (Tarjan's strongly connected components). */
function circles(files: readonly string[], imports: ReadonlyMap<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of imports.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

const { files, imports } = moduleGraph(SRC);
const roomOf = (file: string): string => (dirname(file) === '.' ? '' : dirname(file).split('\\').join('/'));

function allowed(from: string, to: string): boolean {
  if (to === '' || to === from) return true; // src/errors.ts, and the room itself
  return (FLOOR_PLAN[from] ?? []).some((rule) => rule === to || rule === '**' || (rule.endsWith('/**') && (to === rule.slice(0, -3) || to.startsWith(rule.slice(0, -2)))));
}

describe('floor plan of src/', () => {
  it('names every folder', () => {
    const rooms = [...new Set(files.map(roomOf))].filter((room) => room !== '');
    expect(rooms.filter((room) => !(room in FLOOR_PLAN))).toEqual([]);
  });

  it('every import points where the plan allows', () => {
    const wrong = [...imports].flatMap(([file, targets]) =>
      targets.filter((target) => !allowed(roomOf(file), roomOf(target))).map((target) => `${file} → ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('has no import circles', () => {
    expect(circles(files, imports)).toEqual([]);
  });
});

describe('the web viewer', () => {
  it('has no import circles (views reach the application through view-host.ts)', () => {
    const viewer = moduleGraph(join('viewer', 'src'));
    expect(viewer.files.length).toBeGreaterThan(20);
    expect(circles(viewer.files, viewer.imports)).toEqual([]);
  });
});
