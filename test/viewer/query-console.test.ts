import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from './browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from './browser.js';

/**
 * The Query view in chromium against the real server, at 1440 and 390 px: the tables and their
 * columns beside the editor (a click inserts the name), the count of all rows of a cut result,
 * Parquet of a result, columns that fill the width; a statement that comes with a link is shown
 * and runs only when the user asks (a link must not run SQL with the visitor's credentials).
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
    it(`lists tables and columns that insert their names, counts all rows of a cut result, downloads Parquet, fills the width (${width} px)`, async () => {
      const { page, statements } = await open(width, '#/microstream/query');
      await page.locator('.cm-content').waitFor();
      const schema = page.locator('.query-schema');
      // Beside the editor on a desktop; folded under "Tables" on a phone.
      if (width === 390) {
        expect(await schema.getAttribute('open')).toBeNull();
        await schema.locator('> summary').click();
      } else expect(await schema.getAttribute('open')).toBe('');
      const tableNames = await page.locator('.schema-name').allTextContents();
      const answer = (await (await fetch(`${server.url}/api/v1/sql/schema`)).json()) as { tables: { name: string; alias: string | null; kind: string }[] };
      expect([...tableNames].sort()).toEqual(answer.tables.map((t) => t.alias ?? t.name).sort());
      expect(tableNames.slice(0, answer.tables.filter((t) => t.kind === 'system').length).every((n) => n.startsWith('_'))).toBe(true);
      await page.locator('.schema-filter').fill('Book');
      await expect.poll(() => page.locator('.schema-name').allTextContents()).toEqual(['Book', 'Bookstore']);

      await page.locator('.cm-content').focus();
      await page.keyboard.type('SELECT ');
      // Opening the table lists its columns; a click on a name puts it at the cursor.
      await page.locator('.schema-table > summary').first().click({ position: { x: 4, y: 6 } });
      await page.locator('.schema-column', { hasText: /^title$/ }).click();
      await page.keyboard.type(' FROM ');
      await page.locator('.schema-name', { hasText: /^Book$/ }).click();
      expect(await page.locator('.cm-content').textContent()).toBe('SELECT title FROM Book');
      await page.keyboard.press('Control+Enter');
      await page.locator('.query-status', { hasText: /^40 rows/ }).waitFor();
      // One column: it takes the whole width of the grid.
      const [sum, room] = await page.locator('.grid-body').evaluate((body) => [
        [...body.querySelectorAll('.grid-titles .grid-th')].reduce((n, th) => n + th.getBoundingClientRect().width, 0),
        body.clientWidth,
      ]);
      expect(Math.abs(sum! - room!)).toBeLessThanOrEqual(2);
      await page.screenshot({ path: path.join(ARTIFACTS, `schema-${width}.png`) });

      // A result cut at 10,000 rows says how many there are in all.
      const objects = (await (
        await fetch(`${server.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM _objects' }) })
      ).json()) as { rows: [string | number][] };
      const n = BigInt(objects.rows[0]![0]);
      await page.locator('.cm-content').focus();
      await page.keyboard.press('Control+a');
      await page.keyboard.type('SELECT a.oid, b.oid AS other FROM _objects a, _objects b');
      await page.keyboard.press('Control+Enter');
      await page.locator('.query-status', { hasText: `10,000 of ${(n * n).toLocaleString('en-US')} rows` }).waitFor();
      expect(statements.at(-1)).toBe('SELECT count(*) AS n FROM (SELECT a.oid, b.oid AS other FROM _objects a, _objects b) AS counted');
      await page.screenshot({ path: path.join(ARTIFACTS, `counted-${width}.png`) });

      // The result as Parquet.
      await page.keyboard.press('Control+a');
      await page.keyboard.type('SELECT title, price FROM Book ORDER BY title');
      await page.keyboard.press('Control+Enter');
      await page.locator('.query-status', { hasText: /^40 rows/ }).waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.grid-toolbar button', { hasText: /^Parquet$/ }).click()]);
      expect(download.suggestedFilename()).toBe('query.parquet');
      const bytes = readFileSync((await download.path())!);
      expect([bytes.subarray(0, 4).toString('latin1'), bytes.subarray(-4).toString('latin1')]).toEqual(['PAR1', 'PAR1']);
      await page.close();
      expect(errors).toEqual([]);
    });

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

    it(`runs the statement of "Open as table" at once: the user asked for it in the viewer (${width} px)`, async () => {
      const found = (await (
        await fetch(`${server.url}/api/v1/sql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sql: "SELECT e.owner, count(*) AS n FROM _elements e JOIN _objects o ON o.oid = e.owner WHERE o.type_name = 'java.util.ArrayList' GROUP BY e.owner ORDER BY n DESC, e.owner LIMIT 1" }),
        })
      ).json()) as { rows: [string, number | string][] };
      const [owner, count] = found.rows[0]!;
      const { page, statements } = await open(width, `#/microstream/object/${owner}`);
      await page.locator('a', { hasText: 'Open as table' }).click();
      await page.locator('.query-status', { hasText: new RegExp(`^${count} rows`) }).waitFor();
      expect(statements.filter((sql) => sql.includes(`WHERE e.owner = ${owner}`) && sql.startsWith('SELECT e.position'))).toHaveLength(1);
      await page.close();
      expect(errors).toEqual([]);
    });
  }
});
