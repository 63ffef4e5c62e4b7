import { availableParallelism } from 'node:os';
import { startWorker } from '../../threads/worker-thread.js';
import type { ForwardListsParts } from './forward-lists.js';
import type { DecodedFile, DecodeJob, DecodeReply, DecodeStart, LinkReply, LinkTask } from './decode-messages.js';

/**
 * A worker thread decoding some channels' data files from the first on while the building thread
 * decodes the other channels' and then the worker's from the last back, until they meet
 * (graph-build.ts): the record walk and the reference decoding are most of a build, and a file
 * depends on nothing but its channel's primary index. What is not written to the shared per-node
 * arrays comes back file by file, as flat arrays, and is merged as it arrives. Then the thread
 * writes part of the rows (link-steps.ts).
 */

/**
 * From this many bytes of data files on. Below, starting the thread and copying the primary
 * index and the numbering to it cost about as much as it saves.
 */
export const DECODE_THREAD_FROM_BYTES = 512 * 1024 * 1024;

/** What went wrong in (or with) the decode thread; the build then decodes every file itself. */
export class DecodeThreadError extends Error {}

export function wantsDecodeThread(asked: boolean | undefined, bytes: number): boolean {
  return asked ?? (bytes >= DECODE_THREAD_FROM_BYTES && availableParallelism() > 1);
}

export class DecodeThread {
  private readonly worker = startWorker(import.meta.url, 'decode-worker');
  private readonly finished: Promise<ForwardListsParts>;
  /** The link task asked last (one at a time), and what ended the thread, once something has. */
  private linking: { resolve: (reply: LinkReply) => void; reject: (error: Error) => void } | undefined;
  private ended: Error | undefined;

  /** Hands the thread `job`; `onFile` takes each file's findings (an exception in it ends the run). Decoding waits for `start`. */
  constructor(job: DecodeJob, onFile: (file: DecodedFile) => void) {
    this.finished = new Promise<ForwardListsParts>((resolve, reject) => {
      const end = (error: DecodeThreadError): void => {
        this.ended ??= error;
        reject(error);
        this.linking?.reject(error);
        this.linking = undefined;
      };
      this.worker.on('message', (reply: DecodeReply) => {
        if (reply.kind === 'done') resolve(reply.lists);
        else if (reply.kind === 'failed') end(new DecodeThreadError(`decoding in a worker thread: ${reply.message}`));
        else if (reply.kind === 'linked') {
          this.linking?.resolve(reply);
          this.linking = undefined;
        } else {
          try {
            onFile(reply);
          } catch (error) {
            end(new DecodeThreadError(`taking over a file decoded in a worker thread: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
          }
        }
      });
      this.worker.on('error', (error: Error) => end(new DecodeThreadError(`the decode thread failed: ${error.message}`, { cause: error })));
      this.worker.on('exit', (code: number) => end(new DecodeThreadError(`the decode thread stopped (exit code ${code})`)));
    });
    // Observed by `done`; a build that stops early must not leave it unhandled.
    this.finished.catch(() => undefined);
    this.worker.postMessage(job);
  }

  /** Starts decoding, with the node numbering and the shared arrays. */
  start(start: DecodeStart): void {
    this.worker.postMessage(start);
  }

  /** Resolves with the worker's forward lists once every file was decoded and merged; rejects with what went wrong. */
  done(): Promise<ForwardListsParts> {
    return this.finished;
  }

  /** Has the thread take a part of linking the rows (after `done`); resolves with its answer. */
  link(task: LinkTask): Promise<LinkReply> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    if (this.linking !== undefined) return Promise.reject(new Error('one link task at a time'));
    return new Promise<LinkReply>((resolve, reject) => {
      this.linking = { resolve, reject };
      this.worker.postMessage(task);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
