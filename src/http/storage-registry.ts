import { computeFigures, type GraphFigures } from '../graph/graph-figures.js';
import type { GraphIndex } from '../graph/graph-index.js';
import { GraphService, type GraphServiceOptions } from '../graph/graph-service.js';
import { ObjectVersions } from '../graph/object-versions.js';
import { CommitTimeline } from '../storage/commit-timeline.js';
import type { Storage } from '../storage/storage.js';

/**
 * The storages our own API serves, by name, each with its graph index, its object versions and
 * its commit timeline. `/api/v1/...` answers from the default storage and
 * `/api/v1/storages/{name}/...` from a named one.
 */

export class StorageContext {
  readonly graph: GraphService;
  readonly timeline: CommitTimeline;
  readonly versions: ObjectVersions;
  private figuresCache: { version: number; generation: number; figures: GraphFigures } | undefined;

  constructor(
    readonly name: string,
    readonly storage: Storage,
    options: GraphServiceOptions = {},
  ) {
    this.graph = new GraphService(storage, options);
    this.timeline = new CommitTimeline(storage.source);
    this.versions = new ObjectVersions(storage, this.timeline);
  }

  /** Per-type and per-file figures of the current state (computed once per state). */
  figures(graph: GraphIndex): GraphFigures {
    const cached = this.figuresCache;
    if (cached !== undefined && cached.version === graph.version && cached.generation === this.storage.generation) return cached.figures;
    const figures = computeFigures(graph, this.storage.channels);
    this.figuresCache = { version: graph.version, generation: this.storage.generation, figures };
    return figures;
  }

  async close(): Promise<void> {
    this.graph.close();
  }
}

export class StorageRegistry {
  private readonly contexts = new Map<string, StorageContext>();
  private defaultContext: StorageContext | undefined;

  /** Registers a storage; the first one registered is the default. */
  add(name: string, storage: Storage, options: GraphServiceOptions = {}): StorageContext {
    if (this.contexts.has(name)) throw new Error(`a storage named ${name} is registered already`);
    const context = new StorageContext(name, storage, options);
    this.contexts.set(name, context);
    this.defaultContext ??= context;
    return context;
  }

  /** A storage by name, or the default one when no name is given. */
  get(name?: string): StorageContext | undefined {
    return name === undefined ? this.defaultContext : this.contexts.get(name);
  }

  names(): string[] {
    return [...this.contexts.keys()];
  }

  /** Starts every graph build in the background. */
  startAll(): void {
    for (const context of this.contexts.values()) void context.graph.start();
  }

  async close(): Promise<void> {
    for (const context of this.contexts.values()) await context.close();
  }
}
