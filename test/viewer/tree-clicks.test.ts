import type { Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_VIEWER, chromiumAvailable, CHROMIUM_PATH, launchBrowser, startServer, viewerBuilt, type Browser, type RunningServer } from './browser.js';
import { describeInBrowser } from './browser-suite.js';

/**
 * A click in the object tree while its rows are redrawn in the background (the fields of the
 * listed objects arrive one by one after a list opened): the browser sends no click when the
 * element pressed left the document before the button was released, so rows must be redrawn in
 * place. Here a redraw is made to fall exactly between press and release.
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

describeInBrowser('object tree clicks in chromium', () => {
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
});
