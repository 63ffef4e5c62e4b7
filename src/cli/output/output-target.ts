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

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function isPipeClosed(error: unknown): boolean {
  return codeOf(error) === 'EPIPE';
}

/**
 * A write under way when the stream was destroyed without an error (a file stream's write ends
 * with it). Not a reader gone: the output is cut short, told as the destroyed stream is (below).
 */
function isDestroyedUnderWrite(error: unknown): boolean {
  return codeOf(error) === 'ERR_STREAM_DESTROYED';
}

interface StreamState {
  /** The reader has gone (EPIPE). */
  closed: boolean;
  /** Any other failure of the stream, thrown at the next write or end. */
  failure: unknown;
}

/**
 * One error listener per stream, whatever the number of outputs opened on it: standard output is
 * opened once per statement of a `sql` shell, and a listener each (never removed: an error coming
 * between two statements would end the process without one) made Node warn
 * "MaxListenersExceededWarning" from the 11th statement on, and grew with the session. What the
 * listener learnt holds for every later output on the stream (a closed pipe stays closed).
 */
const states = new WeakMap<object, StreamState>();

function watched(stream: Writable): StreamState {
  let state = states.get(stream);
  if (state !== undefined) return state;
  const made: StreamState = { closed: false, failure: undefined };
  if (typeof stream.on === 'function') {
    stream.on('error', (error: unknown): void => learn(made, error));
  }
  states.set(stream, made);
  // Errored before this listener was there (an output opened after the error): learnt the same way.
  const errored = (stream as { errored?: unknown }).errored;
  if (errored !== null && errored !== undefined) learn(made, errored);
  return made;
}

function learn(state: StreamState, error: unknown): void {
  if (isPipeClosed(error)) state.closed = true;
  else if (!isDestroyedUnderWrite(error)) state.failure ??= error;
}

/**
 * A stream destroyed without an error (stream.destroy(), a file stream closed under the output)
 * emits no 'drain' and no 'error' any more: a write waiting for either never settled and the
 * command never ended. Such a write fails as a failed write does, naming the output (the output
 * is cut short, which a quiet end would hide); the reader going away (EPIPE) stays a quiet end.
 */
function isDestroyed(stream: Writable): boolean {
  return (stream as { destroyed?: unknown }).destroyed === true;
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
  const state = watched(stream);
  const closedUnder = (): Error => new Error(`${out === undefined ? 'standard output' : `--out ${out}`} was closed before all of the output was written to it`);
  const check = (): void => {
    if (state.failure !== undefined) throw state.failure;
  };
  return {
    get closed() {
      return state.closed;
    },
    write(text) {
      // A rejection, as the type says, not a throw from the call itself.
      if (state.failure !== undefined) return Promise.reject(state.failure);
      if (state.closed) return Promise.resolve();
      if (isDestroyed(stream)) return Promise.reject(closedUnder());
      return new Promise<void>((resolve, reject) => {
        let ok: boolean;
        try {
          ok = stream.write(text) as boolean;
        } catch (error) {
          if (isPipeClosed(error)) {
            state.closed = true;
            resolve();
            return;
          }
          reject(isDestroyedUnderWrite(error) ? closedUnder() : error);
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
          if (state.failure !== undefined) reject(state.failure);
          else if (!state.closed && isDestroyed(stream)) reject(closedUnder());
          else resolve();
        };
        stream.once('drain', done);
        stream.once('close', done);
        stream.once('error', done);
      });
    },
    async end() {
      // Destroyed (its file handle closed with it) before all was flushed: nothing left to end; its
      // error if it had one (a full disk), else that it was closed under the output.
      if (!state.closed && isDestroyed(stream) && (ownsStream || !stream.writableFinished)) {
        check();
        throw closedUnder();
      }
      if (ownsStream) await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      check();
    },
  };
}
