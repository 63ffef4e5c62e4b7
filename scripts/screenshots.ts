import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { SEQUENCE_DIR } from '../test/helpers/corpora/follow-sequence.js';
import { chromiumAvailable, CHROMIUM_ENV, CHROMIUM_PATH, launchBrowser, REPO_ROOT, startServer, viewerBuilt } from '../test/viewer/browser.js';
import { toPalettePng } from './png-palette.js';
import { screenshotOutput } from './screenshot-output.js';

/**
 * Takes the README's pictures of the web viewer from corpus storages: `npm run build && npm run
 * screenshots` writes them to test-artifacts/screenshots to look at; `npm run screenshots --
 * --readme` replaces the committed ones in docs/screenshots (see screenshot-output.ts).
 */

const OUT = screenshotOutput(process.argv.slice(2), REPO_ROOT);

if (!chromiumAvailable()) {
  console.error(`${CHROMIUM_PATH} is missing (apt-get install chromium, or name another chromium in ${CHROMIUM_ENV}).`);
  process.exit(1);
}
if (!viewerBuilt()) {
  console.error('The viewer is not built: run "npm run build" first.');
  process.exit(1);
}

mkdirSync(OUT, { recursive: true });
const graph = await startServer('graph');
const collections = await startServer('collections');
// A storage with a history: the tracker a running Java application wrote, after its sixth commit.
const tracker = await startServer(path.join(SEQUENCE_DIR, 'states', 'S4'));
const browser = await launchBrowser({ width: 1280, height: 760 });

async function save(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  const png = toPalettePng(await page.screenshot());
  const file = path.join(OUT, `${name}.png`);
  writeFileSync(file, png);
  console.log(`${path.relative(REPO_ROOT, file)}  ${(png.length / 1024).toFixed(0)} KiB`);
}

try {
  const page = await browser.context.newPage();

  await page.goto(`${graph.url}/viewer/#/microstream?path=books/[1]/author`);
  const author = '.row[data-key="root/books/[1]/author"]';
  await page.locator(`${author}[aria-selected="true"]`).waitFor();
  await page.locator(`${author} .twisty`).click();
  await page.locator('.row[data-key="root/books/[1]/author/name"]').waitFor();
  await page.locator('.row[data-key="root/books/[1]/author/name"]').click();
  await page.locator(author).click();
  await page.waitForTimeout(500);
  await save(page, 'data');

  await page.goto(`${collections.url}/viewer/#/microstream/object/1000000000000000071?path=[49999]`);
  await page.locator('.row[data-key="root/[40000..49999]/[49900..49999]/[49999]"][aria-selected="true"]').waitFor();
  await save(page, 'big-list');

  await page.goto(`${graph.url}/viewer/#/microstream/dictionary/1000073?q=bookstore`);
  await page.locator('.members').waitFor();
  await save(page, 'dictionary');

  await page.goto(`${graph.url}/viewer/#/microstream/statistics`);
  await page.locator('.card').first().waitFor();
  await save(page, 'statistics');

  // With SQL (as serve runs by default) a type opens as the grid of its table.
  await page.goto(`${graph.url}/viewer/#/microstream/types/1000069`);
  await page.locator('.grid-rows .grid-row, .instance-list li').first().waitFor();
  await page.waitForLoadState('networkidle');
  await save(page, 'types');

  await page.goto(`${graph.url}/viewer/#/microstream/object/1000000000000000059`);
  await page.locator('.path-crumbs .crumb-step').nth(4).waitFor();
  await page.locator('.referrer-list li').first().waitFor();
  await page.locator('.versions-section .hint, .version-list').first().waitFor();
  await save(page, 'object-insights');

  await page.goto(`${graph.url}/viewer/#/microstream/object/1000000000000000028`);
  await page.locator('.version-list button').first().click();
  await page.locator('.diff-table tbody tr').first().waitFor();
  await save(page, 'versions');

  await page.goto(`${graph.url}/viewer/#/microstream/analysis`);
  await page.locator('.analysis-view .card').first().waitFor();
  await save(page, 'analysis');

  // The dominator tree opened down to the bookstore's TreeMap, beside the sunburst of its top levels.
  await page.goto(`${graph.url}/viewer/#/microstream/retained/1000000000000000033`);
  await page.locator('.rt-row.focused[data-oid="1000000000000000033"]').waitFor();
  await page.locator('.rt-sunburst .rt-arc').first().waitFor();
  await page.locator('.rt-legend li').first().waitFor();
  await save(page, 'retained');

  // An Author's panel: what keeps it alive (its dominators) and what deleting it would free.
  await page.goto(`${graph.url}/viewer/#/microstream/object/1000000000000000059`);
  await page.locator('.dominator-chain .crumb-step').first().waitFor();
  await page.locator('.frees-section .bar-row').first().waitFor();
  await page.locator('.referrer-list li').first().waitFor();
  await save(page, 'retained-object');

  await page.goto(`${graph.url}/viewer/#/microstream/search?q=e&type=Customer`);
  await page.locator('tr.search-hit').first().waitFor();
  await save(page, 'search');

  // With the server's SQL engine: a type's grid and the SQL console (left out where it has none).
  const openapi = (await (await fetch(`${graph.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
  if (openapi.paths['/api/v1/sql'] !== undefined) {
    await page.goto(`${graph.url}/viewer/#/microstream/types/1000073?sort=price&desc=1&f.genre=FICTION&hide=_type_id,isbn`);
    await page.locator('.grid-rows .grid-row').first().waitFor();
    await page.waitForLoadState('networkidle');
    // References show their objects' summaries once these arrive (ids until then).
    await page.waitForFunction("[...document.querySelectorAll('.grid-rows .grid-row .grid-cell:not(:first-child) a.ref-link')].every((a) => !/^[0-9]+$/.test(a.textContent))");
    await save(page, 'grid');
    const sql = 'SELECT c._oid AS customer, c.name, c.firstName, count(o._oid) AS orders, sum(o.total) AS spent\nFROM Customer c JOIN "Order" o ON o.customer = c._oid\nGROUP BY ALL ORDER BY spent DESC LIMIT 20';
    await page.goto(`${graph.url}/viewer/#/microstream/query?${new URLSearchParams({ sql }).toString()}`);
    // A statement from a link waits for Run.
    await page.locator('.query-status', { hasText: 'Not run yet' }).waitFor();
    await page.locator('button', { hasText: /^Run$/ }).click();
    await page.locator('.query-status', { hasText: 'rows' }).waitFor();
    await page.waitForLoadState('networkidle');
    await save(page, 'query');
  } else {
    console.log('grid.png and query.png left out: this server has no /api/v1/sql');
  }

  const commits = (await (await fetch(`${tracker.url}/api/v1/commits`)).json()) as { commits: { number: number; timestamp: string }[] };
  const fifth = commits.commits.find((c) => c.number === 5)!;
  await page.goto(`${tracker.url}/viewer/#/microstream/history/${fifth.timestamp}`);
  await page.locator('.hv-detail .hv-object').first().waitFor();
  await page.waitForLoadState('networkidle');
  await save(page, 'history');
  await page.goto(`${tracker.url}/viewer/#/microstream/history?from=3&to=6`);
  await page.locator('.hv-detail .hv-object').first().waitFor();
  await page.waitForLoadState('networkidle');
  await save(page, 'history-compare');
} finally {
  await browser.close();
  await graph.close();
  await collections.close();
  await tracker.close();
}
