import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STORAGE_EXCEPTION, type Problem } from './problem.js';

/**
 * The lock file (`used.lock`, storage-format.md §1.5) as `StorageLockFileManager` reads it:
 * `<lastWriteMillis>;<expirationMillis>;<process identity>`, the separators being the first
 * non-digit characters. MicroStream uses it only when the application configured a lock file
 * setup; then a lock held by another process refuses the start unless it expired more than one
 * update interval ago.
 */

export const LOCK_FILE_NAME = 'used.lock';

const IF_CONFIGURED = '(if the application configured a lock file; MicroStream 4.1 uses none by default)';

export async function checkLockFile(directory: string, now: number = Date.now()): Promise<Problem | undefined> {
  const path = join(directory, LOCK_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  if (text.length === 0) return undefined; // Java treats an empty lock file as no lock
  const sep1 = firstNonDigit(text, 0);
  const sep2 = sep1 < 0 ? -1 : firstNonDigit(text, sep1 + 1);
  if (sep1 < 0 || sep2 < 0) {
    return {
      code: 'LOCK_FILE_INVALID',
      severity: 'refuses-start',
      file: path,
      offset: 0,
      java: { exception: STORAGE_EXCEPTION, message: 'No separator found in lock file string.' },
      meaning: `the lock file does not hold "<time>;<expiry>;<owner>" ${IF_CONFIGURED}`,
      rescue: 'writes no lock file',
    };
  }
  const lastWrite = Number(text.slice(0, sep1) || '0');
  const expiration = Number(text.slice(sep1 + 1, sep2) || '0');
  const owner = text.slice(sep2 + 1);
  const interval = expiration - lastWrite;
  if (!(interval > 0)) {
    return {
      code: 'LOCK_FILE_INVALID',
      severity: 'refuses-start',
      file: path,
      offset: 0,
      java: { exception: STORAGE_EXCEPTION, message: `Invalid lockfile timestamps: lastWriteTime = ${lastWrite}, expirationTime = ${expiration}` },
      meaning: `the lock file's expiry is not after its last write ${IF_CONFIGURED}`,
      rescue: 'writes no lock file',
    };
  }
  const written = new Date(lastWrite).toISOString();
  if (now > expiration + interval) {
    return {
      code: 'STALE_LOCK_FILE',
      severity: 'harmless',
      file: path,
      meaning: `a lock file of "${owner}", last renewed ${written}, long expired: left behind by a process that stopped; MicroStream takes it over`,
      rescue: 'writes no lock file',
    };
  }
  return {
    code: 'LOCK_FILE_HELD',
    severity: 'refuses-start',
    file: path,
    offset: 0,
    java: { exception: STORAGE_EXCEPTION, message: `Storage already in use by: ${owner}` },
    meaning:
      `the storage is locked by "${owner}" (last renewed ${written}, valid until ${new Date(expiration).toISOString()}): ` +
      `if that process no longer runs, this is a stale lock left by a crash or copied with the files; MicroStream waits ${interval} ms and then refuses to start ` +
      `until ${new Date(expiration + interval).toISOString()} ${IF_CONFIGURED}`,
    rescue: 'writes no lock file',
  };
}

function firstNonDigit(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return i;
  }
  return -1;
}
