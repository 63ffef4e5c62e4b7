import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser } from '../browser-suite.js';
import { REPO_ROOT } from '../browser.js';
import { browsersByWidth } from '../browsers-by-width.js';

/**
 * The Query view in chromium against the real server, at 1440 and 390 px: the tables and their
 * columns beside the editor (a click inserts the name), the count of all rows of a cut result,
 * Parquet of a result, columns that fill the width; a statement that comes with a link is shown
 * and runs only when the user asks (a link must not run SQL with the visitor's credentials).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/query');
const WIDTHS = [1440, 390] as const;

describeInBrowser('viewer: the Query view', () => {
  const fixture = browsersByWidth('graph', WIDTHS, ARTIFACTS);
  const { errors } = fixture;

  /** The page, and the statements it sent to /api/v1/sql (in order). */
  async function open(width: number, hash: string): Promise<{ page: Page; statements: string[] }> {
    const statements: string[] = [];
    const page = await fixture.open(width, hash, (p) =>
      p.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/sql') statements.push((JSON.parse(request.postData() ?? '{}') as { sql: string }).sql);
      }),
    );
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
      const answer = (await (await fetch(`${fixture.server.url}/api/v1/sql/schema`)).json()) as { tables: { name: string; alias: string | null; kind: string }[] };
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
        await fetch(`${fixture.server.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM _objects' }) })
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

    it(`links a column by what it holds: Book's author ids are links, a count named author is a number (${width} px)`, async () => {
      const { page } = await open(width, '#/microstream/query');
      await page.locator('.cm-content').waitFor();
      const run = async (sql: string, rows: RegExp): Promise<{ links: number; texts: string[] }> => {
        await page.locator('.cm-content').focus();
        await page.keyboard.press('Control+a');
        await page.keyboard.type(sql);
        await page.keyboard.press('Control+Enter');
        await page.locator('.query-status', { hasText: rows }).waitFor();
        return page.locator('.grid-body').evaluate((body) => {
          const index = [...body.querySelectorAll('.grid-titles .grid-th')].map((th) => th.textContent).indexOf('author');
          const cells = [...body.querySelectorAll('.grid-rows .grid-row')].map((row) => row.children[index]!);
          return { links: cells.filter((c) => c.querySelector('a.ref-link') !== null).length, texts: cells.map((c) => c.textContent ?? '') };
        });
      };
      const ask = async (sql: string): Promise<unknown[][]> =>
        ((await (await fetch(`${fixture.server.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) })).json()) as { rows: unknown[][] }).rows;
      // Book.author holds references: a link per book (to the author's summary).
      const authors = await run('SELECT title, author FROM Book ORDER BY title LIMIT 5', /^5 rows/);
      expect(authors.links).toBe(5);
      // The same name on a count: numbers, shown as they are.
      const sql = 'SELECT genre, count(*) AS author FROM Book GROUP BY genre ORDER BY genre';
      const counts = (await ask(sql)).map((row) => String(row[1]));
      const grouped = await run(sql, new RegExp(`^${counts.length} rows?`));
      expect(grouped.links).toBe(0);
      expect(grouped.texts.slice(0, counts.length)).toEqual(counts);
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
        await fetch(`${fixture.server.url}/api/v1/sql`, {
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
