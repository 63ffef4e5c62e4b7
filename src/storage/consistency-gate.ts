/**
 * Lets requests read while no update is being applied, and updates apply while no request reads:
 * a readers/writer gate. A waiting update holds back new requests, so a steady stream of requests
 * cannot starve a follower; requests already reading finish on the state they started with.
 */
export class ConsistencyGate {
  private readers = 0;
  private writing = false;
  private writerWaiting = false;
  private readonly readerQueue: (() => void)[] = [];
  private readonly writerQueue: (() => void)[] = [];

  /** Runs `fn` as a reader. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.writing || this.writerWaiting) await new Promise<void>((resolve) => this.readerQueue.push(resolve));
    this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      if (this.readers === 0) this.wakeWriter();
    }
  }

  /** Runs `fn` alone: after current readers finish, before new ones start. */
  async write<T>(fn: () => Promise<T>): Promise<T> {
    while (this.writing || this.readers > 0) {
      this.writerWaiting = true;
      await new Promise<void>((resolve) => this.writerQueue.push(resolve));
    }
    this.writing = true;
    this.writerWaiting = false;
    try {
      return await fn();
    } finally {
      this.writing = false;
      if (this.writerQueue.length > 0) this.wakeWriter();
      else this.wakeReaders();
    }
  }

  private wakeWriter(): void {
    const next = this.writerQueue.shift();
    if (next !== undefined) next();
    else if (!this.writing) this.wakeReaders();
  }

  private wakeReaders(): void {
    this.writerWaiting = false;
    for (const resolve of this.readerQueue.splice(0)) resolve();
  }
}
