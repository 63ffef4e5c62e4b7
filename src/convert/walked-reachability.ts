import { StorageError } from '../errors.js';
import type { ReferenceListener } from '../check/record-findings.js';
import type { Storage } from '../storage/storage.js';
import { release, releasableInt32s, releasableUint32s } from './releasable-memory.js';
import { searchReach } from './reachability-search.js';
import { BLOCK, BLOCK_BITS, BLOCK_MASK, grown, moveStarts, orBits } from './target-lists.js';

/**
 * Which objects the roots reach, from the references the check's record walk reports
 * (`walkLatestRecords`' `references`): convert needs no graph build and no second walk for it.
 * Each object is numbered by its position in its channel's index (`ObjectIndex.positionOf`, offset
 * per channel). One list in walk order holds the targets' numbers of each newest version the walk
 * meets, together, the last one marked (negative: `~number`); a start per object finds them. A
 * depth-first search from the roots entity marks one bit per object. The walk also noted which of
 * all the records it met are newest versions (one bit per record): the copy, which meets the same
 * records in the same order, tells superseded versions apart by them without looking a record up
 * in the index, and garbage by the object's bit (`copyOrder`). Memory: 4 bytes per index position
 * and 4 per reference, in typed arrays (no JS object per object or reference); freed after the
 * search but for the bits.
 *
 * Reachability is MicroStream's garbage collector's (graph/model/reachability.ts): everything
 * reachable over references from the roots entity (the root and the registered constants);
 * references to ids the index lacks lead nowhere.
 */

/** Object numbers are kept in 31 bits (the list marks an object's last target by the sign), list positions (+ 1) in 32. */
const MAX_POSITIONS = 2 ** 31 - 1;
const MAX_ENTRIES = 2 ** 32 - 2;
/** Records the walk order's bits cover at most (one bit each, in a typed array). */
const MAX_RECORDS = 2 ** 32 - 1;

/**
 * What a walk's worker thread needs to collect the references of some channels' records into a
 * reachability of its own (`WalkedReachability.inThread`): the arithmetic `begin` worked out, and
 * the object numbers its channels' objects take (`from` to `to`).
 */
export interface ReachabilityThreadStart {
  readonly mask: number;
  readonly bases: Float64Array<ArrayBuffer>;
  readonly runHighs: Int32Array<ArrayBuffer>;
  readonly runLowBits: Int32Array<ArrayBuffer>;
  readonly idShifts: Int32Array<ArrayBuffer>;
  readonly runStarts: Float64Array<ArrayBuffer>;
  readonly runLengths: Float64Array<ArrayBuffer>;
  readonly runBits: Uint8Array<ArrayBuffer>;
  readonly positions: number;
  readonly from: number;
  readonly to: number;
  /** Objects in the thread's channels (sizes the walk order's bits at first). */
  readonly objects: number;
}

/** What a worker thread's walk collected (`WalkedReachability.threadResult`), its buffers to transfer. */
export interface ReachabilityThreadResult {
  /** Starts of the objects numbered `from` to `to` (its list's positions + 1). */
  readonly starts: Uint32Array<ArrayBuffer>;
  readonly blocks: Int32Array<ArrayBuffer>[];
  readonly fill: number;
  readonly latestBits: Uint8Array<ArrayBuffer>;
  /** One past the thread's last newest version's number among the records it walked. */
  readonly records: number;
  readonly newest: number;
}

/** What the copy needs to tell a record apart by its number in the walk (see `copyOrder`). */
export interface CopyOrder {
  /** One bit per record met, in walk order: set for the newest versions. */
  readonly latest: Uint8Array;
  /** Whether the roots reach an object (`WalkedReachability.reachable`): asked for each newest version. */
  readonly reach: { reachable(low: number, high: number): boolean };
  /** One past the last newest version's number among the records, and how many newest versions. */
  readonly records: number;
  readonly newest: number;
  /**
   * After a check walk in threads: where each thread's run of channels began (its first channel,
   * and the number in the walk of its first record), for a copy split the same way; else empty.
   */
  readonly splits: readonly { readonly channel: number; readonly ordinal: number }[];
  /** What a copy's thread needs to tell records apart as this thread does (`inCopyThread`). */
  copyStart(): ReachabilityCopyStart;
}

