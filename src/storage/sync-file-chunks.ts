import { closeSync, readSync } from 'node:fs';
import { openRegularFileSync } from './regular-file.js';
import type { SourceReads } from './source.js';

/**
 * A local file's bytes in small synchronous reads, for a thread that has nothing else to do
 * while it walks them (an index worker, the graph build's threads: the building thread yields
 * between chunks, and a read the page cache holds takes tens of microseconds). Measured against
 * the event loop's 8 MiB reads on the threadpool: each chunk is walked while it is still in this
 * core's cache (copied here, not by another thread), and no promise or thread handoff is paid per
 * read; with the page cache dropped, the kernel's read-ahead keeps the disk busy ahead of the
 * reads. Files are opened read-only and only when they are regular files (regular-file.ts).
 */

/**
 * Small enough to stay in a core's cache (2 MiB of L2 here) while it is walked, large enough that
 * the per-chunk costs (a read call, the walk's entry and exit, a promise) stay small: a warm open
 * of the 10M benchmark storage took 319–320 ms with 512 KiB, 334 ms with 1 MiB, 337–345 ms with
 * 256 KiB and 374 ms with 64 KiB (medians of 11–13 alternated runs); cold opens and the graph build
 * were the same with 256 and 512 KiB.
 */
const CHUNK = 512 * 1024;

/** Buffers of passes that ended, reused by the next (a worker walks one file after the other). */
const idle: Buffer[] = [];
const MAX_IDLE = 2;

/** Reads `[from, to)` of a file by path; ends early where the file ends. */
async function* syncChunks(path: string, from: number, to: number): AsyncGenerator<Uint8Array> {
  if (from >= to) return;
  const fd = openRegularFileSync(path);
  const buffer = idle.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
  try {
    for (let at = from; at < to; ) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK, to - at), at);
      if (read === 0) return;
      yield buffer.subarray(0, read);
      at += read;
    }
  } finally {
    closeSync(fd);
    if (idle.length < MAX_IDLE) idle.push(buffer);
  }
}

export const SYNC_LOCAL_FILES: Pick<SourceReads, 'chunks'> = { chunks: syncChunks };
