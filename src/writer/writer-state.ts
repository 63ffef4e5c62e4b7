import type { RootsRegistry } from './roots-registry.js';
import type { ChannelHead } from './store-plan.js';
import type { WriterDictionary } from './writer-dictionary.js';
import type { WriterFamily } from './writer-family.js';

/** What a `StorageWriter` carries from one store to the next. */
export interface WriterState {
  family: WriterFamily;
  dictionary: WriterDictionary;
  writtenDictionaryRevision: number;
  channels: ChannelHead[];
  nextObjectId: bigint;
  /** Undefined for a writer that only copies records (`createForRecords`): roots come with them. */
  roots: RootsRegistry | undefined;
  rootReferenceId: bigint;
  rootObjectId: bigint;
  enumConstants: Map<bigint, readonly bigint[]>;
}

/** The channel states of a new storage: no head file yet (the first store creates number 1). */
export function freshChannels(channelCount: number): ChannelHead[] {
  return Array.from({ length: channelCount }, () => ({ headNumber: 0n, headLength: 0, logLength: 0 }));
}
