import { isAppError } from '../errors.js';
import { analyzeStartup } from '../check/java-startup.js';
import type { Problem, Severity } from '../check/problem.js';
import type { StorageSource } from '../storage/source/source.js';
import { scanStorageLayout } from '../storage/source/storage-dir.js';
import { Storage, type OpenOptions } from '../storage/storage.js';

/**
 * A storage MicroStream refuses (the log names a data file that is gone, log entries are damaged)
 * still holds objects its owners need to see. Opened here as `check` and `rescue` read it: the
 * logs read the way Java reads them, each file up to what is committed and still there. The
 * damage found on the way is kept, with file and offset, to be shown beside the answers; objects
 * stored in the lost parts are simply not there (404, like any unknown id).
 */

export interface StorageDamage {
  readonly code: string;
  readonly severity: Severity;
  readonly file?: string | undefined;
  readonly offset?: number | undefined;
  readonly message: string;
}

/** Whether an error of `Storage.open` is damage that the readable part can be served despite. */
export function isRefusedDamage(error: unknown): boolean {
  return isAppError(error) && (error.code === 'STORAGE_INCONSISTENT' || error.code === 'FORMAT_BAD_LOG');
}

/** Opens what can be read of a storage `Storage.open` refused; `source` is a fresh one (closed with the storage). */
export async function openReadablePart(source: StorageSource, options: OpenOptions = {}): Promise<{ storage: Storage; damage: StorageDamage[] }> {
  const startup = await source.snapshot(async (reader) => analyzeStartup(await scanStorageLayout(reader, source.location), reader));
  const storage = await Storage.open(source, { ...options, committedLengths: async () => startup.readableLengths });
  return { storage, damage: startup.problems.filter((p) => p.severity !== 'harmless').map(damageOf) };
}

function damageOf(p: Problem): StorageDamage {
  const java = p.java === undefined ? '' : ` (MicroStream: ${p.java.message})`;
  return { code: p.code, severity: p.severity, file: p.file, offset: p.offset, message: `${p.meaning}${java}` };
}

/** One line per damage, for stderr. */
export function damageLine(d: StorageDamage): string {
  const where = d.file === undefined ? '' : `${d.file}${d.offset === undefined ? '' : ` at offset ${d.offset}`}: `;
  return `${where}${d.code}: ${d.message}`;
}
