import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser } from '../browser-suite.js';
import { REPO_ROOT } from '../browser.js';
import { browsersByWidth } from '../browsers-by-width.js';

/**
 * A type's instance grid in chromium against the real server, at 1440 and 390 px: columns sized
 * to their content (resized by dragging, fitted by a double click), `_type_id` hidden, the
 * object's own values first on a phone, the type's name as written and cut in the middle in the
 * list; a WHERE condition DuckDB refuses is explained under the WHERE box with a caret in the
 * user's own text, and the grid stays (rows, headers, filters).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/instance-grid');
const WIDTHS = [1440, 390] as const;
const BOOK = '1000073';

describeInBrowser('viewer: the instance grid', () => {
  const fixture = browsersByWidth('graph', WIDTHS, ARTIFACTS);
  const { errors } = fixture;
  const open = (width: number, hash: string): Promise<Page> => fixture.open(width, hash);

  const headers = (page: Page) => page.locator('.grid-titles .grid-th').allTextContents();

  /** The type's heading as rendered (innerText applies the style's text-transform; textContent would not). */
  const headingAsShown = (page: Page) => page.evaluate<string>("document.querySelector('.instances-head h3').innerText");

  /** The object ids of the rows drawn (first on a desktop, last on a phone). */
  const firstCells = async (page: Page) => (await cellsOf(page, '_oid')).map((c) => c.text);

  /** Per visible cell of a column (by header text): whether its text fits, and its tooltip. */
  const cellsOf = (page: Page, column: string) =>
    page.locator('.grid-body').evaluate((body, name) => {
      const titles = [...body.querySelectorAll('.grid-titles .grid-th')].map((th) => th.textContent);
      const index = titles.indexOf(name);
      return [...body.querySelectorAll('.grid-rows .grid-row')].map((row) => {
        const cell = row.children[index]!;
        return { whole: cell.scrollWidth <= cell.clientWidth, text: cell.textContent ?? '', title: cell.getAttribute('title') ?? '', width: cell.getBoundingClientRect().width };
      });
    }, column);

  it('sizes columns to their content, resizes by dragging, fits on double click; names as written (1440 px)', async () => {
    const page = await open(1440, `#/microstream/types/${BOOK}`);
    await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
    await page.locator('.grid-rows .grid-row .grid-cell:first-child a').first().waitFor();
    // The heading and the status name the type as the dictionary writes it.
    expect(await headingAsShown(page)).toBe('conformance.bookstore.Book');
    // _type_id (one value for the whole table) hidden, and said so.
    const titles = await headers(page);
    expect(titles.slice(0, 3)).toEqual(['_oid', 'isbn', 'title']);
    expect(titles).not.toContain('_type_id');
    expect(await page.locator('.grid-columns-menu summary').textContent()).toBe('Columns (1 hidden)');
    // Ids, dates, numbers and these short texts whole; the summaries of references cut, whole on hover.
    for (const column of ['_oid', 'isbn', 'title', 'price', 'published', 'pages']) {
      const cells = await cellsOf(page, column);
      expect(cells.length, column).toBeGreaterThan(10);
      expect(cells.filter((c) => !c.whole), column).toEqual([]);
    }
    await page.locator('.grid-rows .grid-row .grid-cell a', { hasText: '{name:' }).first().waitFor();
    const authors = await cellsOf(page, 'author');
    expect(authors.some((c) => !c.whole)).toBe(true);
    for (const c of authors) expect(c.title.endsWith(c.text.replace(/…$/, '')) || c.title.includes(c.text), c.title).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sized-1440.png') });

    // Dragging the border of "title" 80 px to the right widens it by 80 px.
    const handle = page.locator('.grid-titles .grid-th', { hasText: /^title$/ }).locator('.grid-resize');
    const before = (await cellsOf(page, 'title'))[0]!.width;
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 80, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    expect(Math.round((await cellsOf(page, 'title'))[0]!.width - before)).toBe(80);
    // A double click on the border of "author" makes it as wide as its longest summary shown.
    await page.locator('.grid-titles .grid-th', { hasText: /^author$/ }).locator('.grid-resize').dblclick();
    await expect.poll(async () => (await cellsOf(page, 'author')).filter((c) => !c.whole).length).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'fitted-1440.png') });
    await page.close();
  });

  it("puts the object's own values first on a phone, the id last (390 px)", async () => {
    const page = await open(390, `#/microstream/types/${BOOK}`);
    await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
    await page.locator('.grid-rows .grid-row .grid-cell:last-child a').first().waitFor();
    const titles = await headers(page);
    expect(titles.slice(0, 2)).toEqual(['isbn', 'title']);
    expect(titles.at(-1)).toBe('_oid');
    expect(titles).not.toContain('_type_id');
    expect((await cellsOf(page, 'isbn')).filter((c) => !c.whole)).toEqual([]);
    expect(await headingAsShown(page)).toBe('conformance.bookstore.Book');
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-390.png') });
    await page.close();
  });

  it('cuts long type names in the list in the middle, keeping the simple name whole (1440 px)', async () => {
    const page = await open(1440, '#/microstream/types');
    const row = page.locator('.type-row', { hasText: 'PersistenceRoots$Default' });
    await row.waitFor();
    const name = await row.locator('.name-cut').evaluate((cut) => {
      const [pkg, simple] = [...cut.children];
      return { text: cut.textContent, packageCut: pkg!.scrollWidth > pkg!.clientWidth, packageShown: pkg!.clientWidth, simpleWhole: simple!.scrollWidth <= simple!.clientWidth, simple: simple!.textContent };
    });
    expect(name).toEqual({ text: 'one.microstream.persistence.types.PersistenceRoots$Default', packageCut: true, packageShown: expect.any(Number), simpleWhole: true, simple: 'PersistenceRoots$Default' });
    // The start of the package stays in sight.
    expect(name.packageShown).toBeGreaterThan(20);
    await page.screenshot({ path: path.join(ARTIFACTS, 'type-names-1440.png') });
    await page.close();
  });

  for (const width of WIDTHS) {
    it(`explains a refused WHERE under its box with a caret in the user's text, keeping the grid (${width} px)`, async () => {
      const page = await open(width, `#/microstream/types/${BOOK}?f.title=the`);
      await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
      await page.locator('.grid-rows .grid-row a.ref-link').first().waitFor();
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
