import type { BuiltTables } from './built-tables.js';
import type { StorageStateKey } from './cache/table-cache-key.js';
import { tablesOfCurrentState, type StateTablesOptions } from './current-tables.js';

/**
 * The builds of one engine's tables over the storage's life, apart from the statements that use
 * them (sql-engine.ts): the current build, made when first needed and again when the storage has
 * changed (once at a time); a build no statement will use any more retired, its sandbox closed once
 * nothing uses it and its last step is done; the current tables kept in the cache in the
 * background. Whoever uses a build counts itself in `built.active` and calls `release` after.
 */
export class EngineBuilds {
  private built: BuiltTables | undefined;
  private building: Promise<BuiltTables> | undefined;
  private closed = false;
  /** The cache key of `built`'s state, when it may be kept. */
  private builtKey: StorageStateKey | undefined;
  /** Keeping a database in the cache, under way. */
  private keeping: Promise<void> = Promise.resolve();
  /** Per build retired and not closed yet (in use, or its last step under way): told once its sandbox is closed. */
  private readonly closings = new Map<BuiltTables, { readonly closed: Promise<void>; readonly done: () => void }>();

  constructor(
    private readonly options: StateTablesOptions,
    private readonly memoryLimitBytes: number,
  ) {}

  /**
   * The built tables of the storage's current state, built (once at a time) when missing or
   * stale; `statement`, the one they are asked for: a build it starts stages the rows of the
   * types it names as it goes (fills/prestaged-types.ts).
   */
  async current(statement?: string): Promise<BuiltTables> {
    if (this.closed) throw new Error('the SQL engine is closed');
    const storage = this.options.storage;
    // A build whose last step failed (its big numbers not moved into `_values`) is built again.
    if (this.built !== undefined && this.built.generation === storage.generation && this.built.failure === undefined) return this.built;
    this.building ??= this.build(statement).finally(() => (this.building = undefined));
    const built = await this.building;
    // Closed while it was built: the build was retired as it was installed (`install`) and its
    // sandbox is closing. Handed out, a statement failed on its connect ('Failed to connect:
    // instance closed') or was interrupted by the close as if its SQL were wrong.
    if (this.closed) throw new Error('the SQL engine is closed');
    return built;
  }

  private async build(statement: string | undefined): Promise<BuiltTables> {
    const { built, key } = await tablesOfCurrentState(this.options, this.memoryLimitBytes, statement);
    return this.install(built, key);
  }

  private install(fresh: BuiltTables, key: StorageStateKey | undefined): BuiltTables {
    const old = this.built;
    this.built = fresh;
    this.builtKey = key;
    if (old !== undefined) this.retire(old);
    if (this.closed) this.retire(fresh);
    return fresh;
  }

  /** No statement will use `built` any more: its sandbox is closed once nothing does. */
  private retire(built: BuiltTables): void {
    built.retired = true;
    if (!this.closings.has(built)) {
      let done = (): void => undefined;
      const closed = new Promise<void>((resolve) => (done = resolve));
      this.closings.set(built, { closed, done });
    }
    this.release(built);
  }

  /**
   * Keeps the current tables in the cache in the background (after the build, after fills): one
   * copy at a time, never failing a statement (a full disk or an unwritable cache is told to
   * `onProblem` and the tables are used from their private directory as always).
   */
  keep(built: BuiltTables): void {
    const cache = this.options.cache;
    const key = this.builtKey;
    if (cache === undefined || key === undefined || built !== this.built || !built.unkept) return;
    built.active++;
    this.keeping = this.keeping
      .then(() => built.keepIn(cache, key.key, key.directory))
      .then(
        () => undefined,
        (error: unknown) => this.options.onProblem?.(`the SQL tables could not be kept in the cache ${cache.directory}: ${(error as Error).message}`),
      )
      .finally(() => {
        built.active--;
        this.release(built);
      });
  }

  /** Waits for the cache to hold the tables as filled so far. */
  async settle(): Promise<void> {
    if (this.built !== undefined) this.keep(this.built);
    await this.keeping;
  }

  /** Closes a retired build's sandbox once nothing uses it (`built.active` at 0). */
  release(built: BuiltTables): void {
    if (!built.retired || built.active !== 0) return;
    // Closed once the build's last step (its big numbers moved into `_values`) is done, not under it.
    // Told closed once the sandbox's directory is removed: after every connection still open (a
    // fill a cancelled statement left running) is closed by its owner (sandbox.ts `close`).
    const close = (): void => {
      const told = (): void => {
        this.closings.get(built)?.done();
        this.closings.delete(built);
      };
      let closing: Promise<void>;
      try {
        closing = built.sandbox.close();
      } catch (error) {
        told();
        throw error;
      }
      closing.then(told, told);
    };
    if (built.isSettled) close();
    else built.settled().then(close, close);
  }

  /** No build after this; resolves once every build's sandbox is closed (sql-engine.ts `close`). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.built !== undefined) {
      this.retire(this.built);
      this.built = undefined;
    }
    // A build under way is retired as it is installed (`install`).
    await this.building?.catch(() => undefined);
    await Promise.all([...this.closings.values()].map((c) => c.closed));
  }
}
