/**
 * One statement at a time on one database connection: a snapshot's reads (PostgreSQL here, SQLite
 * and MariaDB in storage/sql-tables) are queued in the order they were asked, since a connection
 * runs one statement at a time and a stream holds it until it has ended.
 */
export class StatementTurns {
  private last: Promise<void> = Promise.resolve();

  /** Runs fn once the statements before it are done. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.turn();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Waits for the statements before; the function returned lets the next one go. */
  async turn(): Promise<() => void> {
    const before = this.last;
    let release!: () => void;
    this.last = new Promise<void>((resolve) => (release = resolve));
    await before;
    return release;
  }
}
