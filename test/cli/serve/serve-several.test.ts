/**
 * `serve NAME=DIR NAME=DIR ...` as a process: each storage indexed, followed and reported on its
 * own; a directory that is not a storage is reported and answered 503 while the others serve.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTransactionLog } from '../../../src/format/transaction-log.js';
import { storeEntry } from '../../../src/writer/log-entries.js';
import { bytes, record } from '../../helpers/corpora/bytes.js';
import { CORPORA } from '../../helpers/corpora/conformance.js';
import { cliCommand } from '../../helpers/test-run/cli-command.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ES = CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!;

const base = mkdtempSync(join(tmpdir(), 'serve-several-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('serve with several storages', () => {
  it('serves, follows and reports each on its own; an unusable one does not stop the others', async () => {
    const shop = join(base, 'shop');
    const lab = join(base, 'lab');
    const gone = join(base, 'gone');
    cpSync(join(CORPORA[0]!.dir, 'storages', 'graph'), shop, { recursive: true });
    cpSync(join(ES.dir, 'storages', 'noroot'), lab, { recursive: true });
    mkdirSync(gone);
    const child = spawn(process.execPath, [...cliCommand(), 'serve', `shop=${shop}`, `lab=${lab}`, `gone=${gone}`, '--port', '0', '--quiet', '--poll-interval', '50'], {
      cwd: ROOT,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const baseUrl = await until(async () => /serving shop: .* at (http:\/\/127\.0\.0\.1:\d+)\/microstream\/shop\/root/.exec(stderr)?.[1], 'the serving line');
      expect(stderr).toMatch(/\[shop\] indexed 1263 entities in 21 data files of 2 channel\(s\)/);
      expect(stderr).toMatch(/\[lab\] indexed 27 entities/);
      expect(stderr).toMatch(/\[gone\] error: not served: .*is not a MicroStream or EclipseStore storage/);
      expect(stderr).toContain(`serving lab: ${lab} (EclipseStore) at ${baseUrl}/store-data/lab/root`);
      expect(stderr).toMatch(/not serving gone: /);

      expect((await fetch(`${baseUrl}/microstream/shop/root`)).status).toBe(200);
      expect(await (await fetch(`${baseUrl}/store-data/lab/root`)).text()).toBe('{"name":"ROOT","objectId":"0"}');
      const goneAnswer = await fetch(`${baseUrl}/store-data/gone/root`);
      expect(goneAnswer.status).toBe(503);

      // A commit to one storage becomes visible there, by its follower, and nowhere else.
      const newId = 1000000000000005000n;
      const data = join(lab, 'channel_0', 'channel_0_1.dat');
      const log = join(lab, 'channel_0', 'transactions_0.sft');
      const last = parseTransactionLog(readFileSync(log)).entries.reduce((m, e) => (e.timestamp > m ? e.timestamp : m), 0n);
      appendFileSync(data, record(15n, newId, bytes().int32(42).build()));
      appendFileSync(log, storeEntry(last + 1n, statSync(data).size));
      const body = await until(async () => {
        const response = await fetch(`${baseUrl}/store-data/lab/object/${newId}`);
        return response.status === 200 ? response.text() : undefined;
      }, 'the new object of lab');
      expect(body).toContain('"data":["42"]');
      expect((await fetch(`${baseUrl}/microstream/shop/object/${newId}`)).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
