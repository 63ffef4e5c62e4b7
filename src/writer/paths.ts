import { join } from 'node:path';

/** File names of a storage with MicroStream's default settings (storage-format.md §1.2). */

export const DICTIONARY_FILE = 'PersistenceTypeDictionary.ptd';

export function channelDirectory(directory: string, channel: number): string {
  return join(directory, `channel_${channel}`);
}

export function dataFilePath(directory: string, channel: number, fileNumber: bigint): string {
  return join(channelDirectory(directory, channel), `channel_${channel}_${fileNumber}.dat`);
}

export function logFilePath(directory: string, channel: number): string {
  return join(channelDirectory(directory, channel), `transactions_${channel}.sft`);
}

export function dictionaryPath(directory: string): string {
  return join(directory, DICTIONARY_FILE);
}
