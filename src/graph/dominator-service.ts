import type { Storage } from '../storage/storage.js';
import type { DominatorProgress } from './model/dominator-computation.js';
import type { DominatorTree } from './model/dominator-tree.js';
import type { GraphIndex } from './model/graph-index.js';
import { markDominatorsUnderWay } from './model/dominators-under-way.js';

/**
 * The dominator tree of a storage's graph index over time: computed in the background once the
 * index is ready, in slices of a few milliseconds between other work (requests are served
 * meanwhile), each slice inside one consistent state of the storage. Every change the index takes
 * over (a commit of a followed storage) makes the tree stale: it is computed again from scratch,
 * and a change arriving while it is computed starts that computation over.
 *
 * A large graph whose arrays are shared memory has its tree computed in a worker thread instead
 * (dominator-thread.ts): the slices were the main thread's work, about 3.4 s at 10M objects, while
 * an export's fills waited for their turns. The thread reads the graph where it is, outside the
 * storage's gate: a change meanwhile makes the tree stale (the graph's version), and it is thrown
 * away and computed again, as a change between two slices does.
 */

export type DominatorState =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'computing'; readonly progress: DominatorProgress | undefined; readonly startedAt: number }
  | { readonly kind: 'ready'; readonly tree: DominatorTree; readonly computeMs: number }
  | { readonly kind: 'failed'; readonly error: unknown };

export interface DominatorServiceOptions {
  /** A computation finished (the first one or one after a change). */
  readonly onDominatorsReady?: (tree: DominatorTree, computeMs: number) => void;
  readonly onDominatorsFailed?: (error: unknown) => void;
  /** Whether the tree is computed in a worker thread: undefined decides by size (dominator-thread.ts). */
  readonly dominatorThread?: boolean;
}

/** Work done between two pauses. */
const SLICE_MS = 20;

