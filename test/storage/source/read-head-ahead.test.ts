import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readHeadAhead, SYNC_LOCAL_FILES } from '../../../src/storage/source/sync-file-chunks.js';

/** Descriptors this process has open. */
const openDescriptors = (): number => readdirSync('/proc/self/fd').length;

/**
 * The read and the close run on libuv's threads: waits until the process holds `count`
 * descriptors again (a descriptor kept open fails here, after a bound generous for a busy machine).
 */
async function descriptorsBackTo(count: number): Promise<void> {
  await vi.waitFor(() => expect(openDescriptors()).toBe(count), { timeout: 20_000, interval: 5 });
}

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'si-head-'));
  dirs.push(dir);
  return dir;
}

describe('readHeadAhead', () => {
  it('reads a file ahead without keeping a descriptor or changing the file', async () => {
    const dir = scratch();
    const path = join(dir, 'channel_0_1.dat');
    const bytes = Buffer.alloc(300 * 1024, 7);
    writeFileSync(path, bytes);
    const before = openDescriptors();
    const { mtimeMs, size } = statSync(path);
    for (let i = 0; i < 5; i++) readHeadAhead(path);
    // Opened at once, two at most under way (the other three hints skipped): the reads did start.
    expect(openDescriptors()).toBe(before + 2);
    await descriptorsBackTo(before);
    expect(statSync(path)).toMatchObject({ mtimeMs, size });
    expect(readFileSync(path).equals(bytes)).toBe(true);
    // The file's own reads are unaffected.
    let read = 0;
    for await (const chunk of SYNC_LOCAL_FILES.chunks(path, 0, size)) read += chunk.length;
    expect(read).toBe(size);
  });

  it('passes over what it cannot read (a missing file, a FIFO) without waiting or throwing', async () => {
    const dir = scratch();
    const fifo = join(dir, 'channel_0_2.dat');
    execFileSync('mkfifo', [fifo]);
    const before = openDescriptors();
    expect(() => readHeadAhead(join(dir, 'missing.dat'))).not.toThrow();
    expect(() => readHeadAhead(fifo)).not.toThrow();
    // Nothing was opened: no read is under way that could still hold a descriptor.
    expect(openDescriptors()).toBe(before);
  });
});
