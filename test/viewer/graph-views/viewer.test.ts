import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  BUILT_VIEWER,
  chromiumAvailable,
  CHROMIUM_ENV,
  CHROMIUM_PATH,
  launchBrowser,
  REPO_ROOT,
  startServer,
  viewerBuilt,
  type Browser,
  type RunningServer,
} from '../browser.js';
import { describeInBrowser } from '../browser-suite.js';

/**
 * The web viewer in a real browser (Debian's chromium driven by playwright-core) against the real
 * server on corpus storages. Screenshots of every view go to test-artifacts/viewer/.
 */


const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');
const BIG_LIST = '1000000000000000071';

/** Chromium reports every non-2xx fetch as a console error; these are expected where a test provokes them. */
const RESOURCE_ERROR = /^Failed to load resource/;

interface Watched {
  readonly page: Page;
  readonly errors: string[];
}

let browser: Browser | undefined;
let graph: RunningServer;
let collections: RunningServer;
let evolution: RunningServer;
const pages: Watched[] = [];

async function openPage(url: string): Promise<Watched> {
  if (browser === undefined) throw new Error('no browser');
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  const watched = { page, errors };
  pages.push(watched);
  await page.goto(url);
  return watched;
}

function row(key: string): string {
  return `.row[data-key="${key.replace(/["\\]/g, '\\$&')}"]`;
}

async function expand(page: Page, key: string): Promise<void> {
  const selector = row(key);
  // A row shows its twisty once its object is known to have members (a row opened by a deep link
  // may be shown, selected, before its object is loaded): click it as a user would, once it is there.
  await page.locator(`${selector}[aria-expanded="false"] .twisty`).click();
  await page.locator(`${selector}[aria-expanded="true"]`).waitFor();
}

async function valueText(page: Page, key: string): Promise<string> {
  const cell = page.locator(`${row(key)} .c-value`);
  await cell.waitFor();
  return (await cell.textContent()) ?? '';
}

async function api<T>(server: RunningServer, route: string): Promise<T> {
  const response = await fetch(`${server.url}/microstream${route}`);
  const body = await response.text();
  expect(response.status, `GET /microstream${route}: ${body}`).toBe(200);
  return JSON.parse(body) as T;
}

interface Description {
  readonly data: (string | string[])[];
  readonly simplified: boolean;
  readonly typeId: string;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

describeInBrowser('web viewer in chromium', () => {
  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`${CHROMIUM_PATH} is missing: CI must install Debian's chromium package (apt-get install -y chromium) or name one in ${CHROMIUM_ENV}`);
    if (!viewerBuilt()) {
      throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build" (npm install runs it through "prepare").`);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    graph = await startServer('graph');
    collections = await startServer('collections');
    evolution = await startServer('evolution');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([graph?.close(), collections?.close(), evolution?.close()]);
  });

  afterEach(async () => {
    for (const { page } of pages.splice(0)) await page.close();
  });

