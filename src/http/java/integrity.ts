import { FormatError, StorageError } from '../../errors.js';
import { channelOf, classifyId } from '../../format/ids.js';
import type { TypeDictionary } from '../../format/type-dictionary.js';
import type { EntitySource } from '../../inspect/describe-object.js';
import type { StatisticsSource } from '../../inspect/statistics.js';
import type { ShortFile } from '../../storage/storage-types.js';

/**
 * What the service knows about damage in the storage it serves, so that no answer built from a
 * damaged storage is presented as right:
 *
 * - A data file whose walk stopped early (a cut-off or malformed record; the storage warns about
 *   it at startup) hides everything after that point. An object whose latest readable record lies
 *   before the damage may have a newer version in the hidden part, and an object that was not
 *   found may be stored there: such answers carry `X-Storage-Inspector-Warning`.
 * - When the damaged record's header is still complete (a file cut inside a record), its object
 *   id is known: that object answers 500 with `X-Storage-Inspector-Error` instead of an older
 *   version or a 404.
 * - Every record is checked, down to nested lists, before it is rendered: list lengths and
 *   element counts that disagree answer 500 with the file and offset, never a shorter list.
 *
 * MicroStream 4 has no checksums: a changed byte inside a value (a digit of a number, a character,
 * a reference id) that still decodes cannot be told from valid data.
 */

/** An unread part of a data file: from `offset` to the file's committed end. */
export interface DamagedRegion {
  readonly channel: number;
  readonly fileNumber: bigint;
  readonly path: string;
  readonly offset: number;
  readonly reason: string;
}

/** The latest record of an object is cut off (its header was still readable). */
export interface CutRecord {
  readonly objectId: bigint;
  readonly path: string;
  readonly fileNumber: bigint;
  readonly offset: number;
  readonly length: number;
  readonly available: number;
}

export interface DamageReport {
  readonly regions: readonly DamagedRegion[];
  readonly cutRecords: ReadonlyMap<bigint, CutRecord>;
}

const NO_DAMAGE: DamageReport = { regions: [], cutRecords: new Map() };

/**
 * What the report is computed from: the channels (with their files' problems) of a storage state
 * and the files shorter than their logged length (`Storage.shortFiles`).
 */
export type DamageSource = StatisticsSource & {
  readonly generation?: number;
  readonly shortFiles?: readonly ShortFile[];
  /** Exactly `length` bytes of a file of the storage (where a damaged record's header is read from). */
  readFileRange?(path: string, position: number, length: number): Promise<Buffer>;
};

const reports = new WeakMap<object, { generation: number | undefined; report: Promise<DamageReport> }>();

/** The damage report of a state, computed once per state generation. */
export function damageReport(source: DamageSource): Promise<DamageReport> {
  const cached = reports.get(source);
  if (cached !== undefined && cached.generation === source.generation) return cached.report;
  const report = computeReport(source);
  reports.set(source, { generation: source.generation, report });
  return report;
}

async function computeReport(source: DamageSource): Promise<DamageReport> {
  const regions: DamagedRegion[] = [];
  const cutRecords = new Map<bigint, CutRecord>();
  for (const channel of source.channels) {
    for (const file of channel.files) {
      if (file.problem === undefined) continue;
      const { offset, message: reason, recordLength } = file.problem;
      regions.push({ channel: channel.index, fileNumber: file.fileNumber, path: file.path, offset, reason });
      if (recordLength === undefined) continue; // not a record cut off: no object to name
      const header = await readHeader(source, file.path, offset);
      if (header === undefined) continue;
      const objectId = header.readBigInt64LE(16);
      if (classifyId(objectId) !== 'object' || channelOf(objectId, source.channels.length) !== channel.index) continue;
      cutRecords.set(objectId, {
        objectId,
        path: file.path,
        fileNumber: file.fileNumber,
        offset,
        length: recordLength,
        available: file.totalLength - offset,
      });
    }
  }
  // A file that ends before its logged length lost its tail; the walk itself found nothing wrong.
  for (const short of source.shortFiles ?? []) {
    const path = short.path;
    for (const channel of source.channels) {
      const file = channel.files.find((f) => f.path === path);
      if (file === undefined || regions.some((r) => r.path === path)) continue;
      regions.push({
        channel: channel.index,
        fileNumber: file.fileNumber,
        path,
        offset: short.onDisk,
        reason: `the file ends there, the transaction log commits ${short.committed} bytes`,
      });
    }
  }
  return regions.length === 0 ? NO_DAMAGE : { regions, cutRecords };
}

/** The 24-byte record header at `offset`, if the file still holds it. */
async function readHeader(source: DamageSource, path: string, offset: number): Promise<Buffer | undefined> {
  try {
    return await source.readFileRange?.(path, offset, 24);
  } catch {
    return undefined;
  }
}

