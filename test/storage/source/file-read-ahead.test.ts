import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectorySource } from '../../../src/storage/source/directory-source.js';
import { FileReadAhead } from '../../../src/storage/source/file-read-ahead.js';
import type { SourceReads } from '../../../src/storage/source/source.js';

/** A source that tells when a file's pass starts and ends, around a real directory's chunks. */
function observed(inner: SourceReads, events: string[]): SourceReads {
  return {
    read: (path, position, length) => inner.read(path, position, length),
    readWhole: (path, limit) => inner.readWhole(path, limit),
    chunks: (path, from, to) => ({
      async *[Symbol.asyncIterator]() {
        events.push(`start ${path.slice(-6)}`);
        try {
          yield* inner.chunks(path, from, to);
        } finally {
          events.push(`end ${path.slice(-6)}`);
        }
      },
    }),
  };
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += Buffer.from(chunk).toString('latin1');
  return text;
}

describe('reading the next file while one is walked', () => {
  let dir: string;
  const files: { path: string; from: number; to: number }[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'si-read-ahead-'));
    for (let i = 0; i < 3; i++) {
      const path = join(dir, `f${i}.dat`);
      writeFileSync(path, `file ${i} `.repeat(10));
      files.push({ path, from: 2, to: 50 });
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers every file whole and in order, the next one started before the current is walked', async () => {
    const events: string[] = [];
    const reads = new FileReadAhead(observed(new DirectorySource(dir), events), files);
    const texts: string[] = [];
    for (let i = 0; i < files.length; i++) {
      const chunks = reads.chunks(i);
      // Taking file i starts file i + 1 at once.
      expect(events.filter((e) => e.startsWith('start'))).toHaveLength(Math.min(i + 2, files.length));
      texts.push(await collect(chunks));
    }
    await reads.close();
    expect(texts).toEqual([0, 1, 2].map((i) => `file ${i} `.repeat(10).slice(2, 50)));
    expect(events.filter((e) => e.startsWith('end'))).toHaveLength(3);
  });

  it('ends the read started ahead when the pass stops early', async () => {
    const events: string[] = [];
    const reads = new FileReadAhead(observed(new DirectorySource(dir), events), files);
    const first = reads.chunks(0);
    for await (const chunk of first) {
      expect(chunk.length).toBeGreaterThan(0);
      break; // a walk that stops at damage
    }
    await reads.close();
    expect(events).toEqual(expect.arrayContaining(['start f0.dat', 'end f0.dat', 'start f1.dat', 'end f1.dat']));
    expect(events.some((e) => e.includes('f2'))).toBe(false);
  });

  it('reports a file that cannot be read when it is taken, not before', async () => {
    const missing = [...files.slice(0, 1), { path: join(dir, 'gone.dat'), from: 0, to: 10 }];
    const reads = new FileReadAhead(new DirectorySource(dir), missing);
    expect(await collect(reads.chunks(0))).toBe(`file 0 `.repeat(10).slice(2, 50));
    await expect(collect(reads.chunks(1))).rejects.toThrow(/gone\.dat/);
    await reads.close();
  });
});
