import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from '../browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from '../browser.js';

/**
 * The viewer as a data tool, in chromium against the real server at 1440, 800 and 390 px: no
 * view is wider than the window on a phone (asserted on element boxes), search lists owners,
 * referrers carry summaries, "unreachable only" lists exactly the garbage /api/v1/analysis counts.
 * The instance grid and the SQL console need the server's SQL engine (`/api/v1/sql`): a server
 * without it fails these tests (they do not skip themselves).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/data-tool');
const WIDTHS = [1440, 800, 390] as const;

/** Every view, with a type opened and an object opened. */
const VIEWS = [
  '#/microstream',
  '#/microstream/object/1000000000000000059',
  '#/microstream/types',
  '#/microstream/types/1000073',
  '#/microstream/types/30?reachable=false',
  '#/microstream/analysis',
  '#/microstream/search?q=schmidt',
  '#/microstream/dictionary',
  '#/microstream/dictionary/1000073',
  '#/microstream/statistics',
  `#/microstream/query?sql=${encodeURIComponent('SELECT b._oid, b.title, b.author, a.name FROM Book b JOIN Author a ON a._oid = b.author ORDER BY b.title LIMIT 50')}`,
];

/**
 * Elements whose box reaches past the right edge of the window, unless an ancestor scrolls them
 * sideways (a table in a scrolling box, a grid's columns): what a user would lose. An ancestor
 * that hides the overflow does not excuse it: the content is cut off.
 */
