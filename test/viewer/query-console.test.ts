import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from './browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from './browser.js';

/**
 * The Query view in chromium against the real server, at 1440 and 390 px: a statement that comes
 * with a link is shown and runs only when the user asks (a link must not run SQL with the
 * visitor's credentials).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/query');
const WIDTHS = [1440, 390] as const;

describeInBrowser('viewer: the Query view', () => {
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

  /** The page, and the statements it sent to /api/v1/sql (in order). */
  async function open(width: number, hash: string): Promise<{ page: Page; statements: string[] }> {
    const page = await browsers.get(width)!.context.newPage();
    const statements: string[] = [];
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/sql') statements.push((JSON.parse(request.postData() ?? '{}') as { sql: string }).sql);
    });
    await page.goto(`${server.url}/viewer/${hash}`);
    return { page, statements };
  }

  for (const width of WIDTHS) {
    it(`shows a statement from a link without running it until Run is pressed (${width} px)`, async () => {
      const sql = 'SELECT type_name, count(*) AS n FROM _objects GROUP BY type_name ORDER BY n DESC LIMIT 5';
      const { page, statements } = await open(width, `#/microstream/query?sql=${encodeURIComponent(sql)}`);
      await page.locator('.query-status', { hasText: 'Not run yet' }).waitFor();
      expect(await page.locator('.cm-content').textContent()).toBe(sql);
      await page.waitForLoadState('networkidle');
      expect(statements).toEqual([]);
      expect(await page.locator('.grid-rows .grid-row').count()).toBe(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `link-not-run-${width}.png`) });

      await page.locator('button', { hasText: /^Run$/ }).click();
      await page.locator('.query-status', { hasText: /^5 rows/ }).waitFor();
      expect(statements).toEqual([sql]);
      expect(await page.locator('.grid-rows .grid-row').count()).toBe(5);
      // Ctrl+Enter runs it again.
      await page.locator('.cm-content').focus();
      await page.keyboard.press('Control+Enter');
      await expect.poll(() => statements.length).toBe(2);
      await page.close();
      expect(errors).toEqual([]);
    });
  }
});
