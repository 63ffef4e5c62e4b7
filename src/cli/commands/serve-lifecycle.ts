import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { OpeningServer } from '../../http/ops/opening-server.js';
import type { StorageRegistry } from '../../registry/storage-registry.js';
import type { CommandIo } from '../io.js';
import type { ServeAccess } from './serve-access.js';
import type { ServeOptions } from './serve-options.js';
import type { OpenedStorages } from './serve-storages.js';

/**
 * How `serve` serves: the port's stand-in while storages open, the shutdown on SIGINT/SIGTERM
 * (answers in flight finish, within --shutdown-timeout), and the lines that say where what is.
 */

/** How long a server without requests waits before `afterFirstAnswer`'s work starts anyway. */
export const FIRST_ANSWER_WAIT_MS = 100;

/**
 * Runs `work` once the server has answered its first request (its response closed), or after
 * `waitMs` without any: what a user (or a poller) asks right after the launch is not kept
 * waiting by it. `serve` starts building the graph indexes so: on a small storage the build runs
 * in this thread (a few tens of milliseconds with its collection and dominator tree), which the
 * first answer waited for (docs/benchmarks/startup.md).
 */
export function afterFirstAnswer(server: Pick<Server, 'on' | 'off'>, waitMs: number, work: () => void): void {
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    clearTimeout(timer);
    server.off('request', onRequest);
    setImmediate(work);
  };
  const onRequest = (_request: unknown, response: { once(event: 'close', listener: () => void): unknown }): void => void response.once('close', start);
  const timer = setTimeout(start, waitMs);
  server.on('request', onRequest);
}

/** The stand-in's listen, with the usual failures said in words that point to the fix. */
export async function listenOrExplain(options: ServeOptions, settings: Parameters<typeof OpeningServer.listen>[0]): Promise<OpeningServer> {
  try {
    return await OpeningServer.listen(settings);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${hostForUrl(options.host)}:${options.port}`;
    if (code === 'EADDRINUSE') {
      throw new Error(`cannot listen on ${where}: the port is already in use (another server?); choose another with --port <n>, or --port 0 for a free one`, { cause: error });
    }
    if (code === 'EACCES') {
      throw new Error(`cannot listen on ${where}: not permitted (ports below 1024 need privileges); choose another with --port <n>, or --port 0 for a free one`, { cause: error });
    }
    if (code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${where}: this machine has no interface with the address ${options.host} (--host)`, { cause: error });
    throw error;
  }
}

export function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** On SIGINT or SIGTERM: no new connections, the requests in flight finished, then exit (a second signal: at once). */
export function shutDownOnSignals(app: FastifyInstance, storages: OpenedStorages, registry: StorageRegistry, shutdownTimeoutMs: number, io: CommandIo): void {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) {
      io.stderr.write(`storage-inspector: ${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    // Counted: requests whose answer has not been handed to the operating system completely. An
    // answer that fits in the connection's socket buffers is complete for the process (the system
    // delivers it, also after the process ends), so clients may still be receiving beyond these.
    const inFlight = app.connections.stats.inFlight;
    io.stderr.write(
      `storage-inspector: ${signal}: no new connections; finishing ${inFlight} request(s) in flight (answers not yet handed to the system completely; what its socket buffers hold it delivers) (at most ${shutdownTimeoutMs} ms, --shutdown-timeout)\n`,
    );
    // If closing hangs anyway (it should not), the process still goes.
    const hard = setTimeout(() => process.exit(1), shutdownTimeoutMs + 5000);
    hard.unref();
    try {
      await storages.stop();
      // Stop accepting; responses already started are sent completely, then their connections
      // close; only the shutdown limit cuts one, and says so.
      const closed = app.close();
      const drained = await app.connections.drain(shutdownTimeoutMs);
      if (drained.cut > 0 || drained.unanswered > 0) {
        const what = [
          drained.cut > 0 ? `cut ${drained.cut} response(s) still being sent` : undefined,
          drained.unanswered > 0 ? `closed ${drained.unanswered} request(s) not answered yet` : undefined,
        ].filter((part) => part !== undefined);
        io.stderr.write(`storage-inspector: shutdown timeout of ${shutdownTimeoutMs} ms (--shutdown-timeout) passed: ${what.join(' and ')}\n`);
      } else if (drained.inFlightAtStart > 0) {
        io.stderr.write(`storage-inspector: all ${drained.inFlightAtStart} request(s) in flight were answered completely\n`);
      }
      await closed;
      await registry.close();
      for (const o of storages.opened) await o.storage.close();
    } finally {
      io.stderr.write('storage-inspector: stopped\n');
      process.exit(0);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void shutdown(signal));
  }
}

/** What is served where, once the server listens. */
export function servingLines(app: FastifyInstance, options: ServeOptions, access: ServeAccess, storages: OpenedStorages, registry: StorageRegistry): string[] {
  const first = storages.opened[0]!;
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const scheme = access.tls === undefined ? 'http' : 'https';
  const guarded = [access.auth === undefined ? undefined : 'authentication required', access.cors === undefined ? undefined : 'CORS allow-list'].filter((x) => x !== undefined);
  const base = `${scheme}://${hostForUrl(options.host)}:${port}`;
  const guards = guarded.length > 0 ? ` (${guarded.join(', ')})` : '';
  const dialect = options.dialect === 'spark' ? '' : `, ${options.dialect} dialect`;
  const lines: string[] = [];
  if (options.storages.length === 1 && options.storages[0]!.name === undefined) {
    lines.push(`serving ${first.storage.directory} (${first.storage.family.label}${dialect}) at ${base}/${first.instance}/root${guards}`);
  } else {
    for (const o of storages.opened) {
      const single = options.storages.length === 1 ? ` and ${base}/${o.instance}/root` : '';
      lines.push(`serving ${o.name}: ${o.storage.directory} (${o.storage.family.label}${dialect}) at ${base}/${o.instance}/${o.name}/root${single}${guards}`);
    }
    for (const u of registry.unavailable()) lines.push(`not serving ${u.name}: ${u.reason}`);
  }
  lines.push(options.dialect === 'spark' ? `web viewer at ${base}/viewer/` : `no web viewer in the ${options.dialect} dialect (it needs the default one)`);
  lines.push(`API at ${base}/api/v1/, every route documented at ${base}/docs/ (${base}/openapi.json)`);
  lines.push(`MCP server for AI assistants at ${base}/mcp (Streamable HTTP)`);
  return lines;
}
