/**
 * The DuckDB binding, loaded on first use only (a dynamic import): commands and routes that do
 * not run SQL never load its native library.
 */

export type DuckModule = typeof import('@duckdb/node-api');

let loading: Promise<DuckModule> | undefined;

export function loadDuck(): Promise<DuckModule> {
  loading ??= import('@duckdb/node-api');
  return loading;
}
