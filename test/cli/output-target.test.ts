import { PassThrough } from 'node:stream';
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
