import { readFile } from 'node:fs/promises';
import { FormatError, StorageError } from '../errors.js';
import { RECORD_HEADER_SIZE } from '../format/entity-record.js';
import { channelOf, classifyId } from '../format/ids.js';
import { parseTypeDictionary, type TypeDictionary } from '../format/type-dictionary.js';
import { FileReader } from './file-reader.js';
import { joinId, ObjectIndex } from './object-index.js';
import { scanRecords } from './record-scan.js';
import { scanStorageDirectory } from './storage-dir.js';
import { findRootObjectId, ROOTS_TYPE_NAME } from './roots.js';
import { resolveValidLengths } from './valid-lengths.js';

/**
 * An opened storage: the parsed type dictionary, every channel's data files with their committed
 * lengths, and a compact index from object id to the latest record. Entity bytes stay on disk and
 * are read when asked for. Nothing in the directory is ever written, locked or truncated.
 */

const MAX_INDEXED_FILE_SIZE = 0xffffffff;

export interface StorageFile {
  readonly channel: number;
  readonly fileNumber: bigint;
  readonly name: string;
  readonly path: string;
  /** Committed bytes (what Java counts as the file's total length). */
  readonly totalLength: number;
  /** Sum of the lengths of the latest records of the objects whose latest record is here. */
  readonly liveLength: number;
  /** Why the walk of this file stopped before its end, if it did. */
  readonly problem: string | undefined;
}

export interface StorageChannel {
  readonly index: number;
  readonly directoryName: string;
  /** Oldest to head file. */
  readonly files: readonly StorageFile[];
  readonly objects: ObjectIndex;
}

/** The latest stored record of one object. */
export interface StoredEntity {
  readonly objectId: bigint;
  readonly typeId: bigint;
  /** Record content after the 24-byte header. */
  readonly content: Uint8Array;
  readonly file: string;
  /** Offset of the record in its file. */
  readonly offset: number;
}

export interface OpenProgress {
  readonly filesDone: number;
  readonly filesTotal: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly entities: number;
}

export interface OpenOptions {
  /** Called after each data file has been indexed. */
  readonly onProgress?: (progress: OpenProgress) => void;
}

export class Storage {
  private status: 'open' | 'closed' = 'open';

  private constructor(
    /** The directory as given by the user (statistics print file paths below it). */
    readonly directory: string,
    readonly dictionary: TypeDictionary,
    /** The dictionary file's bytes: what `/dictionary` serves. */
    readonly dictionaryBytes: Buffer,
    readonly channels: readonly StorageChannel[],
    readonly rootObjectId: bigint,
    readonly warnings: readonly string[],
    private readonly reader: FileReader,
  ) {}

  static async open(directory: string, options: OpenOptions = {}): Promise<Storage> {
    const layout = await scanStorageDirectory(directory);
    const dictionaryBytes = await readFile(layout.dictionaryPath);
    const dictionary = parseTypeDictionary(dictionaryBytes.toString('utf8'), layout.dictionaryPath);
    const valid = await resolveValidLengths(layout);
    const warnings = [...layout.warnings, ...valid.warnings];

    const rootsType = dictionary.currentByName.get(ROOTS_TYPE_NAME)?.typeId;
    const rootsCandidates: bigint[] = [];
    const filesTotal = valid.channels.reduce((n, c) => n + c.files.length, 0);
    const bytesTotal = valid.channels.reduce((n, c) => c.files.reduce((m, f) => m + f.validLength, n), 0);
    let filesDone = 0;
    let bytesDone = 0;
    let entities = 0;

    const channels: StorageChannel[] = [];
    for (const channel of valid.channels) {
      const objects = new ObjectIndex();
      const problems: (string | undefined)[] = [];
      for (let slot = 0; slot < channel.files.length; slot++) {
        const file = channel.files[slot]!;
        if (file.validLength > MAX_INDEXED_FILE_SIZE) {
          // The index keeps offsets and lengths in 32 bits (Java's default file size limit is 8 MiB).
          throw new StorageError('STORAGE_INCONSISTENT', `${file.path}: data files over 4 GiB are not supported`);
        }
        const result = await scanRecords(file.path, 0, file.validLength, (offset, length, tidLow, tidHigh, idLow, idHigh) => {
          objects.set(idLow, idHigh, slot, offset, length);
          if (rootsType !== undefined && tidHigh === Number(rootsType >> 32n) && tidLow === Number(rootsType & 0xffffffffn)) {
            rootsCandidates.push(joinId(idLow, idHigh));
          }
        });
        let problem: string | undefined;
        if (result.problem !== undefined) {
          problem = `offset ${result.problem.offset}: ${result.problem.message}`;
          warnings.push(`${file.path}: ${problem}; the rest of this file is not indexed`);
        }
        problems.push(problem);
        filesDone++;
        bytesDone += file.validLength;
        options.onProgress?.({ filesDone, filesTotal, bytesDone, bytesTotal, entities: entities + objects.size });
      }
      objects.compact();
      entities += objects.size;
      const live = new Float64Array(channel.files.length);
      objects.forEach((_low, _high, fileSlot, _offset, length) => {
        live[fileSlot] = (live[fileSlot] as number) + length;
      });
      channels.push({
        index: channel.layout.index,
        directoryName: channel.layout.directoryName,
        objects,
        files: channel.files.map((f, slot) => ({
          channel: f.channel,
          fileNumber: f.fileNumber,
          name: f.name,
          path: f.path,
          totalLength: f.validLength,
          liveLength: live[slot] as number,
          problem: problems[slot],
        })),
      });
    }

    const reader = new FileReader();
    const partial = new Storage(directory, dictionary, dictionaryBytes, channels, 0n, warnings, reader);
    const rootObjectId = await findRootObjectId(partial, rootsCandidates, warnings);
    return new Storage(directory, dictionary, dictionaryBytes, channels, rootObjectId, warnings, reader);
  }

  /** Number of distinct object ids across all channels. */
  get entityCount(): number {
    return this.channels.reduce((n, c) => n + c.objects.size, 0);
  }

  /**
   * The latest record of an object, or undefined when the id is not an entity of this storage.
   * Like Java, only the channel `id & (channels - 1)` is asked.
   */
  async readEntity(objectId: bigint): Promise<StoredEntity | undefined> {
    if (this.status !== 'open') throw new StorageError('STORAGE_NOT_OPEN', 'the storage is closed');
    const kind = classifyId(objectId);
    if (kind === 'null' || kind === 'undefined' || objectId < 0n) return undefined;
    const channel = this.channels[channelOf(objectId, this.channels.length)];
    const location = channel?.objects.get(objectId);
    if (channel === undefined || location === undefined) return undefined;
    const file = channel.files[location.fileSlot]!;
    const bytes = await this.reader.read(file.path, location.offset, location.length);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const storedId = view.getBigInt64(16, true);
    if (storedId !== objectId || view.getBigInt64(0, true) !== BigInt(location.length)) {
      throw new FormatError('FORMAT_BAD_RECORD', `record of object ${objectId} changed since it was indexed`, {
        file: file.path,
        offset: location.offset,
      });
    }
    return {
      objectId,
      typeId: view.getBigInt64(8, true),
      content: bytes.subarray(RECORD_HEADER_SIZE),
      file: file.path,
      offset: location.offset,
    };
  }

  async close(): Promise<void> {
    this.status = 'closed';
    await this.reader.close();
  }
}
