import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from '../browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from '../browser.js';

/**
 * The viewer against a server started without SQL (`serve --no-sql`): what needs SQL says so or
 * gives way (no Query tab, a link to the console explains, no "Open as table" on a collection;
 * a type's instances as a paged list of ids is graph-views.test.ts'), and the views that need no
 * SQL work (History here).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');

describeInBrowser('viewer: a server without SQL', () => {
  let server: RunningServer;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer('graph', { app: { sql: false } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(hash: string): Promise<Page> {
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // The browser logs every error answer; the viewer asks /api/v1/sql/schema once to learn SQL is off.
      if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) errors.push(message.text());
    });
    await page.goto(`${server.url}/viewer/${hash}`);
    return page;
  }

  it('says so on a link to the Query view, with no editor, and hides the Query tab', async () => {
    // The server refuses SQL as such.
    const refused = await fetch(`${server.url}/api/v1/sql/schema`);
    expect(refused.status).toBe(404);
    const page = await open(`#/microstream/query?sql=${encodeURIComponent('SELECT count(*) FROM _objects')}`);
    const notice = page.locator('.query-view .sql-off');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^This server runs without SQL\. The Query view needs its SQL engine .*serve --no-sql/);
    expect(await page.locator('.cm-content').count()).toBe(0);
    expect(await page.locator('.query-view button', { hasText: /^Run$/ }).count()).toBe(0);
    // The tabs: everything but Query (the History, Types... views need /api/v1, not SQL).
    expect(await page.locator('.tabs .tab:not([hidden])').allTextContents()).toEqual(['Data', 'Types', 'Analysis', 'Retained', 'Search', 'History', 'Dictionary', 'Statistics']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'no-sql-query.png') });
    // Its links lead to views that work without SQL.
    await notice.locator('a', { hasText: 'Types' }).click();
    await page.locator('.type-row').first().waitFor();
    await page.close();
    expect(errors).toEqual([]);
  });

  it('opens a collection without "Open as table" and shows the History without SQL', async () => {
    // A list with elements (the viewer offers "Open as table" for exactly such an object where SQL runs).
    const list = (await (await fetch(`${server.url}/api/v1/types`)).json()) as { types: { typeId: string; typeName: string }[] };
    const arrayList = list.types.find((t) => t.typeName === 'java.util.ArrayList')!;
    const page1 = (await (await fetch(`${server.url}/api/v1/types/${arrayList.typeId}/instances?limit=50&summaries=true`)).json()) as { objectIds: string[]; summaries: (string | null)[] };
    const oid = page1.objectIds.find((_, i) => /^[1-9][\d,]* elements?$/.test(page1.summaries[i] ?? ''));
    expect(oid).toMatch(/^\d+$/);
    const page = await open(`#/microstream/object/${oid}`);
    // The panel's links: JSON only.
    await page.locator('.detail .json-jump').first().waitFor();
    expect(await page.locator('.detail .json-jump').allTextContents()).toEqual(['JSON ↓']);

    const commits = (await (await fetch(`${server.url}/api/v1/commits`)).json()) as { total: number };
    await page.locator('.tab[data-view="history"]').click();
    await page.locator('.hv-commits tbody tr').first().waitFor();
    expect(await page.locator('.hv-commits tbody tr').count()).toBe(Math.min(commits.total, 50));
    await page.close();
    expect(errors).toEqual([]);
  });
});
