import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CORPORA } from '../../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorages, type RegisteredStorages } from '../../helpers/serving/registered-storage.js';
import { BUILT_VIEWER, chromiumAvailable, CHROMIUM_PATH, launchBrowser, REPO_ROOT, viewerBuilt, type Browser } from '../browser.js';
import { listenOnLoopback } from '../../helpers/serving/loopback.js';

/**
 * The viewer against a server with several storages (`serve shop=DIR lab=DIR`): it lists them and
 * switches between them, each under its own `/{instance}/{name}/` routes.
 */

const inCi = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';
const skip = !chromiumAvailable() && !inCi;
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts/viewer');
const row = (key: string): string => `.row[data-key="${key}"]`;

describe.skipIf(skip)('web viewer with several storages', () => {
  let browser: Browser;
  let app: FastifyInstance;
  let url: string;
  let registered: RegisteredStorages | undefined;

  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`${CHROMIUM_PATH} is missing: CI must install Debian's chromium package (apt-get install -y chromium)`);
    if (!viewerBuilt()) throw new Error(`The built viewer is missing (${BUILT_VIEWER}). Run "npm run build".`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const ES = CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!;
    registered = await registeredStorages(
      { shop: path.join(CORPORA[0]!.dir, 'storages', 'graph'), lab: path.join(ES.dir, 'storages', 'collections') },
      (storage) => ({ instance: storage.family.defaultInstance }),
    );
    const { registry, storages } = registered;
    // Asked for but not opened (`serve … bad=<empty dir>`): listed in the switch, not selectable.
    registry.addUnavailable({ name: 'bad', instance: 'microstream', reason: 'bad: no storage in this directory' });
    app = buildApp(storages[0]!, { instance: 'microstream', api: registry, sql: {} });
    // The viewer's views from /api/v1 wait while a graph index builds: have them ready.
    await graphsBuilt(registry);
    url = `http://127.0.0.1:${await listenOnLoopback(app)}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await registered?.close();
  });

  it('lists the storages and switches between them', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${url}/viewer/`);
    const select = page.locator('select.storage-switch');
    await select.waitFor();
    await expect.poll(() => select.locator('option').allTextContents()).toEqual(['microstream/shop', 'store-data/lab', 'bad (not served: bad: no storage in this directory)']);
    expect(await select.locator('option[disabled]').allTextContents()).toEqual(['bad (not served: bad: no storage in this directory)']);
    await page.locator(row('root/books')).waitFor();
    expect(page.url()).toContain('#/microstream%2Fshop');
    await page.screenshot({ path: path.join(ARTIFACTS, 'storages-shop.png') });

    await select.selectOption('store-data/lab');
    await page.locator(row('root/arrayList')).waitFor();
    expect(page.url()).toContain('#/store-data%2Flab');
    expect(await page.locator(`${row('root')} .c-oid`).textContent()).toBe('1000000000000000028');
    expect(await page.locator(row('root/books')).count()).toBe(0);
    // The views from /api/v1 ask the selected storage by name.
    await page.locator('a.tab[data-view="types"]').click();
    await page.getByText('CollectionsRoot').first().waitFor();
    await page.locator('a.tab[data-view="dictionary"]').click();
    await page.locator('.search-input').fill('CollectionsRoot');
    await page.locator('.type-item[data-type-id="1000082"]').click();
    await expect.poll(() => page.locator('.type-detail h2').textContent()).toBe('CollectionsRoot type id 1000082');
    expect(page.url()).toContain('#/store-data%2Flab/dictionary/1000082');
    await page.screenshot({ path: path.join(ARTIFACTS, 'storages-lab.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
