import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageFollower } from '../../../src/storage/follow/follow.js';
import { expectedBody } from '../../helpers/corpora/conformance.js';
import { applyOp, loadStateCases, loadTransitions, SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { graphsBuilt, registeredStorage, registeredStorages, type RegisteredStorages } from '../../helpers/serving/registered-storage.js';
import { describeInBrowser } from '../browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, viewerBuilt, type Browser } from '../browser.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/**
 * The History view in a real browser against the real server, on states of SEQ1 (a storage a
 * running Java application wrote: commits 3-6 made S1-S4; by S8 housekeeping had deleted the files
 * of commits 1-6). What the view shows of a commit and of a comparison is checked against the
 * recorded Java answers of the states before and after, at desktop and phone widths.
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');

/** The object ids whose recorded Java answers differ between two states. */
function javaDifference(from: string, to: string): { added: string[]; changed: string[]; removed: string[] } {
  const answers = (state: string): Map<string, string> => {
    const out = new Map<string, string>();
    for (const c of loadStateCases(state).cases) if (c.kind === 'object') out.set(/\/object\/(\d+)$/.exec(c.request)![1]!, expectedBody(c).toString('utf8'));
    return out;
  };
  const a = answers(from);
  const b = answers(to);
  return {
    added: [...b.keys()].filter((id) => !a.has(id)).sort(),
    changed: [...a].filter(([id, body]) => b.has(id) && b.get(id) !== body).map(([id]) => id).sort(),
    removed: [...a.keys()].filter((id) => !b.has(id)).sort(),
  };
}

const cards = (page: Page): Promise<Record<string, string>> =>
  page.locator('.hv-detail .card').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.querySelector('.card-label')!.textContent!, e.querySelector('.card-value')!.textContent!])));

/** Nothing sticks out sideways: the page and the view scroll only up and down. */
const overflow = (page: Page): Promise<number[]> =>
  page.evaluate<number[]>(`(() => {
    const view = document.querySelector('.history-view');
    return [document.documentElement.scrollWidth - window.innerWidth, view.scrollWidth - view.clientWidth];
  })()`);

/** The view's box (what the window shows of the scrolled page), the list's and the detail's, in window coordinates. */
interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}
const boxes = (page: Page): Promise<{ view: Box; list: Box; detail: Box }> =>
  page.evaluate(`(() => {
    const box = (selector) => {
      const r = document.querySelector(selector).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    return { view: box('.history-view'), list: box('.hv-list-pane'), detail: box('.hv-detail') };
  })()`);

/** Whether the window shows the element at its centre: in view, not clipped by a scrolling pane, not covered. */
const seen = (page: Page, selector: string): Promise<boolean> =>
  page.evaluate<boolean>(`(() => {
    const e = document.querySelector(${JSON.stringify(selector)});
    if (e === null) return false;
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && e.contains(hit);
  })()`);

/** Scrolls the page of the view to a share of how far it can scroll (1: to its end). */
const scrollView = (page: Page, share: number): Promise<number> =>
  page.evaluate<number>(`(() => {
    const view = document.querySelector('.history-view');
    view.scrollTop = (view.scrollHeight - view.clientHeight) * ${share};
    return view.scrollTop;
  })()`);

