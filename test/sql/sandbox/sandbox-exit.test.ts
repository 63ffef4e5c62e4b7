import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeImports, sourceModule } from '../../helpers/test-run/child-script.js';

/**
 * The sandboxes' exit handler in a process of its own, ended by process.exit as the CLI's SIGINT
 * and SIGTERM handlers end it: a private directory that cannot be removed must not keep the others
 * (or any later exit listener) from running, change the exit code, or end in a stack trace. Made
 * unremovable as the filesystem allows: a file in a directory without write permission (a user),
 * or in an immutable directory (root, for whom permissions do not hold); skipped where neither can be.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const asRoot = process.getuid?.() === 0;

/** Makes `directory` keep the files in it; whether that could be done here. */
function stick(directory: string): boolean {
  try {
    if (asRoot) execFileSync('chattr', ['+i', directory], { stdio: 'ignore' });
    else chmodSync(directory, 0o500);
    return true;
  } catch {
    return false;
  }
}

function unstick(directory: string): void {
  if (asRoot) execFileSync('chattr', ['-i', directory], { stdio: 'ignore' });
  else chmodSync(directory, 0o700);
}

function canStick(): boolean {
  const probe = mkdtempSync(join(realpathSync(tmpdir()), 'sandbox-exit-probe-'));
  const ok = stick(probe);
  if (ok) unstick(probe);
  rmSync(probe, { recursive: true, force: true });
  return ok;
}

let scratch: string | undefined;
let stuck: string | undefined;
afterEach(() => {
  if (stuck !== undefined) unstick(stuck);
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = stuck = undefined;
});

describe('the sandboxes\' exit handler', () => {
  it.skipIf(!canStick())('removes every other private directory, runs later exit listeners, keeps the exit code and names the one it could not remove', () => {
    scratch = mkdtempSync(join(realpathSync(tmpdir()), 'sandbox-exit-'));
    const script = `
      import { execFileSync } from 'node:child_process';
      import { chmodSync, writeFileSync } from 'node:fs';
      import { loadDuck } from ${JSON.stringify(sourceModule('src/sql/duck-module.ts'))};
      import { openSandbox } from ${JSON.stringify(sourceModule('src/sql/sandbox/sandbox.ts'))};
      const duck = await loadDuck();
      const first = await openSandbox(duck, { memoryLimitBytes: 64 * 1024 ** 2 });
      const second = await openSandbox(duck, { memoryLimitBytes: 64 * 1024 ** 2 });
      process.on('exit', () => process.stdout.write('later listener ran\\n'));
      writeFileSync(first.exportDirectory + '/kept', 'x');
      process.stdout.write(JSON.stringify([first.exportDirectory, second.tempDirectory]) + '\\n');
      if (${asRoot}) execFileSync('chattr', ['+i', first.exportDirectory]);
      else chmodSync(first.exportDirectory, 0o500);
      process.exit(143);
    `;
    const child = spawnSync(process.execPath, [...nodeImports(), '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TMPDIR: scratch } });
    const [answers, second] = JSON.parse(child.stdout.split('\n')[0]!) as [string, string];
    stuck = answers;
    const first = dirname(answers);
    expect(child.stdout).toContain('later listener ran');
    expect(child.status).toBe(143);
    expect(existsSync(second)).toBe(false);
    expect(child.stderr).not.toMatch(/\n\s+at /);
    expect(child.stderr).toMatch(new RegExp(`storage-inspector: could not remove ${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at exit \\(E[A-Z]+\\); remove it by hand`));
    // Only the directory that could not be removed is left, with the file in it.
    expect(readdirSync(scratch).filter((name) => name.startsWith('storage-inspector-sql-'))).toEqual([first.slice(scratch.length + 1)]);
  });
});
