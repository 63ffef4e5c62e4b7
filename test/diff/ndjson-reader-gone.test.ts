import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { pipedCli } from '../helpers/serving/piped-cli.js';

/**
 * Where `diff --ndjson`'s lines go fails. `diff A B --ndjson | head -1`, as docs/diff-and-history.md shows it: the reader closes the pipe
 * after its first line while the diff still has lines to write. That is a normal end, as for
 * `export ... | head` (no stack trace of an unhandled EPIPE); exit status 1, the storages differ.
 * Any other failure to write (a full disk under `> file`) is an error: its message, exit status 2.
 */

const ITEMS = 6000; // about 80 bytes a line: several times the pipe's and the command's buffers
let base: string;
let before: string;
let after: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-reader-gone-'));
  before = join(base, 'before');
  after = join(base, 'after');
  const writer = StorageWriter.create(before, { channelCount: 1 });
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'qty', type: 'int' }]));
  const ids: bigint[] = [];
  const store = writer.beginStore();
  for (let i = 0; i < ITEMS; i++) {
    ids.push(writer.newObjectId());
    store.add(item, ids[i]!, [i]);
  }
  writer.store(store);
  writer.close();
  cpSync(before, after, { recursive: true });
  const w = await StorageWriter.open(after);
  const changed = w.beginStore();
  for (let i = 0; i < ITEMS; i++) changed.add(w.dictionary.require('shop.Item'), ids[i]!, [i + 1]);
  w.store(changed);
  w.close();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('diff --ndjson whose reader goes away', () => {
  it('ends quietly with exit 1 when the reader closes the pipe (diff ... --ndjson | head -1)', { timeout: 60_000 }, async () => {
    const run = pipedCli(['diff', before, after, '--ndjson']);
    const first = await run.first;
    expect(first, run.stderr()).toBeDefined();
    run.child.stdout!.destroy();
    const code = await run.closed;
    expect(JSON.parse(first!.split('\n')[0]!)).toMatchObject({ change: 'changed', typeName: 'shop.Item' });
    expect(run.stderr()).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(code).toBe(1);
  });

  // The report as text (every change listed) or as one JSON document: written after the
  // comparison, its reader may go the same way (`diff A B --limit 6000 | head -1`).
  for (const format of [[], ['--json']]) {
    it(`ends quietly with exit 1 when the reader of the ${format.length === 0 ? 'text' : 'JSON'} report closes the pipe`, { timeout: 60_000 }, async () => {
      const run = pipedCli(['diff', before, after, '--limit', String(ITEMS), ...format]);
      expect(await run.first, run.stderr()).toBeDefined();
      run.child.stdout!.destroy();
      const code = await run.closed;
      expect(run.stderr()).not.toMatch(/EPIPE|Error|\n\s+at /);
      expect(code).toBe(1);
    });
  }

  // The text report and the NDJSON lines alike.
  for (const [what, format] of [
    ['the text report', ['--limit', String(ITEMS)]],
    ['the lines', ['--ndjson']],
  ] as const) {
    it(`ends with the write error and exit 2 when ${what} cannot be written (a full disk)`, async () => {
      let accepted = 0;
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, done) {
          if (accepted > 0) return done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
          accepted += chunk.length;
          done();
        },
      });
      let stderr = '';
      const code = await runCli(['diff', before, after, ...format], { stdout, stderr: { write: (t: string) => void (stderr += t) } });
      expect(accepted).toBeGreaterThan(0);
      expect(stderr).toMatch(/storage-inspector diff: ENOSPC: no space left on device, write\n$/);
      expect(code).toBe(2);
    });
  }
});
