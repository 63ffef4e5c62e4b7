/**
 * The floor plan of src/: every folder (a room) and the rooms its files may import, besides their
 * own room and src/errors.ts. `x/**` is x and every room inside it. A folder missing here fails
 * floor-plan.test.ts: a new room is added to the plan (and to docs/architecture.md) on purpose.
 * Each room's README says the same in its one `May import:` line (room-readmes.test.ts checks it).
 *
 * Arrows point down: format ← storage ← inspect/graph ← gigamap ← check/sql ← registry ← api-contract
 * ← http/mcp (neither imports the other) ← cli, the
 * writer beside storage, rescue beside check, the viewer apart (it only speaks HTTP). Inside a concern its top folder holds
 * what ties its rooms together (storage.ts, graph-service.ts, app.ts) and may use them; the rooms
 * do not reach back up, with three exceptions kept on purpose: cli/commands use the command line's
 * helpers beside run-cli.ts, which loads each command when it is named (and cli's other rooms its
 * io.ts, where a command writes); mcp/tools use the MCP
 * server's helpers beside mcp-server.ts, which registers them; writer/generator uses the writer,
 * whose index.ts offers the generator to its callers. In sql/, its rooms reach up for duck-module.ts
 * alone (DuckDB's one loader, its type and raw binding), and sql/output (a result's texts, the table
 * export) stands on the engine, sql-engine.ts, which imports no file of it; sql/sandbox (the
 * locked-down DuckDB and what a user's statement may be) reaches up for nothing, not even that.
 */
export const FLOOR_PLAN: Readonly<Record<string, readonly string[]>> = {
  javatext: [],
  format: ['javatext'],
  threads: [],

  'storage/source': ['format', 'javatext'],
  'storage/postgres': ['storage/source', 'format', 'javatext'],
  'storage/sql-tables': ['storage/postgres', 'storage/source', 'format', 'javatext'],
  'storage/records': ['storage/source', 'format'],
  'storage/index': ['storage/records', 'storage/source', 'threads', 'format'],
  storage: ['storage/index', 'storage/records', 'storage/source', 'storage/postgres', 'storage/sql-tables', 'threads', 'format', 'javatext'],
  'storage/follow': ['storage', 'storage/index', 'storage/source', 'format'],
  'storage/history': ['storage', 'storage/records', 'storage/source', 'format'],
  'storage/checksums': ['storage', 'storage/source', 'threads', 'format'],

  inspect: ['storage/**', 'format', 'javatext'],
  check: ['gigamap', 'inspect', 'storage/**', 'format', 'javatext'],
  damaged: ['check', 'storage/**', 'format', 'javatext'],
  writer: ['writer/generator', 'storage/**', 'format', 'javatext'],
  'writer/generator': ['writer', 'format', 'javatext'],
  rescue: ['check', 'writer/**', 'inspect', 'storage/**', 'format', 'javatext'],
  diff: ['rescue', 'inspect', 'storage/**', 'format', 'javatext'],
  convert: ['rescue', 'check', 'graph/**', 'writer/**', 'storage/**', 'format', 'javatext', 'threads'],

  'graph/model': ['storage/**', 'format', 'javatext', 'threads'],
  'graph/build': ['graph/model', 'storage/**', 'format', 'javatext', 'threads'],
  'graph/queries': ['graph/model', 'graph/build', 'storage/**', 'inspect', 'format', 'javatext'],
  graph: ['graph/model', 'graph/build', 'graph/queries', 'storage/**', 'format', 'javatext'],
  gigamap: ['graph/**', 'inspect', 'storage/**', 'format', 'javatext'],
  'sql/answers': [],
  'sql/sandbox': [],
  'sql/tables': ['sql', 'gigamap', 'inspect', 'storage/**', 'format', 'javatext'],
  'sql/cache': ['sql/tables', 'storage/**'],
  'sql/fills': ['sql', 'sql/tables', 'damaged', 'gigamap', 'graph/model', 'inspect', 'storage/**', 'format', 'javatext'],
  sql: ['sql/fills', 'sql/tables', 'sql/cache', 'sql/answers', 'sql/sandbox', 'gigamap', 'graph/model', 'inspect', 'storage/**'],
  'sql/output': ['sql', 'sql/answers', 'sql/cache', 'sql/sandbox', 'sql/tables', 'graph/model', 'storage/**'],

  registry: ['damaged', 'graph/**', 'storage/**', 'inspect', 'format', 'javatext'],
  'api-contract': ['registry', 'storage/**'],

  'http/guard': ['inspect', 'storage/**', 'format', 'javatext'],
  'http/java': ['http/guard', 'registry', 'inspect', 'storage/**', 'format', 'javatext'],
  'http/api-v1/machinery': ['api-contract', 'registry'],
  'http/api-v1/analysis': ['http/api-v1/machinery', 'api-contract', 'registry', 'graph/**', 'inspect', 'storage/**', 'format', 'javatext'],
  'http/api-v1/gigamap': ['http/api-v1/machinery', 'api-contract', 'gigamap', 'graph/**', 'storage/**'],
  'http/api-v1/history': ['http/api-v1/machinery', 'api-contract', 'registry', 'diff', 'rescue', 'inspect', 'storage/**', 'javatext'],
  'http/api-v1/objects': ['http/api-v1/analysis', 'http/api-v1/gigamap', 'http/api-v1/machinery', 'http/guard', 'api-contract', 'registry', 'gigamap', 'graph/**', 'inspect', 'format'],
  'http/api-v1/search': ['http/api-v1/analysis', 'http/api-v1/machinery', 'api-contract', 'registry', 'graph/**', 'inspect'],
  'http/api-v1/sql': ['http/api-v1/machinery', 'http/guard', 'api-contract', 'registry', 'sql', 'sql/answers', 'sql/cache', 'sql/sandbox'],
  'http/api-v1': ['http/api-v1/analysis', 'http/api-v1/gigamap', 'http/api-v1/history', 'http/api-v1/machinery', 'http/api-v1/objects', 'http/api-v1/search', 'http/api-v1/sql', 'http/guard', 'api-contract', 'registry'],
  'http/viewer': ['http/guard'],
  'http/ops': ['http/java', 'http/guard', 'http/api-v1/machinery', 'registry', 'graph/**', 'inspect', 'storage/**', 'format', 'javatext'],
  http: ['http/**', 'registry', 'storage/**'],
  mcp: ['mcp/tools', 'api-contract', 'registry', 'sql', 'check', 'inspect', 'storage/**', 'format', 'javatext'],
  'mcp/tools': ['mcp', 'api-contract', 'registry', 'sql', 'check', 'inspect', 'storage/**', 'format', 'javatext'],

  library: ['sql', 'sql/answers', 'graph/**', 'inspect', 'storage/**', 'format', 'javatext'],

  cli: ['**'],
  'cli/commands': ['**'],
  'cli/options': ['cli/reports', 'damaged', 'http/guard', 'sql/cache', 'storage/**'],
  'cli/output': ['cli', 'format', 'graph', 'inspect', 'sql/answers', 'storage/**'],
  'cli/reports': ['cli', 'cli/options', 'api-contract', 'check', 'convert', 'diff', 'gigamap', 'inspect', 'rescue'],
  'cli/sql': ['cli', 'cli/options', 'cli/output', 'cli/reports', 'http/api-v1/**', 'registry', 'sql', 'sql/answers', 'sql/output', 'sql/tables', 'writer'],
};
