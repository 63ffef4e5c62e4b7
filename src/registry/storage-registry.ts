import { computeFigures, type GraphFigures } from '../graph/queries/graph-figures.js';
import type { GraphIndex } from '../graph/model/graph-index.js';
import { GraphService, type GraphServiceOptions } from '../graph/graph-service.js';
import { ObjectVersions } from '../graph/queries/object-versions.js';
import { CommitTimeline } from '../storage/history/commit-timeline.js';
import type { StorageDamage } from '../damaged/readable-part.js';
import type { Storage } from '../storage/storage.js';

/**
 * The storages a process serves, by name, each with its graph index, its object versions and
 * its commit timeline. `/api/v1/...` answers from the default storage and
 * `/api/v1/storages/{name}/...` from a named one; the Java-compatible routes serve each storage
 * under `/{instance}/{name}/...` (see named-routes.ts) with what `served` says about it.
 */

/** How the Java-compatible routes serve a storage. */
export interface ServedStorage {
  /** The first path segment of its routes (`microstream`, `store-data`, ...). */
  readonly instance: string;
  /** Brings the storage up to date after a request read a file that was deleted meanwhile. */
  readonly catchUp?: () => Promise<void>;
  /** Damage for which MicroStream would refuse the storage; what can be read of it is served. */
  readonly damage?: readonly StorageDamage[];
  /** Objects whose newest record lies in a chunk that fails EclipseStore 4.2's checksums (id in decimal → that damage). */
  readonly damagedObjects?: ReadonlyMap<string, StorageDamage>;
}

/** A storage that was asked for but could not be opened: its routes say why. */
export interface UnavailableStorage {
  readonly name: string;
  /** undefined: its family (and so its default instance) is unknown; any first segment matches. */
  readonly instance: string | undefined;
  readonly reason: string;
}

export class StorageContext {
  readonly graph: GraphService;
  readonly timeline: CommitTimeline;
  readonly versions: ObjectVersions;
  private figuresCache: { version: number; generation: number; figures: GraphFigures } | undefined;

  constructor(
    readonly name: string,
    readonly storage: Storage,
    options: GraphServiceOptions = {},
    /** How the Java-compatible routes serve it; undefined when only `/api/v1` does. */
    readonly served?: ServedStorage,
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
  private readonly failed = new Map<string, UnavailableStorage>();
  private defaultContext: StorageContext | undefined;

  /** Registers a storage; the first one registered is the default. */
  add(name: string, storage: Storage, options: GraphServiceOptions = {}, served?: ServedStorage): StorageContext {
    if (this.contexts.has(name) || this.failed.has(name)) throw new Error(`a storage named ${name} is registered already`);
    const context = new StorageContext(name, storage, options, served);
    this.contexts.set(name, context);
    this.defaultContext ??= context;
    return context;
  }

  /** Records a storage that could not be opened (the others are served all the same). */
  addUnavailable(storage: UnavailableStorage): void {
    if (this.contexts.has(storage.name) || this.failed.has(storage.name)) throw new Error(`a storage named ${storage.name} is registered already`);
    this.failed.set(storage.name, storage);
  }

  /** Every registered storage, in registration order. */
  all(): StorageContext[] {
    return [...this.contexts.values()];
  }

  unavailable(): UnavailableStorage[] {
    return [...this.failed.values()];
  }

  /** Storages asked for, served or not. */
  get size(): number {
    return this.contexts.size + this.failed.size;
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
