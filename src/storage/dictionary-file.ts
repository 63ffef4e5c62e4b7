import { StorageError } from '../errors.js';
import { parseTypeDictionary, type TypeDictionary } from '../format/type-dictionary.js';
import type { SourceReader } from './source/source.js';
import type { StorageLayout } from './source/storage-dir.js';

/**
 * Reading the type dictionary file on a refresh: parsed when its stamp changed, recognized as
 * unchanged when only the stamp did, and told apart from a file Java is rewriting right now
 * (Java truncates it, then writes it anew: a text missing known types is unfinished).
 */

export type DictionaryRead =
  | { readonly kind: 'changed'; readonly parsed: TypeDictionary; readonly bytes: Buffer; readonly stamp: string }
  /** Same bytes under a new stamp (touched, or rewritten identically). */
  | { readonly kind: 'same'; readonly stamp: string }
  /** Being rewritten (absent, unparsable or missing types): try again at the next refresh. */
  | { readonly kind: 'rewriting'; readonly reason: string };

export interface KnownDictionary {
  readonly parsed: TypeDictionary;
  readonly bytes: Buffer;
  readonly stamp: string;
}

/**
 * A dictionary larger than the limit: refused before it is read (it says nothing about whether
 * the dictionary is valid, nor whether Java would start on it).
 */
export class DictionaryTooLargeError extends StorageError {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super('STORAGE_REFUSED', `${path} is ${size} bytes, more than the limit of ${limit} bytes for a type dictionary (--max-dictionary-bytes raises it)`);
  }
}

/** The dictionary as the refresh finds it; `known` undefined on the first load (which fails on a bad file). */
export async function readDictionaryFile(reader: SourceReader, layout: StorageLayout, known: KnownDictionary | undefined, maxBytes: number): Promise<DictionaryRead> {
  const stamp = layout.dictionaryFile.stamp;
  if (known !== undefined && stamp === known.stamp) return { kind: 'same', stamp };
  // Bounded like every read: a dictionary linked to something huge is refused, not loaded.
  const tooLarge = (size: number): StorageError => new DictionaryTooLargeError(layout.dictionaryPath, size, maxBytes);
  if (layout.dictionaryFile.size > maxBytes) throw tooLarge(layout.dictionaryFile.size);
  const bytes = await reader.readWhole(layout.dictionaryPath, { maxBytes, tooLarge });
  let parsed: TypeDictionary;
  try {
    parsed = parseTypeDictionary(bytes.toString('utf8'), layout.dictionaryPath);
  } catch (error) {
    if (known === undefined) throw error;
    return { kind: 'rewriting', reason: `type dictionary is being rewritten (${error instanceof Error ? error.message : String(error)})` };
  }
  if (known !== undefined) {
    for (const id of known.parsed.byId.keys()) {
      if (!parsed.byId.has(id)) return { kind: 'rewriting', reason: `type dictionary is being rewritten (type id ${id} missing)` };
    }
    if (bytes.equals(known.bytes)) return { kind: 'same', stamp };
  }
  return { kind: 'changed', parsed, bytes, stamp };
}
