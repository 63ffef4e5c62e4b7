import { FileReadAhead } from '../storage/file-read-ahead.js';
import type { Storage } from '../storage/storage.js';
import { assembleRows, FORWARD_FLAG } from './adjacency.js';
import { GraphIndex } from './graph-index.js';
import { MissingReferences } from './missing-references.js';
import { NodeIds } from './node-ids.js';
import { computeReachability } from './reachability.js';
import { ReferenceCollector } from './reference-collector.js';
import { countTargets } from './referrer-rows.js';
import { walkRecordBytes } from './record-walk.js';
import { SupersededRecords } from './superseded-records.js';
import { ReachabilityThread, shared, wantsReachabilityThread } from './reachability-thread.js';
import { NOT_STORED, TypeTable } from './type-table.js';

/**
 * Builds the graph index of a storage in one sequential pass over its data files: every record
 * that is the latest of its object (the primary index says where that is) is decoded with its
 * type's reference plan; older records are only noted (for object versions). The forward lists
 * collected in file order are then laid out as rows in node order and reversed (adjacency.ts),
 * and reachability is computed from the roots entity.
 */

/** What the build reads from a storage. */
export type GraphSource = Pick<Storage, 'channels' | 'dictionary' | 'rootsObjectId' | 'source'>;

export interface BuildProgress {
  readonly phase: 'reading' | 'linking';
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly filesDone: number;
  readonly filesTotal: number;
}

export interface BuildOptions {
  readonly onProgress?: (progress: BuildProgress) => void;
  /** Awaited between chunks of a file, so that other work (requests) can run. */
  readonly pause?: () => Promise<void>;
  /**
   * Whether reachability is swept in a worker thread while the rows' referrer halves are laid out
   * (reachability-thread.ts); by default from a million entities on, with more than one processor.
   */
  readonly reachabilityThread?: boolean;
}

/** A record whose bytes do not fit its type's layout: its references are partly unknown. */
export interface BuildProblem {
  readonly file: string;
  readonly offset: number;
  readonly message: string;
}

export interface BuildResult {
  readonly graph: GraphIndex;
  /** The first problems found (at most 100) and how many there were. */
  readonly problems: readonly BuildProblem[];
  readonly problemCount: number;
  readonly records: number;
  /**
   * Where the build's time went (ms): reading and decoding the files, laying out the rows, and
   * reachability (only the wait for it when a worker thread swept meanwhile).
   */
  readonly phaseMs: { readonly reading: number; readonly linking: number; readonly reachability: number };
}

const MAX_PROBLEMS = 100;
const TEMP_CHUNK_BITS = 22;
const TEMP_CHUNK = 1 << TEMP_CHUNK_BITS;
const LAST = 0x80000000;

/** Forward lists in the order found, each ending with a flagged entry: chunks, never copied. */
class ForwardLists {
  private readonly chunks: Uint32Array[] = [];
  length = 0;

  /** Appends `targets[0, count)`, flagging the last; returns where the list starts. */
  append(targets: Uint32Array, count: number): number {
    const start = this.length;
    for (let i = 0; i < count; i++) {
      const at = this.length++;
      const c = at >>> TEMP_CHUNK_BITS;
      if (c === this.chunks.length) this.chunks.push(new Uint32Array(TEMP_CHUNK));
      const u = targets[i] as number;
      this.chunks[c]![at & (TEMP_CHUNK - 1)] = i === count - 1 ? (u | LAST) >>> 0 : u;
    }
    return start;
  }

  /** Adds to `degrees[u]` one for every entry u of every list. */
  countTargets(degrees: Uint32Array, nodeCount: number): void {
    const scratch = new Uint32Array(Math.min(this.length, TEMP_CHUNK));
    for (let c = 0; c < this.chunks.length; c++) {
      const count = Math.min(TEMP_CHUNK, this.length - c * TEMP_CHUNK);
      countTargets(this.chunks[c]!, count, degrees, nodeCount, scratch);
    }
  }

  /** Copies the list starting at `start` into `rows` at `at` with the forward flag; returns the end. */
  copyForward(start: number, rows: Uint32Array, at: number): number {
    for (let i = start; ; i++) {
      const x = this.chunks[i >>> TEMP_CHUNK_BITS]![i & (TEMP_CHUNK - 1)] as number;
      rows[at++] = (x | FORWARD_FLAG) >>> 0;
      if (x >= LAST) return at;
    }
  }
}

export async function buildGraph(source: GraphSource, options: BuildOptions = {}): Promise<BuildResult> {
  const channels = source.channels;
  const nodes = NodeIds.fromChannels(channels);
  const n = nodes.count;
  const thread = wantsReachabilityThread(options.reachabilityThread, n) ? new ReachabilityThread() : undefined;
  try {
    return await build(source, options, nodes, thread);
  } finally {
    await thread?.close();
  }
}

