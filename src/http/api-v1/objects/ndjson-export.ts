import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { forEachNodeInIdOrder } from '../../../graph/queries/graph-figures.js';
import { bigAnswerSlots } from '../../guard/big-answers.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { StallWatch, type StallLog } from '../../guard/stalled-answers.js';
import { roomForMore } from '../../guard/streamed-room.js';
import type { UnsentAnswers } from '../../guard/unsent-answers.js';
import { objectViewOf, requireGraph } from '../analysis/graph-answers.js';
import { MAX_LIMIT } from '../../../api-contract/schemas.js';

/**
 * The NDJSON export of a type's instances (`/types/{typeId}/instances.ndjson`) as a stream that
 * shares the process with every other request:
 * - it produces a batch only when its client has taken the previous ones (a `Readable` read on
 *   demand: a client that does not read stops it, holding one batch at most);
 * - each batch is bounded (objects, bytes, nodes scanned), starts on a turn of its own of the
 *   event loop and is built in one of the process's few building slots, so other requests are
 *   answered between batches however many exports run;
 * - its bytes not yet handed to the kernel count against `--max-unsent-bytes`, and it waits for
 *   room there before each batch, like the big answers of the Java routes (before the first one
 *   the route waits, bounded: a 503 with Retry-After rather than a connection cut later);
 * - a client that takes nothing of it for `--stall-timeout` has its connection cut (a stream under
 *   way has no other way to say it is incomplete: NDJSON has no error line, and one could not reach
 *   a client that does not read), with a warning in the log (stalled-answers.ts); else a stalled
 *   reader held its bytes and connection until the server's idle-socket timeout (request timeout +
 *   5 s), or never with `--request-timeout 0`, and a dozen of them filled the budget every other
 *   big answer waits on. This holds whether the export waits for its client or for room its own
 *   bytes fill, before its next batch.
 * Each batch is read from one consistent state of a followed storage.
 */

/** Objects per batch at most. */
export const EXPORT_BATCH_OBJECTS = 256;
/** A batch ends once its lines reach this many bytes (one object's line may pass it). */
export const EXPORT_BATCH_BYTES = 64 * 1024;
/** Nodes looked at per batch at most (a type with few instances among many objects). */
const EXPORT_BATCH_SCAN = 65_536;
/** What the stream buffers ahead of its client. */
const EXPORT_HIGH_WATER_MARK = 64 * 1024;

interface Batch {
  readonly text: string;
  readonly done: boolean;
}

export class NdjsonExport extends Readable {
  private after: bigint | undefined;
  private readonly count: ((bytes: number) => void) | undefined;
  private readonly stopped = new AbortController();
  /** The stall bound, armed from the first push until the answer is done (stalled-answers.ts). */
  private readonly watch: StallWatch;
  /** Bytes pushed so far. */
  private produced = 0;

  constructor(
    private readonly context: StorageContext,
    private readonly typeId: bigint,
    private readonly response: ServerResponse,
    private readonly unsent: UnsentAnswers | undefined,
    log?: StallLog,
  ) {
    super({ highWaterMark: EXPORT_HIGH_WATER_MARK });
    this.count = unsent?.holdStream(response);
    response.once('close', () => this.stopped.abort());
    // Progress is what the client has taken; a wait for room others hold while all of this
    // answer's bytes are taken is not its client's (those others are bounded themselves).
    this.watch = new StallWatch(response, {
      stallMs: unsent?.stallMs ?? 0,
      taken: () => this.taken,
      waiting: () => this.buffered > 0,
      what: 'the NDJSON export',
      option: '--stall-timeout',
      log,
      // Closing the connection releases its held bytes (unsent-answers.ts) and stops this stream.
      stalled: () => this.destroy(),
    });
  }

  /** Bytes of this answer the client has taken (produced and no longer buffered here; headers and chunk sizes make it a little less). */
  private get taken(): number {
    return this.produced - this.buffered;
  }

  /** Bytes of this answer in this process: buffered here and in the response (its socket too). */
  private get buffered(): number {
    return this.readableLength + this.response.writableLength;
  }

  override _read(): void {
    this.produce().catch((error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.watch.stop();
    this.stopped.abort();
    callback(error);
  }

  /** The next non-empty batch, or the end; each batch on a turn of its own. */
  private async produce(): Promise<void> {
    for (;;) {
      await nextTurn();
      if (this.stopped.signal.aborted) return;
      await this.waitForRoom();
      if (this.stopped.signal.aborted) return;
      // Batches are built a few at a time across the process (the building slots of big answers),
      // so that many exports at once leave turns to other requests instead of taking them all.
      const release = await bigAnswerSlots.acquire(this.stopped.signal);
      let batch: Batch;
      try {
        // A slot handed over resolves in a microtask: give I/O a turn before the work.
        await nextTurn();
        batch = await this.context.storage.consistent(() => this.batch());
      } finally {
        release();
      }
      if (this.destroyed) return;
      if (batch.text.length > 0) {
        // Readable calls _read again when it wants more.
        this.push(batch.text);
        this.produced += Buffer.byteLength(batch.text);
        this.count?.(this.buffered);
        if (batch.done) this.push(null);
        this.watch.arm();
        return;
      }
      if (batch.done) {
        this.push(null);
        return;
      }
    }
  }

  /** Waits while answers not yet taken by their clients fill the budget (this one's own bytes updated meanwhile). */
  private async waitForRoom(): Promise<void> {
    if (this.unsent !== undefined) await roomForMore(this.unsent, () => this.count?.(this.buffered), this.stopped.signal);
  }

  private async batch(): Promise<Batch> {
    const context = this.context;
    const graph = requireGraph(context);
    const type = graph.types.find(this.typeId);
    if (type === undefined) return { text: '', done: true };
    const ids: bigint[] = [];
    let scanned = 0;
    let last = -1;
    let done = true;
    forEachNodeInIdOrder(graph, this.after, (node) => {
      last = node;
      if (graph.typeOfNode[node] === type) ids.push(graph.nodes.idOf(node));
      if (ids.length < EXPORT_BATCH_OBJECTS && ++scanned < EXPORT_BATCH_SCAN) return true;
      done = false;
      return false;
    });
    const lines: string[] = [];
    let bytes = 0;
    for (const id of ids) {
      const line = `${JSON.stringify(await objectViewOf(context, graph, id, { offset: 0, limit: MAX_LIMIT }))}\n`;
      lines.push(line);
      bytes += line.length;
      this.after = id;
      if (bytes >= EXPORT_BATCH_BYTES && id !== ids.at(-1)) {
        // The rest of the scanned ids are taken up again by the next batch.
        return { text: lines.join(''), done: false };
      }
    }
    if (last >= 0 && !done) this.after = graph.nodes.idOf(last);
    return { text: lines.join(''), done };
  }
}