describeInBrowser('viewer: History', () => {
  let browser: Browser;
  let app: FastifyInstance;
  let url: string;
  let registered: RegisteredStorages | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const state = (name: string): string => path.join(SEQUENCE_DIR, 'states', name);
    registered = await registeredStorages({ s4: state('S4'), s8: state('S8') }, () => ({ instance: 'microstream' }));
    app = buildApp(registered.storages[0]!, { instance: 'microstream', api: registered.registry });
    // Member changes need the graph index (the versions before): have it ready.
    await graphsBuilt(registered.registry);
    url = `http://127.0.0.1:${await listenOnLoopback(app)}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await registered?.close();
    expect(errors).toEqual([]);
  });

  async function open(hash: string, viewport?: { width: number; height: number }): Promise<Page> {
    const page = await browser.context.newPage();
    if (viewport !== undefined) await page.setViewportSize(viewport);
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // The browser logs every error answer (the 409 of a point housekeeping removed is one the view explains).
      if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) errors.push(message.text());
    });
    await page.goto(`${url}/viewer/${hash}`);
    return page;
  }

  async function commitsOf(storage: string): Promise<{ number: number; timestamp: string; objects: number; complete: boolean }[]> {
    const response = await fetch(`${url}/api/v1/storages/${storage}/commits`);
    return ((await response.json()) as { commits: { number: number; timestamp: string; objects: number; complete: boolean }[] }).commits;
  }

  it('lists the commits newest first with a timeline, opens one to what it stored, and links to the objects', async () => {
    const commits = await commitsOf('s4');
    const page = await open('#/microstream%2Fs4/history');
    const rows = page.locator('.hv-commits tbody tr');
    // The page boots first (dictionary, /api/v1, the SQL schema: seconds on a busy machine).
    await rows.first().waitFor();
    expect(await rows.count()).toBe(commits.length);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-commit'))))).toEqual(commits.map((c) => c.number));
    // The timeline: a column per commit, oldest on the left.
    expect(await page.locator('.ht-col').evaluateAll((cols) => cols.map((c) => Number(c.getAttribute('data-commit'))))).toEqual(commits.map((c) => c.number).reverse());
    expect(await page.locator('.history-view .stats-toolbar .hint').first().textContent()).toBe(`${commits.length} commits`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-list.png') });

    // Commit 4 made S2 of S1: its new objects are those S2's Java answers have and S1's not.
    const d = javaDifference('S1', 'S2');
    const four = commits.find((c) => c.number === 4)!;
    await page.locator('.hv-commits tr[data-commit="4"] a.hv-open').click();
    await page.waitForURL(new RegExp(`/history/${four.timestamp}$`));
    await page.locator('.hv-detail .hv-object').first().waitFor();
    await expect.poll(() => page.locator('.hv-detail h3').textContent()).toMatch(/^Commit 4 /);
    expect(await cards(page)).toMatchObject({ Objects: String(four.objects), New: String(d.added.length) });
    expect(await page.locator('.hv-commits tr.selected').getAttribute('data-commit')).toBe('4');
    expect(await page.locator('.ht-col.selected').getAttribute('data-commit')).toBe('4');
    const listed = async (): Promise<{ oid: string; change: string; members: number }[]> =>
      page.locator('.hv-object').evaluateAll((items) => items.map((li) => ({ oid: li.getAttribute('data-oid')!, change: li.querySelector('.hc-badge')!.textContent!, members: li.querySelectorAll('.hc-members > li').length })));
    // All of the commit's objects, a page at a time.
    for (;;) {
      const more = page.locator('.hv-more button');
      if ((await more.count()) === 0) break;
      const before = (await listed()).length;
      await more.click();
      await expect.poll(async () => (await listed()).length).toBeGreaterThan(before);
    }
    const objects = await listed();
    expect(objects).toHaveLength(four.objects);
    expect(objects.filter((o) => o.change === 'new').map((o) => o.oid).sort()).toEqual(d.added);
    // Updated objects with a member that differs: exactly those whose Java answers differ.
    expect(objects.filter((o) => o.change === 'updated' && o.members > 0).map((o) => o.oid).sort()).toEqual(d.changed);
    const changed = page.locator(`.hv-object[data-oid="${d.changed[0]}"]`);
    expect(await changed.locator('.hc-members > li').first().textContent()).toContain('→');
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-commit.png'), fullPage: false });

    // An object's id opens it in the Data view.
    await changed.locator('.hc-head a.ref-link').click();
    await page.waitForURL(new RegExp(`#/microstream%2Fs4/object/${d.changed[0]}$`));
    await page.locator('.row').first().waitFor();
    await page.close();
  });

  it('compares two points of the storage and two served storages', async () => {
    const page = await open('#/microstream%2Fs4/history');
    await page.locator('.hv-commits tbody tr').first().waitFor();
    await page.locator('input.hv-point[name="from"]').fill('3');
    await page.locator('input.hv-point[name="to"]').fill('6');
    await page.locator('form.hv-compare').first().locator('button').click();
    await page.waitForURL(/history\?from=3&to=6$/);
    await page.locator('.hv-detail .hv-sides').waitFor();
    const d = javaDifference('S1', 'S4');
    await expect.poll(() => cards(page)).toEqual({ Added: String(d.added.length), Removed: String(d.removed.length), Changed: String(d.changed.length), Unchanged: expect.any(String) });
    expect(await page.locator('.hv-sides').textContent()).toMatch(/^s4 as of commit 3 \(.+\) → s4 as of commit 6 \(.+\)$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-compare.png') });

    // Two storages served together: S4 against S8.
    const storagesForm = page.locator('form.hv-compare').nth(1);
    expect(await storagesForm.isVisible()).toBe(true);
    await storagesForm.locator('select').nth(0).selectOption('s4');
    await storagesForm.locator('select').nth(1).selectOption('s8');
    await storagesForm.locator('button').click();
    await page.waitForURL(/history\?a=s4&b=s8$/);
    await page.locator('.hv-detail .hv-sides', { hasText: 's8' }).waitFor();
    const e = javaDifference('S4', 'S8');
    await expect.poll(() => cards(page)).toEqual({ Added: String(e.added.length), Removed: String(e.removed.length), Changed: String(e.changed.length), Unchanged: expect.any(String) });
    // An object is opened in the storage that has it: a removed one in s4, the others in s8.
    const heads = await page.locator('.hv-object').evaluateAll((items) => items.map((li) => [li.classList.contains('removed') ? 's4' : 's8', li.querySelector('.hc-head a.ref-link')!.getAttribute('href')!]));
    expect(heads.length).toBeGreaterThan(0);
    for (const [storage, href] of heads) expect(href).toMatch(new RegExp(`^#/microstream%2F${storage}/object/\\d+$`));
    await page.close();
  });

  it('marks the commits whose bytes housekeeping removed, and a point it cannot rebuild is said, not a blank', async () => {
    const commits = await commitsOf('s8');
    const page = await open('#/microstream%2Fs8/history');
    const rows = page.locator('.hv-commits tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(commits.length);
    expect(await rows.evaluateAll((trs) => trs.filter((tr) => tr.classList.contains('incomplete')).map((tr) => Number(tr.getAttribute('data-commit'))))).toEqual(commits.filter((c) => !c.complete).map((c) => c.number));
    expect(await page.locator('.ht-col.incomplete').count()).toBe(commits.filter((c) => !c.complete).length);
    await page.goto(`${url}/viewer/#/microstream%2Fs8/history?from=2`);
    await page.locator('.hv-detail .problem').waitFor();
    await expect.poll(() => page.locator('.hv-detail .problem').textContent()).toMatch(/Cannot compare\. .*cannot be rebuilt exactly.*deleted since/);
    await page.close();
  });

  it('fits a phone: the commit opened comes first, nothing sticks out sideways', async () => {
    const commits = await commitsOf('s4');
    const six = commits.find((c) => c.number === 6)!;
    const page = await open(`#/microstream%2Fs4/history/${six.timestamp}`, { width: 390, height: 844 });
    await page.locator('.hv-detail .hv-object').first().waitFor();
    await expect.poll(() => page.locator('.hv-detail h3').textContent()).toMatch(/^Commit 6 /);
    await page.locator('.hv-commits tbody tr').first().waitFor();
    const top = (selector: string): Promise<number> => page.locator(selector).evaluate((e) => e.getBoundingClientRect().top);
    expect(await top('.hv-detail')).toBeLessThan(await top('.hv-list-pane'));
    expect(await overflow(page)).toEqual([0, 0]);
    // Times, bytes and counts of the list whole (not cut with an ellipsis) at this width, here and in S8's list ("1008 bytes").
    const cut = (): Promise<(string | null)[]> => page.locator('.hv-commits td.hv-time, .hv-commits td.hv-num').evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    expect(await cut()).toEqual([]);
    await page.goto(`${url}/viewer/#/microstream%2Fs8/history`);
    await page.locator('.hv-commits tbody tr[data-commit="9"]').waitFor();
    expect(await cut()).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-phone-list.png') });
    await page.goto(`${url}/viewer/#/microstream%2Fs4/history/${six.timestamp}`);
    await page.locator('.hv-detail .hv-object').first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-phone-commit.png') });
    await page.goto(`${url}/viewer/#/microstream%2Fs4/history?from=3&to=6`);
    await page.locator('.hv-detail .card').first().waitFor();
    expect(await overflow(page)).toEqual([0, 0]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-phone-compare.png'), fullPage: true });
    await page.close();
  });

  it('keeps the list in view beside a long commit scrolled down on a desktop, one column on a phone, and shows a commit opened from the list from its top', async () => {
    const commits = await commitsOf('s4');
    const four = commits.find((c) => c.number === 4)!;
    const page = await open(`#/microstream%2Fs4/history/${four.timestamp}`, { width: 1280, height: 800 });
    await page.locator('.hv-detail .hv-object').first().waitFor();
    await page.locator('.hv-commits tr.selected').waitFor();
    const { view, detail } = await boxes(page);
    // Commit 4 (20 of its 33 objects) is pages long: the view scrolls far past the list's height.
    expect(detail.bottom - view.bottom).toBeGreaterThan(view.bottom - view.top);
    for (const share of [0.5, 1]) {
      expect(await scrollView(page, share)).toBeGreaterThan(0);
      // The list scrolled away and left a blank column beside the objects: it is whole in the view.
      const b = await boxes(page);
      expect(b.list.top).toBeGreaterThanOrEqual(b.view.top);
      expect(b.list.bottom).toBeLessThanOrEqual(b.view.bottom);
      expect(b.list.right).toBeLessThan(b.detail.left);
      expect(await seen(page, '.hv-commits tr.selected')).toBe(true);
      expect(await seen(page, '.ht-col.selected')).toBe(true);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-commit-scrolled.png') });

    // Another commit opened from the list beside the end of commit 4 is shown from its head.
    await page.locator('.hv-commits tr[data-commit="2"] a.hv-open').click();
    await expect.poll(() => page.locator('.hv-detail h3').textContent()).toMatch(/^Commit 2 /);
    await page.locator('.hv-detail .hv-object').first().waitFor();
    expect(await seen(page, '.hv-detail h3')).toBe(true);
    expect(await seen(page, '.hv-commits tr.selected[data-commit="2"]')).toBe(true);

    // A window lower than the list: the list scrolls on its own, within the view, to its oldest commit.
    await page.setViewportSize({ width: 1280, height: 420 });
    await scrollView(page, 1);
    const low = await boxes(page);
    expect(low.list.top).toBeGreaterThanOrEqual(low.view.top);
    expect(low.list.bottom).toBeLessThanOrEqual(low.view.bottom);
    expect(await seen(page, '.hv-commits tr[data-commit="1"]')).toBe(false);
    await page.locator('.hv-list-pane').evaluate((pane) => pane.scrollTo(0, pane.scrollHeight));
    expect(await seen(page, '.hv-commits tr[data-commit="1"]')).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'history-commit-scrolled-low.png') });
    await page.close();

    // A phone: one column, what was opened above the list, so no column beside it to be blank.
    const phone = await open(`#/microstream%2Fs4/history/${four.timestamp}`, { width: 390, height: 844 });
    await phone.locator('.hv-detail .hv-object').first().waitFor();
    await phone.locator('.hv-commits tr.selected').waitFor();
    await scrollView(phone, 1);
    const p = await boxes(phone);
    expect([p.list.left, p.list.right]).toEqual([p.detail.left, p.detail.right]);
    expect(p.list.top).toBeGreaterThanOrEqual(p.detail.bottom);
    expect(await seen(phone, '.hv-commits tr.selected')).toBe(true);
    expect(await overflow(phone)).toEqual([0, 0]);
    await phone.screenshot({ path: path.join(ARTIFACTS, 'history-phone-commit-scrolled.png') });
    // A commit opened from the list below is shown from its head, above where the list was.
    await phone.locator('.hv-commits tr[data-commit="2"] a.hv-open').click();
    await expect.poll(() => phone.locator('.hv-detail h3').textContent()).toMatch(/^Commit 2 /);
    expect(await seen(phone, '.hv-detail h3')).toBe(true);
    await phone.screenshot({ path: path.join(ARTIFACTS, 'history-phone-commit-opened-from-list.png') });
    await phone.close();
  });

  it('follows the storage: a commit written while the view is open appears in the list and the timeline', async () => {
    // A copy of S3 that the Java application's next commit (S3 -> S4, commit 6) is then written into.
    const dir = mkdtempSync(path.join(tmpdir(), 'si-history-live-'));
    cpSync(path.join(SEQUENCE_DIR, 'states', 'S3'), dir, { recursive: true });
    const { storage, registry, close } = await registeredStorage(dir);
    const follower = new StorageFollower(storage, { pollIntervalMs: 50 });
    const live = buildApp(storage, { instance: 'microstream', api: registry, catchUp: () => follower.refreshNow() });
    try {
      registry.startAll();
      follower.start();
      const liveUrl = `http://127.0.0.1:${await listenOnLoopback(live)}`;
      const page = await browser.context.newPage();
      page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
      await page.goto(`${liveUrl}/viewer/#/microstream/history`);
      const rows = page.locator('.hv-commits tbody tr');
      await rows.first().waitFor();
      const before = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-commit'))));
      expect(before).toEqual([5, 4, 3, 2, 1]);
      const next = loadTransitions().find((t) => t.from === 'S3' && t.to === 'S4')!;
      for (const op of next.ops) applyOp(dir, op);
      // The viewer's live check sees the storage change and the list loads again, newest first.
      await page.locator('.hv-commits tbody tr[data-commit="6"]').waitFor({ timeout: 20_000 });
      expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-commit'))))).toEqual([6, 5, 4, 3, 2, 1]);
      expect(await page.locator('.ht-col').count()).toBe(6);
      expect(await page.locator('.history-view .stats-toolbar .hint').first().textContent()).toBe('6 commits');
      await page.close();
    } finally {
      await follower.stop();
      await live.close();
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
