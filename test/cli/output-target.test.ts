import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openOutput } from '../../src/cli/output/output-target.js';

/**
 * Standard output is opened once per statement of a `sql` shell session (output-target.ts): one
 * error listener on it whatever the number of statements (a listener each made Node warn
 * "MaxListenersExceededWarning" from the 11th statement on), and what it learnt (the reader has
 * gone) holds for the outputs opened after.
 */

describe('outputs opened on one stream', () => {
  it('add one error listener, however many there are', async () => {
    const stdout = new PassThrough();
    stdout.resume();
    const texts: string[] = [];
    stdout.on('data', (chunk: Buffer) => texts.push(chunk.toString()));
    for (let statement = 0; statement < 25; statement++) {
      const output = await openOutput(undefined, stdout);
      await output.write(`answer ${statement}\n`);
      await output.end();
    }
    expect(stdout.listenerCount('error')).toBe(1);
    expect(texts.join('')).toBe(Array.from({ length: 25 }, (_, i) => `answer ${i}\n`).join(''));
  });

  it('a reader gone before one output is gone for the next', async () => {
    const stdout = new PassThrough();
    const first = await openOutput(undefined, stdout);
    stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(first.closed).toBe(true);
    const next = await openOutput(undefined, stdout);
    expect(next.closed).toBe(true);
    await next.write('dropped\n');
    await next.end();
  });
});

/**
 * A stream destroyed without an 'error' event (stream.destroy(), a file stream closed under the
 * output) emits no 'drain' any more: a write to it used to wait forever and the command never
 * ended. Now it is told, as a failed write is; a reader gone (EPIPE) stays a quiet end.
 */
describe('an output whose stream is destroyed', () => {
  const closedText = 'standard output was closed before all of the output was written to it';

  it('rejects a write after the destroy, on a pipe and on a file stream', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'si-output-target-'));
    try {
      const file = createWriteStream(join(directory, 'answer.txt'));
      await new Promise((resolve) => file.once('open', resolve));
      for (const stream of [new PassThrough().resume(), file] as Writable[]) {
        const output = await openOutput(undefined, stream);
        await output.write('first\n');
        stream.destroy();
        await new Promise((resolve) => stream.once('close', resolve));
        await expect(output.write('second\n')).rejects.toThrow(closedText);
        expect(output.closed).toBe(false);
        await expect(output.end()).rejects.toThrow(closedText);
      }
      expect(readFileSync(join(directory, 'answer.txt'), 'utf8')).toBe('first\n');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('rejects a write waiting for drain when the stream is destroyed under it', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    const output = await openOutput(undefined, stream);
    const waiting = output.write('x'.repeat(64));
    expect(stream.writableNeedDrain).toBe(true);
    stream.destroy();
    await expect(waiting).rejects.toThrow(closedText);
  });

  it('destroyed with an error before it was opened: EPIPE is a gone reader, another error is thrown', async () => {
    const gone = new PassThrough();
    gone.on('error', () => undefined);
    gone.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await new Promise((resolve) => gone.once('close', resolve));
    const quiet = await openOutput(undefined, gone);
    await quiet.write('dropped\n');
    expect(quiet.closed).toBe(true);
    await quiet.end();

    const full = new PassThrough();
    full.on('error', () => undefined);
    full.destroy(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    await new Promise((resolve) => full.once('close', resolve));
    const failing = await openOutput(undefined, full);
    await expect(failing.write('lost\n')).rejects.toThrow('ENOSPC: no space left on device, write');
    expect(failing.closed).toBe(false);
    await expect(failing.end()).rejects.toThrow('ENOSPC: no space left on device, write');
  });
});