/** A copy thread's `WalkedReachability.inCopyThread`: the numbering, the reach bits and the walk order's bits. */
export type ReachabilityCopyStart = Omit<ReachabilityThreadStart, 'from' | 'to' | 'objects'> & {
  readonly reach: Uint8Array<ArrayBuffer>;
  readonly latest: Uint8Array;
  readonly records: number;
};

export class WalkedReachability implements ReferenceListener {
  private mask = 0;
  private channels: Storage['channels'] = [];
  /** Object number of each channel's index position 0. */
  private bases = new Float64Array(0);
  /**
   * Each channel's run as arithmetic (`ObjectIndex.markRunPositions`): the id bits its ids share,
   * its first key and length, and one bit per object number for the run positions holding an
   * entry. A lookup of an id in a run reads a bit (all of them fit in the processor's caches at
   * 10M entities: 1.3 MB) instead of the run's entry (80 MB, a cache miss for nearly every
   * reference); other ids are looked up by `positionOf`.
   */
  private runHighs = new Int32Array(0);
  private runLowBits = new Int32Array(0);
  private idShifts = new Int32Array(0);
  /** Keys are unsigned 32-bit numbers: kept as doubles. */
  private runStarts = new Float64Array(0);
  private runLengths = new Float64Array(0);
  private runBits = new Uint8Array(0);
  private positions = 0;
  /** Per object: where its newest version's targets start in the list, + 1 (0: none, or not met). */
  private starts = new Uint32Array(0);
  private blocks: Int32Array<ArrayBuffer>[] = [];
  private fill = 0;
  private newest = 0;
  /** The object of the newest version walked (-1: none, or an id the index lacks), and where its targets start. */
  private current = -1;
  private currentStart = 0;
  /** One bit per record met, in walk order: a newest version. */
  private latestBits = new Uint8Array(0);
  private records = 0;
  /** After `search`: one bit per object. */
  private reach = new Uint8Array(0);
  /** The object number `starts[0]` is for (a worker thread's collects only its channels' objects). */
  private startsBase = 0;
  /** Set up by `inThread`: `begin` has nothing to do. */
  private preset = false;
  /** After `adopt`: where each thread's run of channels began (`CopyOrder.splits`). */
  private splits: { channel: number; ordinal: number }[] = [];

  begin(storage: Storage): void {
    if (this.preset) return;
    this.arithmetic(storage);
    let objects = 0;
    for (const channel of storage.channels) objects += channel.objects.size;
    this.startLists(0, this.positions, objects);
  }

  /** The lists (and walk order's bits) made empty, for the objects numbered `from` to `to`. */
  private startLists(from: number, to: number, objects: number): void {
    this.startsBase = from;
    this.starts = releasableUint32s(to - from);
    this.blocks = [];
    this.fill = 0;
    this.newest = 0;
    this.current = -1;
    // Grown should the walk meet more records than twice the objects.
    this.latestBits = new Uint8Array(Math.max(1024, Math.ceil((objects * 2) / 8)));
    this.records = 0;
  }

  /** The object numbering and the runs' arithmetic (the channels' indexes are read, not changed). */
  private arithmetic(storage: Storage): void {
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
    const count = storage.channels.length;
    this.runHighs = new Int32Array(count);
    this.runLowBits = new Int32Array(count);
    this.idShifts = new Int32Array(count);
    this.runStarts = new Float64Array(count);
    this.runLengths = new Float64Array(count);
    this.runBits = new Uint8Array(Math.ceil(total / 8));
    for (const channel of storage.channels) {
      const run = channel.objects.markRunPositions(this.runBits, this.bases[channel.index] as number);
      const i = channel.index;
      this.runHighs[i] = run.high;
      this.runLowBits[i] = run.lowBits;
      this.idShifts[i] = run.idShift;
      this.runStarts[i] = run.start;
      this.runLengths[i] = run.length;
    }
  }