  it('expands from the root to a nested object, with field names and inline values', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/`);
    await page.locator(row('root')).waitFor();
    await page.locator(row('root/books')).waitFor();
    await expect.poll(() => page.locator(row('root')).getAttribute('aria-expanded')).toBe('true');

    // The same values the API gives: root.books[1].author.name
    const rootId = (await api<{ objectId: string }>(graph, '/root')).objectId;
    const root = await api<Description>(graph, `/object/${rootId}`);
    const booksId = root.data[3] as string;
    const books = await api<Description>(graph, `/object/${booksId}?variableOffset=1&variableLength=1`);
    const bookId = (books.data[0] as string[])[0] ?? '';
    const book = await api<Description>(graph, `/object/${bookId}`);
    const title = await api<Description>(graph, `/object/${book.data[1] as string}`);
    const author = await api<Description>(graph, `/object/${book.data[2] as string}`);
    const name = await api<Description>(graph, `/object/${author.data[0] as string}`);

    expect(await valueText(page, 'root/name')).toMatch(/^".+"$/);
    await expand(page, 'root/books');
    expect(await valueText(page, 'root/books')).toBe('39 elements');
    await expand(page, 'root/books/[1]');
    expect(await valueText(page, 'root/books/[1]/title')).toBe(`"${title.data[0] as string}"`);
    await expand(page, 'root/books/[1]/author');
    expect(await valueText(page, 'root/books/[1]/author/name')).toBe(`"${name.data[0] as string}"`);
    expect(await page.locator(`${row('root/books/[1]/author')} .c-type`).textContent()).toBe('Author');
    expect(await page.locator(`${row('root/books/[1]/author')} .c-oid`).textContent()).toBe(book.data[2]);
    // Enum constants by name.
    await expect.poll(() => valueText(page, 'root/books/[1]/genre')).toMatch(/^[A-Z]+$/);

    await page.locator(`${row('root/books/[1]/author/name')}`).click();
    await expect.poll(() => page.locator('.detail-title').textContent()).toBe(`Author.name = "${name.data[0] as string}"`);
    await expect.poll(() => page.locator('.crumb.current').textContent()).toBe('name');
    expect(page.url()).toContain('#/microstream?path=books/[1]/author/name');
    await page.locator(row('root/books/[1]/author')).click();
    await page.locator('.json-box').waitFor();
    await shot(page, 'data');
    expect(errors).toEqual([]);
  });

  it('moves through the tree with the keyboard', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/`);
    await page.locator(row('root/shops')).waitFor();
    await page.locator(row('root')).click();
    const selected = (): Promise<string | null> => page.locator('.row[aria-selected="true"]').getAttribute('data-key');
    await page.keyboard.press('ArrowDown');
    await expect.poll(selected).toBe('root/name');
    await page.keyboard.press('ArrowDown');
    await expect.poll(selected).toBe('root/shops');
    await page.keyboard.press('ArrowRight');
    await page.locator(`${row('root/shops')}[aria-expanded="true"]`).waitFor();
    await page.locator(row('root/shops/[0]')).waitFor();
    await page.keyboard.press('ArrowRight');
    await expect.poll(selected).toBe('root/shops/[0]');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(selected).toBe('root/shops');
    await page.keyboard.press('ArrowLeft');
    await page.locator(`${row('root/shops')}[aria-expanded="false"]`).waitFor();
    await page.keyboard.press('End');
    await expect.poll(selected).toBe('root/self');
    await page.keyboard.press('Home');
    await expect.poll(selected).toBe('root');
    expect(errors).toEqual([]);
  });

  it('pages a 50,000-element list down to its last element', async () => {
    const { page, errors } = await openPage(`${collections.url}/viewer/#/microstream/object/${BIG_LIST}`);
    await page.locator(row('root/[40000..49999]')).waitFor();
    const ranges = await page.locator('.row.k-range').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(ranges).toEqual(['root/[0..9999]', 'root/[10000..19999]', 'root/[20000..29999]', 'root/[30000..39999]', 'root/[40000..49999]']);
    expect(await valueText(page, 'root')).toBe('50,000 elements');
    await expand(page, 'root/[40000..49999]');
    expect(await page.locator('.row.k-range').count()).toBe(5 + 100);
    await expand(page, 'root/[40000..49999]/[49900..49999]');
    const last = 'root/[40000..49999]/[49900..49999]/[49999]';
    await page.locator(row(last)).scrollIntoViewIfNeeded();

    const slot = await api<Description>(collections, `/object/${BIG_LIST}?variableOffset=49999&variableLength=1`);
    const elementId = (slot.data[0] as string[])[0] ?? '';
    const element = await api<Description>(collections, `/object/${elementId}`);
    expect(element.simplified).toBe(true);
    expect(await valueText(page, last)).toBe(`"${element.data[0] as string}"`);
    expect(await page.locator(`${row(last)} .c-oid`).textContent()).toBe(elementId);
    await page.locator(row(last)).click();
    await expect.poll(() => page.locator('.detail-title').textContent()).toBe(`ArrayList[49999] = "${element.data[0] as string}"`);
    await shot(page, 'big-list');

    // The position is part of the URL: opening it again lands on the same element.
    expect(page.url()).toContain(`#/microstream/object/${BIG_LIST}?path=[49999]`);
    const again = await openPage(page.url());
    await again.page.locator(`${row(last)}[aria-selected="true"]`).waitFor();
    expect([...errors, ...again.errors]).toEqual([]);
  });

  it('opens deep links, jumps to ids, and goes back and forward', async () => {
    const rootId = (await api<{ objectId: string }>(graph, '/root')).objectId;
    const root = await api<Description>(graph, `/object/${rootId}`);
    const authorsId = root.data[2] as string;
    const authors = await api<Description>(graph, `/object/${authorsId}?variableLength=1`);
    const authorId = (authors.data[0] as string[])[0] ?? '';

    const { page, errors } = await openPage(`${graph.url}/viewer/#/microstream/object/${authorId}`);
    await expect.poll(() => page.locator(`${row('root')} .c-oid`).textContent()).toBe(authorId);
    await expect.poll(() => page.locator(`${row('root')} .c-name .label`).textContent()).toBe('Author');
    await page.locator(row('root/books')).waitFor();
    await expect.poll(() => page.locator('.crumb.home').count()).toBe(1);
    await shot(page, 'deep-link');

    // Jump box: to the list of authors.
    await page.locator('.jump-input').fill(authorsId);
    await page.locator('.jump-input').press('Enter');
    await expect.poll(() => page.url()).toContain(`#/microstream/object/${authorsId}`);
    await expect.poll(() => page.locator(`${row('root')} .c-oid`).textContent()).toBe(authorsId);
    await page.locator(row('root/[0]')).waitFor();

    // Following an object id link in the detail panel.
    await page.locator(row('root/[0]')).click();
    await page.locator('.oid-link').click();
    await expect.poll(() => page.url()).toContain(`#/microstream/object/${authorId}`);

    await page.goBack();
    await expect.poll(() => page.url()).toContain(`#/microstream/object/${authorsId}`);
    await expect.poll(() => page.locator(`${row('root')} .c-oid`).textContent()).toBe(authorsId);
    await page.goBack();
    await expect.poll(() => page.locator(`${row('root')} .c-oid`).textContent()).toBe(authorId);
    await page.goForward();
    await expect.poll(() => page.locator(`${row('root')} .c-oid`).textContent()).toBe(authorsId);

    // Tabs are history entries too.
    await page.locator('.tab[data-view="statistics"]').click();
    await page.locator('.statistics-view .card').first().waitFor();
    await page.goBack();
    await expect.poll(() => page.locator(`${row('root')} .c-oid`).textContent()).toBe(authorsId);
    expect(errors).toEqual([]);
  });

  it('says in plain words when an object does not exist or an id is not an id', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/`);
    await page.locator(row('root/books')).waitFor();
    await page.locator('.jump-input').fill('123456789012345678901234');
    await page.locator('.jump-input').press('Enter');
    await expect.poll(() => page.locator('.jump-error').textContent()).toContain('An object id is a whole number');
    // Text that is no id at all is searched for (storage-inspector's own API).
    await page.locator('.jump-input').fill('not a number');
    await page.locator('.jump-input').press('Enter');
    await expect.poll(() => page.url()).toContain('#/microstream/search?q=not+a+number');
    await page.goBack();
    await page.locator(row('root/books')).waitFor();

    await page.locator('.jump-input').fill('1000000000000999999');
    await page.locator('.jump-input').press('Enter');
    await expect.poll(() => page.locator('.detail .problem').textContent()).toContain('There is no object with id 1000000000000999999 in this storage');
    // Said once in the tree, in the object's own row, with nothing to retry: the answer is definite.
    await expect.poll(() => page.locator('.tree .row .v-error').allTextContents()).toEqual([expect.stringContaining('There is no object with id 1000000000000999999')]);
    expect(await page.locator('.row.pseudo.error').count()).toBe(0);
    expect(await page.locator('[data-retry]').count()).toBe(0);
    await shot(page, 'missing-object');
    expect(errors.filter((e) => !RESOURCE_ERROR.test(e))).toEqual([]);
  });

  it('shows when the server is down, and recovers', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/`);
    await page.locator(row('root/books')).waitFor();
    await page.route('**/microstream/**', (route) => route.abort('connectionrefused'));
    await expect.poll(() => page.locator('.banner').textContent(), { timeout: 10_000 }).toContain('does not answer');
    expect(await page.locator('.live-status').textContent()).toBe('offline');
    await shot(page, 'server-down');
    await page.unroute('**/microstream/**');
    await expect.poll(() => page.locator('.banner').isVisible(), { timeout: 10_000 }).toBe(false);
    expect(await page.locator(row('root/books')).count()).toBe(1);

    // A viewer opened while the server does not answer explains it instead of a blank page.
    const other = await openPage('about:blank');
    await other.page.route('**/microstream/**', (route) => route.abort('connectionrefused'));
    await other.page.route(`${graph.url}/`, (route) => route.abort('connectionrefused'));
    await other.page.goto(`${graph.url}/viewer/`);
    await expect.poll(() => other.page.locator('.start-problem').textContent()).toContain('does not answer');
    expect([...errors, ...other.errors].filter((e) => !RESOURCE_ERROR.test(e))).toEqual([]);
  });

  it('refreshes visibly when the storage changes, keeping the open path', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/#/microstream?path=books/[1]/author`);
    const author = 'root/books/[1]/author';
    await page.locator(`${row(author)}[aria-selected="true"]`).waitFor();
    await expand(page, author);
    await page.locator(row(`${author}/name`)).waitFor();
    // Simulate a commit: the statistics the viewer polls report more data from now on.
    await page.route('**/maintenance/filesStatistics', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { totalDataLength: string; liveDataLength: string };
      body.totalDataLength = String(Number(body.totalDataLength) + 1000);
      body.liveDataLength = String(Number(body.liveDataLength) + 1000);
      await route.fulfill({ response, json: body });
    });
    await expect.poll(() => page.locator('.toast').textContent(), { timeout: 10_000 }).toContain('Storage changed — view refreshed');
    await page.locator(`${row(author)}[aria-selected="true"][aria-expanded="true"]`).waitFor();
    await page.locator(row(`${author}/name`)).waitFor();
    await shot(page, 'live-refresh');
    expect(errors).toEqual([]);
  });

  it('shows storage, channel and file statistics', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/`);
    await page.locator('.tab[data-view="statistics"]').click();
    await page.locator('.card').first().waitFor();
    const statistics = await api<{ fileCount: string; channelStatistics: Record<string, { files: unknown[] }> }>(graph, '/maintenance/filesStatistics');
    const channels = Object.values(statistics.channelStatistics);
    const files = channels.reduce((n, c) => n + c.files.length, 0);
    expect(await page.locator('.statistics-view .bar-row').count()).toBe(channels.length + files);
    const cards = await page.locator('.statistics-view .card-value').allTextContents();
    expect(cards[0]).toMatch(/^\d+(\.\d+)? KiB$/);
    expect(cards[4]).toBe(statistics.fileCount);
    expect(page.url()).toContain('#/microstream/statistics');
    await page.locator('.stats-toolbar button').click();
    await expect.poll(() => page.locator('.stats-toolbar .hint').textContent()).toContain('Loaded');
    await shot(page, 'statistics');
    expect(errors).toEqual([]);
  });

  it('lists and searches the type dictionary, with all versions of a type', async () => {
    const { page, errors } = await openPage(`${graph.url}/viewer/`);
    await page.locator('.tab[data-view="dictionary"]').click();
    await page.locator('.search-input').fill('Book');
    await page.locator('.type-item[data-type-id="1000073"]').click();
    await expect.poll(() => page.locator('.type-detail h2').textContent()).toBe('Book type id 1000073');
    const members = await page.locator('.members .m-name code').allTextContents();
    expect(members).toEqual(['isbn', 'title', 'author', 'genre', 'price', 'published', 'sequel', 'prequel', 'tags', 'pages', 'rating', 'weightKg', 'available']);
    expect(page.url()).toContain('#/microstream/dictionary/1000073?q=Book');
    await shot(page, 'dictionary');

    // Searching by member name.
    await page.locator('.search-input').fill('ordinal');
    await expect.poll(() => page.locator('.type-item .match-hint').first().textContent()).toBe('member ordinal: int');

    // A class that changed: both versions, with what changed.
    const other = await openPage(`${evolution.url}/viewer/#/microstream/dictionary/1000067`);
    // The page boots first (dictionary, /api/v1, the SQL schema: seconds on a busy machine), then shows the type.
    await other.page.locator('.versions tbody tr').nth(1).waitFor();
    expect(await other.page.locator('.versions tbody tr').count()).toBe(2);
    expect(await other.page.locator('.versions tbody tr').nth(1).textContent()).toContain('+ label: String');
    await shot(other.page, 'dictionary-versions');
    expect([...errors, ...other.errors]).toEqual([]);
  });
});
