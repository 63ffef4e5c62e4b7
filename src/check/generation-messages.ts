import type { StorageFamily } from '../format/storage-family.js';
import type { Problem } from './problem.js';

/**
 * `check` speaks of the generation that wrote the storage. The problems are worded for MicroStream
 * 4.1; EclipseStore 4.1 starts the same way from the same files, and says the same in its own
 * packages (`org.eclipse.store.storage.exceptions.StorageException`), except where its sources
 * differ: the file length check throws `StorageExceptionConsistency` and spells "inconsistent".
 * (Checked against EclipseStore 4.1.0 on a deleted data file, a file cut short and a missing
 * referenced object.)
 */

/** How a report names the library that would (not) start: `MicroStream 4.1`, `EclipseStore 4.1`. */
export function generationOf(family: StorageFamily): string {
  return family.name === 'eclipsestore' ? 'EclipseStore 4.1' : 'MicroStream 4.1';
}

export function inGeneration(problem: Problem, family: StorageFamily): Problem {
  if (family.name !== 'eclipsestore') return problem;
  const words = (text: string): string => text.replace(/MicroStream 4\.1/g, 'EclipseStore 4.1').replace(/MicroStream/g, 'EclipseStore');
  let java = problem.java;
  if (java !== undefined) {
    const lengthCheck = / is inconsinstent with the transactions entry's length of /.test(java.message);
    java = {
      exception: lengthCheck ? 'org.eclipse.store.storage.exceptions.StorageExceptionConsistency' : java.exception.replace(/^one\.microstream\./, 'org.eclipse.store.'),
      message: java.message.replace('is inconsinstent with', 'is inconsistent with'),
    };
  }
  return { ...problem, meaning: words(problem.meaning), rescue: words(problem.rescue), ...(java === undefined ? {} : { java }) };
}
