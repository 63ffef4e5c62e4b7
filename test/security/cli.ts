import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliCommand } from '../helpers/test-run/cli-command.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `storage-inspector serve ...` as a child process (from the sources: the run's compiled copy, see cliCommand). */
export interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the port once the server says it is serving (rejects if it exits first). */
  readonly port: Promise<number>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  stdout(): string;
  /** Resolves once stderr matches. */
  waitForStderr(pattern: RegExp): Promise<void>;
}

/**
 * `built`: the built command (dist/cli/main.js) instead of the sources, for what tsx would change:
 * its loader makes its cache directory under TMPDIR, and so a TMPDIR that does not exist.
 */
export function spawnCli(args: string[], env: Record<string, string> = {}, options: { readonly built?: boolean } = {}): ServeProcess {
  const command = options.built === true ? [join(ROOT, 'dist', 'cli', 'main.js')] : cliCommand();
  const child = spawn(process.execPath, [...command, ...args], {
    cwd: ROOT,
    env: { ...process.env, STORAGE_INSPECTOR_TOKEN: undefined, STORAGE_INSPECTOR_BASIC_AUTH: undefined, ...env },
  });
  let stderr = '';
  let stdout = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of waiters.splice(0)) {
      if (w.pattern.test(stderr)) w.resolve();
      else waiters.push(w);
    }
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const waitForStderr = (pattern: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      if (pattern.test(stderr)) return resolve();
      waiters.push({ pattern, resolve });
      void exit.then(() => reject(new Error(`exited before stderr matched ${pattern}:\n${stderr}`)));
    });
  const port = waitForStderr(/serving .* at https?:\/\/[^:]+:(\d+)\//).then(() => Number(/serving .* at https?:\/\/[^:]+:(\d+)\//.exec(stderr)![1]));
  port.catch(() => undefined);
  return { child, port, exit, stderr: () => stderr, stdout: () => stdout, waitForStderr };
}
