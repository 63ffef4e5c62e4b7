import type { StorageContext, StorageRegistry } from '../registry/storage-registry.js';
import type { StorageSource } from '../storage/source/source.js';
import type { ApiPlugin, SchemaCompilers } from './api-client.js';
import type { SqlEngine } from './sql-engine-contract.js';

/**
 * What `/mcp`'s route (http-route.ts, registered when serve starts) and its transport
 * (http-transport.ts, loaded with the SDK on the first request) share: the options and the
 * answer. Their own module, so that neither imports the other for its types.
 */

export interface McpRouteOptions {
  readonly registry: StorageRegistry;
  /** The plugin of `/api/v1` the tools answer through (api-client.ts), from whoever mounts `/mcp`. */
  readonly api: ApiPlugin;
  /** The schema compilers of that instance (made with it, on the first request; api-client.ts). */
  readonly schemaCompilers: () => SchemaCompilers;
  /** Tools still running after this answer an error (the API's request timeout; 0: none). */
  readonly requestTimeoutMs: number;
  readonly checkSource?: ((context: StorageContext) => StorageSource | undefined) | undefined;
  readonly sqlEngine?: ((context: StorageContext) => SqlEngine | undefined) | undefined;
  /**
   * Loads `sqlEngine` when the transport is made (the first request), for a mounter that keeps
   * the SQL engine's modules out of its start (serve).
   */
  readonly loadSqlEngine?: (() => Promise<(context: StorageContext) => SqlEngine | undefined>) | undefined;
}

export interface McpHttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type McpHttpHandler = (request: Request) => Promise<McpHttpAnswer>;
