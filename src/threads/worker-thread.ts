import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Worker threads of our own code: started beside the module that uses them, asked one thing at a
 * time, and telling why they ended instead of leaving a question unanswered.
 */

/**
 * Starts the worker thread script `name` that lies beside the module `from` (its
 * `import.meta.url`), as built code or as TypeScript source, whichever that module is.
 *
 * Built code starts without the process's `--import`/`--require` preloads: it runs only our
 * compiled code, and a loader preloaded in the process (a TypeScript runner around a script that
 * imports the built code, as the benchmark does) cost each worker 250 ms of start-up. From the
 * TypeScript source (tests, `npm run dev`), tsx's loader is registered inside the worker first,
 * unless the sources were compiled for a test run (see COMPILED_SOURCES_VARIABLE).
 */
export function startWorker(from: string, name: string, limits?: ResourceLimits): Worker {
  const resourceLimits = limits === undefined ? {} : { resourceLimits: limits };
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), { execArgv: [], ...resourceLimits });
  const compiled = compiledWorker(from, name);
  if (compiled !== undefined) return new Worker(compiled, { execArgv: [], ...resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, from).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, ...resourceLimits });
}

/**
 * Names a copy of src/ compiled module by module, as tsx compiles each module (the test run makes
 * one, test/helpers/test-run/compiled-cli.ts). A worker of the TypeScript source then starts from
 * that copy's module: the same code, without tsx's loader registered in the thread, which cost each
 * thread 0.3-0.55 s of CPU against 0.07-0.09 s from the copy (the decode and dominator workers).
 */
export const COMPILED_SOURCES_VARIABLE = 'STORAGE_INSPECTOR_COMPILED_SOURCES';

/** src/, where `from` lies when it is one of our TypeScript modules. */
const SOURCE_ROOT = new URL('../', import.meta.url).href;

function compiledWorker(from: string, name: string): URL | undefined {
  const compiled = process.env[COMPILED_SOURCES_VARIABLE];
  if (compiled === undefined || compiled === '' || !from.startsWith(SOURCE_ROOT)) return undefined;
  return new URL(`./${name}.js`, new URL(from.slice(SOURCE_ROOT.length), pathToFileURL(`${compiled}/`)));
}

/** A worker thread that answers each message with one message. */
export class WorkerThread<Request, Reply> {
  private readonly worker: Worker;
  /** Why the thread ended (an error thrown in it, or its exit), once it has. */
  private ended: Error | undefined;
  private pending: ((reply: Reply | Error) => void) | undefined;

  /** Starts script `name` beside module `from`; `stopped` says what an exit with a code means. */
  constructor(from: string, name: string, stopped: (code: number) => string) {
    this.worker = startWorker(from, name);
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error: Error) => this.end(error));
    this.worker.on('exit', (code: number) => this.end(new Error(stopped(code))));
  }

  /** Sends `request`; resolves with the reply, or with the error the thread ended with. */
  ask(request: Request): Promise<Reply | Error> {
    return new Promise<Reply | Error>((resolve) => {
      if (this.ended !== undefined) resolve(this.ended);
      else {
        this.pending = resolve;
        this.worker.postMessage(request);
      }
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private end(error: Error): void {
    this.ended ??= error;
    this.settle(this.ended);
  }

  private settle(reply: Reply | Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.(reply);
  }
}
