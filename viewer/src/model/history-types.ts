/**
 * Shapes of the history routes' answers (`/commits`, `/commits/{timestamp}`, `/diff`) as the viewer
 * reads them. No DOM and no code: test/viewer/without-browser/api-types.test.ts checks them against the server's
 * typebox schemas (src/api-contract/history-schemas.ts).
 */

export interface ChannelBytes {
  readonly channel: number;
  readonly fileNumber: string;
  readonly from: number;
  readonly bytes: number;
}

export interface Commit {
  readonly number: number;
  /** The log's timestamp, epoch nanoseconds, decimal (beyond 2^53). */
  readonly timestamp: string;
  readonly time: string;
  readonly bytes: number;
  readonly channels: readonly ChannelBytes[];
  readonly objects: number;
  readonly newObjects: number;
  readonly updatedObjects: number;
  readonly types: readonly { readonly typeId: string; readonly typeName: string; readonly objects: number }[];
  /** Its bytes are all still on disk. */
  readonly complete: boolean;
}

export interface CommitList {
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly commits: readonly Commit[];
}

/** A value as the typed view shows it; a reference is `{ objectId, typeName, text? }`. */
export type Value = unknown;

export interface ValueChange {
  readonly member: string;
  readonly before: Value;
  readonly after: Value;
}

export interface ElementsChange {
  readonly member: string;
  readonly countBefore: number;
  readonly countAfter: number;
  readonly added: readonly { readonly index: number; readonly value: Value }[];
  readonly removed: readonly { readonly index: number; readonly value: Value }[];
  readonly moved: readonly { readonly from: number; readonly to: number; readonly value: Value }[];
  readonly changedValues: readonly { readonly key: Value; readonly before: Value; readonly after: Value }[];
  readonly unlisted: number;
  readonly comparedElements?: number;
}

export type MemberChange = ValueChange | ElementsChange;

export interface CommitObject {
  readonly objectId: string;
  readonly typeName: string;
  readonly change: 'new' | 'updated';
  readonly comparedWith: { readonly timestamp: string | null; readonly fileNumber: string; readonly offset: number } | null;
  readonly members: readonly MemberChange[] | null;
}

export interface CommitDetail {
  readonly commit: Commit;
  readonly offset: number;
  readonly limit: number;
  readonly objects: readonly CommitObject[];
}

export interface DiffSide {
  readonly storage: string;
  readonly commit: { readonly number: number; readonly timestamp: string; readonly time: string } | null;
}

export interface TypeChange {
  readonly typeName: string;
  readonly typeIdBefore: string;
  readonly typeIdAfter: string;
  readonly membersAdded: readonly { readonly member: string; readonly type: string }[];
  readonly membersRemoved: readonly { readonly member: string; readonly type: string }[];
  readonly membersRetyped: readonly { readonly member: string; readonly before: string; readonly after: string }[];
}

export interface DiffObject {
  readonly change: 'added' | 'removed' | 'changed';
  readonly objectId: string;
  readonly typeName: string;
  readonly typeNameBefore?: string;
  readonly members?: readonly MemberChange[];
  readonly problem?: string;
}

export interface DiffAnswer {
  readonly a: DiffSide;
  readonly b: DiffSide;
  readonly equal: boolean;
  readonly summary: {
    readonly added: number;
    readonly removed: number;
    readonly changed: number;
    readonly unchanged: number;
    readonly types: readonly { readonly typeName: string; readonly added: number; readonly removed: number; readonly changed: number; readonly unchanged: number }[];
  };
  readonly typeChanges: readonly TypeChange[];
  readonly offset: number;
  readonly limit: number;
  readonly total: number;
  readonly objects: readonly DiffObject[];
}


/** The two sides of a comparison: points of the served storage, or two served storages by name. */
export type DiffSides = { readonly from: string; readonly to: string } | { readonly a: string; readonly b: string };
