import { availableParallelism } from 'node:os';
import type { ObjectIndexParts } from '../../storage/index/object-index-parts.js';
import type { StorageChannel } from '../../storage/storage.js';
import { WorkerThread } from '../../threads/worker-thread.js';
import { dominatorTreeOf, rememberDominatorTree, rememberedDominatorTree, type DominatorPhase, type DominatorProgress } from './dominator-computation.js';
import { DominatorTree, type DominatorTreeParts } from './dominator-tree.js';
import type { GraphIndex } from './graph-index.js';
import type { NodeIdsParts } from './node-ids.js';
import type { TypeNumbers } from './type-table.js';

/**
 * The dominator tree of a graph's present state for a pass that holds that state (the SQL
 * `_objects` table), computed in a worker thread while the pass's thread goes on with other work
 * (the type fills' JavaScript, the pass's own statements), and taken only when the pass needs it.
 * At 10M objects the tree took the main thread about 3.4 s of an export's 28.
 *
 * The thread reads the graph's rows, row starts and type numbers where they are (the build puts
 * them in shared memory when a thread of its own decodes or sweeps, graph-build.ts) and the
 * channels' object indexes as snapshots; nothing of the graph is copied but its id numbering's
 * runs. A graph whose arrays are not all shared (a small build, or rows compacted after a
 * followed storage changed), or that has changes waiting in overlays, has its tree computed in
 * place when taken, as do graphs below `DOMINATOR_THREAD_FROM_NODES` (a thread's start-up costs
 * more than their tree). The caller must keep the graph unchanged until the tree is taken or the
 * computation stopped (the storage's state held for the pass).
 */

/**
 * From this many nodes on, with more than one processor, the tree is computed in a thread. A
 * thread's start-up took 90-240 ms of wall time on a loaded machine (load 9), the main thread
 * 2-10 ms of it; the tree in place took 0.9-2.0 µs a node at 1M objects on the same machine: the
 * two meet around 100-200k nodes.
 */
export const DOMINATOR_THREAD_FROM_NODES = 200_000;

/** What the worker thread reads (dominator-worker.ts). */
export interface DominatorInput {
  readonly rowStart: Uint32Array;
  readonly rows: Uint32Array;
  readonly baseNodes: number;
  readonly typeOfNode: TypeNumbers;
  readonly nodeCount: number;
  readonly rootsNode: number;
  readonly version: number;
  readonly nodes: NodeIdsParts;
  readonly objects: readonly ObjectIndexParts[];
  /** Where the thread writes its progress: phase (its index in `PHASES`, + 1; 0 before the first), done, total. */
  readonly progress: Int32Array;
}

/** The phases in the order the progress array numbers them. */
export const PHASES: readonly DominatorPhase[] = ['numbering', 'semidominators', 'dominators', 'retained sizes'];

/** The worker thread's answer. */
export type DominatorReply = { readonly tree: DominatorTreeParts } | { readonly error: string };

/** A tree being computed for a pass: `take` it when needed, `stop` when the pass ends either way. */
export interface DominatorTreeUnderWay {
  /** The tree (the same as `dominatorTreeOf`'s), or the computation's error. */
  take(): Promise<DominatorTree>;
  /** Ends the worker thread if one was started (at once when it is still computing). */
  stop(): Promise<void>;
  /** Whether a worker thread computes it (else it is computed in place when taken). */
  readonly inThread: boolean;
}

export interface DominatorThreadOptions {
  /** Whether a thread computes it: undefined decides by size and processors. */
  readonly thread?: boolean | undefined;
}

/** Starts computing the tree of the graph's present state (in a thread where that pays). */
export function startDominatorTree(graph: GraphIndex, channels: readonly Pick<StorageChannel, 'objects'>[], options: DominatorThreadOptions = {}): DominatorTreeUnderWay {
  const inPlace: DominatorTreeUnderWay = { take: async () => dominatorTreeOf(graph, channels), stop: async () => undefined, inThread: false };
  if (rememberedDominatorTree(graph) !== undefined) return inPlace;
  const run = dominatorThreadFor(graph, channels, options);
  if (run === undefined) return inPlace;
  const version = graph.version;
  const answer = run.tree.then((tree) => {
    // Kept as the graph's latest only if it is still of the graph's state (it is, while the pass holds it).
    if (graph.version === version && graph.nodeCount === tree.nodeCount) rememberDominatorTree(graph, tree);
    return tree;
  });
  // Taken or not, a failure is not an unhandled rejection: `take` answers it.
  answer.catch(() => undefined);
  return { take: () => answer, stop: run.stop, inThread: true };
}

/** A computation in a worker thread: its tree (or error), its progress so far, and its end. */
export interface DominatorThreadRun {
  readonly tree: Promise<DominatorTree>;
  /** What the thread reported last (undefined before its first report). */
  progress(): DominatorProgress | undefined;
  /** Ends the thread (at once when it is still computing); the snapshots are released. */
  stop(): Promise<void>;
}

/**
 * The tree of the graph's present state computed in a worker thread, or undefined when a thread
 * would not pay or cannot read the graph. The graph's arrays are read where they are: a caller
 * that lets the graph change meanwhile must throw the tree away (the service compares versions).
 */
export function dominatorThreadFor(graph: GraphIndex, channels: readonly Pick<StorageChannel, 'objects'>[], options: DominatorThreadOptions = {}): DominatorThreadRun | undefined {
  const wanted = options.thread ?? (graph.nodeCount >= DOMINATOR_THREAD_FROM_NODES && availableParallelism() > 1);
  if (!wanted || !readableInThread(graph)) return undefined;
  const snapshots = channels.map((channel) => channel.objects.snapshot());
  const progress = new Int32Array(new SharedArrayBuffer(3 * 4));
  const input: DominatorInput = {
    rowStart: graph.adjacency.baseRowStart,
    rows: graph.adjacency.baseRows,
    baseNodes: graph.adjacency.baseNodeCount,
    typeOfNode: graph.typeOfNode,
    nodeCount: graph.nodeCount,
    rootsNode: graph.rootsNode,
    version: graph.version,
    nodes: graph.nodes.toParts(),
    objects: snapshots.map((s) => s.parts),
    progress,
  };
  const thread = new WorkerThread<DominatorInput, DominatorReply>(import.meta.url, 'dominator-worker', (code) => `the dominator tree's thread stopped (exit code ${code})`);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (stopped === undefined) {
      for (const s of snapshots) s.release();
      stopped = thread.terminate();
    }
    return stopped;
  };
  const tree = thread.ask(input).then(async (reply) => {
    await stop();
    if (reply instanceof Error) throw reply;
    if ('error' in reply) throw new Error(reply.error);
    return DominatorTree.fromParts(reply.tree);
  });
  tree.catch(() => undefined);
  const progressOf = (): DominatorProgress | undefined => {
    const phase = PHASES[Atomics.load(progress, 0) - 1];
    return phase === undefined ? undefined : { phase, done: Atomics.load(progress, 1), total: Atomics.load(progress, 2) };
  };
  return { tree, progress: progressOf, stop };
}

/** Whether the thread can read the graph as it is: base rows only, every array in shared memory. */
function readableInThread(graph: GraphIndex): boolean {
  const adjacency = graph.adjacency;
  if (adjacency.hasForwardOverlays || adjacency.pendingChanges > 0) return false;
  return [adjacency.baseRows, adjacency.baseRowStart, graph.typeOfNode].every((array) => array.buffer instanceof SharedArrayBuffer);
}
