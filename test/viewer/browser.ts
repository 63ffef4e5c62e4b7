import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildApp } from '../../src/http/app.js';
import { StorageRegistry } from '../../src/http/storage-registry.js';
import { Storage } from '../../src/storage/storage.js';

/** Shared by the browser tests and scripts/screenshots.ts: Debian's chromium and a real server. */

export const CHROMIUM_PATH = '/usr/bin/chromium';
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
export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'storage-inspector-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
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

/** The real HTTP application on a free loopback port, serving one corpus storage. */
export async function startServer(storageName: string): Promise<RunningServer> {
  const storage = await Storage.open(path.join(STORAGES, storageName));
  // With storage-inspector's own API, as `serve` runs it (its graph index built before the tests look).
  const registry = new StorageRegistry();
  registry.add('default', storage);
  registry.startAll();
  await registry.get()!.graph.ready();
  const app = buildApp(storage, { instance: 'microstream', api: registry });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await registry.close();
      await storage.close();
    },
  };
}

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export function viewerBuilt(): boolean {
  return existsSync(BUILT_VIEWER);
}
