import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { expectedKeys, GIGAMAP_STORAGE, loadApiDump } from '../../gigamap/gigamap-corpus.js';
import { chromiumAvailable, CHROMIUM_PATH, launchBrowser, REPO_ROOT, viewerBuilt, BUILT_VIEWER, type Browser } from '../browser.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/**
 * A GigaMap in the viewer, in a real browser against the real server on the storage EclipseStore
 * wrote: its entities paged in entity-id order, the Indices tab with keys as bars by count, a key's
 * entities; at desktop and phone widths (screenshots in test-artifacts/viewer).
 */

const inCi = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';
const skip = !chromiumAvailable() && !inCi;
if (skip) console.warn(`SKIPPED the GigaMap browser tests: ${CHROMIUM_PATH} is missing.`);

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');
const persons = loadApiDump().find((m) => m.label === 'persons')!;

describe.skipIf(skip)('viewer: a GigaMap', () => {
  let registered: RegisteredStorage;
  let app: ReturnType<typeof buildApp>;
  let url: string;
  const errors: string[] = [];
  // One chromium for the file, each page at its test's width: a launch cost about 1 s of CPU and
  // 4 s of wall time beside other work, and the tests launched one each. Pages own nothing of
  // each other (sessionStorage is per page; none of these views writes localStorage).
  let browser: Browser;
  const opened: Page[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    browser = await launchBrowser();
    registered = await registeredStorage(GIGAMAP_STORAGE);
    await graphsBuilt(registered.registry);
    app = buildApp(registered.storage, { instance: 'store-data', api: registered.registry, sql: {} });
    url = `http://127.0.0.1:${await listenOnLoopback(app)}`;
  });
  afterAll(async () => {
    await browser?.close();
    app.server.closeAllConnections();
    await app.close();
    await registered.close();
  });

  async function open(viewport: { width: number; height: number }, hash: string): Promise<Page> {
    const page = await browser.context.newPage();
    opened.push(page);
    await page.setViewportSize(viewport);
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.goto(`${url}/viewer/${hash}`);
    return page;
  }

  it.each([
    ['1440', { width: 1440, height: 900 }],
    ['390', { width: 390, height: 844 }],
  ] as const)('lists entities as entity id, object id and a summary cut inside its own column (%s px)', async (name, viewport) => {
    try {
      const page = await open(viewport, `#/store-data/object/${persons.objectId}`);
      const rows = page.locator('.gigamap-entities tbody tr');
      await rows.first().waitFor();
      const first = persons.entities[0]!;
      const listed = (await (await fetch(`${url}/api/v1/objects/${persons.objectId}/gigamap/entities?offset=0&limit=1`)).json()) as { entities: { summary: string }[] };
      expect(await rows.first().locator('td').allTextContents()).toEqual([String(first.entityId), first.objectId, listed.entities[0]!.summary]);
      expect(await rows.first().locator('td').nth(1).locator('a').getAttribute('href')).toMatch(new RegExp(`object/${first.objectId}$`));
      // Every cell within the panel, left of the next one; the summary left-aligned and cut with an ellipsis.
      // As a script text: it runs in the page (the test's own types know no DOM).
      const boxes = await page.evaluate<{ inside: boolean; ordered: boolean; idWhole: boolean; align: string; ellipsis: boolean; cut: boolean; title: boolean }[]>(`(() => {
        const table = document.querySelector('.gigamap-entities');
        const panel = table.closest('.gigamap-section').getBoundingClientRect();
        return [...table.querySelectorAll('tbody tr')].map((tr) => {
          const cells = [...tr.children];
          const summary = cells[2];
          const style = getComputedStyle(summary);
          return {
            inside: cells.every((c) => c.getBoundingClientRect().right <= panel.right + 0.5),
            ordered: cells.every((c, i) => i === 0 || cells[i - 1].getBoundingClientRect().right <= c.getBoundingClientRect().left + 0.5),
            idWhole: cells[1].scrollWidth <= cells[1].clientWidth,
            align: style.textAlign,
            ellipsis: style.textOverflow === 'ellipsis' && style.whiteSpace === 'nowrap',
            cut: summary.scrollWidth > summary.clientWidth,
            title: summary.title === summary.textContent,
          };
        });
      })()`);
      expect(boxes.length).toBe(50);
      for (const box of boxes) expect(box).toEqual({ inside: true, ordered: true, idWhole: true, align: 'left', ellipsis: true, cut: expect.any(Boolean), title: true });
      // Person summaries are longer than the column at both widths: some are cut (and whole on hover).
      expect(boxes.some((b) => b.cut)).toBe(true);
      expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
      await page.locator('.gigamap-section').screenshot({ path: path.join(ARTIFACTS, `gigamap-entities-columns-${name}.png`) });
      await page.close();
    } finally {
      for (const page of opened.splice(0)) await page.close();
    }
    expect(errors).toEqual([]);
  });

  it.each([
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const)('opens as its entities with an Indices tab (%s)', async (name, viewport) => {
    try {
      const page = await open(viewport, `#/store-data/object/${persons.objectId}`);
      const rows = page.locator('.gigamap-entities tbody tr');
      await rows.first().waitFor();
      expect(await page.locator('.gigamap-section .hint').first().textContent()).toContain('4,919 entities');
      expect(await rows.count()).toBe(50);
      expect(await rows.first().locator('td').first().textContent()).toBe(String(persons.entities[0]!.entityId));
      expect(await rows.first().locator('a').getAttribute('href')).toContain(persons.entities[0]!.objectId);
      await page.locator('.gigamap-pager button', { hasText: 'last »' }).first().click();
      await page.locator('.gigamap-entities tbody tr td', { hasText: String(persons.entities.at(-1)!.entityId) }).first().waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, `gigamap-entities-${name}.png`), fullPage: false });

      // Values: the same entities as rows of their type's SQL table, in entity-id order.
      await page.locator('.gigamap-tab', { hasText: 'Values' }).click();
      const gridRows = page.locator('.gigamap-grid .grid-rows .grid-row');
      await gridRows.first().waitFor();
      const headers = await page.locator('.gigamap-grid .grid-titles .grid-th').allTextContents();
      expect(headers.slice(0, 2)).toEqual(['entity_id', '_oid']);
      const city = headers.indexOf('city');
      expect(city).toBeGreaterThan(1);
      expect(await page.locator('.gigamap-grid-status').textContent()).toMatch(/^50 entities of .*Person, rows of its table\.$/);
      const shown = await gridRows.evaluateAll((rows, column) => rows.slice(0, 5).map((r) => [r.children[0]?.textContent, r.children[1]?.querySelector('a')?.getAttribute('href'), r.children[column]?.textContent]), city);
      expect(shown).toEqual(
        persons.entities.slice(0, shown.length).map((e) => [String(e.entityId), expect.stringMatching(new RegExp(`object/${e.objectId}$`)), JSON.stringify(e['city'])]),
      );
      expect(shown.length).toBeGreaterThan(3);
      expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, `gigamap-values-${name}.png`), fullPage: false });

      await page.locator('.gigamap-tab', { hasText: 'Indices' }).click();
      await page.locator('.gigamap-index', { hasText: 'city' }).click();
      const keys = page.locator('.gigamap-keys li');
      await keys.first().waitFor();
      const cities = expectedKeys(persons, 'city');
      expect(await keys.count()).toBe(cities.size);
      const most = [...cities].sort((a, b) => b[1].length - a[1].length)[0]!;
      expect(await keys.first().locator('.gigamap-key').textContent()).toBe(most[0]);
      const widths = await page.locator('.gigamap-bar').evaluateAll((bars) => bars.map((b) => b.getBoundingClientRect().width));
      expect([...widths].sort((a, b) => b - a)).toEqual(widths);
      await page.screenshot({ path: path.join(ARTIFACTS, `gigamap-keys-${name}.png`), fullPage: false });

      await page.locator('.gigamap-key', { hasText: 'Graz' }).click();
      await page.locator('.gigamap-body h4', { hasText: 'city = Graz' }).waitFor();
      const graz = cities.get('Graz')!;
      expect(await page.locator('.gigamap-entities tbody tr').count()).toBe(Math.min(50, graz.length));
      expect(await page.locator('.gigamap-entities tbody tr td').first().textContent()).toBe(String(graz[0]));
      await page.close();

      // Types and Analysis count the GigaMap's machinery apart from the entities, as /api/v1/types marks it.
      const types = ((await (await fetch(`${url}/api/v1/types?limit=10000`)).json()) as { types: { typeName: string; instances: number; liveBytes: number; gigaMapMachinery?: number }[] }).types;
      const machinery = types.filter((t) => t.instances > 0 && (t.gigaMapMachinery ?? 0) > 0);
      const whole = machinery.filter((t) => t.gigaMapMachinery === t.instances).reduce((n, t) => n + t.instances, 0);
      for (const view of ['types', 'analysis']) {
        const other = await open(viewport, `#/store-data/${view}`);
        const line = other.locator('.gigamap-machinery');
        await line.waitFor();
        expect(await line.textContent()).toContain(`GigaMap machinery (levels, indices, bitmaps): ${whole.toLocaleString('en-GB')} objects`);
        expect(await line.textContent()).toContain(`in ${machinery.length} types`);
        if (view === 'types') {
          expect(await other.locator('.machinery-tag').count()).toBe(machinery.length);
          expect(await other.locator('.type-row', { hasText: 'conformance.gigamap.Person' }).locator('.machinery-tag').count()).toBe(0);
        }
        await other.screenshot({ path: path.join(ARTIFACTS, `gigamap-machinery-${view}-${name}.png`), fullPage: false });
        expect(await other.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]'), view).toEqual([expect.any(Number), expect.any(Number)]);
        const [scrollWidth, clientWidth] = (await other.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as number[];
        expect(scrollWidth, `${view}: page scrollWidth ${scrollWidth} of ${clientWidth}`).toBeLessThanOrEqual(clientWidth!);
        await other.close();
      }
    } finally {
      for (const page of opened.splice(0)) await page.close();
    }
    expect(errors).toEqual([]);
  });
});
