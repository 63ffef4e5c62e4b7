import { detectFamily, type StorageFamily } from '../format/storage-family.js';
import type { TypeDictionary } from '../format/type-dictionary.js';
import { ChannelState, needsRebuild, splitTypeId, type FileState, type ScanJob, type SplitId } from './channel-state.js';
import { planScans, removedFiles } from './scan-jobs.js';
import type { StorageLayout } from './source/storage-dir.js';
import type { ValidStorage } from './valid-lengths.js';

/**
 * What a refresh does with the committed state it found (storage.ts applies it): go on from the
 * channels it has or start them over, which file ranges to read, which files are gone, and the
 * family and roots type of the dictionary it will have. Decided before anything is changed.
 */
export interface RefreshPlan {
  /** A committed range shrank, a cut file was restored or the channel count changed: the channels start over. */
  readonly rebuild: boolean;
  /** The channels the jobs fill: new ones on a rebuild, else the ones the storage has. */
  readonly targets: ChannelState[];
  readonly jobs: ScanJob[];
  /** Files deleted since the last refresh (none on a rebuild). */
  readonly removed: FileState[];
  readonly family: StorageFamily;
  readonly rootsTypeId: SplitId;
}

/** The plan, or undefined when nothing is to be read, removed or rebuilt and the dictionary did not change. */
export function planRefresh(
  layout: StorageLayout,
  valid: ValidStorage,
  current: ChannelState[],
  dictionary: TypeDictionary,
  dictionaryChanged: boolean,
): RefreshPlan | undefined {
  const channels = current.length === layout.channels.length ? current : undefined;
  const rebuild = channels === undefined || valid.channels.some((c, i) => needsRebuild(channels[i]!, c.files));
  const targets = rebuild
    ? layout.channels.map((c) => new ChannelState(c.index, c.directoryName, layout.channels.length))
    : (channels as ChannelState[]);

  const jobs = planScans(targets, valid.channels.map((c) => c.files));
  const removed = rebuild ? [] : removedFiles(targets, valid.channels.map((c) => c.files));
  if (!rebuild && jobs.length === 0 && removed.length === 0 && !dictionaryChanged) return undefined;

  const family = detectFamily(dictionary);
  const rootsTypeId = splitTypeId(dictionary.currentByName.get(family.rootsTypeName)?.typeId);
  return { rebuild, targets, jobs, removed, family, rootsTypeId };
}
