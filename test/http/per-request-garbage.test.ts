import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

const CHILD = fileURLToPath(new URL('./per-request-garbage-child.ts', import.meta.url));

/**
 * An answer's objects must die young. Twice per-request objects made every answer promote to
 * the old generation: an object literal with a getter (limits.ts) and object spreads building
 * the API's views (object-view.ts), about 280 bytes per `/object` answer and 780 per API view,
 * measured here as well, and a quarter of the server's CPU under load. Promoted bytes per answer
 * are counted, not timed, in a child process of its own (V8's GCProfiler).
 */
describe('garbage of an answer', () => {
  let root: string;
  let dir: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'si-garbage-'));
    dir = join(root, 'storage');
    generateStorage({ directory: dir, entities: 20_000, channelCount: 2, seed: 5 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is collected young for /object and for the API view of an object', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, dir], { encoding: 'utf8' });
    const promoted = JSON.parse(out) as { javaObject: number; apiObject: number };
    expect(promoted.javaObject).toBeLessThan(32);
    expect(promoted.apiObject).toBeLessThan(32);
  });
});
