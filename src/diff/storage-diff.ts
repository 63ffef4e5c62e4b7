import { UsageError } from '../errors.js';
import { describeObjectView, type ObjectView } from '../inspect/object-view.js';
import { UTC } from '../javatext/java-time-zones.js';
import type { Storage } from '../storage/storage.js';
import { differingMembers } from './differing-members.js';
import { compareRecords, type ChangeKind, type RecordCounts, type RecordDifference, type RecordSide } from './compare-records.js';
import { memberChanges, type MemberChange } from './member-changes.js';
import { referenceSummaries } from './reference-summaries.js';
import { typeChanges, type TypeChange } from './type-changes.js';

/**
 * What changed from storage A to storage B (two storages, or two states of one): objects matched
 * by object id, counted per type as added, removed, changed or unchanged; the objects that differ
 * described (up to a limit) with their member changes; type changes once per type. Records are
 * compared byte for byte (compare-records.ts); only those that differ are decoded.
 */

export interface ObjectChange {
  readonly change: ChangeKind;
  readonly objectId: string;
  /** The type in B (added, changed) or A (removed). */
  readonly typeName: string;
  /** Changed objects stored with another type version (or another type) than before. */
  readonly typeNameBefore?: string;
  readonly typeIdBefore?: string;
  readonly typeIdAfter?: string;
  readonly members?: readonly MemberChange[];
  /** Why the members could not be compared (a record that cannot be decoded). */
  readonly problem?: string;
}

export interface TypeCounts {
  readonly typeName: string;
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  readonly unchanged: number;
}

export interface DiffSummary {
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  readonly unchanged: number;
  /** Types with any object, by name. */
  readonly types: readonly TypeCounts[];
}

export interface DiffReport {
  readonly equal: boolean;
  readonly summary: DiffSummary;
  readonly typeChanges: readonly TypeChange[];
  /** The differing objects described, in the order found (none when they were streamed). */
  readonly objects: readonly ObjectChange[];
  /** Differing objects not described (beyond the limit). */
  readonly unlisted: number;
}

