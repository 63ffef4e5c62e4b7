import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { UsageError } from '../../errors.js';

/**
 * Where a command's output goes: a new file (`--out`, never over an existing one: a usage error,
 * not a stack trace) or standard output, written with back-pressure. A reader that closes the
 * pipe early (`... | head`) is a normal end: `closed` turns true and writing stops quietly.
 */

export interface OutputTarget {
  /** Resolves when the text is accepted (after 'drain' when the buffer was full). */
  write(text: string): Promise<void>;
  /** True once the reader has gone (EPIPE): stop producing. */
  readonly closed: boolean;
  end(): Promise<void>;
}

function isPipeClosed(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

export async function openOutput(out: string | undefined, stdout: { write(text: string): unknown }): Promise<OutputTarget> {
  let stream: Writable;
  let ownsStream = false;
  if (out !== undefined) {
    let handle;
    try {
      handle = await open(out, 'wx');
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EEXIST') throw new UsageError(`--out ${out} exists already; give a new file name (nothing is overwritten)`);
      if (code === 'ENOENT') throw new UsageError(`--out ${out}: its directory does not exist`);
      if (code === 'EISDIR') throw new UsageError(`--out ${out} is a directory; give a file name`);
      throw error;
    }
    stream = handle.createWriteStream();
    ownsStream = true;
  } else {
    stream = stdout as Writable;
  }
  let closed = false;
  let failure: unknown;
  const onError = (error: unknown): void => {
    if (isPipeClosed(error)) closed = true;
    else failure ??= error;
  };
  if (typeof stream.on === 'function') stream.on('error', onError);
  const check = (): void => {
    if (failure !== undefined) throw failure;
  };
  return {
    get closed() {
      return closed;
    },
    write(text) {
      check();
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        let ok: boolean;
        try {
          ok = stream.write(text) as boolean;
        } catch (error) {
          if (isPipeClosed(error)) {
            closed = true;
            resolve();
            return;
          }
          reject(error);
          return;
        }
        if (ok !== false || typeof stream.once !== 'function') {
          resolve();
          return;
        }
        const done = (): void => {
          stream.off('drain', done);
          stream.off('close', done);
          stream.off('error', done);
          if (failure !== undefined) reject(failure);
          else resolve();
        };
        stream.once('drain', done);
        stream.once('close', done);
        stream.once('error', done);
      });
    },
    async end() {
      if (ownsStream) await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      check();
    },
  };
}
