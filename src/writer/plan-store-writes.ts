import type { ChunkAlgorithm } from '../format/chunk-checksums.js';
import { chunkRecord, fileHeaderRecord, ZERO_CHAIN_ROOT } from './chunk-records.js';
import { creationEntry, storeEntry } from './log-entries.js';
import { dataFilePath, dictionaryPath, logFilePath } from './paths.js';
import type { StoreBuilder } from './store-builder.js';
import type { StoreClock } from './store-clock.js';
import type { ChannelHead, PlannedWrite, StorePlan } from './store-plan.js';
import type { WriterDictionary } from './writer-dictionary.js';

/** What a store's writes depend on besides its records. */
export interface StoreWritesContext {
  readonly directory: string;
  readonly fileMaximumSize: number;
  readonly checksums: ChunkAlgorithm | undefined;
  readonly clock: StoreClock;
  readonly dictionary: WriterDictionary;
  /** The dictionary revision already on disk (-1: none yet). */
  readonly writtenDictionaryRevision: number;
  /** Channel states after the last store. */
  readonly channels: readonly ChannelHead[];
}

/**
 * The writes of a sealed builder's store in the order store-plan.ts describes: the dictionary if
 * it changed, a new head file (creation log entry first) for each channel whose head is full or
 * missing, each channel's records (with a chunk checksum record when the storage has them), and
 * each channel's store log entry with one timestamp.
 */
export function planStoreWrites(context: StoreWritesContext, builder: StoreBuilder): StorePlan {
  const { directory, checksums, clock, dictionary } = context;
  const timestamp = clock.next();
  const writes: PlannedWrite[] = [];
  if (dictionary.revision !== context.writtenDictionaryRevision) {
    writes.push({ kind: 'dictionary', channel: -1, path: dictionaryPath(directory), position: 0, bytes: Buffer.from(dictionary.text(), 'utf8') });
  }
  const after = context.channels.map((c) => ({ ...c }));
  let createdFiles = 0;
  after.forEach((channel, c) => {
    if (channel.headNumber !== 0n && channel.headLength < context.fileMaximumSize) return;
    const headNumber = channel.headNumber + 1n;
    // With checksums a new file starts with its header, and the log names the file with it.
    const header = checksums === undefined ? undefined : fileHeaderRecord(checksums, channel.chainTip ?? ZERO_CHAIN_ROOT);
    const entry = creationEntry(clock.next(), header?.length ?? 0, headNumber);
    writes.push({ kind: 'log', channel: c, path: logFilePath(directory, c), position: channel.logLength, bytes: entry });
    writes.push({ kind: 'create', channel: c, path: dataFilePath(directory, c, headNumber), position: 0, bytes: new Uint8Array(0) });
    if (header !== undefined) writes.push({ kind: 'data', channel: c, path: dataFilePath(directory, c, headNumber), position: 0, bytes: header });
    after[c] = { ...channel, headNumber, headLength: header?.length ?? 0, logLength: channel.logLength + entry.length };
    createdFiles++;
  });
  let dataBytes = 0;
  after.forEach((channel, c) => {
    const records = builder.sinks[c]!.bytes();
    if (records.length === 0) return;
    let bytes = records;
    let chainTip = channel.chainTip;
    if (checksums !== undefined) {
      const chunk = chunkRecord(checksums, channel.headLength, records, channel.chainTip ?? ZERO_CHAIN_ROOT);
      bytes = Buffer.concat([records, chunk.record]);
      chainTip = chunk.tip;
    }
    writes.push({ kind: 'data', channel: c, path: dataFilePath(directory, c, channel.headNumber), position: channel.headLength, bytes });
    after[c] = { ...channel, headLength: channel.headLength + bytes.length, ...(chainTip === undefined ? {} : { chainTip }) };
    dataBytes += records.length;
  });
  after.forEach((channel, c) => {
    const entry = storeEntry(timestamp, channel.headLength);
    writes.push({ kind: 'log', channel: c, path: logFilePath(directory, c), position: channel.logLength, bytes: entry });
    after[c] = { ...channel, logLength: channel.logLength + entry.length };
  });
  return { timestamp, writes, records: builder.records, dataBytes, createdFiles, channelsAfter: after, dictionaryRevision: dictionary.revision };
}
