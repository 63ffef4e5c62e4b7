import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLOOR_PLAN } from './floor-plan.js';

/**
 * The floor plan has one source, floor-plan.ts; each room's README says the same in one line that
 * starts with `May import:` and names the rooms in backticks as the plan does (`storage/**` for
 * storage and every room inside it, `storage/` for that room alone, `**` for everything; words
 * outside backticks and anything in parentheses are free). A README that says no more than the plan is checked here,
 * so a change of the plan that forgets the README fails.
 */
const SRC = 'src';
const IMPORT_LINE = /^May import:(.*)$/;

/** The rooms a README's import line names, as floor-plan.ts writes them, or why it has no such line. */
function readmeImports(text: string): { readonly rooms: string[] } | { readonly error: string } {
  const lines = text.split('\n');
  const importLines = lines.filter((line) => IMPORT_LINE.test(line));
  if (importLines.length !== 1) return { error: `${importLines.length} lines start with "May import:" (one is wanted)` };
  // A second, older statement elsewhere in the prose is what went stale before.
  const others = lines.filter((line) => !IMPORT_LINE.test(line) && /\bmay import\b/i.test(line));
  if (others.length > 0) return { error: `"may import" also outside the import line: ${others[0]!.trim()}` };
  const rooms = [...importLines[0]!.replace(/\([^)]*\)/g, '').matchAll(/`([^`]+)`/g)].map((m) => (m[1]!.endsWith('/') ? m[1]!.slice(0, -1) : m[1]!));
  return { rooms };
}

describe('each room README', () => {
  it('reads a line in the form the check expects', () => {
    expect(readmeImports('# x/\n\nWhat it does.\nMay import: `storage/**`, `format/` (ids, as `ids.ts` reads them), `javatext/`.\n')).toEqual({ rooms: ['storage/**', 'format', 'javatext'] });
    expect(readmeImports('May import: nothing of ours.\n')).toEqual({ rooms: [] });
    expect(readmeImports('No such line.\n')).toEqual({ error: '0 lines start with "May import:" (one is wanted)' });
    expect(readmeImports('May import: `format/`.\nThis folder may import `storage/` too.\n')).toEqual({
      error: '"may import" also outside the import line: This folder may import `storage/` too.',
    });
  });

  // One test per room, so that a failure names the room.
  for (const [room, plan] of Object.entries(FLOOR_PLAN)) {
    it(`${room}/README.md says what floor-plan.ts lets ${room} import`, () => {
      const path = join(SRC, room, 'README.md');
      expect(existsSync(path), `${path} is missing`).toBe(true);
      const said = readmeImports(readFileSync(path, 'utf8'));
      expect(said).toEqual({ rooms: expect.any(Array) as unknown });
      if ('rooms' in said) expect([...said.rooms].sort()).toEqual([...plan].sort());
    });
  }
});
