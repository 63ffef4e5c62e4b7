import type { DecodedFile } from './decode-messages.js';
import { ForwardLists, type ForwardListsParts } from './forward-lists.js';
import type { LinkShare } from './link-steps.js';
import { MissingReferences } from '../model/missing-references.js';
import type { DecodeSink } from './record-decoder.js';
import { SupersededRecords } from '../model/superseded-records.js';
import { NOT_STORED, type TypeNumbers, type TypeTable } from '../model/type-table.js';
import { ownListStart, type SharedNodeArrays } from './shared-node-arrays.js';

/**
 * What a graph build collects from the data files, per node: its type, its forward list and how
 * long it is, older versions, missing references and problems. The building thread's decoder
 * writes here directly. So does the decode worker thread, for the nodes of its channels: the
 * per-node arrays are then shared memory, and the worker's forward lists are its own (a node's
 * `listStart` says whose, see `workerListStart`). The rest of what the worker finds in a file is
 * merged in as it arrives (`merge`).
 */

/** A record whose bytes do not fit its type's layout (its references are partly unknown), or a file that ends early. */
export interface BuildProblem {
  readonly file: string;
  readonly offset: number;
  readonly message: string;
}

/** The typed arrays a build allocates (over shared memory when another thread reads them). */
export interface Allocator {
  u32(length: number): Uint32Array;
  u16(length: number): Uint16Array;
  i32(length: number): Int32Array;
}

const MAX_PROBLEMS = 100;

export class BuildState implements DecodeSink {
  readonly typeOfNode: TypeNumbers;
  /** Forward count per node, later plus referrer count, then the rows' starts (length n + 1). */
  readonly degrees: Uint32Array;
  /** Where each node's forward list starts: in `lists` (`ownListStart`), in the worker's (`workerListStart`) or none (0). */
  readonly listStart: Int32Array;
  readonly lists: ForwardLists;
  /** The decode worker's lists, once it is done. */
  workerLists: ForwardLists | undefined;
  readonly missing = new MissingReferences();
  readonly superseded = new SupersededRecords();
  /** Records and latest records the decode worker thread walked. */
  records = 0;
  latestRecords = 0;
  problemCount = 0;
  /** The channel and the position in the build's list of files of the file being decoded here. */
  channel = 0;
  order = 0;
  /** Problems with the position of their file, at most MAX_PROBLEMS per file (sorted at the end). */
  private readonly found: { order: number; problem: BuildProblem }[] = [];
  private foundInFile = 0;
  /** Type ids the worker numbered beyond the dictionary, and their numbers here. */
  private readonly workerTypes: number[] = [];
  private readonly dictionaryTypes: number;

  constructor(
    n: number,
    memory: Allocator,
    private readonly types: TypeTable,
  ) {
    // 2 bytes per node unless the storage has very many types (type-table.ts).
    if (!types.wide) types.narrow();
    this.typeOfNode = (types.wide ? memory.u32(n) : memory.u16(n)).fill(NOT_STORED);
    this.degrees = memory.u32(n + 1);
    this.listStart = memory.i32(n);
    this.lists = new ForwardLists([], memory.u32);
    this.superseded.bulk = true;
    this.dictionaryTypes = types.size;
  }

  /** Starts a file decoded in this thread. */
  startFile(channel: number, order: number): void {
    this.channel = channel;
    this.order = order;
    this.foundInFile = 0;
  }

  latest(v: number, type: number, targets: Uint32Array, k: number): void {
    this.typeOfNode[v] = type;
    if (k === 0) return;
    this.listStart[v] = ownListStart(this.lists.append(targets, k));
    // Written, not added to: a node's latest record comes once, and reading a fresh page before
    // writing it would fault twice (the zero page first).
    this.degrees[v] = k;
  }

  olderVersion(v: number, fileSlot: number, offset: number): void {
    this.superseded.add(v, this.channel, fileSlot, offset);
  }

  missingReference(v: number, low: number, high: number): void {
    this.missing.add(v, low, high);
  }

  problem(file: string, offset: number, message: string): void {
    this.problemCount++;
    if (this.foundInFile++ < MAX_PROBLEMS) this.found.push({ order: this.order, problem: { file, offset, message } });
  }

  /** The per-node arrays, for the decode worker thread. */
  get sharedArrays(): SharedNodeArrays {
    return { typeOfNode: this.typeOfNode, degrees: this.degrees, listStart: this.listStart };
  }

  /**
   * Takes over the rest of one file's findings from the decode worker thread (its latest records
   * it wrote here itself): the nodes whose type the worker numbered beyond the dictionary get
   * this thread's number of that type.
   */
  merge(file: DecodedFile): void {
    // A negative id is the worker's placeholder for the number NOT_STORED (type-table.ts).
    for (const typeId of file.addedTypes) this.workerTypes.push(typeId < 0n ? NOT_STORED : this.types.indexOfId(typeId));
    const base = this.dictionaryTypes;
    const retyped = file.retyped;
    for (let i = 0; i < retyped.length; i += 2) this.typeOfNode[retyped[i] as number] = this.workerTypes[(retyped[i + 1] as number) - base] as number;
    const older = file.superseded;
    for (let i = 0; i < older.length; i += 3) this.superseded.add(older[i] as number, file.channel, older[i + 1] as number, (older[i + 2] as number) >>> 0);
    const missing = file.missing;
    for (let i = 0; i < missing.length; i += 3) this.missing.add(missing[i] as number, missing[i + 1] as number, missing[i + 2] as number);
    for (const problem of file.problems) this.found.push({ order: file.order, problem });
    this.problemCount += file.problemCount;
    this.records += file.records;
    this.latestRecords += file.latestRecords;
  }

  /** Takes over the decode worker's forward lists once it is done. */
  adoptWorkerLists(parts: ForwardListsParts): void {
    this.workerLists = ForwardLists.fromParts(parts);
  }

  /** What the rows are linked from (link-steps.ts), once both threads' lists are here. */
  get linkShare(): LinkShare {
    return { arrays: this.sharedArrays, lists: this.lists, workerLists: this.workerLists };
  }

  /** The first problems in file order (at most MAX_PROBLEMS). */
  problems(): BuildProblem[] {
    return this.found
      .sort((a, b) => a.order - b.order)
      .slice(0, MAX_PROBLEMS)
      .map((f) => f.problem);
  }
}
