import { Writable } from 'node:stream';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCli } from '../../../src/cli/run-cli.js';

/** What a command run in this process printed, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the command line `argv` (without the program name) in this process, as `storage-inspector`
 * would: stdout is a stream (export and analyze wait for a slow reader), stderr collects text.
 * `columns`: stdout is a terminal this wide (the SQL table fits its results to it).
 */
export async function runCliInProcess(argv: readonly string[], options: { readonly columns?: number | undefined } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stdout += chunk.toString();
      done();
    },
  });
  if (options.columns !== undefined) Object.assign(out, { columns: options.columns });
  const io = { stdout: out, stderr: { write: (t: string) => void (stderr += t) } } as unknown as CommandIo;
  const code = await runCli([...argv], io);
  return { code, stdout, stderr };
}
