/**
 * Shapes of storage-inspector's `/api/v1` answers as the viewer reads them. No DOM and no code:
 * test/viewer/without-browser/api-types.test.ts checks them against the server's typebox schemas.
 */

export interface Reference {
  readonly objectId: string;
  readonly typeName: string | null;
  readonly text?: string;
  readonly missing?: boolean;
}

export interface Via {
  readonly text: string;
  readonly member: string;
  readonly indices?: readonly number[];
  readonly element?: string;
  readonly key?: Reference;
  /** Further places in the same referrer. */
  readonly others?: readonly string[];
}

export interface Step {
  readonly objectId: string;
  readonly typeName: string;
  readonly via: Via | null;
  readonly lazyObjectId?: string;
  readonly summary?: string;
}

export interface TypeInfo {
  readonly typeId: string;
  readonly typeName: string;
  readonly current: boolean;
  readonly version: number;
  readonly instances: number;
  readonly liveBytes: number;
  readonly reachable: number;
  readonly reachableBytes: number;
  /** Instances that are a GigaMap's machinery (levels, indices, bitmaps, its Lazy segments), not the user's entities. */
  readonly gigaMapMachinery?: number;
}

export interface Member {
  readonly name: string;
  readonly declaringClass?: string;
  readonly type: string;
  readonly value?: unknown;
  readonly count?: number;
  readonly offset?: number;
  readonly elements?: readonly unknown[];
}

export interface ObjectView {
  readonly objectId: string;
  readonly typeId: string;
  readonly typeName: string;
  readonly text?: string;
  readonly reachable: boolean;
  readonly referrers: number;
  readonly members: readonly Member[];
}

export interface Version {
  readonly n: number;
  readonly current: boolean;
  readonly file: string;
  readonly fileNumber: string;
  readonly offset: number;
  readonly length: number;
  readonly typeName: string;
  readonly commit: { readonly kind: string; readonly time: string } | null;
}

export interface Change {
  readonly member: string;
  readonly index?: number;
  readonly before?: unknown;
  readonly after?: unknown;
}

export interface TypeBytes {
  readonly typeId: string;
  readonly typeName: string;
  readonly count: number;
  readonly bytes: number;
}

export interface Analysis {
  readonly reachable: { readonly count: number; readonly bytes: number; readonly byType: readonly TypeBytes[] };
  readonly unreachable: { readonly count: number; readonly bytes: number; readonly byType: readonly TypeBytes[] };
  readonly missingReferences: { readonly count: number; readonly examples: readonly { objectId: string; referrerCount: number; referrers: readonly Step[] }[] };
  readonly files: readonly { file: string; fileNumber: string; channel: number; totalBytes: number; liveBytes: number; supersededBytes: number; unreachableBytes: number }[];
}

export interface SearchResult {
  readonly complete: boolean;
  readonly stoppedBy: 'limit' | 'time' | null;
  readonly scannedBytes: number;
  readonly totalBytes: number;
  readonly offset: number;
  readonly typeName?: string;
  readonly results: readonly SearchHit[];
}

export interface SearchHit {
  readonly objectId: string;
  readonly typeName: string;
  readonly member: string;
  readonly text: string;
  readonly value: string | number | boolean;
  readonly valueObjectId?: string;
  readonly valueTypeName?: string;
  readonly summary?: string;
}

export interface Progress {
  readonly percent: number;
  readonly phase: string;
}
