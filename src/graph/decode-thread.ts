import { availableParallelism } from 'node:os';
import { startWorker } from '../storage/worker-thread.js';
import type { DecodedFile, DecodeJob, DecodeReply } from './decode-messages.js';

/**
 * A worker thread decoding some channels' data files while the building thread decodes the
 * others (graph-build.ts): the record walk and the reference decoding are most of a build, and a
 * channel's files depend on nothing but its own primary index. Files come back one by one, as
 * flat arrays, and are merged as they arrive.
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
  private readonly finished: Promise<void>;

  /** Starts decoding `job`; `onFile` takes each file's findings (an exception in it ends the run). */
  constructor(job: DecodeJob, onFile: (file: DecodedFile) => void) {
    this.finished = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (reply: DecodeReply) => {
        if (reply.kind === 'done') resolve();
        else if (reply.kind === 'failed') reject(new DecodeThreadError(`decoding in a worker thread: ${reply.message}`));
        else {
          try {
            onFile(reply);
          } catch (error) {
            reject(new DecodeThreadError(`taking over a file decoded in a worker thread: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
          }
        }
      });
      this.worker.on('error', (error: Error) => reject(new DecodeThreadError(`the decode thread failed: ${error.message}`, { cause: error })));
      this.worker.on('exit', (code: number) => reject(new DecodeThreadError(`the decode thread stopped (exit code ${code})`)));
    });
    // Observed by `done`; a build that stops early must not leave it unhandled.
    this.finished.catch(() => undefined);
    this.worker.postMessage(job);
  }

  /** Resolves once every file was decoded and merged; rejects with what went wrong. */
  done(): Promise<void> {
    return this.finished;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
