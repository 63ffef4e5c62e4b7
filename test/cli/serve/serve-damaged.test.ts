import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerRequest } from '../../../src/http/java/java-service.js';
import { rescueStorage } from '../../../src/rescue/rescue-storage.js';
import { Storage } from '../../../src/storage/storage.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { runCli } from '../../../src/cli/run-cli.js';
import { spawnCli } from '../../security/cli.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';

/**
 * `serve` on a storage MicroStream refuses to start: what can be read is served, the damage is on
 * stderr and in /api/v1/storage with file and offset, lost objects answer 404; `--strict` refuses
 * as before. What it shows agrees object by object with what `rescue` reports and writes.
 */

let work: string;
let generated: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-serve-damaged-'));
  generated = join(work, 'generated');
  generateStorage({ directory: generated, entities: 1500, channelCount: 2, seed: 5, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function fetch(port: number, path: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

function damaged(name: string, damage: (dir: string) => void): string {
  const dir = join(work, name);
  cpSync(generated, dir, { recursive: true });
  damage(dir);
  return dir;
}

describe.each([
  ['a data file the log names deleted', 'deleted', (dir: string) => rmSync(join(dir, 'channel_0', 'channel_0_2.dat')), 'DATA_FILE_MISSING', 'channel_0/channel_0_2.dat', 0],
  [
    'damaged log entries',
    'log',
    (dir: string) => {
      const log = join(dir, 'channel_1', 'transactions_1.sft');
      const bytes = readFileSync(log);
      bytes.fill(0xab, 200, 216);
      writeFileSync(log, bytes);
    },
    'LOG_INVALID',
    'channel_1/transactions_1.sft',
    178,
  ],
] as const)('serve on %s', (_label, name, damage, code, file, offset) => {
  let dir: string;
  beforeAll(() => {
    dir = damaged(name, damage);
  });

  it('analyze and export read what can be read, naming the damage; --strict refuses', async () => {
    for (const args of [['analyze', dir, '--json'], ['export', dir, '--type', 'gen.Person']]) {
      const { code: exit, stdout, stderr } = await runCliInProcess(args);
      expect(exit, stderr).toBe(0);
      expect(stderr).toContain(`storage-inspector: warning: damage: ${join(dir, file)} at offset ${offset}: ${code}: `);
      expect(stdout.length).toBeGreaterThan(100);
      const strict = await runCli([...args, '--strict'], { stdout: { write: () => true }, stderr: { write: () => true } });
      expect(strict).toBe(1);
    }
  });

  it('--strict refuses it as before', async () => {
    const serve = spawnCli(['serve', dir, '--port', '0', '--strict']);
    const { code: exit } = await serve.exit;
    expect(exit).toBe(1);
    expect(serve.stderr()).not.toContain('serving');
  });

  it('serves what can be read, names the damage, and agrees with rescue object by object', async () => {
    const serve = spawnCli(['serve', dir, '--port', '0', '--no-follow', '--quiet']);
    try {
      const port = await serve.port;
      expect(serve.stderr()).toContain(`storage-inspector: damage: ${join(dir, file)} at offset ${offset}: ${code}: `);
      expect(serve.stderr()).toContain('--strict refuses it');
      const info = JSON.parse((await fetch(port, '/api/v1/storage')).body.toString()) as { damage?: { code: string; file?: string; offset?: number; severity: string }[] };
      // The operator's log names the file where it lies; the API, relative to the storage.
      expect(info.damage?.map((d) => [d.code, d.file, d.offset, d.severity])).toContainEqual([code, file, offset, 'refuses-start']);

      const out = `${dir}-rescued`;
      const report = await rescueStorage(dir, { out });
      const replaced = new Set(report.replaced.map((r) => r.owner));
      const lost = new Set(report.lost.map((l) => l.objectId));
      const rescued = await Storage.open(out);
      try {
        const ids: bigint[] = [];
        for (const channel of rescued.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
        expect(ids.length).toBe(report.keptObjects);
        const differences: string[] = [];
        for (const id of ids) {
          const path = `/microstream/object/${id}`;
          const served = await fetch(port, path);
          const copy = await rescued.consistent(() => answerRequest(rescued, { instance: 'microstream' }, { method: 'GET', url: path, headers: {} }));
          if (replaced.has(id)) {
            if (served.status !== 200) differences.push(`${path}: served ${served.status}, but rescue kept it (with replacements)`);
          } else if (served.status !== copy.status || !served.body.equals(copy.body)) {
            differences.push(`${path}: served ${served.status}, rescued ${copy.status}`);
          }
        }
        // Every id a replaced reference named is lost in both: 404 from the damaged original.
        for (const r of report.replaced.slice(0, 200)) {
          const served = await fetch(port, `/microstream/object/${r.lost}`);
          if (served.status !== 404) differences.push(`lost ${r.lost}: served ${served.status}`);
        }
        for (const id of lost) {
          const served = await fetch(port, `/microstream/object/${id}`);
          if (served.status === 200) differences.push(`lost ${id}: served 200`);
        }
        expect(differences.slice(0, 5), `${differences.length} differ`).toEqual([]);
      } finally {
        await rescued.close();
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  });
});
