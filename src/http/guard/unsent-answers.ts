import type { ServerResponse } from 'node:http';
import { RequestLimitError } from './limits.js';

/**
 * Bytes of answers handed to connections and not yet taken by their clients, across all
 * connections. A client that does not read keeps its answer in this process's memory until it
 * reads or its connection times out; with hundreds of such clients that is gigabytes. So every
 * answer is counted here until its response has been sent completely (or aborted), and while the
 * count is at or above the capacity, no new big answer is built: requests that would build one
 * wait for room (small answers such as `/root` never wait). Memory for answers therefore stays
 * near the capacity plus the few big answers being built at a time (limits.ts).
 */

export const DEFAULT_MAX_UNSENT_BYTES = 64 * 1024 * 1024;
/**
 * A streamed answer whose client takes nothing of it for this long is ended (`--stall-timeout`):
 * a stalled reader would else hold its bytes here, and its connection, until the server's
 * idle-socket timeout, or for ever without a request timeout.
 */
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;

/**
 * What a response holds, kept on the response itself (a WeakSet entry per response costs the
 * young-generation collector ephemeron work on every request).
 */
const HELD = Symbol('storage-inspector.heldBytes');
type Holding = ServerResponse & { [HELD]?: { readonly answers: UnsentAnswers; bytes: number } };

export class UnsentAnswers {
  private heldBytes = 0;
  private readonly waiting = new Set<() => void>();

  constructor(
    readonly capacity: number = DEFAULT_MAX_UNSENT_BYTES,
    /** How long a streamed answer counted here may wait for its client to take anything (0: for ever). */
    readonly stallMs: number = DEFAULT_STALL_TIMEOUT_MS,
  ) {}

  /** Bytes currently held for answers not yet sent completely. */
  get held(): number {
    return this.heldBytes;
  }

  /** Requests waiting for room to build their answer. */
  get waiters(): number {
    return this.waiting.size;
  }

  /**
   * Counts `bytes` of an answer until `response` is done (sent completely, or its connection
   * closed). Once per response: the first count stands (a big answer is counted as soon as it is
   * built, its sending counts it again).
   */
  hold(bytes: number, response: ServerResponse): void {
    const holding = response as Holding;
    if (bytes <= 0 || response.writableFinished || response.destroyed || holding[HELD] !== undefined) return;
    holding[HELD] = { answers: this, bytes };
    this.heldBytes += bytes;
    response.on('close', UnsentAnswers.responseDone);
  }

  /**
   * Counts a streamed answer: the returned function sets the bytes it holds now (produced and not
   * yet handed to the kernel), as often as the stream likes, until `response` is done. Undefined
   * when the response is counted already or done.
   */
  holdStream(response: ServerResponse): ((bytes: number) => void) | undefined {
    const holding = response as Holding;
    if (response.writableFinished || response.destroyed || holding[HELD] !== undefined) return undefined;
    const held = { answers: this, bytes: 0 };
    holding[HELD] = held;
    response.on('close', UnsentAnswers.responseDone);
    return (bytes) => {
      // After the response is done its bytes are released once and for all.
      if (response.destroyed || response.writableFinished) return;
      const delta = bytes - held.bytes;
      held.bytes = bytes;
      if (delta > 0) this.heldBytes += delta;
      else if (delta < 0) this.release(-delta);
    };
  }

  /** The one close listener of every counted response (`this` is the response): no closure per request. */
  private static responseDone(this: Holding): void {
    const held = this[HELD];
    if (held !== undefined) held.answers.release(held.bytes);
  }

  private release(bytes: number): void {
    this.heldBytes -= bytes;
    if (this.heldBytes < this.capacity && this.waiting.size > 0) for (const wake of [...this.waiting]) wake();
  }

  /**
   * Resolves when held bytes are below the capacity; rejects with a 503 limit error once
   * `deadline` (epoch ms) has passed without room, or with the signal's reason when it aborts.
   */
  async room(deadline: number, signal?: AbortSignal): Promise<void> {
    while (this.heldBytes >= this.capacity) {
      signal?.throwIfAborted();
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw this.busy();
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(remaining) ? setTimeout(done, remaining) : undefined;
        const waiting = this.waiting;
        function done(): void {
          if (timer !== undefined) clearTimeout(timer);
          waiting.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        this.waiting.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  private busy(): RequestLimitError {
    return new RequestLimitError(
      'SERVER_BUSY',
      503,
      `the server holds ${this.heldBytes} bytes of answers that their clients have not read yet, at or above its limit of ${this.capacity} bytes (--max-unsent-bytes); try again in a moment`,
    );
  }
}