export interface DiffOptions {
  /** Two states of the same files (see compareRecords). */
  readonly sameFiles?: boolean;
  /** Only objects of these types (exact names). */
  readonly typeNames?: readonly string[] | undefined;
  /** Differing objects described at most. */
  readonly limit: number;
  /** Elements of a collection compared at most (default 100,000). */
  readonly comparedElements?: number;
  /** Hears each described object as it is found; the report then lists none. */
  readonly onObject?: (change: ObjectChange) => void | Promise<void>;
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

export const DEFAULT_COMPARED_ELEMENTS = 100_000;

export async function diffStorages(a: Storage, b: Storage, options: DiffOptions): Promise<DiffReport> {
  const accepts = typeFilter(a, b, options.typeNames);
  const compared = options.comparedElements ?? DEFAULT_COMPARED_ELEMENTS;
  const resolveA = referenceSummaries(a);
  const resolveB = referenceSummaries(b);
  const objects: ObjectChange[] = [];
  let described = 0;
  let unlisted = 0;
  const view = (storage: Storage, objectId: bigint, side: RecordSide, resolve: ReturnType<typeof referenceSummaries>, onlySlots?: ReadonlySet<number>): Promise<ObjectView> =>
    describeObjectView({ objectId, typeId: side.typeId, content: side.record.subarray(24), file: side.file, offset: side.offset }, storage.dictionary, {
      offset: 0,
      limit: compared,
      timeZone: UTC,
      resolve,
      withText: false, // member changes are compared, never the value's Java text
      ...(onlySlots === undefined ? {} : { onlySlots }),
    });
  /** The members whose bytes differ (undefined: decode them all, the layouts are not the same). */
  const differing = (before: RecordSide, after: RecordSide): ReadonlySet<number> | undefined => {
    const entryBefore = a.dictionary.byId.get(before.typeId);
    const entryAfter = b.dictionary.byId.get(after.typeId);
    if (entryBefore === undefined || entryAfter === undefined) return undefined;
    return differingMembers(
      entryBefore,
      before.record.subarray(24),
      { file: before.file, offset: before.offset + 24 },
      entryAfter,
      after.record.subarray(24),
      { file: after.file, offset: after.offset + 24 },
    );
  };
  const describe = async (d: RecordDifference): Promise<ObjectChange> => {
    const objectId = String(d.objectId);
    if (d.change !== 'changed') {
      const [storage, side] = d.change === 'added' ? [b, d.after!] : [a, d.before!];
      return { change: d.change, objectId, typeName: nameOf(storage, side.typeId) };
    }
    const before = d.before!;
    const after = d.after!;
    const head = { change: d.change, objectId, typeName: nameOf(b, after.typeId) };
    const typed =
      before.typeId === after.typeId && a.dictionary.byId.get(before.typeId)?.typeName === b.dictionary.byId.get(after.typeId)?.typeName
        ? head
        : { ...head, typeNameBefore: nameOf(a, before.typeId), typeIdBefore: String(before.typeId), typeIdAfter: String(after.typeId) };
    try {
      const only = differing(before, after);
      const members = memberChanges(await view(a, d.objectId, before, resolveA, only), await view(b, d.objectId, after, resolveB, only), compared);
      return { ...typed, members };
    } catch (error) {
      return { ...typed, problem: error instanceof Error ? error.message : String(error) };
    }
  };
  const counts = await compareRecords(a, b, {
    sameFiles: options.sameFiles === true,
    ...(accepts === undefined ? {} : { acceptsType: accepts }),
    onProgress: options.onProgress,
    onDifference: async (d) => {
      if (described >= options.limit) {
        unlisted++;
        return;
      }
      described++;
      const change = await describe(d);
      if (options.onObject !== undefined) await options.onObject(change);
      else objects.push(change);
    },
  });
  const summary = summarize(a, b, counts);
  return {
    equal: summary.added + summary.removed + summary.changed === 0,
    summary,
    typeChanges: typeChanges(a.dictionary, counts.usedBefore, b.dictionary, counts.usedAfter),
    objects,
    unlisted,
  };
}

function nameOf(storage: Storage, typeId: bigint): string {
  return storage.dictionary.byId.get(typeId)?.typeName ?? `unknown type id ${typeId}`;
}

function typeFilter(a: Storage, b: Storage, names: readonly string[] | undefined): ((typeId: bigint, side: 'before' | 'after') => boolean) | undefined {
  if (names === undefined || names.length === 0) return undefined;
  const wanted = new Set(names);
  const known = (s: Storage): Set<bigint> => new Set(s.dictionary.entries.filter((e) => wanted.has(e.typeName)).map((e) => e.typeId));
  for (const name of wanted) {
    if (!a.dictionary.currentByName.has(name) && !b.dictionary.currentByName.has(name)) {
      throw new UsageError(`--type ${name}: neither storage's type dictionary has this type`);
    }
  }
  const before = known(a);
  const after = known(b);
  return (typeId, side) => (side === 'before' ? before : after).has(typeId);
}

function summarize(a: Storage, b: Storage, counts: RecordCounts): DiffSummary {
  const types = new Map<string, { added: number; removed: number; changed: number; unchanged: number }>();
  const add = (storage: Storage, map: Map<bigint, number>, key: 'added' | 'removed' | 'changed' | 'unchanged'): number => {
    let total = 0;
    for (const [typeId, n] of map) {
      const name = nameOf(storage, typeId);
      let row = types.get(name);
      if (row === undefined) types.set(name, (row = { added: 0, removed: 0, changed: 0, unchanged: 0 }));
      row[key] += n;
      total += n;
    }
    return total;
  };
  const added = add(b, counts.added, 'added');
  const removed = add(a, counts.removed, 'removed');
  const changed = add(b, counts.changed, 'changed');
  const unchanged = add(a, counts.unchanged, 'unchanged');
  const rows = [...types].map(([typeName, c]) => ({ typeName, ...c }));
  // Types with differences first (most first), then by name.
  rows.sort((p, q) => q.added + q.removed + q.changed - (p.added + p.removed + p.changed) || (p.typeName < q.typeName ? -1 : p.typeName > q.typeName ? 1 : 0));
  return { added, removed, changed, unchanged, types: rows };
}
