import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { StorageError } from '../../errors.js';

/**
 * Opening storage files with care: only regular files are read. A FIFO would block the open (and
 * with it startup) forever, a device such as /dev/zero never ends; both are refused with a
 * message. Files are opened non-blocking (which changes nothing for regular files) and checked
 * on the open descriptor, so that what is read is what was checked.
 */

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** What kind of file system object `stats` describes, for messages (`a FIFO`, `a directory`). */
export function kindOf(stats: Pick<Stats, 'isFile' | 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isSymbolicLink'>): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

export function notRegular(path: string, kind: string): StorageError {
  return new StorageError('STORAGE_REFUSED', `${path} is not a regular file (it is ${kind}); refusing to read it`);
}

/** A descriptor for reading a regular file (synchronous); throws STORAGE_REFUSED for anything else. */
export function openRegularFileSync(path: string): number {
  const fd = openSync(path, OPEN_FLAGS);
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stats.isFile()) {
    closeSync(fd);
    throw notRegular(path, kindOf(stats));
  }
  return fd;
}

/** A handle for reading a regular file; throws STORAGE_REFUSED for anything else. */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(path, kindOf(stats));
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * A whole regular file, at most `maxBytes` long: a larger file (or one that grows past the limit
 * while being read) is refused with `tooLarge(size)` before more than the limit is read.
 */
export async function readRegularFile(path: string, maxBytes: number, tooLarge: (size: number) => Error): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    const size = (await handle.stat()).size;
    if (size > maxBytes) throw tooLarge(size);
    // Reading one byte more than the limit tells a file that grew past it.
    const limit = maxBytes + 1;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(total === 0 ? Math.max(size, 4096) : 64 * 1024, limit - total);
      if (want <= 0) throw tooLarge(total);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, total);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
