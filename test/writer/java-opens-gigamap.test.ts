import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';

/**
 * The real EclipseStore 4.1.0 on a generated storage with a GigaMap: it starts (root and object
 * graph loaded, the GigaMap's handlers included) and answers every object as our server does.
 * Needs a command that starts EclipseStore 4.1.0 with the GigaMap module and its REST adapter on a
 * storage (`COMMAND serve DIR PORT`, instance store-data), named by STORAGE_INSPECTOR_ES41;
 * skipped without it. The command writes into the storage it opens, so it gets a copy.
 */

const ES41 = process.env['STORAGE_INSPECTOR_ES41']?.trim() ?? '';
const IDENTITY_HASH = /@[0-9a-f]{1,8}"/g;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

describe.skipIf(ES41 === '')('EclipseStore 4.1.0 on a generated GigaMap', () => {
  let base: string;
  let java: ChildProcess | undefined;
  let port: number;
  let storage: Storage;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'es41-gigamap-'));
    generateStorage({ directory: join(base, 'ours'), entities: 300, family: 'eclipsestore', gigamap: 2000, channelCount: 2, seed: 3 });
    cpSync(join(base, 'ours'), join(base, 'java'), { recursive: true });
    port = await freePort();
    const output: string[] = [];
    java = spawn(ES41, ['serve', join(base, 'java'), String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    java.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
    java.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
    const exited = new Promise<never>((_resolve, reject) => java!.once('exit', (code) => reject(new Error(`EclipseStore exited with ${code}:\n${output.join('')}`))));
    const listening = (async () => {
      for (;;) {
        if (output.join('').includes('listening on')) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    await Promise.race([listening, exited]);
    storage = await Storage.open(join(base, 'ours'));
    app = buildApp(storage, { instance: 'store-data' });
  }, 120_000);

  afterAll(async () => {
    java?.kill();
    await app?.close();
    await storage?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('answers every object of the storage as our server does (identity hashes aside)', async () => {
    let compared = 0;
    const differences: string[] = [];
    for (const channel of storage.channels) {
      const ids: bigint[] = [];
      channel.objects.forEach((low: number, high: number) => void ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
      for (const id of ids) {
        const url = `/store-data/object/${id}?references=true`;
        const theirs = await fetch(`http://127.0.0.1:${port}${url}`);
        const ours = await app.inject({ url });
        const a = (await theirs.text()).replace(IDENTITY_HASH, '@"');
        const b = ours.body.replace(IDENTITY_HASH, '@"');
        compared++;
        if (theirs.status !== ours.statusCode || a !== b) differences.push(`${url}: ${theirs.status} ${a.slice(0, 200)} | ${ours.statusCode} ${b.slice(0, 200)}`);
      }
    }
    expect(compared).toBeGreaterThan(2000);
    expect(differences.slice(0, 5)).toEqual([]);
  }, 300_000);
});
