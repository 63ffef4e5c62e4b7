import { resolveJdkConstant } from '../../format/ids.js';
import { PlanMismatch, walkReferences, type ReferencePlan } from '../model/reference-plan.js';
import type { NodeIds } from '../model/node-ids.js';

/**
 * Turns the references of one entity into distinct target nodes (ascending), separating out null
 * references, JDK constants (never stored, never missing) and missing ids. One collector is
 * reused for every entity: its buffers grow to the largest entity and are never allocated again.
 */

const CID_BASE = 9_000_000_000_000_000_000n;
const CID_BASE_LOW = Number(CID_BASE & 0xffffffffn);
const CID_BASE_HIGH = Number(CID_BASE >> 32n);
/** Per constant group (offset / 1000) the number of constants it has, learnt from the table itself. */
const CONSTANT_GROUP_SIZES = Array.from({ length: 8 }, (_, group) => {
  let n = 0;
  while (group > 0 && n < 1000 && resolveJdkConstant(CID_BASE + BigInt(group * 1000 + n)) !== undefined) n++;
  return n;
});

/** Whether the id (as halves) is a JDK constant id that `resolveJdkConstant` knows. */
export function isJdkConstant(low: number, high: number): boolean {
  if (high !== CID_BASE_HIGH) return false;
  const rel = (low >>> 0) - CID_BASE_LOW;
  if (rel < 1000 || rel >= 8000) return false;
  return rel % 1000 < (CONSTANT_GROUP_SIZES[Math.floor(rel / 1000)] ?? 0);
}

export class ReferenceCollector {
  /** Target nodes of the entity collected last, ascending and distinct: `targets[0, count)`. */
  targets = new Uint32Array(1024);
  count = 0;
  /** Missing ids of the entity collected last, as (low, high) pairs: `missing[0, 2 * missingCount)`. */
  missing = new Int32Array(16);
  missingCount = 0;
  private readonly sink: (low: number, high: number) => void;

  constructor(private readonly nodes: NodeIds) {
    this.sink = (low, high) => {
      if (low === 0 && high === 0) return;
      const node = this.nodes.nodeOf(low, high);
      if (node >= 0) {
        if (this.count === this.targets.length) {
          const bigger = new Uint32Array(this.targets.length * 2);
          bigger.set(this.targets);
          this.targets = bigger;
        }
        this.targets[this.count++] = node;
        return;
      }
      if (isJdkConstant(low, high)) return;
      if (2 * this.missingCount + 2 > this.missing.length) {
        const bigger = new Int32Array(this.missing.length * 2);
        bigger.set(this.missing);
        this.missing = bigger;
      }
      this.missing[2 * this.missingCount] = low;
      this.missing[2 * this.missingCount + 1] = high;
      this.missingCount++;
    };
  }

  /**
   * Collects the references of the entity whose content is `view[start, end)`; returns the
   * mismatch when its bytes do not fit the plan (what was found before it is kept).
   */
  collect(plan: ReferencePlan, view: DataView, start: number, end: number): PlanMismatch | undefined {
    this.count = 0;
    this.missingCount = 0;
    let problem: PlanMismatch | undefined;
    try {
      walkReferences(plan, view, start, end, this.sink);
    } catch (error) {
      if (!(error instanceof PlanMismatch)) throw error;
      problem = error;
    }
    this.sortUnique();
    return problem;
  }

  private sortUnique(): void {
    const n = this.count;
    if (n < 2) return;
    const t = this.targets;
    if (n <= 16) {
      for (let i = 1; i < n; i++) {
        const x = t[i] as number;
        let j = i - 1;
        while (j >= 0 && (t[j] as number) > x) {
          t[j + 1] = t[j] as number;
          j--;
        }
        t[j + 1] = x;
      }
    } else {
      t.subarray(0, n).sort();
    }
    let k = 1;
    for (let i = 1; i < n; i++) if (t[i] !== t[k - 1]) t[k++] = t[i] as number;
    this.count = k;
  }
}
