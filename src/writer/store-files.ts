import { closeSync, openSync, write, writeFileSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { dataFilePath } from './paths.js';
import type { PlannedWrite } from './store-plan.js';

/** `writeSync`'s positioned write, in the thread pool. */
const writeAt = promisify(write);

/**
 * The files of one storage a writer keeps open between stores, and the planned writes done on
 * them: a data file stays open until its channel rolls over to a new head file.
 */
export class StoreFiles {
  private readonly handles = new Map<string, number>();

  constructor(private readonly directory: string) {}

  /**
   * Does the first `length` bytes of a planned write. `headNumber` is the channel's head file
   * number before the write (a `create` write closes that file: it is complete now).
   */
  perform(write: PlannedWrite, length: number, headNumber: (channel: number) => bigint): void {
    switch (write.kind) {
      case 'dictionary':
        writeFileSync(write.path, write.bytes.subarray(0, length));
        return;
      case 'create': {
        closeSync(openSync(write.path, 'wx'));
        this.release(dataFilePath(this.directory, write.channel, headNumber(write.channel)));
        return;
      }
      default: {
        const fd = this.handle(write.path);
        let done = 0;
        while (done < length) done += writeSync(fd, write.bytes, done, length - done, write.position + done);
      }
    }
  }

  /** A whole `data` or `log` write, done in Node's thread pool. */
  async performInBackground(write: PlannedWrite): Promise<void> {
    const fd = this.handle(write.path);
    let done = 0;
    while (done < write.bytes.length) done += (await writeAt(fd, write.bytes, done, write.bytes.length - done, write.position + done)).bytesWritten;
  }

  /** Closes every file. */
  releaseAll(): void {
    for (const fd of this.handles.values()) closeSync(fd);
    this.handles.clear();
  }

  private handle(path: string): number {
    let fd = this.handles.get(path);
    if (fd === undefined) {
      fd = openSync(path, 'r+');
      this.handles.set(path, fd);
    }
    return fd;
  }

  private release(path: string): void {
    const fd = this.handles.get(path);
    if (fd !== undefined) {
      closeSync(fd);
      this.handles.delete(path);
    }
  }
}