  /**
   * For a walk in worker threads: the numbering and the runs' arithmetic worked out here once,
   * with the object numbers of channels `from` to `to` (exclusive), for `inThread`.
   */
  threadStart(storage: Storage, from: number, to: number): ReachabilityThreadStart {
    if (this.channels !== storage.channels) this.arithmetic(storage);
    const first = this.bases[from] as number;
    const end = to < storage.channels.length ? (this.bases[to] as number) : this.positions;
    let objects = 0;
    for (let c = from; c < to; c++) objects += storage.channels[c]!.objects.size;
    const { mask, bases, runHighs, runLowBits, idShifts, runStarts, runLengths, runBits, positions } = this;
    return { mask, bases, runHighs, runLowBits, idShifts, runStarts, runLengths, runBits, positions, from: first, to: end, objects };
  }

  /**
   * A worker thread's collector: hears the references of the records of the channels `start`
   * was made for (`channels`: every channel's index, over the tables the opening thread built).
   */
  static inThread(start: ReachabilityThreadStart, channels: Storage['channels']): WalkedReachability {
    const reach = WalkedReachability.overTables(start, channels);
    reach.startLists(start.from, start.to, start.objects);
    reach.preset = true;
    return reach;
  }

  /** In a worker thread after its walk: what it collected (the caller transfers the buffers). */
  threadResult(): ReachabilityThreadResult {
    this.endTargets();
    this.current = -1;
    return { starts: this.starts, blocks: this.blocks, fill: this.fill, latestBits: this.latestBits, records: this.records, newest: this.newest };
  }

  /**
   * After a walk in worker threads (`threadStart` here, `threadResult` there), each over the
   * channels after the previous one's: their lists joined as one walk would have made them.
   * `walked`: how many records each thread met. The threads' buffers are given back as they are
   * taken over (a MiB at a time), so the lists are not held twice.
   */
  adopt(results: readonly ReachabilityThreadResult[], walked: readonly number[], firstChannels: readonly number[]): void {
    this.splits = [];
    this.starts = releasableUint32s(this.positions);
    this.startsBase = 0;
    this.blocks = [];
    this.newest = 0;
    this.current = -1;
    let records = 0;
    let lastRecords = 0;
    const bitCount = walked.reduce((n, w) => n + w, 0);
    this.latestBits = new Uint8Array(Math.max(1024, Math.ceil(bitCount / 8) + 1));
    let fill = 0;
    // Where each thread's objects begin: after the starts of the threads before it (read before
    // `moveStarts` empties them).
    let base = 0;
    const bases = results.map((r) => {
      const at = base;
      base += r.starts.length;
      return at;
    });
    if (base > this.positions) throw new Error(`the walk threads' starts run past the ${this.positions} objects`);
    for (let t = 0; t < results.length; t++) {
      const result = results[t]!;
      // The thread's list positions follow the lists taken before (whole blocks).
      const offset = this.blocks.length * BLOCK;
      if (result.fill > 0) fill = offset + result.fill;
      this.blocks.push(...result.blocks);
      moveStarts(result.starts, this.starts, bases[t]!, offset);
      orBits(this.latestBits, records, result.latestBits, walked[t]!);
      if (result.newest > 0) lastRecords = records + result.records;
      this.splits.push({ channel: firstChannels[t]!, ordinal: records });
      this.newest += result.newest;
      records += walked[t]!;
    }
    this.fill = fill;
    this.records = lastRecords;
  }

  private objectNumber(low: number, high: number): number {
    const channel = low & this.mask;
    const shift = this.idShifts[channel] as number;
    const p = (low >>> shift) - (this.runStarts[channel] as number);
    if (p >= 0 && p < (this.runLengths[channel] as number) && (high | 0) === this.runHighs[channel] && (low & ((1 << shift) - 1)) === this.runLowBits[channel]) {
      const v = (this.bases[channel] as number) + p;
      if (((this.runBits[v >>> 3] as number) & (1 << (v & 7))) !== 0) return v;
    }
    const position = this.channels[channel]!.objects.positionOf(low, high);
    return position < 0 ? -1 : (this.bases[channel] as number) + position;
  }

