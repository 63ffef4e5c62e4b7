import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeModelStorage } from '../graph/model-storage.js';
import { writeModelStorageWithUnreadableString } from '../helpers/corpora/unreadable-string.js';
import { stdioClient } from '../mcp/stdio-client.js';
import { spawnCli } from '../security/cli.js';

/**
 * What the SQL tables' build warns about (an unreadable record, with file and offset; a cache
 * that could not be read or kept) reaches whoever runs the server, named by storage: `serve`'s log
 * (a JSON line at level warn) and `mcp`'s stderr. Never the answer: the warning names the
 * server's files. Before, `serve` and `mcp` gave the SQL engine no one to tell: a damaged record
 * or a broken cache was silent on a server.
 */

const UNREADABLE = /java\.lang\.String .*list value has 1000 elements/;

let base: string;
let damaged: string;
let whole: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sql-warnings-'));
  damaged = join(base, 'damaged');
  whole = join(base, 'whole');
  writeModelStorageWithUnreadableString(damaged);
  writeModelStorage(whole);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the SQL tables\' warnings on a server', () => {
  it('are logged by serve, naming the storage, and not answered', async () => {
    const log = join(base, 'serve.log');
    const run = spawnCli(['serve', `good=${whole}`, `bad=${damaged}`, '--port', '0', '--no-follow', '--no-cache', '--log-file', log]);
    let bodies: string[] = [];
    try {
      const port = await run.port;
      bodies = await Promise.all(
        ['good', 'bad'].map(async (name) => {
          const answer = await fetch(`http://127.0.0.1:${port}/api/v1/storages/${name}/sql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM _values' }),
          });
          expect(answer.status, name).toBe(200);
          return answer.text();
        }),
      );
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);
    const warnings = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { level: number; storage?: string; msg: string })
      .filter((entry) => entry.msg.startsWith('sql: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, storage: 'bad' });
    expect(warnings[0]!.msg).toMatch(UNREADABLE);
    expect(warnings[0]!.msg).toContain(damaged);
    for (const body of bodies) expect(body).not.toContain(base);
  });

  it('are written to stderr by mcp, naming the storage', async () => {
    const { client, stderr } = await stdioClient([`bad=${damaged}`, '--no-cache']);
    try {
      const answered = (await client.callTool({ name: 'sql_query', arguments: { storage: 'bad', sql: 'SELECT count(*) AS n FROM _values' } })) as CallToolResult;
      expect(answered.isError ?? false).toBe(false);
      expect(JSON.stringify(answered)).not.toContain(base);
    } finally {
      await client.close();
    }
    const lines = stderr().split('\n').filter((line) => line.includes(': sql: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage-inspector: warning: bad: sql: /);
    expect(lines[0]).toMatch(UNREADABLE);
  });
});
