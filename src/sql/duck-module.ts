/**
 * The DuckDB binding, loaded on first use only (a dynamic import): commands and routes that do
 * not run SQL never load its native library. The raw binding under the API comes with it
 * (chunk-appender.ts writes a data chunk's vectors through it).
 */

export type DuckModule = typeof import('@duckdb/node-api');
export type DuckBindings = typeof import('@duckdb/node-bindings');

let loading: Promise<DuckModule> | undefined;
let bindings: DuckBindings | undefined;

export function loadDuck(): Promise<DuckModule> {
  loading ??= Promise.all([import('@duckdb/node-api'), import('@duckdb/node-bindings')]).then(([api, raw]) => {
    // A CommonJS module: its exports are the default export of the ESM namespace.
    bindings = (raw as { default?: DuckBindings }).default ?? raw;
    return api;
  });
  return loading;
}

/** The raw binding, once `loadDuck` has resolved. */
export function duckBindings(): DuckBindings {
  if (bindings === undefined) throw new Error('DuckDB is not loaded yet (loadDuck first)');
  return bindings;
}
