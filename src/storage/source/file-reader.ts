import { readFileSync, readSync } from 'node:fs';
import { FormatError } from '../../errors.js';
import { DescriptorPool, type DescriptorOwner } from './descriptor-pool.js';
import { openRegularFileSync } from './regular-file.js';

/**
 * Positioned reads of entity records that either return exactly the bytes asked for or fail: a
 * short read means the file is shorter than the index believed (truncated or replaced), never
 * silent zeros. Files are opened read-only; descriptors are kept in an LRU cache that every
 * storage of the process shares (descriptor-pool.ts).
 *
 * Reads are synchronous `pread`s: a record is a few hundred bytes that the page cache almost
 * always holds, and a round trip through libuv's thread pool costs ten times more than the read
 * itself (measured: ~40 µs against ~3 µs per record), which capped request throughput.
 */
export class FileReader {
  /** The descriptors this reader keeps, in the pool shared by every reader of the process. */
  private readonly descriptors: DescriptorOwner = new Map();

  constructor(private readonly pool: DescriptorPool = sharedDescriptorPool()) {}

  async read(path: string, position: number, length: number): Promise<Buffer> {
    return this.readNow(path, position, length);
  }

  readNow(path: string, position: number, length: number): Buffer {
    // Regular files only: a FIFO swapped in for a data file must not block the process. The
    // descriptor is used before anything else runs, so no other reader can evict it meanwhile.
    const fd = this.pool.descriptor(this.descriptors, path, openRegularFileSync);
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const bytesRead = readSync(fd, buffer, done, length - done, position + done);
      if (bytesRead === 0) {
        throw new FormatError('FORMAT_TRUNCATED', `file ends after ${position + done} bytes, ${length - done} more expected`, {
          file: path,
          offset: position + done,
        });
      }
      done += bytesRead;
    }
    return buffer;
  }

  /** Drops the cached descriptor of a file (e.g. after it was deleted or replaced). */
  async forget(path: string): Promise<void> {
    this.pool.forget(this.descriptors, path);
  }

  async close(): Promise<void> {
    this.pool.forgetAll(this.descriptors);
  }

  /** Descriptors this reader keeps open now. */
  get openDescriptors(): number {
    return this.descriptors.size;
  }
}

let shared: DescriptorPool | undefined;

/** The pool of every storage's data file descriptors, bounded by `storageDescriptorBudget()`. */
export function sharedDescriptorPool(): DescriptorPool {
  shared ??= new DescriptorPool(storageDescriptorBudget());
  return shared;
}

/** Most descriptors kept open, whatever the system allows (a storage of 1 TB in 8 MiB files has 125,000). */
const MAX_CACHED_DESCRIPTORS = 4096;
const MIN_CACHED_DESCRIPTORS = 64;

/**
 * The soft limit of open files of this process (Linux: /proc/self/limits; Node raises the soft
 * limit to the hard one), or undefined where it cannot be told.
 */
export function descriptorLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
    if (line !== null) return line[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(line[1]);
  } catch {
    // Not Linux.
  }
  return undefined;
}

/**
 * How many data files to keep open: every file of a storage up to 4096 files (30 GB in Java's
 * default 8 MiB files), so that a random read never pays an open and a close. With fewer cached
 * descriptors than files a request's cost grew with the storage: with 92 files and 64 cached
 * descriptors 30 % of random reads paid an open and a close, with 938 files 93 %. At most a
 * quarter of the process's descriptor limit (1024 assumed where it cannot be told), for all
 * storages together (sharedDescriptorPool). The HTTP server keeps this many (and some more) out
 * of its connection cap.
 */
export function storageDescriptorBudget(limit: number = descriptorLimit() ?? 1024): number {
  return Math.max(MIN_CACHED_DESCRIPTORS, Math.min(MAX_CACHED_DESCRIPTORS, Math.floor(limit / 4)));
}