async function build(source: GraphSource, options: BuildOptions, nodes: NodeIds, thread: ReachabilityThread | undefined): Promise<BuildResult> {
  const channels = source.channels;
  const n = nodes.count;
  // What the reachability thread reads and writes is in shared memory.
  const memory = thread === undefined ? { u32: (k: number) => new Uint32Array(k), u16: (k: number) => new Uint16Array(k), u8: (k: number) => new Uint8Array(k) } : shared;
  const types = new TypeTable(source.dictionary);
  const typeOfNode = memory.u16(n).fill(NOT_STORED);
  const degrees = memory.u32(n + 1);
  const listStart = new Int32Array(n).fill(-1);
  const lists = new ForwardLists();
  const missing = new MissingReferences();
  const superseded = new SupersededRecords();
  superseded.bulk = true;
  const collector = new ReferenceCollector(nodes);
  const problems: BuildProblem[] = [];
  let problemCount = 0;
  let records = 0;
  let lastType = -1;
  let lastTypeLow = -1;
  let lastTypeHigh = -1;

  const started = performance.now();
  const files = channels.flatMap((c) => c.files.map((f) => ({ channel: c, file: f })));
  const bytesTotal = files.reduce((sum, f) => sum + f.file.totalLength, 0);
  let bytesDone = 0;
  let filesDone = 0;
  // The next file is being read while one is walked (file-read-ahead.ts).
  const reads = new FileReadAhead(source.source, files.map(({ file }) => ({ path: file.path, from: 0, to: file.totalLength })));
  try {
    for (const [index, { channel, file }] of files.entries()) {
      const objects = channel.objects;
      const fileSlot = file.slot;
      const walkProblem = await walkRecordBytes(
        reads.chunks(index),
        file.totalLength,
        (view, at, offset, length, typeLow, typeHigh, idLow, idHigh) => {
          records++;
          const v = nodes.nodeOf(idLow, idHigh);
          if (v < 0) return; // not in the index (past damage, or added while building: caught up later)
          if (!objects.isLatest(idLow, idHigh, fileSlot, offset)) {
            superseded.add(v, channel.index, fileSlot, offset);
            return;
          }
          // Records of one type come in runs: remember the last type looked up.
          if (typeLow !== lastTypeLow || typeHigh !== lastTypeHigh) {
            lastType = types.indexOf(typeLow, typeHigh);
            lastTypeLow = typeLow;
            lastTypeHigh = typeHigh;
          }
          const t = lastType;
          typeOfNode[v] = t;
          const plan = types.at(t).plan;
          if (plan === undefined || !plan.hasReferences) return;
          const mismatch = collector.collect(plan, view, at + 24, at + length);
          if (mismatch !== undefined) {
            problemCount++;
            if (problems.length < MAX_PROBLEMS) {
              problems.push({ file: file.path, offset: offset + 24 + mismatch.at, message: `${types.nameOf(t)}: ${mismatch.message}` });
            }
          }
          for (let i = 0; i < collector.missingCount; i++) missing.add(v, collector.missing[2 * i]!, collector.missing[2 * i + 1]!);
          const k = collector.count;
          if (k === 0) return;
          const targets = collector.targets;
          listStart[v] = lists.append(targets, k);
          // Written, not added to: a node's latest record comes once, and reading a fresh page
          // before writing it would fault twice (the zero page first).
          degrees[v] = k;
        },
        options.pause,
      );
      if (walkProblem !== undefined && walkProblem.offset < file.totalLength) {
        problemCount++;
        if (problems.length < MAX_PROBLEMS) problems.push({ file: file.path, offset: walkProblem.offset, message: walkProblem.message });
      }
      bytesDone += file.totalLength;
      filesDone++;
      options.onProgress?.({ phase: 'reading', bytesDone, bytesTotal, filesDone, filesTotal: files.length });
    }
  } finally {
    await reads.close();
  }
  options.onProgress?.({ phase: 'linking', bytesDone, bytesTotal, filesDone, filesTotal: files.length });
  await options.pause?.();
  const read = performance.now();

  // Referrer counts, from the forward lists at once rather than per record (cache-friendlier).
  lists.countTargets(degrees, n);

  const rootsNode = source.rootsObjectId === 0n ? -1 : nodes.nodeOfId(source.rootsObjectId);
  const sweepable = rootsNode >= 0 && typeOfNode[rootsNode] !== NOT_STORED;
  const reach = memory.u8(Math.ceil(n / 8));
  let swept: Promise<boolean> | undefined;
  // The list starts are not needed once the rows exist: they become the rows' fill cursors.
  const adjacency = assembleRows(
    n,
    degrees,
    (v, rows, at) => {
      const start = listStart[v] as number;
      return start < 0 ? at : lists.copyForward(start, rows, at);
    },
    listStart,
    {
      allocate: memory.u32,
      onForwardHalves: (rowStart, rows) => {
        if (thread === undefined || !sweepable) return;
        const input = { rows, rowStart, baseNodes: n, types: typeOfNode, nodeCount: n, reach, roots: rootsNode };
        // A thread that failed leaves the sweep to this one.
        swept = thread.sweep(input).then(
          () => true,
          () => false,
        );
      },
    },
  );
  superseded.bulk = false;
  superseded.merge();
  const graph = new GraphIndex(nodes, types, typeOfNode, adjacency, reach, missing, superseded, rootsNode);
  const linked = performance.now();
  if (!(await swept)) computeReachability(graph);
  const phaseMs = { reading: read - started, linking: linked - read, reachability: performance.now() - linked };
  return { graph, problems, problemCount, records, phaseMs };
}
