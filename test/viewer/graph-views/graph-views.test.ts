import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, CHROMIUM_PATH, launchBrowser, REPO_ROOT, startServer, viewerBuilt, BUILT_VIEWER, type Browser, type RunningServer } from '../browser.js';

/**
 * The viewer's views on storage-inspector's own API, in a real browser against the real server:
 * Types (bars by bytes, instance list, export link), the object panel (path from the root,
 * referrers, versions and a diff), Analysis and Search.
 */

const inCi = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';
const skip = !chromiumAvailable() && !inCi;
if (skip) console.warn(`SKIPPED the viewer browser tests: ${CHROMIUM_PATH} is missing (apt-get install chromium). In CI (CI set) they fail instead.`);

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');

describe.skipIf(skip)('viewer: types, object insights, analysis, search', () => {
  let browser: Browser;
  let server: RunningServer;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    server = await startServer('graph');
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
      if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) errors.push(message.text());
    });
    await page.goto(`${server.url}/viewer/${hash}`);
    return page;
  }

  it('shows types by bytes with bars, opens a type and pages its instances with an export link (a server without SQL)', async () => {
    // Without the SQL engine (--no-sql) a type opens as a paged list of ids (the grid is data-tool.test.ts').
    const noSql = await startServer('graph', { app: { sql: false } });
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.goto(`${noSql.url}/viewer/#/microstream/types`);
    const rows = page.locator('.type-row');
    await rows.first().waitFor();
    expect(await rows.first().locator('.bar-label').textContent()).toBe('java.lang.String');
    const widths = await page.locator('.type-row .sbar').evaluateAll((bars) => bars.slice(0, 5).map((b) => b.getBoundingClientRect().width));
    expect([...widths].sort((a, b) => b - a)).toEqual(widths);
    await page.locator('.type-row[data-type-id="30"]').click();
    await page.locator('.instance-list li').first().waitFor();
    expect(await page.locator('.instances h3').textContent()).toBe('java.lang.String');
    expect(await page.locator('.instance-list li').count()).toBe(100);
    expect(await page.locator('.export-link').getAttribute('href')).toBe(`${noSql.url}/api/v1/types/30/instances.ndjson`);
    await page.locator('.pager a', { hasText: 'Next' }).click();
    await page.waitForURL(/offset=100/);
    await page.locator('.instance-list[start="101"]').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'types.png') });
    await page.locator('.instance-list li a').first().click();
    await page.waitForURL(/#\/microstream\/object\/\d+/);
    await page.close();
    await noSql.close();
  });

  it('shows how an object opened by id is reachable, who refers to it and its versions', async () => {
    // An Author: reachable through the bookstore's author list, referred to by books.
    const page = await open('#/microstream/object/1000000000000000059');
    const crumbs = page.locator('.path-crumbs .crumb-step');
    await crumbs.nth(4).waitFor();
    expect(await crumbs.allTextContents()).toEqual(['Roots', 'instances[22]PersistenceRootReference$Default', 'rootBookstore', 'authorsArrayList', 'elements[1]Author']);
    const referrers = page.locator('.referrer-list li');
    await referrers.first().waitFor();
    expect(await referrers.count()).toBe(6);
    expect(await referrers.first().locator('a').textContent()).toBe('ArrayList 1000000000000000031');
    expect(await referrers.first().locator('.via').textContent()).toBe(' via elements[1]');
    // Each referrer with a summary of it: the list's size, a book's title.
    expect(await referrers.first().locator('.summary').textContent()).toMatch(/^\d+ elements$/);
    expect(await referrers.nth(1).locator('.summary').textContent()).toMatch(/^\{.*title: ".+".*\}$/);
    await referrers.nth(1).locator('a').click();
    await page.waitForURL(/object\/1000000000000000242/);
    await page.locator('.detail .qname').first().waitFor();
    await page.close();

    // The root was stored twice: two versions, and a diff between them.
    const root = await open('#/microstream/object/1000000000000000028');
    await root.locator('.version-list li').nth(1).waitFor();
    expect(await root.locator('.version-list li').count()).toBe(2);
    expect(await root.locator('.version-list .badge').textContent()).toBe('current');
    await root.locator('.version-list button', { hasText: 'Diff with current' }).click();
    await root.locator('.diff-table tbody tr').first().waitFor();
    expect(await root.locator('.diff-table thead th').allTextContents()).toEqual(['member', 'version 1', 'current']);
    await root.screenshot({ path: path.join(ARTIFACTS, 'object-insights.png') });
    await root.close();
  });

  it('says when an object is garbage', async () => {
    const types = (await (await fetch(`${server.url}/api/v1/analysis`)).json()) as { unreachable: { byType: { typeId: string }[] } };
    const typeId = types.unreachable.byType[0]!.typeId;
    const instances = (await (await fetch(`${server.url}/api/v1/types/${typeId}/instances?limit=10000`)).json()) as { objectIds: string[] };
    let garbage: string | undefined;
    for (const oid of instances.objectIds) {
      const paths = (await (await fetch(`${server.url}/api/v1/objects/${oid}/paths`)).json()) as { reachable: boolean };
      if (!paths.reachable) {
        garbage = oid;
        break;
      }
    }
    const page = await open(`#/microstream/object/${garbage}`);
    await page.locator('.path-section .unreachable').waitFor();
    expect(await page.locator('.path-section .unreachable').textContent()).toContain('garbage');
    await page.close();
  });

  it('shows garbage by type, missing references and per-file waste in the Analysis view', async () => {
    const page = await open('#/microstream/analysis');
    await page.locator('.analysis-view .card').first().waitFor();
    const cards = await page.locator('.analysis-view .card-label').allTextContents();
    expect(cards).toEqual(['Reachable', 'Garbage', 'Superseded', 'Waste', 'Missing ids']);
    expect(await page.locator('.analysis-view .card.warn .card-value').textContent()).toBe('1.83 KiB');
    expect(await page.locator('.analysis-view [aria-label="Garbage by type"] .bar-row').first().locator('.bar-label').textContent()).toBe('java.lang.String');
    expect(await page.locator('.analysis-view [aria-label="Bytes per data file"] .bar-row').count()).toBe(21);
    await page.screenshot({ path: path.join(ARTIFACTS, 'analysis.png') });
    await page.close();
  });

  it('searches from the box in the top bar and opens a result', async () => {
    const page = await open('#/microstream');
    await page.locator('.tab[data-view="search"]:not([hidden])').waitFor();
    await page.locator('.jump-input').fill('Chapter & Verse');
    await page.locator('.jump-input').press('Enter');
    await page.waitForURL(/#\/microstream\/search\?q=Chapter/);
    await page.locator('table.results tbody tr').first().waitFor();
    expect(await page.locator('table.results tbody tr').count()).toBe(1);
    // The String is reported as the bookstore holding it as its name, with a summary of the bookstore.
    const cells = page.locator('table.results tbody td');
    expect(await cells.nth(0).textContent()).toBe('Bookstore 1000000000000000028');
    expect(await cells.nth(1).textContent()).toBe('.name');
    expect(await cells.nth(2).textContent()).toBe('"Chapter & Verse <Books>"');
    expect(await cells.nth(3).textContent()).toContain('name: "Chapter & Verse <Books>"');
    await page.locator('table.results a').click();
    await page.waitForURL(/object\/1000000000000000028/);
    await page.close();
    expect(errors).toEqual([]);
  });
});
