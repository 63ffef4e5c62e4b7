import type { Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_VIEWER, chromiumAvailable, CHROMIUM_PATH, launchBrowser, startServer, viewerBuilt, type Browser, type RunningServer } from '../browser.js';
import { describeInBrowser } from '../browser-suite.js';

/**
 * Clicks in lists redrawn in the background — the object tree while the fields of listed objects
 * arrive, an instance grid while the summaries of its references arrive: the browser sends no
 * click when the element pressed left the document before the button was released, so rows must
 * be redrawn in place (viewer/src/ui/dom-patch.ts). Here a redraw is made to fall exactly between
 * press and release.
 */

let browser: Browser | undefined;
let graph: RunningServer;

function row(key: string): string {
  return `.row[data-key="${key.replace(/["\\]/g, '\\$&')}"]`;
}

/** The background look at a listed object's fields (see the viewer's model: `peekAll`). */
function isPeek(url: URL): boolean {
  return url.pathname.includes('/object/') && url.searchParams.get('variableLength') === '0' && url.searchParams.get('valueLength') === '80';
}

/** The summaries of a grid's references (see the viewer's data-grid.ts). */
function isSummaries(url: URL): boolean {
  return url.pathname.endsWith('/api/v1/summaries');
}

describeInBrowser('clicks while lists are redrawn, in chromium', () => {
  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`${CHROMIUM_PATH} is missing`);
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    graph = await startServer('graph');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await graph?.close();
  });

  it('opens a row whose twisty is pressed while the row is redrawn', async () => {
    if (browser === undefined) throw new Error('no browser');
    const page = await browser.context.newPage();
    const held: Route[] = [];
    await page.route(isPeek, (route) => {
      held.push(route);
    });
    try {
      await page.goto(`${graph.url}/viewer/`);
      const books = page.locator(row('root/books'));
      await books.waitFor();
      await page.locator(`${row('root/books')}[aria-expanded="false"] .twisty`).click();
      const twisty = page.locator(`${row('root/books/[1]')}[aria-expanded="false"] .twisty`);
      await twisty.waitFor();
      // The books' fields are held back: the row of book [1] still shows its plain summary.
      await expect.poll(() => held.length).toBeGreaterThan(1);
      const value = page.locator(`${row('root/books/[1]')} .c-value`);
      const plain = await value.textContent();
      expect(plain).not.toContain('title');

      const box = await twisty.boundingBox();
      if (box === null) throw new Error('the twisty of root/books/[1] has no box');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      // Between press and release: the fields arrive and the row is redrawn with them.
      for (const route of held.splice(0)) await route.continue();
      await expect.poll(() => value.textContent()).toContain('title');
      await page.mouse.up();

      await page.locator(`${row('root/books/[1]')}[aria-expanded="true"]`).waitFor({ timeout: 5000 });
      await page.locator(row('root/books/[1]/title')).waitFor();
    } finally {
      await page.unroute(isPeek);
      for (const route of held.splice(0)) await route.continue().catch(() => undefined);
      await page.close();
    }
  });

  it('follows a reference link in an instance grid pressed while the summaries arrive', async () => {
    if (browser === undefined) throw new Error('no browser');
    const page = await browser.context.newPage();
    const held: Route[] = [];
    await page.route(isSummaries, (route) => {
      held.push(route);
    });
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${graph.url}/viewer/#/microstream/types/1000073`);
      await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
      const headers = await page.locator('.grid-titles .grid-th').allTextContents();
      const author = headers.indexOf('author');
      expect(author).toBeGreaterThan(1);
      const link = page.locator(`.grid-rows .grid-row .grid-cell:nth-child(${author + 1}) a.ref-link`).first();
      await link.waitFor();
      await expect.poll(() => held.length).toBeGreaterThan(0);
      // Still the id: its summary is held back.
      const id = (await link.textContent()) ?? '';
      expect(id).toMatch(/^[0-9]+$/);

      const box = await link.boundingBox();
      if (box === null) throw new Error('the author link has no box');
      await page.mouse.move(box.x + Math.min(8, box.width / 2), box.y + box.height / 2);
      await page.mouse.down();
      // Between press and release: the summaries arrive and the rows are drawn again with them.
      for (const route of held.splice(0)) await route.continue();
      await expect.poll(() => link.textContent()).not.toBe(id);
      await page.mouse.up();

      await page.waitForURL(new RegExp(`object/${id}`), { timeout: 5000 });
    } finally {
      await page.unroute(isSummaries);
      for (const route of held.splice(0)) await route.continue().catch(() => undefined);
      await page.close();
    }
  });

  it('keeps the tab clicked while the viewer still finishes its start', async () => {
    if (browser === undefined) throw new Error('no browser');
    const page = await browser.context.newPage();
    // The last steps of the start (is SQL there?) are held until the user has clicked a tab.
    const isOpenApi = (url: URL): boolean => url.pathname.endsWith('/api/v1/openapi.json');
    const held: Route[] = [];
    let holding = true;
    await page.route(isOpenApi, (route) => (holding ? void held.push(route) : route.continue()));
    try {
      await page.goto(`${graph.url}/viewer/`);
      await expect.poll(() => held.length).toBeGreaterThan(0);
      await page.locator('.tab[data-view="dictionary"]').click();
      await page.locator('.dictionary-view .search-input').waitFor();
      holding = false;
      for (const route of held.splice(0)) await route.continue();
      // The start has ended when the main region is no longer busy.
      await page.locator('main[aria-busy]').waitFor({ state: 'detached' });
      await page.locator('.dictionary-view .search-input').fill('Book');
      expect(new URL(page.url()).hash).toContain('dictionary');
      expect(await page.locator('.data-view').count()).toBe(0);
    } finally {
      await page.unroute(isOpenApi).catch(() => undefined);
      for (const route of held.splice(0)) await route.continue().catch(() => undefined);
      await page.close();
    }
  });
});
