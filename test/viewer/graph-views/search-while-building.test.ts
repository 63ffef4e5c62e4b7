import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { launchBrowser, REPO_ROOT, STORAGES, viewerBuilt, type Browser } from '../browser.js';
import { describeInBrowser } from '../browser-suite.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/**
 * The viewer's search while the server's graph index is still being built (the registry is not
 * started, so the build waits until the test lets it go): the owners of a matching String are not
 * known yet, so the view says it waits for the index instead of listing the String itself; when the
 * index is ready, it lists the owner and the member. Screenshots go to test-artifacts/viewer/.
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');

let browser: Browser;
let registered: RegisteredStorage;
let app: ReturnType<typeof buildApp>;
let url: string;

describeInBrowser('the viewer searches while the graph index is built', () => {
  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error('the viewer is not built (npm run build:viewer)');
    registered = await registeredStorage(path.join(STORAGES, 'graph'));
    app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
    url = `http://127.0.0.1:${await listenOnLoopback(app)}`;
    browser = await launchBrowser({ width: 1440, height: 900 });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    app?.server.closeAllConnections();
    await app?.close();
    await registered?.close();
  });

  it('waits for the index, saying so, then lists the owner of the matching text', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${url}/viewer/#/microstream/search?q=${encodeURIComponent('Chapter & Verse')}`);
    await page.locator('.search-results .hint.building').waitFor();
    expect(await page.locator('.search-results .hint.building').textContent()).toMatch(/^The server is building its graph index \(\w+, 0 %\)\. The search runs when it is ready\.$/);
    expect(await page.locator('tr.search-hit').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-while-building.png') });

    await graphsBuilt(registered.registry);
    // The view asks again after the Retry-After the server gave (a second or two).
    const hit = page.locator('tr.search-hit');
    await hit.first().waitFor({ timeout: 20_000 });
    expect(await hit.count()).toBe(1);
    expect(await hit.locator('td').nth(0).textContent()).toMatch(/^Bookstore 1000000000000000028$/);
    expect(await hit.locator('td').nth(1).textContent()).toBe('.name');
    expect(await hit.locator('td').nth(2).textContent()).toBe('"Chapter & Verse <Books>"');
    await page.screenshot({ path: path.join(ARTIFACTS, 'search-after-building.png') });
    await page.close();
  });
});