  private append(value: number): void {
    const fill = this.fill;
    if (fill === MAX_ENTRIES) throw new StorageError('STORAGE_REFUSED', `more than ${MAX_ENTRIES} objects and references: reachability is computed for at most that many (convert with --keep-unreachable)`);
    const block = fill >>> BLOCK_BITS;
    if (block === this.blocks.length) this.blocks.push(releasableInt32s(BLOCK));
    this.blocks[block]![fill & BLOCK_MASK] = value;
    this.fill = fill + 1;
  }

  latest(ordinal: number, low: number, high: number): void {
    if (ordinal >= MAX_RECORDS) throw new StorageError('STORAGE_REFUSED', `more than ${MAX_RECORDS} records: reachability is computed for at most that many (convert with --keep-unreachable)`);
    const byte = ordinal >>> 3;
    if (byte >= this.latestBits.length) this.latestBits = grown(this.latestBits, byte + 1);
    this.latestBits[byte]! |= 1 << (ordinal & 7);
    this.records = ordinal + 1;
    this.newest++;
    this.endTargets();
    this.current = this.objectNumber(low, high);
    this.currentStart = this.fill;
  }

  reference(low: number, high: number): boolean {
    const target = this.objectNumber(low, high);
    if (target < 0) return false;
    // References before the first newest version belong to none (nor those of an id the index lacks).
    if (this.current >= 0) this.append(target);
    return true;
  }

  /** The targets of the newest version walked are complete: the last one marked, the start noted (none: left 0). */
  private endTargets(): void {
    const v = this.current;
    if (v < 0 || this.fill === this.currentStart) return;
    const last = this.fill - 1;
    const block = this.blocks[last >>> BLOCK_BITS]!;
    block[last & BLOCK_MASK] = ~(block[last & BLOCK_MASK] as number);
    this.starts[v - this.startsBase] = this.currentStart + 1;
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
    this.endTargets();
    this.current = -1;
    const reach = searchReach(roots, this.positions, this.starts, this.blocks, this.fill);
    this.reach = reach;
    // The lists are no longer needed; the bits are. Their memory is given back now: the copy's
    // stores come next (releasable-memory.ts).
    release(this.starts);
    for (const block of this.blocks) release(block);
    this.starts = new Uint32Array(0);
    this.blocks = [];
  }

  /** Whether the roots reach an object (after `search`). */
  reachable(low: number, high: number): boolean {
    const v = this.objectNumber(low, high);
    return v >= 0 && ((this.reach[v >>> 3] as number) & (1 << (v & 7))) !== 0;
  }

  /**
   * After `search`, for a walk over the same files that meets the same records in the same order
   * (convert's copy, over the same snapshot and index): which records are newest versions, by
   * their numbers in the walk, and which objects the roots reach.
   */
  copyOrder(): CopyOrder {
    return { latest: this.latestBits, reach: this, records: this.records, newest: this.newest, splits: this.splits, copyStart: () => this.copyStart() };
  }

  private copyStart(): ReachabilityCopyStart {
    const { mask, bases, runHighs, runLowBits, idShifts, runStarts, runLengths, runBits, positions, reach, latestBits, records } = this;
    return { mask, bases, runHighs, runLowBits, idShifts, runStarts, runLengths, runBits, positions, reach, latest: latestBits, records };
  }

  /** A copy thread's: `reachable` over the tables `start` holds and `channels`' indexes. */
  static inCopyThread(start: ReachabilityCopyStart, channels: Storage['channels']): WalkedReachability {
    const reach = WalkedReachability.overTables(start, channels);
    reach.reach = start.reach;
    reach.preset = true;
    return reach;
  }

  /** A thread's reachability over the id arithmetic and tables the opening thread worked out. */
  private static overTables(start: Omit<ReachabilityThreadStart, 'from' | 'to' | 'objects'>, channels: Storage['channels']): WalkedReachability {
    const reach = new WalkedReachability();
    reach.channels = channels;
    reach.mask = start.mask;
    reach.bases = start.bases;
    reach.runHighs = start.runHighs;
    reach.runLowBits = start.runLowBits;
    reach.idShifts = start.idShifts;
    reach.runStarts = start.runStarts;
    reach.runLengths = start.runLengths;
    reach.runBits = start.runBits;
    reach.positions = start.positions;
    return reach;
  }
}
