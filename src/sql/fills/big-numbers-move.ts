import type { DuckDBConnection } from '@duckdb/node-api';
import type { BigNumbersApart } from './table-build.js';

/**
 * A build's big numbers kept apart from `_values` (table-build.ts `BigNumbersApart`) and their
 * one move into it, once something needs `_values` whole (../built-tables.ts). Type fills that
 * join the big numbers where they are (`readApart`) are waited for before the move, which drops
 * their catalog; a fill that starts once the move is asked for waits for the move instead.
 */
export class BigNumbersMove {
  /** The build's big numbers apart from `_values`, until the move is asked for. */
  private apart: BigNumbersApart | undefined;
  /** Type fills joining `apart.values` now. */
  private readonly readingApart = new Set<Promise<unknown>>();
  /** The big numbers on their way into `_values`, once something needed `_values` whole. */
  private moved: Promise<void> | undefined;
  /** Whether `moved` has settled. */
  private done = false;
  /** Why the move failed (DuckDB out of memory, a full disk): the build is broken, the engine builds again. */
  private failed: Error | undefined;

  constructor(
    /** A connection of its own to the build's database. */
    private readonly connect: () => Promise<DuckDBConnection>,
    /** The private directory, whose path a failure's message must not show. */
    private readonly privateDirectory: string,
  ) {}

  /** The build's big numbers, staged apart (open-built-tables.ts). */
  keepApart(apart: BigNumbersApart): void {
    this.apart = apart;
  }

  /**
   * Resolves once `_values` holds every row of the build: the big numbers still apart are moved
   * in now (once, on a connection of their own, after the type fills that read them apart), then
   * written out. What reads `_values` (a statement naming it or a value type's view, the other
   * fills) or copies the database (the cache) asks for this first; a statement on type tables
   * alone does not, and a command that ends after it never pays the move.
   */
  complete(): Promise<void> {
    if (this.moved !== undefined) return this.moved;
    const apart = this.apart;
    if (apart === undefined) return Promise.resolve();
    const move = (async (): Promise<void> => {
      await Promise.allSettled([...this.readingApart]);
      const connection = await this.connect();
      try {
        await apart.move(connection);
        // Written out, unless a statement's transaction holds that off (DuckDB checkpoints later by itself).
        await connection.run('CHECKPOINT').catch(() => undefined);
      } finally {
        connection.closeSync();
      }
    })();
    this.moved = move;
    // Told to whoever waits for it (a statement, `settled`); not an unhandled rejection meanwhile.
    move.then(
      () => (this.done = true),
      (error: unknown) => {
        this.done = true;
        // DuckDB's message may name a file of the private directory (a full disk): never its path.
        const reason = (error instanceof Error ? error.message : String(error)).replaceAll(this.privateDirectory, '<sql-tables>');
        this.failed = new Error(`the SQL tables could not be built: ${reason}`);
      },
    );
    return move;
  }

  /**
   * `read` given the big numbers' table where they are, counted as reading them (the move waits
   * for it); undefined, and `read` not called, once the move is asked for or when none are apart.
   */
  readApart<T>(read: (values: string) => Promise<T>): Promise<T> | undefined {
    const apart = this.moved === undefined ? this.apart : undefined;
    if (apart === undefined) return undefined;
    const reading = read(apart.values);
    this.readingApart.add(reading);
    return reading.finally(() => this.readingApart.delete(reading));
  }

  /** Why the move failed, if it did: the build's `_values` lacks the big numbers. */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** Whether no move is under way. */
  get isSettled(): boolean {
    return this.moved === undefined || this.done;
  }

  /** Resolves once a move under way is done; one not asked for is not started. */
  settled(): Promise<void> {
    return this.moved ?? Promise.resolve();
  }
}
