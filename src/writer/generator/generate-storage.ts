import { StorageWriter, DEFAULT_FILE_MAXIMUM_SIZE } from '../storage-writer.js';
import type { GenerateOptions, GenerateSummary } from './generate-options.js';
import { LibraryGenerator } from './library-generator.js';

export type { GenerateOptions, GenerateProgress, GenerateSummary } from './generate-options.js';

/**
 * Generates a storage of a given number of entities with a realistic mix: a `gen.Library` root
 * with shelves (`Lazy` → `ArrayList` of books) and a `HashMap` of people, persons with byte[]
 * avatars and dates, books with BigDecimal prices, int[] ratings and an enum tag, in two type
 * versions, and about `updateRatio` of the objects stored again later, so that older versions
 * remain in older files. Deterministic for a seed (except the log timestamps). Streams: only ids
 * of books and persons are kept in memory, never records.
 *
 * This file checks the options and owns the writer; the options and summary are
 * generate-options.ts's, the graph itself library-generator.ts's.
 */

/** The smallest entity count the generator's fixed structure fits in. */
export const MIN_GENERATED_ENTITIES = 60;

export function generateStorage(options: GenerateOptions): GenerateSummary {
  if (!Number.isSafeInteger(options.entities) || options.entities < MIN_GENERATED_ENTITIES) {
    throw new RangeError(`the generator needs at least ${MIN_GENERATED_ENTITIES} entities, got ${options.entities}`);
  }
  if (options.gigamap !== undefined && (options.family ?? 'microstream') !== 'eclipsestore') throw new RangeError('a GigaMap can only be generated for the eclipsestore family');
  if ((options.checksums ?? 'none') !== 'none' && (options.family ?? 'microstream') !== 'eclipsestore') throw new RangeError('chunk checksums can only be written for the eclipsestore family (EclipseStore 4.2)');
  const writer = StorageWriter.create(options.directory, {
    ...(options.checksums === undefined ? {} : { checksums: options.checksums }),
    channelCount: options.channelCount ?? 1,
    family: options.family ?? 'microstream',
    fileMaximumSize: options.fileMaximumSize ?? DEFAULT_FILE_MAXIMUM_SIZE,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  try {
    return new LibraryGenerator(writer, options).run();
  } finally {
    writer.close();
  }
}
