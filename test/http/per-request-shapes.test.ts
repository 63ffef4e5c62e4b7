import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./per-request-shapes-child.ts', import.meta.url));

/**
 * The wrappers built for every Java-compatible request must be plain fast objects sharing one
 * hidden class. An object literal with a getter is not: V8 builds it in dictionary mode, and
 * through it every request's objects outlived the young generation's collections (limits.ts
 * tells the measured cost). Checked with V8's own intrinsics in a child process with natives
 * syntax enabled.
 */
describe('per-request wrappers of the Java routes', () => {
  it('have fast properties and one hidden class from one request to the next', () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', CHILD], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ budgeted: true, checked: true });
  });
});
