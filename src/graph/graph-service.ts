import type { Storage, StorageChange } from '../storage/storage.js';
import type { BuildProblem, BuildProgress } from './build/graph-build.js';
import { DominatorService, type DominatorServiceOptions } from './dominator-service.js';
import type { GraphIndex } from './model/graph-index.js';

/**
 * The graph index of one storage over time: built in the background after the storage opened
 * (requests keep being served meanwhile; the build yields between chunks), then kept current
 * with every change the storage takes over. Changes that arrive while building are queued and
 * applied before the index is declared ready; a storage rebuilt from scratch starts the build
 * over. Once ready, the dominator tree is computed in the background (dominator-service.ts) and
 * computed again after every change.
 */

export type GraphState =
  | { readonly kind: 'building'; readonly progress: BuildProgress | undefined; readonly startedAt: number }
  | { readonly kind: 'ready'; readonly graph: GraphIndex; readonly buildMs: number; readonly problems: readonly BuildProblem[]; readonly problemCount: number }
  | { readonly kind: 'failed'; readonly error: unknown };

export interface GraphServiceOptions extends DominatorServiceOptions {
  /** Progress of a build (at most once per file). */
  readonly onProgress?: (progress: BuildProgress, elapsedMs: number) => void;
  /** A build finished (first or repeated). */
  readonly onReady?: (graph: GraphIndex, buildMs: number) => void;
  readonly onFailed?: (error: unknown) => void;
}

const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Building and following an index (about 100 KB of code): loaded by the first build, not with
 * the service, so that `serve` does not compile it before its first answer (the build starts
 * after it: docs/benchmarks/startup.md). Changes are applied only to a built index, so once
 * there is one the code is there.
 */
type Machinery = typeof import('./build/graph-build.js') & typeof import('./graph-follow.js') & typeof import('./collect-garbage.js');
let machinery: Machinery | undefined;
async function loadMachinery(): Promise<Machinery> {
  machinery ??= { ...(await import('./build/graph-build.js')), ...(await import('./graph-follow.js')), ...(await import('./collect-garbage.js')) };
  return machinery;
}

export class GraphService {
  private current: GraphState = { kind: 'building', progress: undefined, startedAt: Date.now() };
  private pending: StorageChange[] = [];
  private restart = false;
  private running: Promise<void> | undefined;
  private readonly stopListening: () => void;
  private closed = false;
  /** The dominator tree of the index, computed after each build and change. */
  readonly dominators: DominatorService;

  constructor(
    readonly storage: Storage,
    private readonly options: GraphServiceOptions = {},
  ) {
    this.dominators = new DominatorService(storage, options);
    this.stopListening = storage.onChange((change) => this.take(change));
  }

  get state(): GraphState {
    return this.current;
  }

  /** Starts building (once); later calls return the same run. */
  start(): Promise<void> {
    this.running ??= this.buildLoop();
    return this.running;
  }

  /** The index once it is ready (starts the build if needed); rejects if the build failed. */
  async ready(): Promise<GraphIndex> {
    await this.start();
    const state = this.current;
    if (state.kind === 'ready') return state.graph;
    if (state.kind === 'failed') throw state.error;
    throw new Error('the graph index is not ready');
  }

  close(): void {
    this.closed = true;
    this.stopListening();
    this.dominators.close();
  }

  private async take(change: StorageChange): Promise<void> {
    const state = this.current;
    if (state.kind !== 'ready') {
      if (change.rebuilt) this.restart = true;
      else this.pending.push(change);
      return;
    }
    if (change.rebuilt) {
      this.dominators.reset();
      this.current = { kind: 'building', progress: undefined, startedAt: Date.now() };
      this.restart = true;
      this.running = this.running?.then(() => this.buildLoop()) ?? this.buildLoop();
      return;
    }
    try {
      await machinery!.applyStorageChange(state.graph, this.storage, change);
      this.dominators.follow(state.graph);
    } catch (error) {
      if (this.closed) return;
      this.dominators.reset();
      // The index can no longer be trusted: build it again from the files.
      this.current = { kind: 'building', progress: undefined, startedAt: Date.now() };
      this.options.onFailed?.(error);
      this.running = (this.running ?? Promise.resolve()).then(() => this.buildLoop());
    }
  }

  private async buildLoop(): Promise<void> {
    const { applyStorageChange, buildGraph, collectGarbageNow } = await loadMachinery();
    for (;;) {
      if (this.closed) return;
      const startedAt = Date.now();
      const generation = this.storage.generation;
      this.pending = [];
      this.restart = false;
      this.current = { kind: 'building', progress: undefined, startedAt };
      try {
        const result = await buildGraph(this.storage, {
          pause: yieldToOthers,
          onProgress: (progress) => {
            this.current = { kind: 'building', progress, startedAt };
            this.options.onProgress?.(progress, Date.now() - startedAt);
          },
        });
        if (this.restart) continue;
        // The build's temporary arrays are garbage now: freed before the index is declared ready,
        // not whenever V8 next collects (collect-garbage.ts says why).
        await collectGarbageNow();
        // No change can be taken over while the queued ones are applied (a refresh waits for readers).
        const again = await this.storage.consistent(async () => {
          for (const change of this.pending.splice(0)) await applyStorageChange(result.graph, this.storage, change);
          if (this.restart) return true;
          const buildMs = Date.now() - startedAt;
          this.current = { kind: 'ready', graph: result.graph, buildMs, problems: result.problems, problemCount: result.problemCount };
          this.options.onReady?.(result.graph, buildMs);
          this.dominators.follow(result.graph);
          return false;
        });
        if (!again) return;
      } catch (error) {
        // Closed meanwhile (a normal shutdown closes the storage's connections under the build):
        // nothing failed that anyone waits for.
        if (this.closed) return;
        // A file deleted by housekeeping meanwhile: the storage moved on, so try its new state.
        if (this.storage.generation !== generation) continue;
        this.current = { kind: 'failed', error };
        this.options.onFailed?.(error);
        return;
      }
    }
  }
}
