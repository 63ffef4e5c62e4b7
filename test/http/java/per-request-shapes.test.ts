import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { childScript } from '../../helpers/test-run/child-script.js';

const CHILD = fileURLToPath(new URL('./per-request-shapes-child.ts', import.meta.url));

/**
 * The wrappers built for every Java-compatible request must be plain fast objects sharing one
 * hidden class. An object literal with a getter is not: V8 builds it in dictionary mode, and
 * through it every request's objects outlived the young generation's collections (limits.ts
 * tells the measured cost). Checked with V8's own intrinsics in a child process with natives
 * syntax enabled.
 */
describe('per-request objects', () => {
  let root: string;
  let dir: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'si-shapes-'));
    dir = join(root, 'storage');
    generateStorage({ directory: dir, entities: 2_000, channelCount: 2, seed: 5 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // The API's object views too: built by spreading a common head they promoted hundreds of bytes
  // per answer (object-view.ts, graph-answers.ts). Promoted bytes per answer are measured by
  // `npm run bench:garbage`, not tested: they depend on when the collector runs.
  it('have fast properties and one hidden class from one request to the next (Java wrappers, API object views)', async () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', ...(await childScript(CHILD)), dir], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ budgeted: true, checked: true, apiView: true, apiMember: true });
  });
});
