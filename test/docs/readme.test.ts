import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../viewer/browser.js';

/**
 * The commands of the README and of the documentation under docs/ run this project's code. `npx storage-inspector` alone would fetch and run
 * whatever the npm registry holds under that name (not this tool); inside a clone it must be
 * `npx --no-install`, and outside one the command is installed from the clone.
 */

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
/** The README and every .md under docs/ (docs/benchmarks/ too), as one text (the examples moved from the README into docs/). */
const DOCS = [README, ...readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => readFileSync(join(REPO_ROOT, 'docs', f), 'utf8'))].join('\n');

/** The lines of the README's code blocks. */
function codeLines(markdown: string): string[] {
  const lines: string[] = [];
  let inBlock = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inBlock = !inBlock;
    else if (inBlock || line.startsWith('    ')) lines.push(line.trim());
  }
  return lines;
}

describe('README and docs commands', () => {
  it('never runs storage-inspector through npx without --no-install', () => {
    const npx = [...codeLines(DOCS), ...[...DOCS.matchAll(/`([^`]*npx [^`]*)`/g)].map((m) => m[1] as string)].filter((l) => /\bnpx\b.*storage-inspector/.test(l));
    expect(npx.length).toBeGreaterThan(0);
    const plain = npx.filter((l) => !/\bnpx --no-install storage-inspector\b/.test(l) && l !== 'npx storage-inspector');
    expect(plain).toEqual([]);
  });

  it('says how to install the command from a clone', () => {
    expect(README).toContain('npm install -g .');
    expect(README).toContain('npm link');
    expect(README).toMatch(/not published to the npm registry/);
  });
});
