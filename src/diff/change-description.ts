import { describeObjectView, type ObjectView } from '../inspect/object-view.js';
import { UTC } from '../javatext/java-time-zones.js';
import type { Storage } from '../storage/storage.js';
import type { ChangeKind, RecordDifference, RecordSide } from './compare-records.js';
import { differingMembers, plainMemberChanges, plainRecordChanges, type MemberComparison } from './differing-members.js';
import { memberChanges, type MemberChange } from './member-changes.js';
import { referenceSummaries } from './reference-summaries.js';

/**
 * One differing object described for the report: added and removed by type; changed with the
 * members whose values differ. The bytes of the two records are compared member by member first
 * (differing-members.ts): a change of primitives and texts only is read straight from the
 * records, with no view and no promise (and, where the records need no layout's checks beyond
 * their list headers, no layout either); a changed reference or collection is decoded into typed
 * views of those members alone (references summarized, elements compared one by one).
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

type Head = Pick<ObjectChange, 'change' | 'objectId' | 'typeName' | 'typeNameBefore' | 'typeIdBefore' | 'typeIdAfter'>;

export class ChangeDescriber {
  private readonly resolveA: ReturnType<typeof referenceSummaries>;
  private readonly resolveB: ReturnType<typeof referenceSummaries>;

  constructor(
    private readonly a: Storage,
    private readonly b: Storage,
    /** Elements of a collection compared at most. */
    private readonly compared: number,
  ) {
    this.resolveA = referenceSummaries(a);
    this.resolveB = referenceSummaries(b);
  }

  describe(d: RecordDifference): ObjectChange | Promise<ObjectChange> {
    const objectId = String(d.objectId);
    if (d.change !== 'changed') {
      const [storage, side] = d.change === 'added' ? [this.b, d.after!] : [this.a, d.before!];
      return { change: d.change, objectId, typeName: nameOf(storage, side.typeId) };
    }
    const before = d.before!;
    const after = d.after!;
    const entryBefore = this.a.dictionary.byId.get(before.typeId);
    const entryAfter = this.b.dictionary.byId.get(after.typeId);
    const head: Head = { change: d.change, objectId, typeName: entryAfter?.typeName ?? nameOf(this.b, after.typeId) };
    const typed: Head =
      before.typeId === after.typeId && entryBefore?.typeName === entryAfter?.typeName
        ? head
        : { ...head, typeNameBefore: nameOf(this.a, before.typeId), typeIdBefore: String(before.typeId), typeIdAfter: String(after.typeId) };
    let comparison: MemberComparison | undefined;
    try {
      if (entryBefore !== undefined && entryAfter !== undefined) {
        // Read in place where it can be; else (and for every refusal's message) through the layouts.
        const direct = plainRecordChanges(entryBefore, before.record, entryAfter, after.record);
        if (direct !== undefined) return withMembers(typed, direct);
        comparison = differingMembers(entryBefore, content(before), where(before), entryAfter, content(after), where(after));
        const plain = comparison === undefined ? undefined : plainMemberChanges(comparison);
        if (plain !== undefined) return withMembers(typed, plain);
      }
    } catch (error) {
      return problem(typed, error);
    }
    return this.fromViews(typed, d.objectId, before, after, comparison?.differing);
  }

  /** Decoded into typed views (only the differing members where the layouts are the same) and compared. */
  private async fromViews(typed: Head, objectId: bigint, before: RecordSide, after: RecordSide, onlySlots: ReadonlySet<number> | undefined): Promise<ObjectChange> {
    try {
      const old = await this.view(this.a, objectId, before, this.resolveA, onlySlots);
      const now = await this.view(this.b, objectId, after, this.resolveB, onlySlots);
      return withMembers(typed, memberChanges(old, now, this.compared));
    } catch (error) {
      return problem(typed, error);
    }
  }

  private view(storage: Storage, objectId: bigint, side: RecordSide, resolve: ReturnType<typeof referenceSummaries>, onlySlots: ReadonlySet<number> | undefined): Promise<ObjectView> {
    return describeObjectView({ objectId, typeId: side.typeId, content: content(side), file: side.file, offset: side.offset }, storage.dictionary, {
      offset: 0,
      limit: this.compared,
      timeZone: UTC,
      resolve,
      withText: false, // member changes are compared, never the value's Java text
      ...(onlySlots === undefined ? {} : { onlySlots }),
    });
  }
}

export function nameOf(storage: Storage, typeId: bigint): string {
  return storage.dictionary.byId.get(typeId)?.typeName ?? `unknown type id ${typeId}`;
}

const content = (side: RecordSide): Uint8Array => side.record.subarray(24);
const where = (side: RecordSide): { file: string; offset: number } => ({ file: side.file, offset: side.offset + 24 });

/**
 * `{ ...typed, members }`, written out where the type did not change (the same keys in the same
 * order): the spread was more than half of `describe`'s own time in a profile, and the diff of
 * the 10M bench pair took 120–170 ms less CPU without it (100,000 changes described and written
 * as JSON, alternated in one process; the same lines).
 */
function withMembers(typed: Head, members: readonly MemberChange[]): ObjectChange {
  if (typed.typeIdBefore !== undefined) return { ...typed, members };
  return { change: typed.change, objectId: typed.objectId, typeName: typed.typeName, members };
}

function problem(typed: Head, error: unknown): ObjectChange {
  return { ...typed, problem: error instanceof Error ? error.message : String(error) };
}
