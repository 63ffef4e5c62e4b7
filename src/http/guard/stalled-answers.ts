import type { ServerResponse } from 'node:http';

/**
 * The stall bound of an answer (`--stall-timeout`, SQL's `--sql-stall-timeout`): once its client has
 * taken nothing of it for the bound while something of it waits in this process, its connection is
 * destroyed. Streams are watched from their first push (the NDJSON export; SQL's CSV, NDJSON and
 * Parquet answers); answers built whole, from when they are handed to their connection with bytes
 * left over (unsent-answers.ts). An answer under way has no other way to end: its status was sent with the
 * headers, and a line or trailer saying "incomplete" could not be sent either, since the client does
 * not read; it sees its answer end early (a truncated body, or a reset). Without the bound such a
 * reader held what its answer holds (its bytes, a building or statement slot, a file, its
 * connection) until the server's idle-socket timeout, or never with `--request-timeout 0`.
 * Destroying the response closes it, which is what gives those back.
 */

/** Where the reason is told: a fastify logger's `warn` (pino: an object, then the message). */
export interface StallLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface StallWatchOptions {
  /** The bound in ms; 0: never ended. */
  readonly stallMs: number;
  /**
   * Bytes of the answer its client has taken so far (produced less what is still buffered in this
   * process). Any change is progress: through TLS the figure of a write in flight can move down
   * as well as up (wholeAnswerTaken).
   */
  readonly taken: () => number;
  /** Whether something of the answer waits in this process for its client (else a pause is not the client's). */
  readonly waiting: () => boolean;
  /** What is ended, for the log: "the NDJSON export". */
  readonly what: string;
  /** The option that bounds it, for the log: "--stall-timeout". */
  readonly option: string;
  readonly log: StallLog | undefined;
  /** Called once the connection is destroyed (to stop the producer at once). */
  readonly stalled?: () => void;
}

export class StallWatch {
  private timer: NodeJS.Timeout | undefined;
  /** What the client had taken at the last look. */
  private before = 0;
  private done = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly options: StallWatchOptions,
  ) {
    const stop = (): void => this.stop();
    response.once('close', stop);
    response.once('finish', stop);
    // Every byte the response had buffered is taken: the client reads.
    response.on('drain', () => this.timer?.refresh());
  }

  /**
   * Something produced waits for the client: from now until the answer is done, the client must take
   * some of it within each bound. Stays armed while the producer waits or builds (a stream asking
   * for more says only that its own buffer has room, not that the client took anything).
   */
  arm(): void {
    if (this.options.stallMs <= 0 || this.timer !== undefined || this.done) return;
    this.before = this.options.taken();
    this.timer = setTimeout(() => this.look(), this.options.stallMs);
    this.timer.unref();
  }

  stop(): void {
    this.done = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private look(): void {
    const now = this.options.taken();
    // The client took some since the last look, or nothing waits for it: not stalled.
    if (now !== this.before || !this.options.waiting()) {
      this.before = now;
      this.timer?.refresh();
      return;
    }
    this.timer = undefined;
    const { stallMs, what, option } = this.options;
    this.options.log?.warn(
      { url: this.response.req?.url, takenBytes: now, stallMs },
      `${what} ended: its client took nothing of it for ${stallMs} ms (${option}); its connection is destroyed (the client sees the answer end early) and what it held is given back`,
    );
    this.done = true;
    this.response.destroy();
    this.options.stalled?.();
  }
}

/** The parts of a connection's socket that say how much of its writes the kernel has not taken yet. */
interface QueuedSocket {
  /** libuv's stream: `writeQueueSize`, bytes of writes in flight not yet taken by the kernel. */
  readonly _handle?: { readonly writeQueueSize?: number } | null;
  /** A TLS socket's own connection (its encrypted bytes queue there). */
  readonly _parent?: QueuedSocket | null;
}

/**
 * Bytes of an answer of `bytes` (headers and body) written whole that its client has taken, about:
 * `bytes` less what is still queued on its connection. Node counts a write as pending whole until
 * the kernel has taken its last byte (`writableLength` does not move while a client reads a big
 * answer slowly); libuv's write queue does, byte by byte, and it is what Node's own idle-socket
 * timeout looks at. Through TLS the encrypted bytes queue on the TCP socket beneath, a little more
 * than the answer's own, and the queue is topped up as it drains: the figure moves while the client
 * reads, and stands still when it does not.
 */
export function wholeAnswerTaken(response: ServerResponse, bytes: number): number {
  const socket = response.socket as QueuedSocket | null;
  const queued = (socket?._parent ?? socket)?._handle?.writeQueueSize ?? 0;
  return Math.max(0, bytes - queued);
}
