import { close, closeSync, read, readSync } from 'node:fs';
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

/**
 * Bytes of a file's head that `readHeadAhead` reads: the kernel reads ahead four times as much
 * from a read this small at a file's start. Measured on the graph build at 10M, alternated with the
 * page cache dropped: 128 KiB 1,637 → 1,542 ms (and 1,695 → 1,567, 1,654 → 1,613 in two more sets
 * of runs), warm 1,494 → 1,460 (no loss); 256 KiB gained as much cold but cost 32 ms warm, 1 MiB
 * 36 ms cold and 50 ms warm (the bytes are copied out once more, by libuv's threads).
 */
const HEAD = 128 * 1024;
let headBuffer: Buffer | undefined;
/**
 * Head reads under way at most (each holds a descriptor until its read ends): a walk through
 * thousands of empty files asks for the next head faster than reads end, and without a bound
 * their descriptors added up until opens failed with EMFILE. A hint skipped costs nothing.
 */
const MAX_HEAD_READS = 2;
let headReads = 0;

/**
 * Starts reading the head of a file the thread will read next (on libuv's threads) and forgets
 * the bytes: with the page cache dropped, the disk is then already reading that file when its
 * synchronous reads begin, instead of the first read of each file waiting for it. Nothing is
 * kept and nothing is reported: the file's own reads report what is wrong with it.
 */
export function readHeadAhead(path: string): void {
  if (headReads >= MAX_HEAD_READS) return;
  let fd: number;
  try {
    fd = openRegularFileSync(path);
  } catch {
    return;
  }
  // One buffer for every head read: its bytes are never looked at.
  headBuffer ??= Buffer.allocUnsafeSlow(HEAD);
  headReads++;
  read(fd, headBuffer, 0, HEAD, 0, () =>
    close(fd, () => {
      headReads--;
    }),
  );
}
