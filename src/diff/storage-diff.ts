import { UsageError } from '../errors.js';
import type { Storage } from '../storage/storage.js';
import { ChangeDescriber, nameOf, type ObjectChange } from './change-description.js';
import { compareAppended, continuesA } from './appended-compare.js';
import { compareRecords, type CompareOptions, type RecordCounts } from './compare-records.js';
import { typeChanges, type TypeChange } from './type-changes.js';

export type { ObjectChange } from './change-description.js';

/**
 * What changed from storage A to storage B (two storages, or two states of one): objects matched
 * by object id, counted per type as added, removed, changed or unchanged; the objects that differ
 * described (up to a limit) with their member changes (change-description.ts); type changes once
 * per type. Records are compared byte for byte (compare-records.ts); only those that differ are
 * decoded.
 */

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
  const describer = new ChangeDescriber(a, b, compared);
  const objects: ObjectChange[] = [];
  let described = 0;
  let unlisted = 0;
  const deliver = (change: ObjectChange): void | Promise<void> => {
    if (options.onObject !== undefined) return options.onObject(change);
    objects.push(change);
  };
  const compare: CompareOptions = {
    sameFiles: options.sameFiles === true,
    ...(accepts === undefined ? {} : { acceptsType: accepts }),
    onProgress: options.onProgress,
    // No promise unless describing or hearing the object needs one: the walk waits only then.
    onDifference: (d) => {
      if (described >= options.limit) {
        unlisted++;
        return;
      }
      described++;
      const change = describer.describe(d);
      return change instanceof Promise ? change.then(deliver) : deliver(change);
    },
  };
  // B opened as A's continuation: only what B appended is looked at (appended-compare.ts).
  const counts = continuesA(a, b, compare) ? await compareAppended(a, b, compare) : await compareRecords(a, b, compare);
  const summary = summarize(a, b, counts);
  return {
    equal: summary.added + summary.removed + summary.changed === 0,
    summary,
    typeChanges: typeChanges(a.dictionary, counts.usedBefore, b.dictionary, counts.usedAfter),
    objects,
    unlisted,
  };
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
