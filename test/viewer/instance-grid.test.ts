import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from './browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from './browser.js';

/**
 * A type's instance grid in chromium against the real server, at 1440 and 390 px: a WHERE
 * condition DuckDB refuses is explained under the WHERE box with a caret in the user's own text,
 * and the grid stays (rows, headers, filters).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/instance-grid');
const WIDTHS = [1440, 390] as const;
const BOOK = '1000073';

describeInBrowser('viewer: the instance grid', () => {
  let server: RunningServer;
  const browsers = new Map<number, Browser>();
  const errors: string[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer('graph');
    for (const width of WIDTHS) browsers.set(width, await launchBrowser({ width, height: width === 390 ? 844 : 900 }));
  });
  afterAll(async () => {
    for (const browser of browsers.values()) await browser.close();
    await server?.close();
  });

  async function open(width: number, hash: string): Promise<Page> {
    const page = await browsers.get(width)!.context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.goto(`${server.url}/viewer/${hash}`);
    return page;
  }

  const headers = (page: Page) => page.locator('.grid-titles .grid-th').allTextContents();
  const firstCells = (page: Page) => page.locator('.grid-rows .grid-row .grid-cell:first-child').evaluateAll((cells) => cells.map((c) => c.textContent));

  for (const width of WIDTHS) {
    it(`explains a refused WHERE under its box with a caret in the user's text, keeping the grid (${width} px)`, async () => {
      const page = await open(width, `#/microstream/types/${BOOK}?f.title=the`);
      await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
      await page.locator('.grid-rows .grid-row .grid-cell:first-child a').first().waitFor();
      const before = { headers: await headers(page), rows: await firstCells(page) };
      expect(before.rows.length).toBeGreaterThan(0);

      await page.locator('.grid-where').fill('price >> 3');
      await page.locator('.grid-where').press('Enter');
      await page.waitForURL(/where=price/);
      const problem = page.locator('.grid-where-problem:not([hidden])');
      await problem.waitFor();
      expect(await problem.textContent()).toContain("Binder Error: No function matches the given name and argument types '>>(DECIMAL(18,2), INTEGER_LITERAL)'");
      expect(await problem.textContent()).not.toContain('Something went wrong');
      // The caret under ">>" of the user's text (DuckDB located it in the generated statement).
      expect(await problem.locator('.grid-where-caret').textContent()).toBe('price >> 3\n      ^');
      // The grid as it was: headers, rows, the column filter.
      // (The message takes some height: fewer rows may be drawn, the same ones from the top.)
      const after = await firstCells(page);
      expect(after.length).toBeGreaterThan(3);
      expect({ headers: await headers(page), rows: after }).toEqual({ headers: before.headers, rows: before.rows.slice(0, after.length) });
      expect(await page.locator('.data-grid').isVisible()).toBe(true);
      const titleColumn = before.headers.indexOf('title');
      expect(await page.locator(`.grid-filters .grid-cell:nth-child(${titleColumn + 1}) input`).inputValue()).toBe('the');
      await page.screenshot({ path: path.join(ARTIFACTS, `where-refused-${width}.png`) });

      // Mended in place: the problem goes, the rows are those of the condition.
      await page.locator('.grid-where').fill('price > 3');
      await page.locator('.grid-where').press('Enter');
      await page.locator('.grid-where-problem[hidden]').waitFor({ state: 'attached' });
      await page.close();

      // Opened with the refused condition in the link: headers and filters without rows, and the caret.
      const linked = await open(width, `#/microstream/types/${BOOK}?where=${encodeURIComponent('pages > 10 AND price >> 3')}`);
      await linked.locator('.grid-where-problem:not([hidden])').waitFor();
      expect(await linked.locator('.grid-where-caret').textContent()).toBe(`pages > 10 AND price >> 3\n${' '.repeat(21)}^`);
      expect(await headers(linked)).toEqual(before.headers);
      expect(await linked.locator('.grid-filters input').count()).toBe(before.headers.length);
      await linked.close();
      expect(errors).toEqual([]);
    });
  }
});
