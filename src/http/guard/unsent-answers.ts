import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { RequestLimitError } from './limits.js';
import { StallWatch, wholeAnswerTaken, type StallLog } from './stalled-answers.js';

/**
 * Bytes of answers handed to connections and not yet taken by their clients, across all
 * connections. A client that does not read keeps its answer in this process's memory until it
 * reads or its connection times out; with hundreds of such clients that is gigabytes. So every
 * answer is counted here until its response has been sent completely (or aborted), and while the
 * count is at or above the capacity, no new big answer is built: requests that would build one
 * wait for room (small answers such as `/root` never wait). Memory for answers therefore stays
 * near the capacity plus the few big answers being built at a time (limits.ts).
 *
 * Every counted answer is also bounded in time: one whose client takes nothing of it for
 * `--stall-timeout` while some of it waits here is ended (stalled-answers.ts). Streams are watched
 * by their producers; an answer built whole (`hold`) gets its watch only if bytes of it are left
 * over once it is handed to its connection, so a small answer that the kernel takes at once costs
 * no timer.
 */

export const DEFAULT_MAX_UNSENT_BYTES = 64 * 1024 * 1024;
/**
 * An answer whose client takes nothing of it for this long is ended (`--stall-timeout`): a stalled
 * reader would else hold its bytes here, and its connection, until the server's idle-socket
 * timeout, or for ever without a request timeout.
 */
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;

/**
 * What a response holds, kept on the response itself (a WeakSet entry per response costs the
 * young-generation collector ephemeron work on every request).
 */
const HELD = Symbol('storage-inspector.heldBytes');
type Holding = ServerResponse & { [HELD]?: { readonly answers: UnsentAnswers; bytes: number; done: boolean } };

/**
 * The counted responses of a connection that wait behind an earlier answer of it (pipelined
 * requests), kept on the connection: Node emits `close` only on the response its connection is
 * sending, so these are given back when the connection closes (see `queued`).
 */
const QUEUED = Symbol('storage-inspector.queuedAnswers');
type Connection = Socket & { [QUEUED]?: Set<Holding> };

export class UnsentAnswers {
  private heldBytes = 0;
  private readonly waiting = new Set<() => void>();

  constructor(
    readonly capacity: number = DEFAULT_MAX_UNSENT_BYTES,
    /** How long an answer counted here may wait for its client to take anything (0: for ever). */
    readonly stallMs: number = DEFAULT_STALL_TIMEOUT_MS,
    /** Where an answer ended by the stall bound is told (the server's logger). */
    private readonly log?: StallLog,
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
   * Counts `bytes` of an answer built whole until `response` is done (sent completely, or its
   * connection closed). Once per response: the first count stands (a big answer is counted as soon
   * as it is built, its sending counts it again). Called before the answer is written: it is
   * watched for a stall once written, if bytes of it are left over (`handed`).
   */
  hold(bytes: number, response: ServerResponse): void {
    const holding = response as Holding;
    if (bytes <= 0 || response.writableFinished || response.destroyed || holding[HELD] !== undefined) return;
    if (!UnsentAnswers.queued(holding)) return;
    holding[HELD] = { answers: this, bytes, done: false };
    this.heldBytes += bytes;
    response.on('close', UnsentAnswers.responseDone);
    if (this.stallMs > 0) response.on('prefinish', UnsentAnswers.handed);
  }

  /**
   * Whether `response` may be counted, and if it waits behind an earlier answer of its connection
   * (no socket of its own yet), has it given back when that connection closes: Node emits `close`
   * only on the response a connection is sending, never on those queued behind it, whose bytes
   * would else stay counted for the life of the process (a client that pipelines and leaves, or is
   * ended by the stall bound). False when its connection is gone already: it will never be sent.
   * One listener per connection that has such answers, none for the others.
   */
  private static queued(response: Holding): boolean {
    if (response.socket !== null) return true;
    const connection = response.req?.socket as Connection | null | undefined;
    // No real connection (an injected request's is a stand-in): its response's close is emitted by whoever injected it.
    if (!(connection instanceof Socket)) return true;
    if (connection.destroyed) return false;
    let queued = connection[QUEUED];
    if (queued === undefined) {
      queued = connection[QUEUED] = new Set();
      connection.once('close', UnsentAnswers.connectionClosed);
    }
    queued.add(response);
    // From its turn on, it has the connection's close through Node (`responseDone`).
    response.once('socket', UnsentAnswers.reachedTurn);
    return true;
  }

  /** `this` is a queued response whose turn came. */
  private static reachedTurn(this: Holding): void {
    (this.req?.socket as Connection | null | undefined)?.[QUEUED]?.delete(this);
  }

  /** `this` is a connection that closed with counted answers still queued on it: never sent, given back. */
  private static connectionClosed(this: Connection): void {
    const queued = this[QUEUED];
    delete this[QUEUED];
    if (queued !== undefined) for (const response of queued) UnsentAnswers.responseDone.call(response);
  }

  /**
   * The listener of every whole answer counted (`this` is the response; no closure per request):
   * Node emits `prefinish` once the answer's last bytes are handed to its socket (at `end`, or once
   * the connection's earlier answers are sent). What the kernel did not take at once waits here;
   * from now on its client must take some of it within each stall bound. Nothing left over (a
   * small answer, a client that reads): no watch, no timer.
   */
  private static handed(this: Holding): void {
    const held = this[HELD];
    if (held === undefined || this.writableLength === 0 || this.destroyed) return;
    const response = this;
    const { bytes, answers } = held;
    new StallWatch(response, {
      stallMs: answers.stallMs,
      taken: () => wholeAnswerTaken(response, bytes),
      waiting: () => response.writableLength > 0,
      what: `the answer of ${bytes} bytes`,
      option: '--stall-timeout',
      log: answers.log,
    }).arm();
  }

  /**
   * Counts a streamed answer: the returned function sets the bytes it holds now (produced and not
   * yet handed to the kernel), as often as the stream likes, until `response` is done (its producer
   * watches its stall with a StallWatch of its own: it knows what it produced). Undefined
   * when the response is counted already or done, or its connection is gone.
   */
  holdStream(response: ServerResponse): ((bytes: number) => void) | undefined {
    const holding = response as Holding;
    if (response.writableFinished || response.destroyed || holding[HELD] !== undefined) return undefined;
    if (!UnsentAnswers.queued(holding)) return undefined;
    const held = { answers: this, bytes: 0, done: false };
    holding[HELD] = held;
    response.on('close', UnsentAnswers.responseDone);
    return (bytes) => {
      // After the response is done its bytes are released once and for all.
      if (held.done || response.destroyed || response.writableFinished) return;
      const delta = bytes - held.bytes;
      held.bytes = bytes;
      if (delta > 0) this.heldBytes += delta;
      else if (delta < 0) this.release(-delta);
    };
  }

  /** The one close listener of every counted response (`this` is the response): no closure per request. */
  private static responseDone(this: Holding): void {
    const held = this[HELD];
    if (held === undefined || held.done) return;
    held.done = true;
    held.answers.release(held.bytes);
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
