import { open, type FileHandle } from 'node:fs/promises';
import { FormatError } from '../errors.js';

/**
 * Positioned reads that either return exactly the bytes asked for or fail: a short read means
 * the file is shorter than the index believed (truncated or replaced), never silent zeros.
 * Files are opened read-only and handles are kept in a small LRU cache.
 */
export class FileReader {
  private readonly handles = new Map<string, Promise<FileHandle>>();

  constructor(private readonly maxOpen = 64) {}

  async read(path: string, position: number, length: number): Promise<Buffer> {
    const handle = await this.handle(path);
    return readExactly(handle, path, position, length);
  }

  /** Drops the cached handle of a file (e.g. after it was deleted or replaced). */
  async forget(path: string): Promise<void> {
    const pending = this.handles.get(path);
    if (pending === undefined) return;
    this.handles.delete(path);
    await pending.then((h) => h.close()).catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.handles.keys()];
    await Promise.all(all.map((path) => this.forget(path)));
  }

  private handle(path: string): Promise<FileHandle> {
    let pending = this.handles.get(path);
    if (pending !== undefined) {
      // Refresh LRU position.
      this.handles.delete(path);
      this.handles.set(path, pending);
      return pending;
    }
    pending = open(path, 'r');
    pending.catch(() => this.handles.delete(path));
    this.handles.set(path, pending);
    if (this.handles.size > this.maxOpen) {
      const oldest = this.handles.keys().next().value;
      if (oldest !== undefined) void this.forget(oldest);
    }
    return pending;
  }
}

/** Loops `FileHandle.read` until `length` bytes have arrived. */
export async function readExactly(handle: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
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
