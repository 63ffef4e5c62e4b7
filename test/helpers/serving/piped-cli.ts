import { spawn, type ChildProcess } from 'node:child_process';
import { cliCommand } from '../test-run/cli-command.js';

/** A command run as a process of its own (from the sources, see cliCommand), its standard output a pipe the test may close. */
export interface PipedCli {
  readonly child: ChildProcess;
  /** The first bytes it wrote to standard output, or undefined when it ended before writing any. */
  readonly first: Promise<string | undefined>;
  /** Its exit code, once it has ended and its pipes are closed. */
  readonly closed: Promise<number | null>;
  /** What it wrote to standard error so far. */
  stderr(): string;
}

/** Starts `storage-inspector ARGS`; `stdin: 'pipe'` leaves its standard input for the test to write. */
export function pipedCli(args: readonly string[], stdin: 'pipe' | 'ignore' = 'ignore'): PipedCli {
  const child = spawn(process.execPath, [...cliCommand(), ...args], { stdio: [stdin, 'pipe', 'pipe'] });
  // Both are pipes (stdio above).
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const first = Promise.race([
    new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString()))),
    closed.then(() => undefined),
  ]);
  return { child, first, closed, stderr: () => stderr };
}
