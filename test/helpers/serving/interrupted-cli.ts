import { spawn } from 'node:child_process';
import { readdirSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliCommand } from '../test-run/cli-command.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Runs the CLI (`args`) as a real process from the sources and interrupts it in the middle of its
 * work: the moment an entry starting with `hiddenPrefix` appears in `parent` (the hidden directory
 * a command writes into before renaming it into place), the process is frozen (SIGSTOP), sent
 * `signal`, and let go (SIGCONT), so the signal surely arrives while it writes. Rejects if the
 * command ends before that entry appears.
 */
export async function interruptedCli(options: {
  readonly args: readonly string[];
  readonly parent: string;
  readonly hiddenPrefix: string;
  readonly signal: NodeJS.Signals;
  readonly env?: NodeJS.ProcessEnv;
}): Promise<{ readonly code: number | null; readonly stderr: string }> {
  const { args, parent, hiddenPrefix, signal } = options;
  const child = spawn(process.execPath, [...cliCommand(), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...(options.env === undefined ? {} : { env: options.env }) });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const watcher = watch(parent, () => {
      if (readdirSync(parent).some((n) => n.startsWith(hiddenPrefix))) {
        child.kill('SIGSTOP');
        watcher.close();
        resolve();
      }
    });
    child.once('exit', () => {
      watcher.close();
      reject(new Error(`${args[0]} ended before it was interrupted: ${stderr}`));
    });
  });
  child.kill(signal);
  child.kill('SIGCONT');
  return { code: await exited, stderr };
}
