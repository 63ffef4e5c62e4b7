import type { StorageContext } from '../../registry/storage-registry.js';
import { sqlEngineOf, type SqlServiceOptions } from '../../http/api-v1/sql/sql-engines.js';
import type { SqlEngine } from '../../sql/sql-engine.js';

/**
 * A storage's SQL engine with these limits: the one /api/v1/sql uses, for the MCP server's
 * sql_query tool. Apart from sql-options.ts, which every `serve` loads for its options: this loads
 * the SQL engine's module, which `serve` loads on the first request to /mcp (or /api/v1).
 */
export function sqlEngineFor(limits: SqlServiceOptions): (context: StorageContext) => SqlEngine {
  return (context) => sqlEngineOf(context, limits);
}
