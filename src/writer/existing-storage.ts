import { closeSync, openSync, readFileSync, statSync, truncateSync, writeSync } from 'node:fs';
import { StorageError } from '../errors.js';
import { layoutEntity, variableElements, type VariableSlot } from '../format/entity-layout.js';
import { aggregateTransactionLog, parseTransactionLog } from '../format/transaction-log.js';
import { scanRecords } from '../storage/records/record-scan.js';
import { scanStorageDirectory, type StorageLayout } from '../storage/source/storage-dir.js';
import { Storage, type StoredEntity } from '../storage/storage.js';
import { joinId } from '../storage/index/object-id-halves.js';
import { readLogAggregates } from '../storage/log-reader.js';
import { resolveValidLengths } from '../storage/valid-lengths.js';
import { FIRST_OBJECT_ID } from './builtins.js';
import { creationEntry, truncationEntry } from './log-entries.js';
import { dataFilePath } from './paths.js';
import { ROOT_IDENTIFIER, RootsRegistry, type RootEntry } from './roots-registry.js';
import type { ChannelHead } from './store-plan.js';
import { StoreClock } from './store-clock.js';
import { WriterDictionary } from './writer-dictionary.js';
import { writerFamily, type WriterFamily } from './writer-family.js';

/**
 * Reading back what a writer needs to continue an existing storage: the dictionary, each
 * channel's head file and committed length, the latest log timestamp, the next object id and
 * the roots (storage-format.md §3.5, §6.5, §9). Optionally repairs crash tails the way Java's
 * startup does (cuts uncommitted head file tails with a truncation entry); an incomplete last log
 * entry, which Java 4.1 would hang on, is cut off as well.
 */

export interface ExistingState {
  /** MicroStream or EclipseStore, from the dictionary's names. */
  readonly family: WriterFamily;
  readonly channelCount: number;
  readonly dictionary: WriterDictionary;
  readonly channels: readonly ChannelHead[];
  readonly latestTimestamp: bigint;
  readonly nextObjectId: bigint;
  readonly roots: RootsRegistry | undefined;
  readonly rootReferenceId: bigint | undefined;
  readonly rootObjectId: bigint;
  readonly enumConstants: ReadonlyMap<bigint, readonly bigint[]>;
  /** What was repaired, for the caller to report. */
  readonly repairs: readonly string[];
}

export interface ReadExistingOptions {
  /** Cut uncommitted tails (head files, an incomplete last log entry) instead of refusing. */
  readonly repairTails?: boolean;
  /** Clock for the timestamps of truncation entries. */
  readonly now?: () => number;
}

export async function readExistingStorage(directory: string, options: ReadExistingOptions = {}): Promise<ExistingState> {
  const repairs: string[] = [];
  let layout = await scanStorageDirectory(directory);
  if (layout.warnings.length > 0) throw refuse(directory, layout.warnings);
  let latestTimestamp = 0n;
  for (const channel of layout.channels) {
    if (channel.logPath === undefined) throw refuse(directory, [`channel ${channel.index} has no transaction log`]);
    const parsed = parseTransactionLog(readFileSync(channel.logPath), channel.logPath);
    for (const entry of parsed.entries) if (entry.timestamp > latestTimestamp) latestTimestamp = entry.timestamp;
    if (parsed.incompleteTailOffset !== undefined) {
      if (options.repairTails !== true) {
        throw refuse(directory, [`${channel.logPath} ends with an incomplete entry at offset ${parsed.incompleteTailOffset}`]);
      }
      truncateSync(channel.logPath, parsed.incompleteTailOffset);
      repairs.push(`${channel.logPath}: cut the incomplete entry at offset ${parsed.incompleteTailOffset}`);
    }
  }
  if (repairs.length > 0) layout = await scanStorageDirectory(directory);

  const clock = new StoreClock(options.now, latestTimestamp);
  const channels = await resolveHeads(layout, options.repairTails === true, clock, repairs);
  latestTimestamp = clock.latest;

  const storage = await Storage.open(directory, { recordCacheBytes: 0 });
  try {
    if (storage.warnings.length > 0) throw refuse(directory, storage.warnings);
    let maxId = 0n;
    for (const channel of storage.channels) {
      channel.objects.forEach((low, high) => {
        const id = joinId(low, high);
        if (id > maxId) maxId = id;
      });
    }
    const dictionary = WriterDictionary.parse(storage.dictionaryBytes.toString('utf8'));
    const rootsEntity = await findRootsEntity(storage);
    const roots = rootsEntity === undefined ? undefined : decodeRoots(storage, rootsEntity);
    const enumConstants = new Map<bigint, readonly bigint[]>();
    for (const entry of roots?.entries ?? []) {
      const match = /^enum (\d+)$/.exec(entry.identifier);
      if (match === null) continue;
      const array = await storage.readEntity(entry.objectId);
      if (array !== undefined) enumConstants.set(BigInt(match[1]!), referencesOf(storage, array));
    }
    return {
      family: writerFamily(storage.family.name),
      channelCount: storage.channels.length,
      dictionary,
      channels,
      latestTimestamp,
      nextObjectId: maxId >= FIRST_OBJECT_ID ? maxId + 1n : FIRST_OBJECT_ID,
      roots,
      rootReferenceId: roots?.get(ROOT_IDENTIFIER),
      rootObjectId: storage.rootObjectId,
      enumConstants,
      repairs,
    };
  } finally {
    await storage.close();
  }
}