async function overflowing(page: Page): Promise<string[]> {
  // As a script text: it runs in the page (the test's own types know no DOM).
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    const scrolled = (element) => {
      for (let e = element.parentElement; e !== null && e !== document.body; e = e.parentElement) {
        const overflow = getComputedStyle(e).overflowX;
        if (overflow === 'auto' || overflow === 'scroll') return true;
      }
      return false;
    };
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.right <= width + 1 || scrolled(element)) continue;
      out.push(element.tagName.toLowerCase() + '.' + [...element.classList].join('.') + ' right=' + Math.round(box.right) + ' of ' + width);
    }
    if (document.documentElement.scrollWidth > width + 1) out.push('page scrollWidth ' + document.documentElement.scrollWidth + ' of ' + width);
    return out;
  })()`);
}

describeInBrowser('viewer as a data tool', () => {
  let server: RunningServer;
  let browsers: Map<number, Browser>;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer('graph');
    browsers = new Map();
    for (const width of WIDTHS) browsers.set(width, await launchBrowser({ width, height: width === 390 ? 844 : 900 }));
  });
  afterAll(async () => {
    for (const browser of browsers?.values() ?? []) await browser.close();
    await server?.close();
  });

  async function open(width: number, hash: string): Promise<Page> {
    const page = await browsers.get(width)!.context.newPage();
    // Tagged with the width: the widths' checks run at once and each owns its pages' errors.
    page.on('pageerror', (error) => errors.push(`${width} px ${hash}: page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${width} px ${hash}: ${message.text()}`);
    });
    await page.goto(`${server.url}/viewer/${hash}`);
    return page;
  }

  async function settled(page: Page): Promise<void> {
    await page.locator('.main > *').first().waitFor();
    await page.waitForLoadState('networkidle');
    await page.waitForFunction("!/Loading|Searching/.test(document.querySelector('.main')?.textContent ?? '')");
  }

  async function sqlServed(): Promise<boolean> {
    const document = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    return document.paths['/api/v1/sql'] !== undefined;
  }

  // The three widths at once, each in a browser of its own: about half of a view's second is
  // the wait for the network to stay idle (500 ms), which the other widths' pages use. Measured
  // beside other work: one after another the three took 69 s, together 34 s (load 14-15).
  for (const width of WIDTHS) {
    it.concurrent(`keeps every view within the window at ${width} px`, async () => {
      const problems: string[] = [];
      for (const hash of VIEWS) {
        const page = await open(width, hash);
        await settled(page);
        for (const p of await overflowing(page)) problems.push(`${hash}: ${p}`);
        await page.screenshot({ path: path.join(ARTIFACTS, `${width}-${hash.replace(/[^a-z0-9]+/gi, '_')}.png`) });
        await page.close();
      }
      expect(problems).toEqual([]);
      expect(errors.filter((error) => error.startsWith(`${width} px `))).toEqual([]);
    });
  }

  it('lists the owners of a matching value in Search, with member, value and summary', async () => {
    const page = await open(1440, '#/microstream/search?q=schmidt');
    const row = page.locator('tr.search-hit');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.locator('td').allTextContents()).toEqual(['Customer 1000000000000000703', '.name', '"Schmidt"', expect.stringContaining('name: "Schmidt"')]);
    // A simple type name narrows to owners of that type.
    const typed = await open(1440, '#/microstream/search?q=e&type=Country');
    await typed.locator('tr.search-hit').first().waitFor();
    const owners = await typed.locator('tr.search-hit td:first-child').allTextContents();
    expect(owners.length).toBeGreaterThan(3);
    expect(owners.every((o) => o.startsWith('Country '))).toBe(true);
    expect(await typed.locator('.search-results > .hint').textContent()).toContain('of conformance.bookstore.Country');
    await page.close();
    await typed.close();
  });

  it('leaves the subject of a Lazy out of the path shown', async () => {
    const page = await open(1440, '#/microstream?path=bookIndex/subject');
    await page.locator('.row[aria-selected="true"][data-key="root/bookIndex/subject"]').waitFor();
    // The Lazy's row shows what it holds (the server's summary of its subject), not "Lazy → <id>".
    const subject = await page.locator('.row[data-key="root/bookIndex/subject"] .c-oid').textContent();
    const summaries = (await (await fetch(`${server.url}/api/v1/summaries?ids=${subject}`)).json()) as { summaries: { summary: string }[] };
    await page.locator('.row[data-key="root/bookIndex"] .c-value', { hasText: summaries.summaries[0]!.summary }).waitFor();
    expect(await page.locator('.row[data-key="root/bookIndex"] .c-value').textContent()).toBe(summaries.summaries[0]!.summary);
    // Open what the Lazy holds and go to its first entry, by keyboard.
    await page.keyboard.press('ArrowRight');
    await page.locator('.row[data-key^="root/bookIndex/subject/"]').first().waitFor();
    await page.keyboard.press('ArrowDown');
    await page.locator('.row[aria-selected="true"][data-key^="root/bookIndex/subject/"]').waitFor();
    const label = await page.locator('.row[aria-selected="true"] .c-name').textContent();
    const crumbs = await page.locator('.crumbs .crumb').allTextContents();
    expect(crumbs).toEqual(['ROOT', 'bookIndex', label?.replace(/^[▸▾\s]+/, '')]);
    const path = await page.locator('.detail .props tr', { hasText: 'Path' }).first().locator('td').textContent();
    expect(path).toBe(`ROOT › bookIndex › ${crumbs[2]}`);
    await page.close();
  });

  it('shows every empty collection as "empty", in the tree and in the summaries, shared empty ones too', async () => {
    const sql = `SELECT oid, type_name FROM _objects WHERE type_name IN ('java.util.Collections$EmptyList', 'one.microstream.collections.EmptyTable', 'java.util.ArrayList') ORDER BY type_name, oid`;
    const found = (await (await fetch(`${server.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) })).json()) as { rows: [string, string][] };
    const shared = found.rows.filter(([, type]) => type !== 'java.util.ArrayList').map(([oid]) => oid);
    expect(shared.length).toBeGreaterThanOrEqual(2);
    const lists = found.rows.filter(([, type]) => type === 'java.util.ArrayList').map(([oid]) => oid);
    const answer = (await (await fetch(`${server.url}/api/v1/summaries?ids=${[...shared, ...lists].join(',')}`)).json()) as { summaries: { objectId: string; summary: string }[] };
    const texts = new Map(answer.summaries.map((s) => [s.objectId, s.summary]));
    for (const oid of shared) expect(texts.get(oid), oid).toBe('empty');
    const emptyList = lists.find((oid) => texts.get(oid) === 'empty');
    for (const oid of [...shared, ...(emptyList === undefined ? [] : [emptyList])]) {
      const page = await open(1440, `#/microstream/object/${oid}`);
      const value = page.locator('.row[data-key="root"] .c-value');
      // The value cell shows 'loading…' until its summary arrives: wait for the summary's state.
      await expect.poll(() => value.textContent(), { message: oid }).toBe('empty');
      await page.close();
    }
  });

  it('gives every referrer a summary', async () => {
    const page = await open(1440, '#/microstream/object/1000000000000000059');
    const items = page.locator('.referrer-list li');
    await items.first().waitFor();
    const api = (await (await fetch(`${server.url}/api/v1/objects/1000000000000000059/referrers`)).json()) as { referrers: { summary: string }[] };
    expect(await items.locator('.summary').allTextContents()).toEqual(api.referrers.map((r) => r.summary));
    await page.close();
  });

  it('lists exactly the garbage of /api/v1/analysis from the Analysis view, type by type', async () => {
    const analysis = (await (await fetch(`${server.url}/api/v1/analysis`)).json()) as { unreachable: { byType: { typeId: string; count: number }[] } };
    expect(await sqlServed(), 'the server has /api/v1/sql').toBe(true);
    for (const [i, t] of analysis.unreachable.byType.slice(0, 4).entries()) {
      const page = await open(1440, '#/microstream/analysis');
      await page.locator('[aria-label="Garbage by type"] .bar-row').nth(i).click();
      await page.waitForURL(new RegExp(`types/${t.typeId}\\?reachable=false`));
      const expected = (await (await fetch(`${server.url}/api/v1/types/${t.typeId}/instances?reachable=false&limit=10000`)).json()) as { objectIds: string[] };
      expect(expected.objectIds).toHaveLength(t.count);
      await page.locator('.grid-status', { hasText: 'unreachable instances' }).waitFor();
      expect(await page.locator('.grid-status').textContent()).toMatch(new RegExp(`^${t.count} unreachable`));
      const shown = await page.locator('.grid-rows .grid-row .grid-cell:first-child a').evaluateAll((links) => links.map((a) => /object\/([0-9]+)/.exec(a.getAttribute('href') ?? '')?.[1]));
      expect(shown).toEqual(expected.objectIds.slice(0, shown.length));
      await page.close();
    }
  });

  it('shows a type as a grid of member values that sorts and filters like /api/v1/sql, by keyboard too', async () => {
    expect(await sqlServed(), 'the server has /api/v1/sql').toBe(true);
    const page = await open(1440, '#/microstream/types/1000073');
    await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
    const headers = await page.locator('.grid-titles .grid-th').allTextContents();
    // _type_id is the same on every row: hidden until asked for (Columns).
    expect(headers.slice(0, 2)).toEqual(['_oid', 'isbn']);
    expect(headers).toContain('title');
    // Sorted by title, descending: the same order as the SQL engine gives.
    await page.locator('.grid-sort', { hasText: /^title$/ }).click();
    await page.locator('.grid-sort', { hasText: /^title ▲$/ }).click();
    await page.waitForURL(/sort=title&desc=1/);
    const answer = (await (
      await fetch(`${server.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT title FROM "conformance.bookstore.Book" ORDER BY title DESC NULLS LAST, _oid LIMIT 5', limit: 5 }) })
    ).json()) as { rows: string[][] };
    const titleColumn = headers.indexOf('title');
    // The rows of the new order replace the old ones once their page arrives (the old ones show meanwhile).
    const titles = () => page.locator(`.grid-rows .grid-row .grid-cell:nth-child(${titleColumn + 1})`).evaluateAll((cells) => cells.slice(0, 5).map((c) => c.textContent));
    await expect.poll(titles, { timeout: 20_000 }).toEqual(answer.rows.map((r) => JSON.stringify(r[0])));
    // A column filter and the free WHERE box, kept in the URL.
    await page.locator(`.grid-filters .grid-cell:nth-child(${titleColumn + 1}) input`).fill('the');
    await page.locator(`.grid-filters .grid-cell:nth-child(${titleColumn + 1}) input`).press('Enter');
    await page.waitForURL(/f\.title=the/);
    await page.locator('.grid-where').fill('_oid > 0');
    await page.locator('.grid-where').press('Enter');
    await page.waitForURL(/where=_oid/);
    // Keyboard only: into the grid, down two rows, Enter opens the object of an id cell.
    await page.locator('.grid-body').focus();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('.grid-cell.active').count()).toBe(1);
    // Enter on a row whose page of the new filter has not arrived yet does nothing: wait for its id.
    await page.locator('.grid-cell.active a').waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL(/object\/[0-9]+/);
    await page.close();
  });

  it('runs a join in the SQL console, links ids, shows errors with their position, by keyboard', async () => {
    expect(await sqlServed(), 'the server has /api/v1/sql').toBe(true);
    const page = await open(1440, '#/microstream/query');
    await page.locator('.cm-content').waitFor();
    await page.locator('.cm-content').focus();
    await page.keyboard.type('SELECT b._oid, b.author, b.pages, o.type_name, o.type_id FROM "conformance.bookstore.Book" b JOIN _objects o ON o.oid = b._oid ORDER BY b._oid LIMIT 3');
    await page.keyboard.press('Control+Enter');
    await page.locator('.query-status', { hasText: /3 rows/ }).waitFor();
    await page.waitForURL(/query\?sql=SELECT/);
    expect(await page.locator('.grid-rows .grid-row').count()).toBe(3);
    // The ids (the object's and its author's) link to the Data view; the number, the name and the type id do not.
    const answer = (await (
      await fetch(`${server.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT b._oid, b.author FROM "conformance.bookstore.Book" b ORDER BY b._oid LIMIT 1' }) })
    ).json()) as { rows: string[][] };
    const first = page.locator('.grid-rows .grid-row').first();
    expect(await first.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(answer.rows[0]!.map((oid) => expect.stringMatching(new RegExp(`object/${oid}$`))));
    expect(await first.locator('.grid-cell:nth-child(3)').textContent()).toMatch(/^[0-9]+$/);
    await page.keyboard.press('Control+a');
    await page.keyboard.type('SELECT nosuchcolumn FROM _objects');
    await page.keyboard.press('Control+Enter');
    await page.locator('.query-problem:not([hidden])').waitFor();
    expect(await page.locator('.query-problem').count()).toBe(1);
    expect(await page.locator('.query-caret').textContent()).toContain('^');
    await page.close();
  });
});
