import { createRequire } from 'node:module';

/**
 * The DuckDB binding, loaded on first use only: commands and routes that do not run SQL never
 * load its native library. The raw binding under the API comes with it (chunk-appender.ts writes a
 * data chunk's vectors through it).
 *
 * Both packages are CommonJS and are loaded with `require`, not `import()`: an ES import of a
 * CommonJS module has Node parse it, and every module it re-exports (the API re-exports about a
 * hundred files), with its export lexer first. Loading both packages in a fresh process, the two ways
 * alternated five times on a busy machine: import() 0.30-0.50 s of CPU and 1.0-2.2 s wall,
 * require 0.17-0.25 s and 0.5-1.2 s.
 */

export type DuckModule = typeof import('@duckdb/node-api');
export type DuckBindings = typeof import('@duckdb/node-bindings');

let loading: Promise<DuckModule> | undefined;
let bindings: DuckBindings | undefined;

export function loadDuck(): Promise<DuckModule> {
  loading ??= Promise.resolve().then(() => {
    const require = createRequire(import.meta.url);
    const api = require('@duckdb/node-api') as DuckModule;
    bindings = require('@duckdb/node-bindings') as DuckBindings;
    return api;
  });
  return loading;
}

/** The raw binding, once `loadDuck` has resolved. */
export function duckBindings(): DuckBindings {
  if (bindings === undefined) throw new Error('DuckDB is not loaded yet (loadDuck first)');
  return bindings;
}
