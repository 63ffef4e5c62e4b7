import { StorageError } from '../errors.js';
import type { ReferenceListener } from '../check/record-findings.js';
import type { Storage } from '../storage/storage.js';

/**
 * Which objects the roots reach, from the references the check's record walk reports
 * (`walkLatestRecords`' `references`): convert needs no graph build and no second walk for it.
 * Each object is numbered by its position in its channel's index (`ObjectIndex.positionOf`, offset
 * per channel); each newest version's targets are appended to one list as the walk meets them
 * (they lie together, so a start and a count per object find them); a breadth-first search from
 * the roots entity marks one bit per object. Memory: 8 bytes per index position and 4 per
 * reference, in typed arrays (no JS object per object or reference); freed after the search
 * but for the bits.
 *
 * Reachability is MicroStream's garbage collector's (graph/model/reachability.ts): everything
 * reachable over references from the roots entity (the root and the registered constants);
 * references to ids the index lacks lead nowhere.
 */

/** Targets per block of the reference list (a list of blocks grows without copying). */
const BLOCK_BITS = 22;
const BLOCK = 1 << BLOCK_BITS;
/** Object numbers are kept in 32 bits (a queue of them, the target lists), and so are list positions (+ 1). */
const MAX_POSITIONS = 2 ** 32 - 1;
const MAX_REFERENCES = 2 ** 32 - 2;

export class WalkedReachability implements ReferenceListener {
  private mask = 0;
  private channels: Storage['channels'] = [];
  /** Object number of each channel's index position 0. */
  private bases = new Float64Array(0);
  private positions = 0;
  /** Per object: where its targets start in the list (+ 1; 0: no record walked), and how many. */
  private starts = new Uint32Array(0);
  private counts = new Uint32Array(0);
  private blocks: Uint32Array[] = [];
  private fill = 0;
  /** Object number of the record being walked (-1: none). */
  private current = -1;
  /** One bit per object, after `search`. */
  private reach = new Uint8Array(0);

  begin(storage: Storage): void {
    this.channels = storage.channels;
    this.mask = storage.channels.length - 1;
    this.bases = new Float64Array(storage.channels.length);
    let total = 0;
    for (const channel of storage.channels) {
      this.bases[channel.index] = total;
      total += channel.objects.positions;
    }
    if (total > MAX_POSITIONS) throw new StorageError('STORAGE_REFUSED', `${total} index positions: reachability is computed for at most ${MAX_POSITIONS} (convert with --keep-unreachable)`);
    this.positions = total;
    this.starts = new Uint32Array(total);
    this.counts = new Uint32Array(total);
    this.blocks = [];
    this.fill = 0;
    this.current = -1;
  }

  private objectNumber(low: number, high: number): number {
    const channel = low & this.mask;
    const position = this.channels[channel]!.objects.positionOf(low, high);
    return position < 0 ? -1 : (this.bases[channel] as number) + position;
  }

  record(low: number, high: number): void {
    const v = this.objectNumber(low, high);
    this.current = v;
    if (v >= 0) this.starts[v] = this.fill + 1;
  }

  reference(low: number, high: number): boolean {
    const target = this.objectNumber(low, high);
    if (target < 0) return false;
    const v = this.current;
    if (v < 0) return true;
    const fill = this.fill;
    if (fill === MAX_REFERENCES) throw new StorageError('STORAGE_REFUSED', `more than ${MAX_REFERENCES} references: reachability is computed for at most that many (convert with --keep-unreachable)`);
    const block = Math.floor(fill / BLOCK);
    if (block === this.blocks.length) this.blocks.push(new Uint32Array(BLOCK));
    this.blocks[block]![fill - block * BLOCK] = target;
    this.fill = fill + 1;
    this.counts[v]!++;
    return true;
  }

  /**
   * Marks what the roots entity reaches. `named`: the storage as messages name it. Without a roots
   * entity nothing is reachable, and leaving out "garbage" would leave out everything: refused.
   */
  search(storage: Storage, named: string): void {
    const hasObjects = storage.channels.some((c) => c.objects.size > 0);
    const rootsId = storage.rootsObjectId;
    const roots = rootsId === 0n ? -1 : this.objectNumber(Number(rootsId & 0xffffffffn) | 0, Number(rootsId >> 32n) | 0);
    if (rootsId === 0n && hasObjects) {
      throw new StorageError('STORAGE_INCONSISTENT', `${named} has no roots entity, so no object is reachable: --keep-unreachable copies every object`);
    }
    const reach = new Uint8Array(Math.ceil(this.positions / 8));
    if (roots >= 0) {
      const { starts, counts, blocks } = this;
      const queue = new Uint32Array(this.positions);
      let head = 0;
      let tail = 0;
      reach[roots >>> 3]! |= 1 << (roots & 7);
      queue[tail++] = roots;
      while (head < tail) {
        const v = queue[head++] as number;
        const start = starts[v] as number;
        if (start === 0) continue;
        let at = start - 1;
        const end = at + (counts[v] as number);
        while (at < end) {
          const block = Math.floor(at / BLOCK);
          const targets = blocks[block]!;
          const offset = block * BLOCK;
          const stop = Math.min(end, offset + BLOCK);
          for (let i = at - offset, last = stop - offset; i < last; i++) {
            const u = targets[i] as number;
            const bit = 1 << (u & 7);
            const byte = reach[u >>> 3] as number;
            if ((byte & bit) === 0) {
              reach[u >>> 3] = byte | bit;
              queue[tail++] = u;
            }
          }
          at = stop;
        }
      }
    }
    this.reach = reach;
    // The lists are no longer needed; the bits are.
    this.starts = new Uint32Array(0);
    this.counts = new Uint32Array(0);
    this.blocks = [];
  }

  /** Whether the roots reach an object (after `search`). */
  reachable(low: number, high: number): boolean {
    const v = this.objectNumber(low, high);
    return v >= 0 && ((this.reach[v >>> 3] as number) & (1 << (v & 7))) !== 0;
  }
}
