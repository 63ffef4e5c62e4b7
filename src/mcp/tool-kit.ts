import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { StorageContext, StorageRegistry } from '../registry/storage-registry.js';
import type { StorageSource } from '../storage/source/source.js';
import { ApiAnswerError, type ApiClient } from './api-client.js';
import { CURSOR_PATTERN, DEFAULT_PAGE, MAX_PAGE, structuredFits, STRUCTURED_BYTES, TEXT_CHARS } from './budget.js';
import type { SqlEngine } from './sql-engine-contract.js';

/**
 * What every tool is made of: the input pieces they share (written for a model: what an id looks
 * like, where a cursor comes from), the answer (text plus structured content, both bounded), and
 * errors as tool errors (`isError`), never as a failed server.
 */

export interface ToolDeps {
  readonly api: ApiClient;
  readonly registry: StorageRegistry;
  /** A new source of a served storage, for `check_storage` (which reads it on its own and closes it). */
  readonly checkSource?: ((context: StorageContext) => StorageSource | undefined) | undefined;
  /** The SQL engine of a served storage (issue 30's `src/sql/`); no `sql_query` tool without one. */
  readonly sqlEngine?: ((context: StorageContext) => SqlEngine | undefined) | undefined;
}

export const objectIdInput = z
  .string()
  .regex(/^[0-9]{1,19}$/, 'an object id is 1 to 19 decimal digits')
  .describe('object id as a decimal string, as shown in earlier answers (e.g. "1000000000000000028")');

export function limitInput(what: string, fallback = DEFAULT_PAGE, max = MAX_PAGE) {
  return z.number().int().min(1).max(max).optional().describe(`${what} per answer (default ${fallback}, at most ${max})`);
}

export const cursorInput = z
  .string()
  .regex(CURSOR_PATTERN, 'a cursor is the text given after "next cursor" in an earlier answer')
  .optional()
  .describe('to continue a truncated answer: the value after "next cursor" in its last line');

/** The `storage` input: which served storage (only worth giving when several are served). */
export function storageInput(registry: StorageRegistry) {
  const names = registry.names();
  const which = names.length <= 1 ? `only one is served${names[0] === undefined ? '' : ` (${names[0]})`}: leave it out` : `default ${names[0]}; served: ${names.join(', ')}`;
  return { storage: z.string().max(64).optional().describe(`name of the served storage to ask (${which})`) };
}

/** The storage name of a call (undefined: the default storage). */
export function storageOf(args: object): string | undefined {
  const value = (args as { storage?: unknown }).storage;
  return typeof value === 'string' ? value : undefined;
}

/** Text plus structured content; structured content larger than the budget is left out, and the text says so. */
export function answer(text: string, structured: Record<string, unknown>): CallToolResult {
  const { fits, bytes } = structuredFits(structured);
  if (fits) return { content: [{ type: 'text', text }], structuredContent: structured };
  return {
    content: [{ type: 'text', text: `${text}\n(structured content of ${bytes} bytes left out: more than ${STRUCTURED_BYTES}; ask for a smaller page)` }],
  };
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message.length > TEXT_CHARS ? `${message.slice(0, TEXT_CHARS)}…` : message }], isError: true };
}

/** Runs a tool's work; whatever goes wrong is the caller's tool error, with the API's title and detail. */
export async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiAnswerError) return toolError(`${error.title} (${error.status}): ${error.message}`);
    return toolError(`Error: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Every tool only reads, and only this storage. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export type ToolRegistrar = (server: McpServer, deps: ToolDeps) => void;

/**
 * Every tool registered on `server` from here on refuses arguments it does not know, with a tool
 * error naming them: a misspelt `limt` or a `cursor` given to a tool without pages was dropped
 * without a word, and the model read the answer as the one it asked for. The input shapes become
 * strict objects (their JSON Schema says `additionalProperties: false`).
 */
export function refuseUnknownArguments(server: McpServer): void {
  const register = server.registerTool.bind(server);
  const strict = (name: string, config: { inputSchema?: unknown }, callback: unknown): unknown => {
    const shape = config.inputSchema;
    const inputSchema = shape === undefined ? z.strictObject({}) : shape instanceof z.ZodType ? shape : z.strictObject(shape as z.ZodRawShape);
    return (register as (n: string, c: unknown, cb: unknown) => unknown)(name, { ...config, inputSchema }, callback);
  };
  server.registerTool = strict as typeof server.registerTool;
}
