import { Worker } from 'node:worker_threads';
import type { ChannelIndexJob, ChannelIndexResult } from './channel-indexer.js';

/**
 * The main thread's side of an index worker: sends channel jobs one at a time and receives the
 * finished tables. Under tsx (tests, `npm run dev`) the worker runs the TypeScript source.
 */
export class IndexWorker {
  private readonly worker: Worker;
  private queue: Promise<unknown> = Promise.resolve();

  constructor() {
    if (import.meta.url.endsWith('.ts')) {
      // Running from source: register tsx's loader inside the worker before loading the entry.
      const tsx = import.meta.resolve('tsx/esm/api');
      const entry = new URL('./index-worker.ts', import.meta.url).href;
      const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
      this.worker = new Worker(bootstrap, { eval: true });
    } else {
      this.worker = new Worker(new URL('./index-worker.js', import.meta.url));
    }
    this.worker.unref();
  }

  index(job: ChannelIndexJob): Promise<ChannelIndexResult> {
    const run = this.queue.then(
      () =>
        new Promise<ChannelIndexResult>((resolve, reject) => {
          const onError = (error: Error): void => reject(error);
          this.worker.once('error', onError);
          this.worker.once('message', (message: { ok: true; result: ChannelIndexResult } | { ok: false; message: string }) => {
            this.worker.off('error', onError);
            if (message.ok) resolve(message.result);
            else reject(new Error(message.message));
          });
          this.worker.postMessage(job);
        }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
