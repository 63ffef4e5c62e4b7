import type { StorageFamily } from '../format/storage-family.js';
import type { TypeDictionary } from '../format/type-dictionary.js';
import type { ChunkVerification } from '../storage/checksums/chunk-verification.js';
import type { StorageLayout } from '../storage/source/storage-dir.js';
import type { Problem } from './problem.js';

/**
 * `check` speaks of the generation that wrote the storage. The problems are worded for MicroStream
 * 4.1; EclipseStore 4.1 starts the same way from the same files, and says the same in its own
 * packages (`org.eclipse.store.storage.exceptions.StorageException`), except where its sources
 * differ: the file length check throws `StorageExceptionConsistency` and spells "inconsistent",
 * and an object id without a record reached while loading the graph throws
 * `StorageExceptionConsistency` ("No entity found for objectId …"). (Checked against EclipseStore
 * 4.1.0 on a deleted data file, a file cut short and the records of the roots' constants
 * overwritten.)
 */

/** The built-in type EclipseStore 4.2's dictionary has and 4.1's has not. */
export const ECLIPSESTORE_42_TYPE = 'org.eclipse.serializer.collections.EqConstList';

/**
 * Whether EclipseStore 4.2 wrote the storage, told by what the files hold: data files with a
 * FileHeaderV1 (chunk checksums), the 4.2 dictionary's built-in `EqConstList`, or a log compaction
 * swap file (only 4.2 compacts logs that way).
 */
export function isEclipseStore42(dictionary: TypeDictionary | undefined, chunks: ChunkVerification | undefined, layout: StorageLayout): boolean {
  if (chunks?.algorithm !== undefined) return true;
  if (dictionary?.currentByName.has(ECLIPSESTORE_42_TYPE) === true) return true;
  return layout.channels.some((c) => c.compactionSwapPath !== undefined);
}

/** How a report names the library that would (not) start: `MicroStream 4.1`, `EclipseStore 4.1`, `EclipseStore 4.2`. */
export function generationOf(family: StorageFamily, es42 = false): string {
  return family.name === 'eclipsestore' ? (es42 ? 'EclipseStore 4.2' : 'EclipseStore 4.1') : 'MicroStream 4.1';
}

export function inGeneration(problem: Problem, family: StorageFamily, es42 = false): Problem {
  if (family.name !== 'eclipsestore') return problem;
  const label = generationOf(family, es42);
  const words = (text: string): string => text.replace(/MicroStream 4\.1/g, label).replace(/EclipseStore 4\.1/g, label).replace(/MicroStream/g, 'EclipseStore');
  let java = problem.java;
  if (java !== undefined) {
    const consistency = / is inconsinstent with the transactions entry's length of |^No entity found for objectId /.test(java.message);
    java = {
      exception: consistency ? 'org.eclipse.store.storage.exceptions.StorageExceptionConsistency' : java.exception.replace(/^one\.microstream\./, 'org.eclipse.store.'),
      message: java.message.replace('is inconsinstent with', 'is inconsistent with'),
    };
  }
  return { ...problem, meaning: words(problem.meaning), rescue: words(problem.rescue), ...(java === undefined ? {} : { java }) };
}
