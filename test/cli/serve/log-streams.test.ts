import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../../security/cli.js';
import { corpusStorage, send } from '../../security/server.js';

/**
 * Two streams that never mix: messages for people on stderr (each line `storage-inspector...`),
 * the log as JSON lines on stdout, or in the file given with --log-file.
 */

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-log-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function exercise(port: number): Promise<void> {
  expect((await send(port, 'GET', '/microstream/root')).status).toBe(200);
  expect((await send(port, 'GET', '/microstream/object/abc')).status).toBe(404);
  expect((await send(port, 'GET', '/microstream/object/1000000000000000028?x=%zz')).status).toBe(500);
}

describe('serve output streams', () => {
  it('writes human messages to stderr and only JSON lines to stdout', async () => {
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--no-follow']);
    try {
      await exercise(await run.port);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);
    const log = jsonLines(run.stdout());
    expect(log.filter((entry) => entry['msg'] === 'request').map((entry) => entry['status'])).toEqual([200, 404, 500]);
    for (const line of run.stderr().split('\n').filter((l) => l !== '')) {
      expect(line).toMatch(/^storage-inspector[: ]/);
    }
    expect(run.stderr()).toContain('storage-inspector: stopped');
  });

  it('writes the log to --log-file instead, leaving stdout empty', async () => {
    const file = join(tmp, 'requests.log');
    const run = spawnCli(['serve', corpusStorage('graph'), '--port', '0', '--no-follow', '--log-file', file]);
    try {
      await exercise(await run.port);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);
    expect(run.stdout()).toBe('');
    const log = jsonLines(readFileSync(file, 'utf8'));
    expect(log.filter((entry) => entry['msg'] === 'request')).toHaveLength(3);
  });
});
