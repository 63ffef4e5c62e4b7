/**
 * The lock file `used.lock` that MicroStream and EclipseStore keep in a storage directory while
 * a process uses the storage: `lastWriteMillis;expirationMillis;identity` in UTF-8, rewritten
 * by the owner every update interval (10 s by default), where the identity is the JVM's
 * `RuntimeMXBean` name, `pid@host`. Java takes a lock whose expiration lies more than one
 * interval in the past as abandoned. This module only reads it: nothing here creates, changes
 * or honours the lock.
 */

export interface LockFileContent {
  /** Epoch milliseconds of the owner's last write. */
  readonly lastWriteMillis: number;
  /** Epoch milliseconds until which the owner claims the storage. */
  readonly expirationMillis: number;
  /** The owner's process identity as written (`pid@host` for a JVM). */
  readonly processIdentity: string;
  /** The process id, when the identity has the JVM's `pid@host` form. */
  readonly processId: number | undefined;
  /** The host name, when the identity has the JVM's `pid@host` form. */
  readonly host: string | undefined;
}

/** Parses the file's text like Java does (two decimal numbers, each ended by a non-digit); throws on anything else. */
export function parseLockFile(text: string): LockFileContent {
  const first = endOfDigits(text, 0);
  const second = endOfDigits(text, first + 1);
  if (first === 0 || second === first + 1) throw new Error('no timestamps in the lock file');
  const lastWriteMillis = Number(text.slice(0, first));
  const expirationMillis = Number(text.slice(first + 1, second));
  if (!Number.isSafeInteger(lastWriteMillis) || !Number.isSafeInteger(expirationMillis)) throw new Error('lock file timestamps out of range');
  // Java reads the whole file; a shorter rewrite over a longer content leaves no NULs in practice, but be lenient.
  const processIdentity = text.slice(second + 1).replace(/\0+$/, '');
  const jvm = /^(\d+)@(.*)$/s.exec(processIdentity);
  return {
    lastWriteMillis,
    expirationMillis,
    processIdentity,
    processId: jvm === null ? undefined : Number(jvm[1]),
    host: jvm === null ? undefined : jvm[2],
  };
}

function endOfDigits(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return i;
  }
  throw new Error('no separator found in the lock file');
}

/**
 * Whether the owner still counts as holding the storage at `nowMillis`, by Java's rule: the lock
 * is abandoned once `now > expiration + (expiration - lastWrite)`.
 */
export function lockHeldAt(lock: LockFileContent, nowMillis: number): boolean {
  const interval = lock.expirationMillis - lock.lastWriteMillis;
  return nowMillis <= lock.expirationMillis + interval;
}
