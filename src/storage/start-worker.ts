import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread script `name` that lies beside the module `from` (its
 * `import.meta.url`), as built code or as TypeScript source, whichever that module is.
 *
 * Built code starts without the process's `--import`/`--require` preloads: it runs only our
 * compiled code, and a loader preloaded in the process (a TypeScript runner around a script that
 * imports the built code, as the benchmark does) cost each worker 250 ms of start-up. From the
 * TypeScript source (tests, `npm run dev`), tsx's loader is registered inside the worker first.
 */
export function startWorker(from: string, name: string): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), { execArgv: [] });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, from).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true });
}
