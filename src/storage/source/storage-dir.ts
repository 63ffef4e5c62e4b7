import { StorageError } from '../../errors.js';
import { parseJavaLong } from '../../format/type-dictionary.js';
import { DirectorySource } from './directory-source.js';
import { nearbyStorageHint } from './nearby-storages.js';
import type { SourceFile, SourceFolder, SourceReader } from './source.js';

/**
 * Finding the parts of a storage with MicroStream's default names (storage-format.md §1): the
 * type dictionary, `channel_<i>/` folders for i = 0..C-1, `channel_<i>_<n>.dat` data files and
 * `transactions_<i>.sft` logs, in whatever source keeps them (a directory, database tables).
 */

export const DICTIONARY_FILE_NAME = 'PersistenceTypeDictionary.ptd';
const CHANNEL_PREFIX = 'channel_';
const DATA_FILE_PREFIX = 'channel_';
const DATA_FILE_SUFFIX = 'dat';
const LOG_PREFIX = 'transactions_';
const LOG_SUFFIX = 'sft';
const COMPACTION_SWAP_SUFFIX = '_compaction.swp';
const MAX_CHANNELS = 1024;

export interface DataFileRef {
  readonly channel: number;
  readonly fileNumber: bigint;
  /** File name inside the channel directory. */
  readonly name: string;
  /** Path for reading (directory as given + channel directory + name; see the source). */
  readonly path: string;
  readonly size: number;
}

export interface ChannelLayout {
  readonly index: number;
  readonly directoryName: string;
  readonly directory: string;
  /** Data files in ascending file number order. */
  readonly dataFiles: readonly DataFileRef[];
  /** The transaction log path, or undefined if the channel has none. */
  readonly logPath: string | undefined;
  readonly logSize: number;
  /** EclipseStore's `transactions_<i>_compaction.swp`, if a log compaction left one (see format/compaction-swap.ts). */
  readonly compactionSwapPath: string | undefined;
}

export interface StorageLayout {
  readonly directory: string;
  readonly dictionaryPath: string;
  /** The dictionary file as listed (size and change stamp). */
  readonly dictionaryFile: SourceFile;
  readonly channels: readonly ChannelLayout[];
  /** Things Java would reject or ignore that the reader tolerated, for the operator to see. */
  readonly warnings: readonly string[];
  /**
   * Files that read shorter than they are kept (rows of a table that do not continue each other),
   * with the source's reason; each is also among the warnings as `<path>: <problem>`.
   */
  readonly damagedFiles: readonly SourceFile[];
}

/** What is missing to be a storage; `onlyDictionary`: everything else is there (a dictionary may be being rewritten). */
export class NotAStorageError extends StorageError {
  constructor(
    message: string,
    readonly onlyDictionary: boolean,
  ) {
    super('STORAGE_NOT_A_STORAGE', message);
  }
}

/** Inventories a storage directory; throws a StorageError naming what is missing. */
export function scanStorageDirectory(directory: string): Promise<StorageLayout> {
  return scanStorageLayout(new DirectorySource(directory), directory);
}

/**
 * Inventories a storage through a source's reader; `location` names the storage in messages.
 * Throws a StorageError naming what is missing.
 */
export async function scanStorageLayout(reader: SourceReader, location: string): Promise<StorageLayout> {
  const directory = location;
  const root = await reader.listRoot();
  const warnings: string[] = [];
  const damagedFiles: SourceFile[] = [];
  const noteProblems = (files: readonly SourceFile[]): void => {
    for (const file of files) {
      if (file.problem === undefined) continue;
      warnings.push(`${file.path}: ${file.problem}`);
      damagedFiles.push(file);
    }
  };
  noteProblems(root.files.filter((f) => f.name === DICTIONARY_FILE_NAME));
  const dictionaryFile = root.files.find((f) => f.name === DICTIONARY_FILE_NAME);
  if (dictionaryFile !== undefined) checkNotRefused(dictionaryFile);
  const missing: string[] = [];
  if (dictionaryFile === undefined) missing.push(`the type dictionary ${DICTIONARY_FILE_NAME}`);

  const folders = new Map<number, SourceFolder>();
  for (const folder of root.folders) {
    const name = folder.name;
    if (name.startsWith(CHANNEL_PREFIX) && /^\d+$/.test(name.slice(CHANNEL_PREFIX.length))) {
      folders.set(Number(name.slice(CHANNEL_PREFIX.length)), folder);
    }
  }
  const channelIndexes = [...folders.keys()].sort((a, b) => a - b);
  let channelCount = 0;
  while (channelIndexes[channelCount] === channelCount) channelCount++;
  checkUnreadableChannels(root.files, folders, channelCount);
  if (channelCount === 0) missing.push(`a channel directory ${CHANNEL_PREFIX}0`);
  if (dictionaryFile === undefined || missing.length > 0) {
    // A directory given one level off is the usual mistake: say where the storage seems to be.
    const hint = reader instanceof DirectorySource ? nearbyStorageHint(directory) : '';
    throw new NotAStorageError(`${directory} is not a MicroStream or EclipseStore storage: missing ${missing.join(' and ')}.${hint}`, channelCount > 0);
  }
  // Java's channel count is a power of two; surplus directories beyond it are not read.
  let powerOfTwo = 1;
  while (powerOfTwo * 2 <= Math.min(channelCount, MAX_CHANNELS)) powerOfTwo *= 2;
  if (powerOfTwo !== channelCount || channelIndexes.length !== channelCount) {
    warnings.push(
      `found channel directories ${channelIndexes.join(', ')}; using channels 0..${powerOfTwo - 1} (channel counts are powers of two)`,
    );
  }
  const channels: ChannelLayout[] = [];
  for (let index = 0; index < powerOfTwo; index++) {
    const folder = folders.get(index) as SourceFolder;
    checkNotRefused(folder);
    const listed = await reader.listFolder(folder);
    noteProblems(listed);
    channels.push(scanChannel(folder, listed, index, warnings));
  }
  const dictionaryNow = reader.oneInstant === true ? dictionaryFile : await dictionaryLookedAtLast(reader, dictionaryFile);
  return { directory, dictionaryPath: dictionaryNow.path, dictionaryFile: dictionaryNow, channels, warnings, damagedFiles };
}

