import type { ApiV1, Progress } from '../model/api-v1.js';

/**
 * The dominator tree as `/api/v1` answers it (`/dominators`, `/objects/{oid}/retained`): what the
 * Retained view and the object panel read. Ids stay strings; byte figures are numbers (a retained
 * size stays far below 2^53).
 */

export interface RetainerEntry {
  readonly objectId: string;
  readonly typeName: string;
  readonly ownBytes: number;
  readonly retainedObjects: number;
  readonly retainedBytes: number;
  /** Retained bytes as a share (0..1) of every reachable object's bytes. */
  readonly share: number;
  readonly summary?: string;
}

export interface DominatorPage {
  readonly parent: RetainerEntry;
  /** Objects the parent immediately dominates. */
  readonly total: number;
  readonly offset: number;
  readonly reachableObjects: number;
  readonly reachableBytes: number;
  /** By retained bytes, largest first. */
  readonly children: readonly RetainerEntry[];
}

export interface TypeShare {
  readonly typeName: string;
  readonly objects: number;
  readonly bytes: number;
}

export interface RetainedAnswer {
  readonly objectId: string;
  readonly typeName: string;
  readonly reachable: boolean;
  readonly ownBytes: number;
  readonly retained: { readonly objects: number; readonly bytes: number; readonly share: number } | null;
  /** Dominators between this object and the roots object, the roots object included. */
  readonly chainLength: number;
  /** From the immediate dominator up to the roots object (the first `chain` asked for). */
  readonly chain: readonly RetainerEntry[];
  /** The retained set by type, largest first. */
  readonly byType: readonly TypeShare[];
}

/** A page of the objects `parent` immediately dominates (the roots object's when undefined). */
export function dominatorPage(v1: ApiV1, parent: string | undefined, offset: number, limit: number, onWait?: (p: Progress) => void): Promise<DominatorPage> {
  const query = new URLSearchParams({ offset: String(offset), limit: String(limit), summaries: 'true' });
  if (parent !== undefined) query.set('parent', parent);
  return v1.get<DominatorPage>(`/dominators?${query.toString()}`, 'the dominator tree', onWait);
}

/** What keeps `oid` alive and what deleting it would free. */
export function retainedOf(v1: ApiV1, oid: string, chain: number, types: number, onWait?: (p: Progress) => void): Promise<RetainedAnswer> {
  return v1.get<RetainedAnswer>(`/objects/${encodeURIComponent(oid)}/retained?chain=${chain}&types=${types}`, 'what keeps the object alive', onWait);
}

/** The line shown while the server computes its graph index or dominator tree. */
export function waitingText(p: Progress): string {
  return `The server is computing the dominator tree (${p.phase}, ${p.percent} %); the view appears when it is ready.`;
}
