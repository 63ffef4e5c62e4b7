import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { graphsBuilt, registeredStorage } from '../helpers/serving/registered-storage.js';

/** Shared by the browser tests and scripts/screenshots.ts: Debian's chromium and a real server. */

/** The environment variable naming another chromium binary than Debian's. */
export const CHROMIUM_ENV = 'STORAGE_INSPECTOR_CHROMIUM';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[CHROMIUM_ENV]?.trim();
  return given === undefined || given === '' ? DEBIAN_CHROMIUM : given;
}

export const CHROMIUM_PATH = chromiumPath();

/** CI (the variable CI set, not to false): browser tests fail there instead of being skipped. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * Why the browser tests cannot run here, or undefined when they run (chromium found, or in CI,
 * where a missing chromium fails them instead).
 */
export function browserSkipReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = chromiumPath(env);
  if (existsSync(path) || inCi(env)) return undefined;
  return `${path} is missing (apt-get install chromium, or name another chromium in ${CHROMIUM_ENV}); in CI they fail instead`;
}
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const STORAGES = path.join(REPO_ROOT, 'test/fixtures/conformance/storages');
export const BUILT_VIEWER = path.join(REPO_ROOT, 'dist/viewer/index.html');

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile directory (removed again on close). */
export async function launchBrowser(viewport = { width: 1280, height: 800 }, extraArgs: readonly string[] = []): Promise<Browser> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'storage-inspector-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      viewport,
      deviceScaleFactor: 1,
      colorScheme: 'light',
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

export interface ServerSetup {
  /** Options for the application (access control, CORS...). */
  readonly app?: Partial<AppOptions>;
  /** A fixed port (to stop and start a server at the same address); 0 by default. */
  readonly port?: number;
  /** Sees the headers of every request (before access control). */
  readonly onRequest?: (headers: IncomingHttpHeaders) => void;
}

/** The real HTTP application on a loopback port, serving one corpus storage (or the storage directory at an absolute path). */
export async function startServer(storageName: string, setup: ServerSetup = {}): Promise<RunningServer> {
  // With storage-inspector's own API and SQL, as `serve` runs them (its graph index built before the tests look).
  const { storage, registry, close } = await registeredStorage(path.resolve(STORAGES, storageName));
  await graphsBuilt(registry);
  const app = buildApp(storage, { instance: 'microstream', api: registry, sql: {}, ...setup.app });
  const onRequest = setup.onRequest;
  if (onRequest !== undefined) app.server.prependListener('request', (request: IncomingMessage) => onRequest(request.headers));
  await app.listen({ host: '127.0.0.1', port: setup.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
      await close();
    },
  };
}

export function chromiumAvailable(): boolean {
  return existsSync(chromiumPath());
}

export function viewerBuilt(): boolean {
  return existsSync(BUILT_VIEWER);
}
