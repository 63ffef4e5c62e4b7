import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { StorageError } from '../errors.js';
import { makeDirectories } from './make-directories.js';
import { channelDirectory, logFilePath } from './paths.js';

/**
 * Makes a missing or empty directory a storage directory: channel directories and empty logs.
 * Returns the channel count once checked (a power of two, 1..1024).
 */
export function prepareNewDirectory(directory: string, channelCount: number): number {
  if (!Number.isInteger(channelCount) || channelCount < 1 || channelCount > 1024 || (channelCount & (channelCount - 1)) !== 0) {
    throw new RangeError(`channel count ${channelCount} is not a power of two between 1 and 1024`);
  }
  if (existsSync(directory) && readdirSync(directory).length > 0) {
    throw new StorageError('STORAGE_IO', `${directory} exists and is not empty`);
  }
  // Level by level: a recursive mkdir never returns where the system answers ENOENT (/proc).
  makeDirectories(directory);
  for (let c = 0; c < channelCount; c++) {
    mkdirSync(channelDirectory(directory, c));
    writeFileSync(logFilePath(directory, c), new Uint8Array(0));
  }
  return channelCount;
}
