import type { Adjacency } from './adjacency.js';
import type { MissingReferences } from './missing-references.js';
import type { NodeIds } from './node-ids.js';
import type { SupersededRecords } from './superseded-records.js';
import { NOT_STORED, type TypeNumbers, type TypeTable } from './type-table.js';

/**
 * The reference graph of one storage state: node numbers for the stored ids, each node's type
 * number (2 bytes) and reachability bit, both directions of the references (8 bytes an edge,
 * 4 a node, see adjacency.ts), the references to missing ids and where the older records are.
 * Queries live in their own modules (paths, analysis); following changes it in place
 * (graph-follow.ts) and bumps `version`.
 */
export class GraphIndex {
  /** Incremented by every change, so derived figures know when to recompute. */
  version = 0;

  constructor(
    readonly nodes: NodeIds,
    readonly types: TypeTable,
    /** Type number per node (capacity may exceed the node count). */
    public typeOfNode: TypeNumbers,
    readonly adjacency: Adjacency,
    /** One bit per node: reachable from the roots entity. */
    public reach: Uint8Array,
    readonly missing: MissingReferences,
    readonly superseded: SupersededRecords,
    /** Node of the roots entity, -1 when the storage has none. */
    public rootsNode: number,
  ) {}

  get nodeCount(): number {
    return this.nodes.count;
  }

  typeOf(node: number): number {
    return this.typeOfNode[node] ?? NOT_STORED;
  }

  isStored(node: number): boolean {
    return node >= 0 && node < this.nodes.count && this.typeOfNode[node] !== NOT_STORED;
  }

  isReachable(node: number): boolean {
    return ((this.reach[node >>> 3] as number) & (1 << (node & 7))) !== 0;
  }

  /** Makes room for nodes up to `count` (new ids of a followed storage). */
  ensureCapacity(count: number): void {
    if (count <= this.typeOfNode.length) return;
    const capacity = Math.max(count, Math.ceil(this.typeOfNode.length * 1.25) + 1024);
    const types = (this.typeOfNode instanceof Uint32Array ? new Uint32Array(capacity) : new Uint16Array(capacity)).fill(NOT_STORED);
    types.set(this.typeOfNode);
    this.typeOfNode = types;
    const reach = new Uint8Array(Math.ceil(capacity / 8));
    reach.set(this.reach);
    this.reach = reach;
  }

  /** Bytes held beyond the storage's own index, by part. */
  memory(): { nodeIds: number; types: number; reach: number; adjacency: number; superseded: number } {
    return {
      nodeIds: this.nodes.byteSize,
      types: this.typeOfNode.byteLength,
      reach: this.reach.byteLength,
      adjacency: this.adjacency.byteSize,
      superseded: this.superseded.byteSize,
    };
  }
}
