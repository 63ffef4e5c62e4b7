import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { AuthConfig } from '../../../src/http/guard/auth.js';
import { parseCorsOrigins } from '../../../src/http/guard/cors.js';
import { BUILT_VIEWER, chromiumAvailable, CHROMIUM_PATH, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from '../browser.js';
import { describeInBrowser } from '../browser-suite.js';

/**
 * The viewer against what an attacker's link or a careless setup does: a token bound to the
 * server it was given for, a foreign or malformed `?api=`, keyboard use from the first moment,
 * phone-sized windows, another instance in the address, a server that goes away and comes back,
 * failures that the server explains, a link to a path that does not exist.
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');
const TOKEN = 'viewer-test-token-5f0c1a2b3c4d5e6f';
const RESOURCE_ERROR = /^Failed to load resource/;

let browser: Browser | undefined;
const pages: Page[] = [];
const servers: RunningServer[] = [];
/**
 * The plain server on 'graph' the tests that leave it as it is share (one per file, not one per
 * test: each start opens the storage and builds its graph index). Each test still opens a page
 * of its own; tests that need another setup, or stop their server, start their own.
 */
let graph: RunningServer;

async function open(url: string, viewport?: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  if (browser === undefined) throw new Error('no browser');
  const page = await browser.context.newPage();
  if (viewport !== undefined) await page.setViewportSize(viewport);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !RESOURCE_ERROR.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  pages.push(page);
  await page.goto(url);
  return { page, errors };
}

async function serve(storage: string, setup: Parameters<typeof startServer>[1] = {}): Promise<RunningServer> {
  const server = await startServer(storage, setup);
  servers.push(server);
  return server;
}

function row(key: string): string {
  return `.row[data-key="${key.replace(/["\\]/g, '\\$&')}"]`;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

const tokenAuth: AuthConfig = { tokenDigests: [createHash('sha256').update(TOKEN).digest()], basicDigests: [] };

describeInBrowser('web viewer hardening in chromium', () => {
  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`${CHROMIUM_PATH} is missing`);
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    [browser, graph] = await Promise.all([launchBrowser(), serve('graph')]);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
  });

  it('binds the token to its server: a link to another API asks first, and never gets the token', async () => {
    // The page comes from one server; the API that needs a token is another one (CORS allows the page).
    const page0 = await serve('noroot');
    const pageOrigin = new URL(page0.url).origin;
    const api = await serve('graph', { app: { auth: tokenAuth, cors: parseCorsOrigins(pageOrigin) } });
    const seenByOther: (string | undefined)[] = [];
    const other = await serve('collections', { app: { cors: parseCorsOrigins('*') }, onRequest: (headers) => seenByOther.push(headers.authorization) });

    const { page, errors } = await open(`${page0.url}/viewer/?api=${encodeURIComponent(api.url)}`);
    await page.locator('.confirm-api button.primary').click();
    await page.locator('.token-input').fill(TOKEN);
    await page.locator('.token-form button').click();
    await page.locator(row('root/books')).waitFor();

    // In the same tab, a link points the viewer at another server: it asks before talking to it.
    await page.goto(`${page0.url}/viewer/?api=${encodeURIComponent(other.url)}`);
    await page.locator('.confirm-api').waitFor();
    expect(await page.locator('.confirm-api').textContent()).toContain(`another server than the one this page comes from (${new URL(page0.url).host})`);
    await shot(page, 'foreign-api-confirm');
    expect(seenByOther).toEqual([]);
    await page.locator('.confirm-api button.primary').click();
    await page.locator(row('root')).waitFor();
    // It talked to the other server, without the token entered for the first one.
    expect(seenByOther.length).toBeGreaterThan(0);
    expect(seenByOther.filter((a) => a !== undefined)).toEqual([]);

    // The token is still there for its own server (no new question: agreed in this tab already).
    await page.goto(`${page0.url}/viewer/?api=${encodeURIComponent(api.url)}`);
    await page.locator(row('root/books')).waitFor();
    expect(await page.locator('.token-input').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('refuses an api that is not http(s), saying so', async () => {
    const home = graph;
    const { page, errors } = await open(`${home.url}/viewer/?api=${encodeURIComponent('javascript:alert(document.domain)')}`);
    await page.locator('.start-problem').waitFor();
    const text = (await page.locator('.start-problem').textContent()) ?? '';
    expect(text).toContain('only http:// and https:// addresses are accepted, not javascript:');
    expect(await page.locator('.start-problem a.button').getAttribute('href')).toBe(`${home.url}/viewer/`);
    expect(errors).toEqual([]);
  });

  it('puts the keyboard in the tree once the data is shown', async () => {
    const home = graph;
    const { page, errors } = await open(`${home.url}/viewer/`);
    await page.locator(row('root/books')).waitFor();
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('role')")).toBe('treegrid');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('.row[aria-selected="true"]').getAttribute('data-key')).toBe('root/name');
    // Shift+Tab reaches the top bar within the breadcrumbs' few buttons.
    let inTopBar = false;
    for (let i = 0; i < 6 && !inTopBar; i++) {
      await page.keyboard.press('Shift+Tab');
      inTopBar = (await page.evaluate("document.activeElement?.closest('.topbar') !== null")) === true;
    }
    expect(inTopBar).toBe(true);
    expect(errors).toEqual([]);
  });

  for (const width of [390, 800]) {
    it(`keeps every control reachable at ${width} px`, async () => {
      const home = graph;
      const { page, errors } = await open(`${home.url}/viewer/#/microstream?path=books/[1]/author`, { width, height: 760 });
      await page.locator(`${row('root/books/[1]/author')}[aria-selected="true"]`).waitFor();
      // Reachable: on the screen once scrolled to (the tab bar scrolls sideways when narrow).
      const inside = async (selector: string): Promise<boolean> => {
        await page.locator(selector).first().scrollIntoViewIfNeeded();
        const box = await page.locator(selector).first().boundingBox();
        return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= width + 0.5;
      };
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(width);
      for (const selector of ['.jump button', '.live-status', '.detail', '.tab[data-view="statistics"]', '.tab[data-view="dictionary"]']) {
        expect(await inside(selector), selector).toBe(true);
      }
      await shot(page, `narrow-${width}-data`);
      await page.locator('.tab[data-view="dictionary"]').click();
      await page.locator('.type-item').first().waitFor();
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(width);
      await shot(page, `narrow-${width}-dictionary`);
      await page.locator('.tab[data-view="statistics"]').click();
      await page.locator('.card').first().waitFor();
      expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(width);
      await shot(page, `narrow-${width}-statistics`);
      expect(errors).toEqual([]);
    });
  }

  it('follows another instance named in the address without a reload, and no false alarms', async () => {
    const home = graph;
    const { page, errors } = await open(`${home.url}/viewer/`);
    await page.locator(row('root/books')).waitFor();
    await page.evaluate("location.hash = '#/nosuchinstance'");
    // The server answers: it says which storages it serves, not that it should be started.
    await expect.poll(() => page.locator('.start-problem').textContent()).toContain('No storage is served under the name "nosuchinstance" here.');
    expect(await page.locator('.start-problem a').allTextContents()).toEqual(['microstream']);
    expect(await page.locator('.start-problem').textContent()).not.toContain('Start the server');
    expect(await page.locator('.instance').textContent()).toContain('nosuchinstance');
    // The live checks (GET …/maintenance/filesStatistics every 2 s) answered from here on.
    let liveChecks = 0;
    page.on('requestfinished', (request) => {
      if (/\/microstream\/maintenance\/filesStatistics/.test(request.url())) liveChecks++;
    });
    await page.evaluate("location.hash = '#/microstream'");
    await page.locator(row('root/books')).waitFor();
    expect(await page.locator('.instance').textContent()).toContain('microstream');
    // Two live checks answered (the first one handled well before the second is sent): neither a
    // connection alarm nor a "answers again".
    await expect.poll(() => liveChecks, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.banner').isVisible()).toBe(false);
    expect(await page.locator('.toast').textContent()).not.toContain('answers again');
    expect(errors).toEqual([]);
  });

  it('when the server comes back, loads again what failed while it was away', async () => {
    let server = await serve('graph');
    const port = Number(new URL(server.url).port);
    const { page, errors } = await open(`${server.url}/viewer/`);
    await page.locator(row('root/books')).waitFor();
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    // Opening a node while the server is away fails...
    await page.locator(`${row('root/shops')} .twisty`).click();
    await expect.poll(() => page.locator('.row.pseudo.error').textContent()).toContain('does not answer');
    await expect.poll(() => page.locator('.banner').isVisible(), { timeout: 10_000 }).toBe(true);
    // ... and works once it is back, without pressing retry.
    server = await serve('graph', { port });
    await expect.poll(() => page.locator('.banner').isVisible(), { timeout: 10_000 }).toBe(false);
    await page.locator(row('root/shops/[0]')).waitFor({ timeout: 10_000 });
    expect(await page.locator('.row.pseudo.error').count()).toBe(0);
    expect((await page.locator('.toast').textContent()) ?? '').toContain('The server answers again.');
    expect(errors).toEqual([]);
  });

  it('shows what X-Storage-Inspector-Error says about a 500, wrapped', async () => {
    const home = await serve('primitives');
    // A NaN Float object: Java's own service answers 500 for it too.
    const { page, errors } = await open(`${home.url}/viewer/#/microstream/object/1000000000000000037`, { width: 700, height: 700 });
    const error = page.locator('.row.pseudo.error');
    await expect.poll(() => error.textContent()).toMatch(/The server could not read object 1000000000000000037 \(error 500\): FORMAT_JAVA_VALUE: /);
    const cell = error.locator('.c-message');
    const fits = {
      overflow: await cell.evaluate((el) => el.scrollWidth - el.clientWidth),
      height: (await error.boundingBox())?.height ?? 0,
    };
    expect(fits.overflow).toBeLessThanOrEqual(0);
    expect(fits.height).toBeGreaterThan(22);
    await shot(page, 'server-error-explained');
    expect(errors).toEqual([]);
  });

  it('says when a link names a path that does not exist', async () => {
    const home = graph;
    const { page, errors } = await open(`${home.url}/viewer/#/microstream?path=books/[1]/nosuchfield/x`);
    await expect.poll(() => page.locator('.path-notice').textContent()).toBe(
      'The path books/[1]/nosuchfield/x of this link was not found: nosuchfield does not exist below books/[1]. Showing books/[1].',
    );
    await expect.poll(() => page.locator('.row[aria-selected="true"]').getAttribute('data-key')).toBe('root/books/[1]');
    await shot(page, 'path-not-found');
    // A path that exists says nothing.
    await page.evaluate("location.hash = '#/microstream?path=books/[2]'");
    await expect.poll(() => page.locator('.row[aria-selected="true"]').getAttribute('data-key')).toBe('root/books/[2]');
    expect(await page.locator('.path-notice').isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });
});
