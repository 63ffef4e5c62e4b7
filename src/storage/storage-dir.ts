import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StorageError } from '../errors.js';
import { parseJavaLong } from '../format/type-dictionary.js';

/**
 * Finding the parts of a storage directory with MicroStream's default names
 * (storage-format.md §1): the type dictionary, `channel_<i>/` directories for i = 0..C-1,
 * `channel_<i>_<n>.dat` data files and `transactions_<i>.sft` logs.
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
  /** Path for reading (directory as given + channel directory + name). */
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
  readonly channels: readonly ChannelLayout[];
  /** Things Java would reject or ignore that the reader tolerated, for the operator to see. */
  readonly warnings: readonly string[];
}

/** Inventories a storage directory; throws a StorageError naming what is missing. */
export async function scanStorageDirectory(directory: string): Promise<StorageLayout> {
  const dirStat = await stat(directory).catch((cause: unknown) => {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${directory}: cannot read the storage directory (${errorText(cause)})`, { cause });
  });
  if (!dirStat.isDirectory()) {
    throw new StorageError('STORAGE_NOT_A_STORAGE', `${directory} is not a directory`);
  }
  const names = await readdir(directory);
  const dictionaryPath = join(directory, DICTIONARY_FILE_NAME);
  const missing: string[] = [];
  if (!names.includes(DICTIONARY_FILE_NAME)) missing.push(`the type dictionary ${DICTIONARY_FILE_NAME}`);

  const channelIndexes = names
    .filter((name) => name.startsWith(CHANNEL_PREFIX) && /^\d+$/.test(name.slice(CHANNEL_PREFIX.length)))
    .map((name) => Number(name.slice(CHANNEL_PREFIX.length)))
    .sort((a, b) => a - b);
  let channelCount = 0;
  while (channelIndexes[channelCount] === channelCount) channelCount++;
  if (channelCount === 0) missing.push(`a channel directory ${CHANNEL_PREFIX}0`);
  if (missing.length > 0) {
    throw new StorageError(
      'STORAGE_NOT_A_STORAGE',
      `${directory} is not a MicroStream storage directory: missing ${missing.join(' and ')}`,
    );
  }
  const warnings: string[] = [];
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
    channels.push(await scanChannel(directory, index, warnings));
  }
  return { directory, dictionaryPath, channels, warnings };
}

async function scanChannel(directory: string, index: number, warnings: string[]): Promise<ChannelLayout> {
  const directoryName = `${CHANNEL_PREFIX}${index}`;
  const channelDir = join(directory, directoryName);
  const names = await readdir(channelDir);
  const byNumber = new Map<bigint, DataFileRef>();
  const logName = `${LOG_PREFIX}${index}.${LOG_SUFFIX}`;
  const swapName = `${LOG_PREFIX}${index}${COMPACTION_SWAP_SUFFIX}`;
  for (const name of names.sort()) {
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
    const path = join(channelDir, name);
    const info = await stat(path);
    if (!info.isFile()) continue;
    byNumber.set(fileNumber, { channel: index, fileNumber, name, path, size: info.size });
  }
  const dataFiles = [...byNumber.values()].sort((a, b) => (a.fileNumber < b.fileNumber ? -1 : a.fileNumber > b.fileNumber ? 1 : 0));
  let logPath: string | undefined;
  let logSize = 0;
  if (names.includes(logName)) {
    logPath = join(channelDir, logName);
    logSize = (await stat(logPath)).size;
  }
  const compactionSwapPath = names.includes(swapName) ? join(channelDir, swapName) : undefined;
  return { index, directoryName, directory: channelDir, dataFiles, logPath, logSize, compactionSwapPath };
}

function errorText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