/**
 * Each channel's head file and committed length. Uncommitted head tails are cut (with a truncation
 * entry) or refused; a logged empty head file that is missing is re-created and an empty head file
 * the log does not know gets its creation entry, as Java's startup does.
 */
async function resolveHeads(layout: StorageLayout, repair: boolean, clock: StoreClock, repairs: string[]): Promise<ChannelHead[]> {
  const valid = resolveValidLengths(layout, await readLogAggregates(layout));
  if (valid.warnings.length > 0) throw refuse(layout.directory, valid.warnings);
  return valid.channels.map((channel) => {
    const logPath = channel.layout.logPath!;
    let logLength = statSync(logPath).size;
    const appendLog = (entry: Buffer): void => {
      const fd = openSync(logPath, 'r+');
      try {
        writeSync(fd, entry, 0, entry.length, logLength);
      } finally {
        closeSync(fd);
      }
      logLength += entry.length;
    };
    const aggregate = aggregateTransactionLog(parseTransactionLog(readFileSync(logPath), logPath).entries, logPath);
    const head = channel.files[channel.files.length - 1];
    const loggedHead = aggregate.headFileNumber;
    if (loggedHead !== undefined && (head === undefined || loggedHead > head.fileNumber)) {
      // Logged (necessarily empty, else validation failed) but missing on disk: Java re-creates it.
      const path = dataFilePath(layout.directory, channel.layout.index, loggedHead);
      closeSync(openSync(path, 'wx'));
      repairs.push(`${path}: re-created the missing empty head file`);
      return { headNumber: loggedHead, headLength: 0, logLength };
    }
    if (head === undefined) return { headNumber: 0n, headLength: 0, logLength };
    if (!aggregate.files.has(head.fileNumber)) {
      // An unregistered empty last file: Java logs its creation at startup.
      appendLog(creationEntry(clock.next(), 0, head.fileNumber));
      repairs.push(`${head.path}: logged the creation of the unregistered empty head file`);
      return { headNumber: head.fileNumber, headLength: 0, logLength };
    }
    if (head.size > head.validLength) {
      if (!repair) {
        throw refuse(layout.directory, [`${head.path} has ${head.size - head.validLength} uncommitted bytes after ${head.validLength}`]);
      }
      appendLog(truncationEntry(clock.next(), head.validLength, head.fileNumber, head.size));
      truncateSync(head.path, head.validLength);
      repairs.push(`${head.path}: truncated from ${head.size} to ${head.validLength} bytes`);
    }
    return { headNumber: head.fileNumber, headLength: head.validLength, logLength };
  });
}

/** The live roots entity: normally the first object id; otherwise found by scanning for its type. */
async function findRootsEntity(storage: Storage): Promise<StoredEntity | undefined> {
  const rootsTypeName = storage.family.rootsTypeName;
  const rootsTypes = new Set(storage.dictionary.entries.filter((e) => e.typeName === rootsTypeName).map((e) => e.typeId));
  if (rootsTypes.size === 0) return undefined;
  const first = await storage.readEntity(FIRST_OBJECT_ID);
  if (first !== undefined && rootsTypes.has(first.typeId)) return first;
  const current = storage.dictionary.currentByName.get(rootsTypeName)!.typeId;
  let best: bigint | undefined;
  for (const channel of storage.channels) {
    for (const file of channel.files) {
      await scanRecords(file.path, 0, file.totalLength, (_offset, _length, tidLow, tidHigh, idLow, idHigh) => {
        if (joinId(tidLow, tidHigh) !== current) return;
        const id = joinId(idLow, idHigh);
        if (best === undefined || id > best) best = id;
      });
    }
  }
  return best === undefined ? undefined : storage.readEntity(best);
}

function decodeRoots(storage: Storage, entity: StoredEntity): RootsRegistry {
  const type = storage.dictionary.byId.get(entity.typeId)!;
  const layout = layoutEntity(type, entity.content, { file: entity.file, offset: entity.offset + 24 });
  const [instances, identifiers] = layout.slots.filter((s): s is VariableSlot => s.variable);
  if (instances === undefined || identifiers === undefined) return new RootsRegistry(entity.objectId, []);
  const ids = variableElements(layout.view, instances, 0, instances.count);
  const names = variableElements(layout.view, identifiers, 0, identifiers.count);
  const entries: RootEntry[] = names.map((name, i) => ({ identifier: String(name), objectId: ids[i] as bigint }));
  return new RootsRegistry(entity.objectId, entries);
}

function referencesOf(storage: Storage, entity: StoredEntity): bigint[] {
  const type = storage.dictionary.byId.get(entity.typeId)!;
  const layout = layoutEntity(type, entity.content);
  const list = layout.slots.find((s): s is VariableSlot => s.variable);
  // Only elements of one reference each are constants. Decoding others whole costs what their count
  // says: elements of no members take 0 bytes, so a 16-byte list may claim 2^31 - 1 of them.
  if (list === undefined || list.field.kind !== 'list' || list.field.elements.length !== 1 || list.field.elements[0]!.kind !== 'reference') return [];
  return variableElements(layout.view, list, 0, list.count).filter((v): v is bigint => typeof v === 'bigint');
}

function refuse(directory: string, problems: readonly string[]): StorageError {
  return new StorageError('STORAGE_INCONSISTENT', `${directory}: cannot append to this storage: ${problems.join('; ')}`);
}
