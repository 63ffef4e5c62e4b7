import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, REPO_ROOT, startServer, viewerBuilt, BUILT_VIEWER, type Browser, type RunningServer } from '../browser.js';
import { describeInBrowser } from '../browser-suite.js';

/**
 * The Retained view in a real browser against the real server on the corpus storage "graph": the
 * dominator tree opened row by row (figures as /api/v1/dominators gives them), the sunburst of its
 * top levels, and from an object's panel what keeps it alive, linking to its row in the view; at
 * desktop and phone widths (screenshots in test-artifacts/viewer).
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');

interface Entry {
  objectId: string;
  typeName: string;
  retainedBytes: number;
  retainedObjects: number;
}

const bytesTitle = (n: number): string => `${n.toLocaleString('en-US')} bytes`;

describeInBrowser('viewer: the Retained view', () => {
  let server: RunningServer;
  const errors: string[] = [];
  // One chromium for the file, each page at its test's width: a launch cost about 1 s of CPU and
  // 4 s of wall time beside other work, and the tests launched one each. Pages own nothing of
  // each other (sessionStorage is per page; none of these views writes localStorage).
  let browser: Browser;
  const opened: Page[] = [];

  async function api<T>(route: string): Promise<T> {
    // The dominator tree is computed in the background after the graph index: 503 until then.
    for (;;) {
      const response = await fetch(`${server.url}/api/v1${route}`);
      if (response.status !== 503) return (await response.json()) as T;
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? '1') * 1000));
    }
  }

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    browser = await launchBrowser();
    server = await startServer('graph');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(viewport: { width: number; height: number }, hash: string): Promise<Page> {
    const page = await browser.context.newPage();
    opened.push(page);
    await page.setViewportSize(viewport);
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) errors.push(message.text());
    });
    await page.goto(`${server.url}/viewer/${hash}`);
    return page;
  }

  it.each([
    ['1440', { width: 1440, height: 900 }],
    ['390', { width: 390, height: 844 }],
  ] as const)('opens the dominator tree from the roots row by row with the API figures (%s px)', async (name, viewport) => {
    const top = await api<{ parent: Entry; total: number; children: Entry[] }>('/dominators?limit=25');
    try {
      const page = await open(viewport, '#/microstream/retained');
      const row = (oid: string) => page.locator(`.rt-row[data-oid="${oid}"]`);
      // The roots object on top, opened: its children listed, largest first.
      await row(top.parent.objectId).waitFor();
      expect(await row(top.parent.objectId).getAttribute('data-depth')).toBe('0');
      const listed = page.locator('.rt-row[data-depth="1"]');
      await listed.first().waitFor();
      expect(await listed.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-oid')))).toEqual(top.children.map((c) => c.objectId));
      // Open the biggest child (the root reference): the application's root below it, then what that holds.
      const rootReference = top.children[0]!;
      const below = await api<{ children: Entry[] }>(`/dominators?parent=${rootReference.objectId}&limit=25`);
      const appRoot = below.children[0]!;
      await row(rootReference.objectId).locator('button.rt-twisty').click();
      await row(appRoot.objectId).waitFor();
      expect(await row(rootReference.objectId).locator('button.rt-twisty').getAttribute('aria-expanded')).toBe('true');
      expect(await row(appRoot.objectId).getAttribute('data-depth')).toBe('2');
      expect(await row(appRoot.objectId).locator('td.rt-retained').getAttribute('title')).toBe(bytesTitle(appRoot.retainedBytes));
      const held = await api<{ total: number; children: Entry[] }>(`/dominators?parent=${appRoot.objectId}&limit=25`);
      await row(appRoot.objectId).locator('button.rt-twisty').click();
      const biggest = held.children[0]!;
      await row(biggest.objectId).waitFor();
      expect(await row(biggest.objectId).getAttribute('data-depth')).toBe('3');
      expect(await row(biggest.objectId).locator('td.rt-retained').getAttribute('title')).toBe(bytesTitle(biggest.retainedBytes));
      expect(await row(biggest.objectId).locator('td.rt-objects').textContent()).toBe(biggest.retainedObjects.toLocaleString('en-US'));
      // It holds more than a page: the next page comes on request.
      expect(held.total).toBeGreaterThan(25);
      const next = await api<{ children: Entry[] }>(`/dominators?parent=${appRoot.objectId}&offset=25&limit=25`);
      await page.locator(`.rt-note-row[data-parent="${appRoot.objectId}"] button.rt-more`).click();
      await row(next.children[0]!.objectId).waitFor();
      expect(await page.locator('.rt-row[data-depth="3"]').count()).toBe(50);
      // By keyboard: → opens a row, ← closes it and then goes to its parent.
      const inside = await api<{ children: Entry[] }>(`/dominators?parent=${biggest.objectId}&limit=25`);
      await row(biggest.objectId).locator('a.rt-link').focus();
      await page.keyboard.press('ArrowRight');
      await row(inside.children[0]!.objectId).waitFor();
      expect(await row(inside.children[0]!.objectId).getAttribute('data-depth')).toBe('4');
      await page.keyboard.press('ArrowLeft');
      await row(inside.children[0]!.objectId).waitFor({ state: 'detached' });
      await page.keyboard.press('ArrowLeft');
      expect(await page.evaluate("document.activeElement.closest('tr').getAttribute('data-oid')")).toBe(appRoot.objectId);
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate("document.activeElement.closest('tr').getAttribute('data-oid')")).toBe(biggest.objectId);
      // The sunburst: its first ring holds the roots object's children, each arc a link to its row.
      const arcs = page.locator('.rt-sunburst a.rt-arc[data-oid]');
      await arcs.first().waitFor();
      expect(await arcs.first().getAttribute('data-oid')).toBe(top.children[0]!.objectId);
      expect(await arcs.count()).toBeGreaterThan(top.children.length);
      // Nothing wider than the window.
      expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      await page.locator(`.rt-row[data-oid="${top.parent.objectId}"]`).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ARTIFACTS, `retained-${name}.png`) });
      await page.locator('.rt-chart').screenshot({ path: path.join(ARTIFACTS, `retained-chart-${name}.png`) });
    } finally {
      for (const page of opened.splice(0)) await page.close();
    }
  });

  it.each([
    ['1440', { width: 1440, height: 900 }],
    ['390', { width: 390, height: 844 }],
  ] as const)('says what keeps an object alive and what deleting it frees, and finds it in the Retained view (%s px)', async (name, viewport) => {
    // An Author: kept alive by the Bookstore (its author list is not its only way in).
    const oid = '1000000000000000059';
    const retained = await api<{ chain: Entry[]; chainLength: number; retained: { bytes: number; objects: number }; byType: { typeName: string; bytes: number }[] }>(`/objects/${oid}/retained?chain=50&types=10`);
    try {
      const page = await open(viewport, `#/microstream/object/${oid}`);
      const steps = page.locator('.dominator-chain .crumb-step[data-oid]');
      await steps.first().waitFor();
      expect(retained.chainLength).toBe(retained.chain.length);
      expect(await steps.evaluateAll((s) => s.map((e) => e.getAttribute('data-oid')))).toEqual([...retained.chain].reverse().map((d) => d.objectId));
      expect(await steps.first().locator('a').textContent()).toBe('Roots');
      expect(await page.locator('.frees-section .rt-frees strong').textContent()).toBe(`${retained.retained.objects} objects, ${retained.retained.bytes} bytes`);
      const types = page.locator('.frees-section .bar-row');
      expect(await types.count()).toBe(retained.byType.length);
      await page.locator('.keeps-alive-section').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ARTIFACTS, `retained-object-${name}.png`) });
      await page.locator('.keeps-alive-section a.rt-open').click();
      await page.waitForURL(new RegExp(`#/microstream/retained/${oid}$`));
      const focused = page.locator(`.rt-row.focused[data-oid="${oid}"]`);
      await focused.waitFor();
      expect(await focused.getAttribute('data-depth')).toBe(String(retained.chainLength));
      expect(await focused.locator('td.rt-retained').getAttribute('title')).toBe(bytesTitle(retained.retained.bytes));
      await page.screenshot({ path: path.join(ARTIFACTS, `retained-focused-${name}.png`) });
    } finally {
      for (const page of opened.splice(0)) await page.close();
    }
    expect(errors).toEqual([]);
  });
});
