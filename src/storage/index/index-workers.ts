import { availableParallelism } from 'node:os';
import type { ChannelIndexJob, ChannelIndexResult } from './channel-indexer.js';
import { errorOf, type PrefixRequest, type WorkerReply, type WorkerRequest } from './index-worker-messages.js';
import { ObjectIndex } from './object-index.js';
import { TakenRecords } from '../source/prefix-compare.js';
import { WorkerThread } from '../../threads/worker-thread.js';

/**
 * Indexing a directory storage's channels in worker threads, one channel at a time per thread,
 * so that the header walks and the page faults of the fresh index memory of several channels run
 * on several cores. Each worker reads its channel's files itself (index-worker.ts) and hands the
 * finished tables back over shared memory, not by copy.
 */

/**
 * From this many bytes to index on, opening starts worker threads. Below, their start-up (about
 * 45 ms of CPU each, and compiling the walk once more in each) costs more than they save: measured
 * on 2 cores, the same time as one thread at 220 MB, 5 % faster at 380 MB, a quarter at 760 MB.
 */
export const INDEX_WORKERS_FROM_BYTES = 512 * 1024 * 1024;

/** How many worker threads index `channels` channels of `bytes` bytes when the caller asks for `asked` (undefined: decide). */
export function indexWorkerCount(asked: number | undefined, channels: number, bytes: number): number {
  const wanted = asked ?? (bytes >= INDEX_WORKERS_FROM_BYTES ? availableParallelism() : 0);
  return Math.max(0, Math.min(Math.floor(wanted), channels));
}

export type WorkerChannelJob = Omit<ChannelIndexJob, 'reads' | 'readAhead'>;

/**
 * Worker threads started as soon as their number is known (they load their code while the
 * opening thread still reads logs and dictionary); `close` ends them, used or not.
 */
export class IndexWorkerPool {
  private readonly workers: IndexWorker[];

  constructor(threads: number) {
    this.workers = Array.from({ length: threads }, () => new IndexWorker());
  }

  /**
   * Indexes every job, one channel per thread at a time; `onResult` hears each channel as it is
   * finished (in the order they finish). The first failure is thrown (the pool is then closed).
   */
  async index(jobs: readonly WorkerChannelJob[], onResult: (channel: number, result: ChannelIndexResult) => void): Promise<void> {
    let next = 0;
    try {
      await Promise.all(
        this.workers.map(async (worker) => {
          while (next < jobs.length) {
            const channel = next++;
            onResult(channel, await worker.index({ kind: 'index', channel, job: jobs[channel]! }));
          }
        }),
      );
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Compares `count` pairs of files (`job(i)` says the `i`th, asked when a thread takes it up), one
   * pair per thread at a time, in order; `onResult` hears each pair found the same, with the
   * records taken from it, as they finish. No pair after one found different (or failed) is begun.
   * Answers the first pair in order that differs, or -1; throws what the first pair in order that
   * failed threw (where no pair before it differs), as comparing them in turn in one thread would.
   * A thread that ended ends the pool.
   */
  async comparePrefixes(count: number, job: (i: number) => Omit<PrefixRequest, 'kind'>, onResult: (i: number, taken: TakenRecords) => void): Promise<number> {
    let next = 0;
    let stop = count;
    let differs = -1;
    let failed: { readonly at: number; readonly error: Error } | undefined;
    let ended = false;
    await Promise.all(
      this.workers.map(async (worker) => {
        while (next < stop) {
          const i = next++;
          const reply = await worker.comparePrefix({ kind: 'prefix', ...job(i) });
          if (reply instanceof Error || 'failure' in reply) {
            ended ||= reply instanceof Error;
            if (failed === undefined || i < failed.at) failed = { at: i, error: reply instanceof Error ? reply : reply.failure };
            stop = Math.min(stop, i);
            if (reply instanceof Error) return;
          } else if (!reply.same) {
            if (differs < 0 || i < differs) differs = i;
            stop = Math.min(stop, i);
          } else onResult(i, reply.taken);
        }
      }),
    );
    if (ended) await this.close();
    if (failed !== undefined && (differs < 0 || failed.at < differs)) throw failed.error;
    return differs;
  }

  /** Ends the threads; never rejects (callers need not wait for it). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate().catch(() => undefined)));
  }
}

/** One worker thread, one channel at a time. */
class IndexWorker {
  private readonly thread = new WorkerThread<WorkerRequest, WorkerReply>(
    import.meta.url,
    'index-worker',
    (code) => `an index worker thread stopped (exit code ${code}) while indexing a channel`,
  );

  async index(request: WorkerRequest): Promise<ChannelIndexResult> {
    const reply = await this.thread.ask(request);
    if (reply instanceof Error) throw reply;
    if (!reply.ok) throw errorOf(reply.failure);
    if (reply.kind !== 'index') throw new Error('an index worker thread answered an index request with a comparison');
    const { ok: _ok, kind: _kind, channel: _channel, parts, ...figures } = reply;
    return { objects: ObjectIndex.fromParts(parts), ...figures };
  }

  /**
   * One pair of files compared: whether the same and the records taken, or what the comparison
   * threw (`failure`), or the error the thread ended with.
   */
  async comparePrefix(request: PrefixRequest): Promise<Error | { readonly failure: Error } | { readonly same: boolean; readonly taken: TakenRecords }> {
    const reply = await this.thread.ask(request);
    if (reply instanceof Error) return reply;
    if (!reply.ok) return { failure: errorOf(reply.failure) };
    if (reply.kind !== 'prefix') return new Error('an index worker thread answered a comparison with an index');
    return { same: reply.same, taken: TakenRecords.from(reply.taken) };
  }

  terminate(): Promise<void> {
    return this.thread.terminate();
  }
}
