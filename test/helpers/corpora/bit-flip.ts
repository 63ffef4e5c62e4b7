import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * One bit of a file's byte at `at` turned over in place (the file is a test's own copy): the
 * smallest damage, a record's bytes changed without its length, which only a byte-wise comparison
 * or a checksum can find.
 */
export function flipBit(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    if (readSync(fd, byte, 0, 1, at) !== 1) throw new Error(`${path} has no byte at ${at}`);
    byte[0] = byte[0]! ^ 1;
    writeSync(fd, byte, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}
