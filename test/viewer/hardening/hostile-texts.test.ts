import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from '../browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from '../browser.js';
import { FORMULA_TEXTS, INVISIBLE_TEXTS, SPOOFED_NAME, writeHostileTexts } from './hostile-texts.js';

/**
 * Stored texts made to fool the viewer or a spreadsheet, in chromium against the real server at
 * 1440 and 390 px: bidirectional controls and other invisible characters are shown as visible
 * escapes in every view that shows a stored text (tree, detail panel, grid, search, Retained,
 * query results), copying gives the real text back; the grid's CSV neutralises formulas, its raw CSV
 * keeps them.
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/hostile-texts');
const WIDTHS = [1440, 390] as const;
const ALL_INVISIBLE = [SPOOFED_NAME, ...INVISIBLE_TEXTS].join('');

/**
 * Invisible characters the page shows raw: in its rendered text (innerText), its texts and its
 * `title`/`aria-label` attributes (tooltips). The escapes keep the real character only in a data
 * attribute, which nothing shows.
 */
async function rawInvisible(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const invisible = /[\\p{Cf}\\u2028\\u2029]/u;
    const out = [];
    if (invisible.test(document.body.innerText)) out.push('innerText: ' + JSON.stringify(document.body.innerText.match(/.{0,20}[\\p{Cf}\\u2028\\u2029].{0,20}/u)[0]));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) if (invisible.test(node.nodeValue)) out.push('text: ' + JSON.stringify(node.nodeValue));
    for (const element of document.body.querySelectorAll('[title], [aria-label]')) {
      for (const name of ['title', 'aria-label']) if (invisible.test(element.getAttribute(name) ?? '')) out.push(name + ': ' + JSON.stringify(element.getAttribute(name)));
    }
    return out;
  })()`);
}

/** The escapes shown in an element, as their texts. */
async function escapesIn(page: Page, selector: string): Promise<string[]> {
  return page.locator(`${selector} .v-escape`).allTextContents();
}

function escaped(text: string): string[] {
  return [...text].filter((c) => /[\p{Cf}\u2028\u2029]/u.test(c)).map((c) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
}

describeInBrowser('viewer: stored texts made to fool it', () => {
  let directory: string;
  let server: RunningServer;
  let nodeTypeId: string;
  const browsers = new Map<number, Browser>();
  const errors: string[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    directory = writeHostileTexts();
    server = await startServer(directory);
    const schema = (await (await fetch(`${server.url}/api/v1/sql/schema`)).json()) as { tables: { name: string; typeIds: string[] }[] };
    nodeTypeId = schema.tables.find((t) => t.name === 'gen.Node')!.typeIds[0]!;
    for (const width of WIDTHS) browsers.set(width, await launchBrowser({ width, height: width === 390 ? 844 : 900 }));
  });
  afterAll(async () => {
    for (const browser of browsers.values()) await browser.close();
    await server?.close();
    if (directory !== undefined) rmSync(path.dirname(directory), { recursive: true, force: true });
  });

  async function open(width: number, hash: string): Promise<Page> {
    const page = await browsers.get(width)!.context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.goto(`${server.url}/viewer/${hash}`);
    return page;
  }

  for (const width of WIDTHS) {
    it(`shows invisible characters of stored texts as escapes in every view, copies the real text (${width} px)`, async () => {
      // The tree and the detail panel.
      const page = await open(width, '#/microstream?path=name');
      const name = page.locator('.row[data-key="root/name"] .c-value');
      await name.waitFor();
      expect(await name.textContent()).toBe('"invoice\\u202Efdp.exe"');
      expect(await escapesIn(page, '.row[data-key="root/name"] .c-value')).toEqual(['\\u202E']);
      await page.locator('.row[data-key="root"] .twisty').first().waitFor();
      await page.locator('.row[data-key="root/children"]').click();
      await page.keyboard.press('ArrowRight');
      await page.locator('.row[data-key^="root/children/"]').nth(INVISIBLE_TEXTS.length - 1).waitFor();
      await page.locator('.row[data-key="root/name"]').click();
      await page.locator('.detail .v-escape').first().waitFor();
      expect(await rawInvisible(page)).toEqual([]);
      // Every invisible character of the listed children's names shows as its escape in the tree.
      await expect.poll(() => page.locator('.tree .v-escape, .rows .v-escape, [role="treegrid"] .v-escape').allTextContents().then((t) => t.length)).toBeGreaterThanOrEqual(escaped(ALL_INVISIBLE).length);
      // A copied selection holds the real characters, not the escapes.
      const copied = await page.evaluate<string>(`(() => {
        const cell = document.querySelector('.row[data-key="root/name"] .c-value');
        const range = document.createRange();
        range.selectNodeContents(cell);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        const data = new DataTransfer();
        cell.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }));
        return data.getData('text/plain');
      })()`);
      expect(copied).toBe(`"${SPOOFED_NAME}"`);
      await page.screenshot({ path: path.join(ARTIFACTS, `tree-${width}.png`) });
      await page.close();

      // The instance grid (cells and their tooltips).
      const grid = await open(width, `#/microstream/types/${nodeTypeId}`);
      await grid.locator('.grid-status', { hasText: 'instances' }).waitFor();
      await grid.locator('.grid-rows .v-escape').first().waitFor();
      expect(await rawInvisible(grid)).toEqual([]);
      const gridEscapes = await escapesIn(grid, '.grid-rows');
      for (const text of [SPOOFED_NAME, ...INVISIBLE_TEXTS]) for (const e of escaped(text)) expect(gridEscapes).toContain(e);
      await grid.screenshot({ path: path.join(ARTIFACTS, `grid-${width}.png`) });
      await grid.close();

      // Search results (the owner's summary and the value).
      const search = await open(width, '#/microstream/search?q=invoice');
      await search.locator('tr.search-hit').first().waitFor();
      expect(await escapesIn(search, 'tr.search-hit')).toContain('\\u202E');
      expect(await rawInvisible(search)).toEqual([]);
      await search.screenshot({ path: path.join(ARTIFACTS, `search-${width}.png`) });
      await search.close();

      // The Retained view: summaries in the sunburst's legend and tooltips (SVG titles) and in the table.
      const retained = await open(width, '#/microstream/retained');
      await retained.locator('.rt-sunburst .rt-arc[data-oid]').first().waitFor();
      await retained.locator('.rt-legend .v-escape').first().waitFor();
      expect(await escapesIn(retained, '.rt-legend')).toContain('\\u202E');
      expect(await rawInvisible(retained)).toEqual([]);
      await retained.close();

      // Query results.
      const query = await open(width, `#/microstream/query?sql=${encodeURIComponent('SELECT name FROM "gen.Node" ORDER BY weight')}`);
      await query.locator('.query-status', { hasText: 'Not run yet' }).waitFor();
      await query.locator('button', { hasText: /^Run$/ }).click();
      await query.locator('.query-status', { hasText: /^11 rows/ }).waitFor();
      await query.locator('.grid-rows .v-escape').first().waitFor();
      expect(await rawInvisible(query)).toEqual([]);
      expect(await query.locator('.grid-rows .grid-row').first().textContent()).toBe('"invoice\\u202Efdp.exe"');
      await query.screenshot({ path: path.join(ARTIFACTS, `query-${width}.png`) });
      await query.close();
      expect(errors).toEqual([]);
    });
  }

  it('downloads the grid as CSV with formulas neutralised, and as raw CSV with the stored values', async () => {
    const page = await open(1440, `#/microstream/types/${nodeTypeId}?hide=_oid,_type_id,next,children,lazy&sort=weight`);
    await page.locator('.grid-status', { hasText: 'instances' }).waitFor();
    const download = async (label: string): Promise<{ name: string; text: string }> => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.locator('.grid-toolbar button', { hasText: new RegExp(`^${label}$`) }).click()]);
      return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
    };
    const quoted = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
    const names = [SPOOFED_NAME, ...INVISIBLE_TEXTS, ...FORMULA_TEXTS];
    const safe = await download('CSV');
    expect(safe.name).toBe('Node.csv');
    const neutralised = (text: string) => (/^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text) ? `'${text}` : text);
    expect(safe.text).toBe(`name,weight\r\n${names.map((n, i) => `${quoted(neutralised(n))},${i}`).join('\r\n')}\r\n`);
    expect(safe.text).toContain(`'=HYPERLINK(`);
    expect(safe.text).toContain(`\r\n-12.5,`);
    // The export keeps the real characters (no escapes in files).
    expect(safe.text).toContain(SPOOFED_NAME);
    const raw = await download('raw CSV');
    expect(raw.name).toBe('Node.raw.csv');
    expect(raw.text).toBe(`name,weight\r\n${names.map((n, i) => `${quoted(n)},${i}`).join('\r\n')}\r\n`);
    await page.close();
    expect(errors).toEqual([]);
  });
});
