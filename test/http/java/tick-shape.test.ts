import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childScript } from '../../helpers/test-run/child-script.js';

const CHILD = fileURLToPath(new URL('./tick-shape-child.ts', import.meta.url));

/**
 * The server holds one of Node's tick objects (tick-shape.ts): after full collections while idle,
 * the tick objects of later requests must still be built with the held one's hidden class, the
 * one the compiled `nextTick` literal expects. Checked with V8's own intrinsic in a child process.
 */
describe('the held tick object', () => {
  it('is held once the HTTP application is imported (before any storage opens)', async () => {
    await import('../../../src/http/app.js');
    const { heldTick } = await import('../../../src/http/java/tick-shape.js');
    await new Promise((resolve) => setImmediate(resolve));
    expect(heldTick()).toBeDefined();
  });

  it('is a tick object whose hidden class later ticks share after idle full collections', async () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--allow-natives-syntax', ...(await childScript(CHILD))], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ held: true, heldIsTick: true, sameMap: true });
  });
});
