import { join } from 'node:path';
import { lockHeldAt, parseLockFile } from '../../format/lock-file.js';
import { readRegularFile } from './regular-file.js';

/** A lock file holds two numbers and a process name: anything longer is not one. */
const MAX_LOCK_FILE_BYTES = 64 * 1024;

/**
 * Reading a storage's `used.lock` (see format/lock-file.ts) on demand: it changes every few
 * seconds while its owner runs. Read-only, like everything else: the file is never created,
 * written or locked, and its content never stops anybody from reading.
 */

export const LOCK_FILE_NAME = 'used.lock';

export interface StorageLockInfo {
  readonly path: string;
  /**
   * `absent`: no lock file; `held`: a process claims the storage (by Java's rule it would refuse
   * a second writer); `expired`: the owner stopped renewing it (crashed, or stopped without
   * deleting it); `unreadable`: the file exists but does not parse (see `problem`).
   */
  readonly state: 'absent' | 'held' | 'expired' | 'unreadable';
  readonly lastWriteMillis?: number;
  readonly expirationMillis?: number;
  /** As written by the owner: `pid@host` for a JVM. */
  readonly processIdentity?: string;
  readonly processId?: number;
  readonly host?: string;
  readonly problem?: string;
}

export async function readStorageLock(directory: string, nowMillis: number = Date.now()): Promise<StorageLockInfo> {
  const path = join(directory, LOCK_FILE_NAME);
  let bytes: Buffer;
  try {
    // Like every storage file: a regular file only (a FIFO would block), and bounded.
    bytes = await readRegularFile(path, MAX_LOCK_FILE_BYTES, (size) => new Error(`${size} bytes, too long for a lock file`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, state: 'absent' };
    return { path, state: 'unreadable', problem: error instanceof Error ? error.message : String(error) };
  }
  try {
    const lock = parseLockFile(bytes.toString('utf8'));
    return {
      path,
      state: lockHeldAt(lock, nowMillis) ? 'held' : 'expired',
      lastWriteMillis: lock.lastWriteMillis,
      expirationMillis: lock.expirationMillis,
      processIdentity: lock.processIdentity,
      ...(lock.processId === undefined ? {} : { processId: lock.processId }),
      ...(lock.host === undefined ? {} : { host: lock.host }),
    };
  } catch (error) {
    return { path, state: 'unreadable', problem: `${error instanceof Error ? error.message : String(error)} (${bytes.length} bytes)` };
  }
}
