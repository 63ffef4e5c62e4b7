import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../stdio-client.js';
import { cliCommand } from '../../helpers/test-run/cli-command.js';

/**
 * `storage-inspector mcp` as a child process fed raw lines (issue 40, item 9): a line over the
 * 10 MiB limit, a line that is not JSON and one that is no JSON-RPC message are each answered
 * with a JSON-RPC error, and the server goes on answering; it ends (exit code 0) when stdin does.
 */

const STORAGE = join(ROOT, 'test', 'fixtures', 'conformance', 'storages', 'graph');

interface RpcAnswer {
  readonly jsonrpc: string;
  readonly id: string | number | null;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string };
}

let child: ChildProcessWithoutNullStreams;
let stderr = '';
let exit: Promise<number | null>;
const answers: RpcAnswer[] = [];
const waiters: (() => void)[] = [];

/** The next answer on stdout (answers are taken in the order they come). */
async function nextAnswer(): Promise<RpcAnswer> {
  while (answers.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
  return answers.shift()!;
}

function writeLine(text: string): Promise<void> {
  return new Promise((resolve, reject) => child.stdin.write(`${text}\n`, (error) => (error ? reject(error) : resolve())));
}

beforeAll(async () => {
  child = spawn(process.execPath, [...cliCommand(), 'mcp', '--no-follow', STORAGE], { cwd: ROOT });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let pending = '';
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      answers.push(JSON.parse(pending.slice(0, end)) as RpcAnswer);
      pending = pending.slice(end + 1);
      for (const wake of waiters.splice(0)) wake();
    }
  });
  exit = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  await writeLine(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } }));
  const initialized = await nextAnswer();
  expect(initialized.id).toBe(1);
  expect(initialized.result?.['serverInfo']).toMatchObject({ name: 'storage-inspector' });
  await writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}, 60_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

// In the order written, even under --sequence.shuffle: one child serves them all, and the last ends its stdin.
describe('mcp over stdio, fed lines it cannot take', { shuffle: false }, () => {
  it('answers a line over 10 MiB with a JSON-RPC error and keeps serving', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(11 * 1024 * 1024) } } });
    await writeLine(huge);
    const refused = await nextAnswer();
    expect(refused).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Request too large: a message line of ${Buffer.byteLength(huge)} bytes was dropped (at most 10485760 bytes a line)` },
    });
    expect(stderr).toContain(`Request too large: a message line of ${Buffer.byteLength(huge)} bytes was dropped`);
    // Still serving: a tool call answers as before.
    await writeLine(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'storage_overview', arguments: {} } }));
    const overview = await nextAnswer();
    expect(overview.id).toBe(3);
    expect(overview.error).toBeUndefined();
    expect((overview.result?.['content'] as { text: string }[])[0]!.text).toMatch(/MicroStream/);
    expect(child.exitCode).toBeNull();
  }, 60_000);

  it('answers a line that is not JSON with a parse error, one that is no JSON-RPC message with an invalid request', async () => {
    await writeLine('{"jsonrpc": "2.0", "id": 4, "method": ');
    expect(await nextAnswer()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } });
    await writeLine(JSON.stringify({ jsonrpc: '1.0', id: 5, method: 'ping' }));
    expect(await nextAnswer()).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } });
    await writeLine(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }));
    expect(await nextAnswer()).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
  }, 60_000);

  it('ends with exit code 0 when stdin ends', async () => {
    child.stdin.end();
    expect(await exit).toBe(0);
  }, 60_000);
});
