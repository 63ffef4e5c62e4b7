import type { Worker } from 'node:worker_threads';
import { errorOf } from '../storage/index/index-worker-messages.js';
import type { Storage } from '../storage/storage.js';
import { startWorker } from '../threads/worker-thread.js';
import type { CopyPlanReply, CopyPlanRequest } from './copy-plan-messages.js';
import type { CopyOrder } from './walked-reachability.js';

/**
 * The copy's decisions for the later channels' files made in a worker thread (copy-plan-worker.ts)
 * while the copying thread walks the first channels' records itself: split where the check's walk
 * split its threads (`CopyOrder.splits`), whose record numbers say where the worker's walk begins.
 * The copying thread takes each file's runs in turn and copies them without a look at each record
 * (the stores are still cut by that thread, at the record that fills a batch).
 */

/** A planned file's runs: (start, end, records) triples of file offsets. */
export interface PlannedFile {
  readonly runs: Int32Array;
  readonly count: number;
  readonly kib: number;
}

/**
 * The worker's files are read whole by the copying thread, into two buffers as big as the largest
 * file (whole-file-reads.ts): no bigger than this each, else the copy is walked in one thread (which
 * reads in chunks). At 64 MiB, a storage of 48 MiB files (3M entities, 4 channels) took the copy's
 * peak RSS from 203-219 MB to 298-299 MB; at 16 MiB the two buffers hold 32 MiB at most, and
 * MicroStream's default files (8 MiB) are still planned.
 */
export const PLANNED_FILE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Runs the thread sends ahead of the copying thread at most (KiB): that thread walks the first
 * channels' records meanwhile, so the runs of the later ones wait for it. All of them took 18 MB
 * at 10M entities (about 1.2 bytes per record): bounded so, 100M would hold no more.
 */
const PLANNED_AHEAD_KIB = 32 * 1024;

/** The planning thread's heap holds little beyond a file's runs. */
const PLAN_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

export class CopyPlanThread {
  private readonly worker: Worker;
  private readonly files: PlannedFile[] = [];
  private finished: Extract<CopyPlanReply, { kind: 'done' }> | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly taken: Int32Array<SharedArrayBuffer>;

  private constructor(request: CopyPlanRequest) {
    this.taken = request.taken;
    this.worker = startWorker(import.meta.url, 'copy-plan-worker', PLAN_THREAD_LIMITS);
    this.worker.on('message', (reply: CopyPlanReply) => {
      if (reply.kind === 'file') this.files.push({ runs: reply.runs, count: reply.count, kib: reply.kib });
      else if (reply.kind === 'done') this.finished = reply;
      else this.failure = errorOf(reply.failure);
      this.notify();
    });
    this.worker.once('error', (error) => {
      this.failure ??= error;
      this.notify();
    });
    this.worker.once('exit', (code) => {
      if (this.finished === undefined) this.failure ??= new Error(`the copy's planning thread stopped (exit code ${code}) before its end`);
      this.notify();
    });
    this.worker.postMessage(request);
  }

  /**
   * The thread for the files of channels `from` on (their records numbered from `ordinal` on in
   * the walk; `named`: the source as the errors of a changed file name it), or undefined when the
   * copy is better walked in one thread: no split, or a file too big to be read whole.
   */
  static start(storage: Storage, order: CopyOrder, channelCount: number, named: string): { thread: CopyPlanThread; channel: number; ordinal: number } | undefined {
    const split = order.splits[1];
    if (split === undefined) return undefined;
    const files = storage.channels.filter((c) => c.index >= split.channel).flatMap((c) => c.files.map((file) => ({ path: file.path, end: file.problem?.offset ?? file.totalLength })));
    if (files.some((f) => f.end > PLANNED_FILE_MAX_BYTES)) return undefined;
    const request: CopyPlanRequest = {
      indexes: storage.channels.map((c) => c.objects.toParts()),
      files,
      named,
      reach: order.copyStart(),
      ordinal: split.ordinal,
      channelMask: channelCount - 1,
      taken: new Int32Array(new SharedArrayBuffer(4)),
      aheadKiB: PLANNED_AHEAD_KIB,
    };
    return { thread: new CopyPlanThread(request), channel: split.channel, ordinal: split.ordinal };
  }

  /** The next file's runs, in walk order. */
  async next(): Promise<PlannedFile> {
    for (;;) {
      const file = this.files.shift();
      if (file !== undefined) {
        Atomics.add(this.taken, 0, file.kib);
        Atomics.notify(this.taken, 0);
        return file;
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.finished !== undefined) throw new Error("the copy's planning thread sent fewer files than asked for");
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The counts per type and the records met, after the last file. */
  async done(): Promise<Extract<CopyPlanReply, { kind: 'done' }>> {
    for (;;) {
      if (this.finished !== undefined) return this.finished;
      if (this.failure !== undefined) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async close(): Promise<void> {
    // A thread waiting for its files to be taken (the copy stopped early) is woken to end.
    Atomics.store(this.taken, 0, 2 ** 30);
    Atomics.notify(this.taken, 0);
    await this.worker.terminate().catch(() => undefined);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
