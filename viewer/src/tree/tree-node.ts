import type { ApiErrorKind, Json, ObjectDescription } from '../model/api.js';
import type { Member, TypeEntry } from '../model/dictionary.js';

/**
 * The nodes of the data view's object tree (model.ts loads them): what a node is, where its
 * elements and values come from, and how a node is made.
 */

const CONSTANT_ID_MIN = 9000000000000000001n;

export type NodeKind = 'object' | 'null' | 'value' | 'member' | 'range' | 'entry' | 'message';

/** A variable-length member of one object: where its elements come from. */
export interface VarSlot {
  readonly oid: string;
  readonly type: TypeEntry;
  /** Position among the type's variable-length members. */
  readonly index: number;
  readonly member: Member;
  readonly count: number;
  /** Elements [0, n) that came with the object's own description, if any. */
  readonly firstPage: readonly Json[] | undefined;
  /** Descriptions of the objects referenced by `firstPage` (from the same answer). */
  readonly firstRefs?: ReadonlyMap<string, ObjectDescription> | undefined;
}

/** Where a value node's text lives, to load it again without truncation. */
export interface ValueSource {
  readonly oid: string;
  readonly fixedIndex?: number;
  readonly varIndex?: number;
  readonly element?: number;
  /** Indices into nested arrays below the element. */
  readonly path?: readonly number[];
}

export interface TreeNode {
  readonly key: string;
  readonly segment: string;
  readonly parent: TreeNode | undefined;
  readonly depth: number;
  readonly kind: NodeKind;
  label: string;
  /** The field this node is the value of. */
  readonly member?: Member | undefined;
  /** The type declaring `member`. */
  readonly ownerType?: TypeEntry | undefined;
  oid?: string;
  /** Description of the object (from the parent's `references=true` answer or its own load). */
  desc?: ObjectDescription | undefined;
  /** The request whose answer is `desc`. */
  descUrl?: string | undefined;
  /** Text of a primitive / string value. */
  value?: string;
  valueKind?: 'string' | 'number' | 'boolean' | 'char' | 'chars' | 'bytes' | 'other';
  /** Declared type for value and null nodes. */
  declaredType?: string;
  /** The value may have been cut to VALUE_LENGTH units. */
  truncated?: boolean;
  source?: ValueSource;
  slot?: VarSlot;
  /** Element range [from, to] of a range or member node. */
  from?: number;
  to?: number;
  /** Elements of nested (unpaged) arrays. */
  inline?: readonly Json[];
  children?: TreeNode[] | undefined;
  expandable: boolean;
  expanded: boolean;
  loading: boolean;
  error?: string | undefined;
  /** Why loading failed (`unreachable`: the server did not answer; worth retrying once it does). */
  errorKind?: ApiErrorKind | undefined;
  /** A few `name: value` texts of a plain object's fields, fetched for the value column. */
  peek?: readonly string[] | undefined;
  /** Of a Lazy: the one-line text of what it holds (the value column shows that, not the Lazy). */
  subjectSummary?: string | undefined;
  /** Bumped whenever the row needs to be drawn again. */
  version: number;
}

export function isConstantId(oid: string): boolean {
  try {
    return BigInt(oid) >= CONSTANT_ID_MIN;
  } catch {
    return false;
  }
}

let keyCounter = 0;

export function makeNode(parent: TreeNode | undefined, segment: string, kind: NodeKind, label: string, extra: Partial<TreeNode> = {}): TreeNode {
  const key = parent === undefined ? segment : `${parent.key}/${segment}`;
  return {
    key,
    segment,
    parent,
    depth: parent === undefined ? 0 : parent.depth + 1,
    kind,
    label,
    expandable: false,
    expanded: false,
    loading: false,
    version: ++keyCounter,
    ...extra,
  };
}