/** Refuses to serve a storage whose dictionary cannot describe anything although records exist. */
export function checkServable(source: DamageSource & { readonly dictionary: TypeDictionary; readonly dictionaryPath?: string }): void {
  const entities = source.channels.reduce((n, c) => n + c.objects.size, 0);
  if (entities > 0 && source.dictionary.byId.size === 0) {
    throw new StorageError(
      'STORAGE_INCONSISTENT',
      `${source.directory}: the type dictionary PersistenceTypeDictionary.ptd defines no types, but ${entities} objects are stored (the dictionary is damaged)`,
    );
  }
}

/** Collects the warnings of one request. */
export class RequestWarnings {
  // Made when the first warning comes: every request has a RequestWarnings, few ever warn.
  private stale: Map<string, bigint[]> | undefined;
  private missing: Map<string, bigint[]> | undefined;
  private root: Set<string> | undefined;

  noteStale(region: DamagedRegion, objectId: bigint): void {
    add((this.stale ??= new Map()), regionText(region), objectId);
  }

  noteMissing(region: DamagedRegion, objectId: bigint): void {
    add((this.missing ??= new Map()), regionText(region), objectId);
  }

  noteRoot(region: DamagedRegion): void {
    (this.root ??= new Set()).add(regionText(region));
  }

  /** The header value, or undefined when nothing needs saying. */
  header(): string | undefined {
    if (this.stale === undefined && this.missing === undefined && this.root === undefined) return undefined;
    const parts: string[] = [];
    for (const [region, ids] of this.stale ?? []) parts.push(`POSSIBLY_STALE: ${region}; a newer version of ${idList(ids)} may be stored there`);
    for (const [region, ids] of this.missing ?? []) parts.push(`POSSIBLY_MISSING: ${region}; ${idList(ids)} may be stored there`);
    for (const region of this.root ?? []) parts.push(`POSSIBLY_STALE: ${region}; a newer roots entity may be stored there`);
    return parts.length === 0 ? undefined : parts.join('; ');
  }
}

function add(map: Map<string, bigint[]>, key: string, id: bigint): void {
  const ids = map.get(key) ?? [];
  if (!ids.includes(id)) ids.push(id);
  map.set(key, ids);
}

function idList(ids: readonly bigint[]): string {
  const shown = ids.slice(0, 3).map(String).join(', ');
  return ids.length > 3 ? `objects ${shown} and ${ids.length - 3} more` : `object${ids.length > 1 ? 's' : ''} ${shown}`;
}

function regionText(region: DamagedRegion): string {
  return `${region.path} is unreadable from offset ${region.offset} (${region.reason})`;
}

/**
 * Wraps an entity source: cut-off latest records fail with their file and offset, answers that a
 * damaged region may contradict are noted in `warnings` (the structure of every record is checked when it is laid out, `layoutEntity`).
 */
export function checkedSource(
  source: EntitySource & DamageSource,
  report: DamageReport,
  warnings: RequestWarnings,
): EntitySource {
  // An undamaged storage (the usual case) needs no checks: no wrapper on every read.
  if (report.regions.length === 0) return source;
  const fileNumbers = new Map<string, bigint>();
  if (report.regions.length > 0) {
    for (const channel of source.channels) for (const f of channel.files) fileNumbers.set(f.path, f.fileNumber);
  }
  // A data property, not a getter: V8 builds an object literal with a getter in dictionary mode,
  // which cost every request dearly (BudgetedSource in limits.ts). A request runs on one
  // consistent state, so the dictionary cannot change under it.
  return {
    dictionary: source.dictionary,
    readEntity: async (objectId: bigint) => {
      const entity = await source.readEntity(objectId);
      if (report.regions.length > 0) {
        const channel = channelOf(objectId, source.channels.length);
        const at = entity === undefined ? undefined : { fileNumber: fileNumbers.get(entity.file) ?? -1n, offset: entity.offset };
        const cut = report.cutRecords.get(objectId);
        if (cut !== undefined && (at === undefined || before(at, cut))) {
          throw new FormatError(
            'FORMAT_TRUNCATED',
            `the latest record of object ${objectId} (${cut.length} bytes) is cut off after ${cut.available} bytes`,
            { file: cut.path, offset: cut.offset },
          );
        }
        for (const region of report.regions) {
          if (region.channel !== channel) continue;
          if (at === undefined) warnings.noteMissing(region, objectId);
          else if (before(at, region)) warnings.noteStale(region, objectId);
        }
      }
      return entity;
    },
  };
}

function before(at: { fileNumber: bigint; offset: number }, region: { fileNumber: bigint; offset: number }): boolean {
  return at.fileNumber < region.fileNumber || (at.fileNumber === region.fileNumber && at.offset < region.offset);
}

