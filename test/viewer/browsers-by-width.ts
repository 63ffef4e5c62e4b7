import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { BUILT_VIEWER, launchBrowser, startServer, viewerBuilt, type Browser, type RunningServer } from './browser.js';

/**
 * A real server on one corpus storage and a chromium per window width, started before the tests
 * of the calling describe block and closed after them; pages open at a width collect the page's
 * errors. For the tests that look at the same views on a desktop and a phone.
 */
export interface BrowsersByWidth {
  readonly server: RunningServer;
  /** Page errors of every page opened (a test ends with `expect(errors).toEqual([])`). */
  readonly errors: string[];
  /** A new page at this width on `/viewer/<hash>`; `onPage` sees it before it loads (listeners). */
  open(width: number, hash: string, onPage?: (page: Page) => void): Promise<Page>;
}

/** Phones are 844 px tall, everything else 900. */
const heightOf = (width: number): number => (width <= 400 ? 844 : 900);

export function browsersByWidth(storage: string, widths: readonly number[], artifacts: string): BrowsersByWidth {
  let server: RunningServer | undefined;
  const browsers = new Map<number, Browser>();
  const errors: string[] = [];
  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(artifacts, { recursive: true });
    server = await startServer(storage);
    for (const width of widths) browsers.set(width, await launchBrowser({ width, height: heightOf(width) }));
  });
  afterAll(async () => {
    for (const browser of browsers.values()) await browser.close();
    await server?.close();
  });
  return {
    get server(): RunningServer {
      if (server === undefined) throw new Error('the server starts in beforeAll');
      return server;
    },
    errors,
    async open(width, hash, onPage) {
      const browser = browsers.get(width);
      if (browser === undefined) throw new Error(`no browser of width ${width} (widths: ${widths.join(', ')})`);
      const page = await browser.context.newPage();
      page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
      onPage?.(page);
      await page.goto(`${this.server.url}/viewer/${hash}`);
      return page;
    },
  };
}
