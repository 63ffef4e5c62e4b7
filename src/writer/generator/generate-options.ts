import type { FamilyName } from '../../format/storage-family.js';
import type { GigaMapKeyChoice } from './gigamap-writer.js';

/**
 * What the generator is asked for and what it answers (generate-storage.ts), apart from the
 * generator itself so that library-generator.ts and generate-storage.ts can both use them without
 * importing each other.
 */

export interface GenerateOptions {
  readonly directory: string;
  /** Distinct entities in the storage, including the 27 built-in objects. */
  readonly entities: number;
  readonly channelCount?: number;
  /** `microstream` (MicroStream 4.1, default) or `eclipsestore` (EclipseStore 4.1). */
  readonly family?: FamilyName;
  readonly seed?: number;
  readonly fileMaximumSize?: number;
  /** New entities per store (default 4096). */
  readonly entitiesPerStore?: number;
  /** Records stored again per new entity (default 0.1). */
  readonly updateRatio?: number;
  readonly now?: () => number;
  /** EclipseStore only: also a GigaMap of this many persons with two indices (gigamap-writer.ts), in the library's `people` map under the key `gigamap`. */
  readonly gigamap?: number;
  /** Keys the GigaMap's entities get instead of the generated ones (tests of the index reader). */
  readonly gigamapKeys?: GigaMapKeyChoice;
  /** EclipseStore only: chunk checksums as EclipseStore 4.2 writes them (`crc32c`, chained `sha256`); default none. */
  readonly checksums?: 'none' | 'crc32c' | 'sha256';
  readonly onProgress?: (progress: GenerateProgress) => void;
}

export interface GenerateProgress {
  readonly entities: number;
  readonly records: number;
  readonly stores: number;
  readonly bytes: number;
}

export interface GenerateSummary extends GenerateProgress {
  /** Data files over all channels. */
  readonly files: number;
  /** Type ids of the versions of `gen.Book`, oldest first. */
  readonly bookTypeIds: readonly bigint[];
  readonly rootObjectId: bigint;
}
