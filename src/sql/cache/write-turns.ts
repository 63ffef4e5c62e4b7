/**
 * Turns at a database file: any number of writers share it (fills of different tables, each in a
 * DuckDB transaction of its own), or one copier has it alone (built-tables.ts keeping the file
 * between runs): a copier waits for the writers under way, and writers that come meanwhile wait
 * for the copy.
 */
export class WriteTurns {
  private sharing = 0;
  private alone_: Promise<void> | undefined;
  private idle: (() => void)[] = [];

  async shared<T>(work: () => Promise<T>): Promise<T> {
    while (this.alone_ !== undefined) await this.alone_;
    this.sharing++;
    try {
      return await work();
    } finally {
      this.sharing--;
      if (this.sharing === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  async alone<T>(work: () => Promise<T>): Promise<T> {
    while (this.alone_ !== undefined) await this.alone_;
    let done!: () => void;
    this.alone_ = new Promise<void>((resolve) => (done = resolve));
    try {
      while (this.sharing > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
      return await work();
    } finally {
      this.alone_ = undefined;
      done();
    }
  }
}
