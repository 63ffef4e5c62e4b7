import type { ObjectIndex } from '../../storage/index/object-index.js';
import type { NodeIds } from '../model/node-ids.js';
import { walkRecordBytes, type RecordBytesVisitor, type WalkProblem } from '../../storage/records/record-walk.js';
import { ReferenceCollector } from './reference-collector.js';
import type { TypeTable } from '../model/type-table.js';

/**
 * What the graph build takes from each record of a data file: whether it is the latest record of
 * its object (the primary index says where that is), its type and its distinct target nodes, or
 * else that it is an older version. The building thread and the decode worker thread
 * (decode-worker.ts) run the same decoder; each hands what it finds to its own sink.
 */

/** Where a decoder puts what it finds. */
export interface DecodeSink {
  /** The latest record of node `v`: its type number and its target nodes `targets[0, k)` (ascending, distinct). */
  latest(v: number, type: number, targets: Uint32Array, k: number): void;
  /** An older record of node `v`. */
  olderVersion(v: number, fileSlot: number, offset: number): void;
  /** Node `v` refers to an id that is not stored (as halves). */
  missingReference(v: number, low: number, high: number): void;
  /** A record whose bytes do not fit its type's layout, or a file that ends early. */
  problem(file: string, offset: number, message: string): void;
}

/** A data file to decode: its path, committed length and slot in its channel's file table. */
export interface DecodeFile {
  readonly path: string;
  readonly totalLength: number;
  readonly slot: number;
}

const NO_TARGETS = new Uint32Array(0);

export class RecordDecoder {
  /** Records walked (latest, older, and those of ids the numbering lacks). */
  records = 0;
  /** Latest records handed to sinks (one per node that has one). */
  latestRecords = 0;
  private readonly collector: ReferenceCollector;
  // Records of one type come in runs: the last type looked up.
  private lastType = -1;
  private lastTypeLow = -1;
  private lastTypeHigh = -1;
  /**
   * The file being decoded. One visitor for every file, not a closure per file: the walk's
   * compiled code calls it, and a new closure per file made V8 throw that code away and compile
   * it again (a call target it had not seen).
   */
  private file: DecodeFile | undefined;
  private channel = 0;
  private objects: Pick<ObjectIndex, 'isLatest'> | undefined;
  private sink: DecodeSink | undefined;

  /** `channelCount`: the storage's (a power of two), for telling which channel an id belongs to. */
  constructor(
    private readonly nodes: NodeIds,
    readonly types: TypeTable,
    private readonly channelCount: number,
  ) {
    this.collector = new ReferenceCollector(nodes);
  }

  /**
   * Decodes the records of one file delivered as `chunks` into `sink`; `objects` is the primary
   * index of its channel, number `channel`. After each chunk the walk awaits `pause` (to let other
   * work run, or to stop). One file at a time.
   */
  async decodeFile(
    chunks: AsyncIterable<Uint8Array>,
    file: DecodeFile,
    channel: number,
    objects: Pick<ObjectIndex, 'isLatest'>,
    sink: DecodeSink,
    pause?: () => Promise<void>,
  ): Promise<void> {
    if (this.file !== undefined) throw new Error(`decoding ${file.path} while ${this.file.path} is being decoded`);
    this.file = file;
    this.channel = channel;
    this.objects = objects;
    this.sink = sink;
    try {
      const walkProblem: WalkProblem | undefined = await walkRecordBytes(chunks, file.totalLength, this.visit, pause);
      if (walkProblem !== undefined && walkProblem.offset < file.totalLength) sink.problem(file.path, walkProblem.offset, walkProblem.message);
    } finally {
      this.file = undefined;
      this.objects = undefined;
      this.sink = undefined;
    }
  }

  private readonly visit: RecordBytesVisitor = (view, at, offset, length, typeLow, typeHigh, idLow, idHigh) => {
    this.records++;
    const { nodes, types, collector } = this;
    const file = this.file!;
    const sink = this.sink!;
    const v = nodes.nodeOf(idLow, idHigh);
    if (v < 0) return; // not in the index (past damage, or added while building: caught up later)
    // An id is looked up in its own channel only, and each node's arrays must have one writer
    // (the decode worker thread writes those of its channels' records).
    const channelMask = this.channelCount - 1;
    if ((idLow & channelMask) !== this.channel) {
      sink.problem(file.path, offset, `object ${nodes.idOf(v)} belongs to channel ${idLow & channelMask}, not to channel ${this.channel}`);
      return;
    }
    if (!this.objects!.isLatest(idLow, idHigh, file.slot, offset)) {
      sink.olderVersion(v, file.slot, offset);
      return;
    }
    if (typeLow !== this.lastTypeLow || typeHigh !== this.lastTypeHigh) {
      this.lastType = types.indexOf(typeLow, typeHigh);
      this.lastTypeLow = typeLow;
      this.lastTypeHigh = typeHigh;
    }
    const t = this.lastType;
    const plan = types.at(t).plan;
    this.latestRecords++;
    if (plan === undefined || !plan.hasReferences) {
      sink.latest(v, t, NO_TARGETS, 0);
      return;
    }
    const mismatch = collector.collect(plan, view, at + 24, at + length);
    if (mismatch !== undefined) sink.problem(file.path, offset + 24 + mismatch.at, `${types.nameOf(t)}: ${mismatch.message}`);
    for (let i = 0; i < collector.missingCount; i++) sink.missingReference(v, collector.missing[2 * i]!, collector.missing[2 * i + 1]!);
    sink.latest(v, t, collector.targets, collector.count);
  };
}