/**
 * The dictionary as it is after the channel folders were listed. A store that brings a new type
 * writes the dictionary first, then its records, then the log entry: the dictionary looked at
 * after the logs knows every type the logs commit, whereas the first look (before them) may
 * miss the type of the newest records. Kept when it is gone or refused by now: the next
 * refresh sees that.
 */
async function dictionaryLookedAtLast(reader: SourceReader, first: SourceFile): Promise<SourceFile> {
  const later = (await reader.listRoot()).files.find((f) => f.name === DICTIONARY_FILE_NAME);
  return later === undefined || later.problem !== undefined || later.refused !== undefined ? first : later;
}

/**
 * A `channel_<i>` entry that is not a directory the source can read (a link to a disk that is not
 * mounted, a link that loops, a plain file) where the storage's channels continue: the channels
 * before it are there, so the storage has (at least) this one too, and serving the others alone
 * would show part of the objects, perhaps without the root. Java cannot start on it either.
 */
function checkUnreadableChannels(rootFiles: readonly SourceFile[], folders: ReadonlyMap<number, SourceFolder>, channelCount: number): void {
  for (const file of rootFiles) {
    const name = file.name;
    if (!name.startsWith(CHANNEL_PREFIX) || !/^\d+$/.test(name.slice(CHANNEL_PREFIX.length))) continue;
    const index = Number(name.slice(CHANNEL_PREFIX.length));
    if (index >= MAX_CHANNELS || folders.has(index) || index > channelCount) continue;
    const why = file.refused ?? 'is not a directory';
    const before = index === 0 ? '' : index === 1 ? ' (after channel 0)' : ` (after channels 0..${index - 1})`;
    throw new StorageError('STORAGE_REFUSED', `${file.path} ${why}: the storage's channel ${index}${before} cannot be read, and its objects would be missing`);
  }
}

/** A storage file or folder that its source refuses to read is an error that names it. */
function checkNotRefused<T extends SourceFile | SourceFolder>(entry: T): T {
  if (entry.refused !== undefined) throw new StorageError('STORAGE_REFUSED', `${entry.path} ${entry.refused}`);
  return entry;
}

function scanChannel(folder: SourceFolder, listed: readonly SourceFile[], index: number, warnings: string[]): ChannelLayout {
  const directoryName = folder.name;
  const channelDir = folder.path;
  const byNumber = new Map<bigint, DataFileRef>();
  const logName = `${LOG_PREFIX}${index}.${LOG_SUFFIX}`;
  const swapName = `${LOG_PREFIX}${index}${COMPACTION_SWAP_SUFFIX}`;
  let swap: SourceFile | undefined;
  let log: SourceFile | undefined;
  for (const file of [...listed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = file.name;
    if (name === logName) log = checkNotRefused(file);
    if (name === swapName) swap = checkNotRefused(file);
    const dot = name.lastIndexOf('.');
    if (dot < 0 || name.slice(dot + 1) !== DATA_FILE_SUFFIX || !name.startsWith(DATA_FILE_PREFIX)) continue;
    const middle = name.slice(DATA_FILE_PREFIX.length, dot);
    const underscore = middle.indexOf('_');
    const channelPart = underscore < 0 ? undefined : parseJavaLong(middle.slice(0, underscore));
    const fileNumber = underscore < 0 ? undefined : parseJavaLong(middle.slice(underscore + 1));
    if (channelPart === undefined || fileNumber === undefined) {
      warnings.push(`${directoryName}/${name}: invalid data file name (Java refuses to start); ignored`);
      continue;
    }
    if (channelPart !== BigInt(index)) {
      warnings.push(`${directoryName}/${name}: data file of channel ${channelPart} in ${directoryName} (Java refuses to start); ignored`);
      continue;
    }
    if (byNumber.has(fileNumber)) {
      warnings.push(`${directoryName}/${name}: second file with number ${fileNumber}; ignored`);
      continue;
    }
    checkNotRefused(file);
    byNumber.set(fileNumber, { channel: index, fileNumber, name, path: file.path, size: file.size });
  }
  const dataFiles = [...byNumber.values()].sort((a, b) => (a.fileNumber < b.fileNumber ? -1 : a.fileNumber > b.fileNumber ? 1 : 0));
  return { index, directoryName, directory: channelDir, dataFiles, logPath: log?.path, logSize: log?.size ?? 0, compactionSwapPath: swap?.path };
}
