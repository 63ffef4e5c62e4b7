import { ECLIPSESTORE, MICROSTREAM, type FamilyName, type StorageFamily } from '../format/storage-family.js';
import { baseDictionaryText } from './base-dictionary.js';

/**
 * What the writer needs to know about the product line it writes for: the dictionary of a fresh
 * storage (with the type ids that version assigns) and the names of the family's own types. The
 * binary format, the built-in objects and their order are the same; EclipseStore moved
 * MicroStream's `one.microstream.*` types to `org.eclipse.serializer.*` unchanged. The writer and
 * the generator name those types the MicroStream way and ask `typeName` for the family's name.
 */
export interface WriterFamily {
  readonly family: StorageFamily;
  /** The dictionary of a fresh storage of this family. */
  readonly baseDictionaryText: string;
  /** The family's name of a type given by its MicroStream name (`one.microstream.reference.Lazy$Default`); other names unchanged. */
  typeName(microStreamName: string): string;
}

const MICROSTREAM_PREFIX = 'one.microstream.';
const SERIALIZER_PREFIX = 'org.eclipse.serializer.';

const sameName = (name: string): string => name;
const serializerName = (name: string): string => (name.startsWith(MICROSTREAM_PREFIX) ? SERIALIZER_PREFIX + name.slice(MICROSTREAM_PREFIX.length) : name);

export const MICROSTREAM_WRITER: WriterFamily = {
  family: MICROSTREAM,
  baseDictionaryText: baseDictionaryText('microstream', sameName),
  typeName: sameName,
};

export const ECLIPSESTORE_WRITER: WriterFamily = {
  family: ECLIPSESTORE,
  baseDictionaryText: baseDictionaryText('eclipsestore', serializerName),
  typeName: serializerName,
};

export function writerFamily(name: FamilyName): WriterFamily {
  return name === 'eclipsestore' ? ECLIPSESTORE_WRITER : MICROSTREAM_WRITER;
}
