import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { spawnCli, type ServeProcess } from '../../security/cli.js';
import { describeInBrowser } from '../browser-suite.js';
import { BUILT_VIEWER, launchBrowser, REPO_ROOT, startServer, viewerBuilt, type Browser, type RunningServer } from '../browser.js';

/**
 * The banner of a damaged storage, in chromium: `serve` on a copy whose log names a data file
 * that is gone serves what can be read and names the damage in `/api/v1/storage`; the viewer
 * says so above every view, with file and offset, within the window at 1440 and 390 px. An
 * intact storage shows no banner. A server that does not serve damaged storages (no `damage` in
 * the OpenAPI document's /api/v1/storage) fails the damaged part; it does not skip itself.
 */

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer/damage');

describeInBrowser('viewer: a damaged storage', () => {
  let intact: RunningServer;
  let work: string;
  // One chromium for both widths, the phone's pages set to its window size: a second launch cost
  // about 1 s of CPU and 4 s of wall time beside other work. Neither the banner nor these views
  // keep anything in localStorage, so a page at one width inherits nothing from the other's.
  let browser: Browser;

  beforeAll(async () => {
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    work = mkdtempSync(path.join(tmpdir(), 'si-viewer-damage-'));
    intact = await startServer('graph');
    browser = await launchBrowser({ width: 1440, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await intact?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function damageServed(): Promise<boolean> {
    const document = (await (await fetch(`${intact.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, { get?: { responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }> } }>;
    };
    return document.paths['/api/v1/storage']?.get?.responses?.['200']?.content?.['application/json']?.schema?.properties?.['damage'] !== undefined;
  }

  async function settled(page: Page): Promise<void> {
    await page.locator('.main > *').first().waitFor();
    await page.waitForLoadState('networkidle');
  }

  it('shows no banner for an intact storage', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${intact.url}/viewer/#/microstream/types`);
    await settled(page);
    expect(await page.locator('.damage-banner').isHidden()).toBe(true);
    await page.close();
  });

  it('names the damage with file and offset above every view, within the window on a phone', async () => {
    expect(await damageServed(), 'the server names damage in /api/v1/storage').toBe(true);
    const generated = path.join(work, 'generated');
    generateStorage({ directory: generated, entities: 1500, channelCount: 2, seed: 5, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
    const dir = path.join(work, 'deleted');
    cpSync(generated, dir, { recursive: true });
    rmSync(path.join(dir, 'channel_0', 'channel_0_2.dat'));
    const serve: ServeProcess = spawnCli(['serve', dir, '--port', '0', '--no-follow', '--quiet']);
    try {
      const url = `http://127.0.0.1:${await serve.port}`;
      const info = (await (await fetch(`${url}/api/v1/storage`)).json()) as { damage: { code: string; file?: string; offset?: number }[] };
      const missing = info.damage.find((d) => d.code === 'DATA_FILE_MISSING')!;
      // Named relative to the storage: answers never say where the server keeps it.
      expect(missing.file).toBe(path.join('channel_0', 'channel_0_2.dat'));
      for (const [name, viewport] of [['desktop', { width: 1440, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
        for (const hash of ['#/microstream', '#/microstream/types', '#/microstream/analysis']) {
          const page = await browser.context.newPage();
          await page.setViewportSize(viewport);
          await page.goto(`${url}/viewer/${hash}`);
          const banner = page.locator('.damage-banner');
          await banner.locator('summary').waitFor();
          expect(await banner.locator('summary').textContent()).toContain('Damaged storage.');
          expect(await banner.locator('summary .damage-more').innerText()).toMatch(/^Show the/);
          await banner.locator('summary').click();
          expect(await banner.locator('summary .damage-more').innerText()).toBe('Hide');
          const items = await banner.locator('.damage-list li').allTextContents();
          expect(items).toHaveLength(info.damage.length);
          expect(items).toContainEqual(expect.stringContaining(`${missing.file} at offset ${missing.offset ?? 0}: DATA_FILE_MISSING`));
          await settled(page);
          expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
          const box = await banner.boundingBox();
          expect(box!.x + box!.width).toBeLessThanOrEqual(name === 'phone' ? 391 : 1441);
          await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${hash.replace(/[^a-z0-9]+/gi, '_')}.png`) });
          await page.close();
        }
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  });
});