const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class DominatorService {
  private current: DominatorState = { kind: 'waiting' };
  private graph: GraphIndex | undefined;
  /** The loop runs (it is between its start and its last synchronous step). */
  private running = false;
  /** A follow() arrived that the loop has not taken yet (read where the loop decides to stop). */
  private wanted = false;
  private waiters: { resolve: (tree: DominatorTree) => void; reject: (error: unknown) => void }[] = [];
  private closed = false;
  /** Ends the mark that the tree of the followed graph's state is being computed (dominators-under-way.ts). */
  private endUnderWay: (() => void) | undefined;
  /** Ends the worker thread computing the tree, while one does (the graph and version it reads). */
  private thread: { readonly graph: GraphIndex; readonly version: number; readonly stop: () => Promise<void> } | undefined;

  constructor(
    private readonly storage: Pick<Storage, 'channels' | 'consistent' | 'generation'>,
    private readonly options: DominatorServiceOptions = {},
  ) {}

  get state(): DominatorState {
    return this.current;
  }

  /** The tree of the graph's current state, if computed. */
  treeOf(graph: GraphIndex): DominatorTree | undefined {
    const state = this.current;
    return state.kind === 'ready' && this.graph === graph && state.tree.graphVersion === graph.version ? state.tree : undefined;
  }

  /** Computes the tree of this graph (again, if it changed); a computation under way restarts. */
  follow(graph: GraphIndex): void {
    if (this.closed) return;
    this.graph = graph;
    // A thread reading an earlier state would run to its end (seconds at millions of objects, a
    // processor and the old state's snapshots held) before the new state's tree could start.
    if (this.thread !== undefined && (this.thread.graph !== graph || this.thread.version !== graph.version)) this.stopRunningThread();
    // Marked at once, before the loop's first turn: a pass asking for the tree right after the
    // index is ready waits for this computation instead of running one of its own.
    this.endUnderWay = markDominatorsUnderWay(graph);
    if (this.current.kind !== 'computing') this.current = { kind: 'computing', progress: undefined, startedAt: Date.now() };
    this.wanted = true;
    this.start();
  }

  /** The graph index is being built again: no tree until it is ready. */
  reset(): void {
    this.graph = undefined;
    this.stopRunningThread();
    this.current = { kind: 'waiting' };
    this.settle();
  }

  /** The tree once computed for the state the graph is in by then (rejects if that failed). */
  ready(): Promise<DominatorTree> {
    const state = this.current;
    if (state.kind === 'ready' && this.graph !== undefined && state.tree.graphVersion === this.graph.version) return Promise.resolve(state.tree);
    if (state.kind === 'failed') return Promise.reject(state.error);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  close(): void {
    this.closed = true;
    this.graph = undefined;
    this.stopRunningThread();
    this.settle();
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('the storage was closed'));
  }

  /** Ends the worker thread, if one runs: its tree, of a state no longer wanted, is thrown away. */
  private stopRunningThread(): void {
    const thread = this.thread;
    this.thread = undefined;
    void thread?.stop();
  }

  private settle(): void {
    this.endUnderWay?.();
    this.endUnderWay = undefined;
  }

  private start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      await this.computeWhileFollowed();
    } catch (error) {
      // Outside the slices (the computation's code could not be loaded): as a failed computation,
      // not started again for the follow() that started it (it would fail the same way, forever).
      this.wanted = false;
      this.fail(error);
    } finally {
      // The loop's end and the look at what arrived meanwhile are one synchronous step: a follow()
      // in the turns between the loop's last tree and this point found the loop still running and
      // left its change to it (before, nothing computed it: the state stayed 'computing', ready()
      // and `_objects` waited forever).
      this.running = false;
      if (this.wanted && !this.closed && this.graph !== undefined) this.start();
      // Done, failed, closed or reset: nobody waits for a computation that no longer runs.
      else this.settle();
    }
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.current = { kind: 'failed', error };
    this.options.onDominatorsFailed?.(error);
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private async computeWhileFollowed(): Promise<void> {
    // Loaded with the first computation, after the graph index is built (graph-service.ts says why).
    const { dominatorSteps, rememberDominatorTree } = await import('./model/dominator-computation.js');
    const { dominatorThreadFor } = await import('./model/dominator-thread.js');
    while (!this.closed) {
      this.wanted = false;
      const graph = this.graph;
      if (graph === undefined) return;
      const version = graph.version;
      const generation = this.storage.generation;
      const startedAt = Date.now();
      this.current = { kind: 'computing', progress: undefined, startedAt };
      const isStale = (): boolean => this.closed || this.graph !== graph || graph.version !== version || this.storage.generation !== generation;
      // In a worker thread where that pays: started inside one consistent state (its snapshots).
      let thread = undefined as ReturnType<typeof dominatorThreadFor>;
      let stale = false;
      try {
        await this.storage.consistent(async () => {
          stale = isStale();
          if (stale) return;
          thread = dominatorThreadFor(graph, this.storage.channels, { thread: this.options.dominatorThread });
          // Known at once: a follow(), reset() or close() in the turns before this loop goes on ends it.
          if (thread !== undefined) this.thread = { graph, version, stop: thread.stop };
        });
      } catch (error) {
        if (thread !== undefined) this.stopRunningThread();
        this.fail(error);
        return;
      }
      if (stale) continue;
      let tree: DominatorTree | undefined;
      if (thread !== undefined) {
        const run = thread;
        // Its progress as the thread reports it, for the API's answers meanwhile.
        const ticker = setInterval(() => {
          if (this.current.kind === 'computing' && this.current.startedAt === startedAt) this.current = { kind: 'computing', progress: run.progress(), startedAt };
        }, 100);
        ticker.unref();
        try {
          tree = await run.tree;
        } catch (error) {
          // A failure of a computation made stale meanwhile is computed again; else it is the tree's.
          if (!isStale()) {
            this.fail(error);
            return;
          }
        } finally {
          clearInterval(ticker);
          if (this.thread?.stop === run.stop) this.thread = undefined;
          await run.stop();
        }
        if (isStale()) continue;
      }
      // In slices (a generator runs nothing until asked for its first step).
      const steps = dominatorSteps(graph, this.storage.channels);
      try {
        while (tree === undefined && !stale) {
          await yieldToOthers();
          await this.storage.consistent(async () => {
            if (this.closed || this.graph !== graph || graph.version !== version || this.storage.generation !== generation) {
              stale = true;
              return;
            }
            const until = performance.now() + SLICE_MS;
            do {
              const step = steps.next();
              if (step.done === true) {
                tree = step.value;
                return;
              }
              this.current = { kind: 'computing', progress: step.value, startedAt };
            } while (performance.now() < until);
          });
        }
      } catch (error) {
        this.fail(error);
        return;
      }
      if (stale || tree === undefined) continue;
      // The first page of the tree (the roots object's children, a scan of every node: 0.2 s at
      // 10M objects) made now, not by the first request that asks for it.
      tree.children(tree.rootsNode);
      const computeMs = Date.now() - startedAt;
      this.current = { kind: 'ready', tree, computeMs };
      rememberDominatorTree(graph, tree);
      if (this.graph === graph && graph.version === version) this.settle();
      this.options.onDominatorsReady?.(tree, computeMs);
      for (const waiter of this.waiters.splice(0)) waiter.resolve(tree);
      if (this.graph === graph && graph.version === version) return;
    }
  }
}
