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

  /**
   * Runs `fn` as a reader. Every request of a served storage passes here: without an update
   * waiting, it costs one promise (an async function with try/finally cost two and a turn).
   */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.writing || this.writerWaiting ? this.readLater(fn) : this.readNow(fn);
  }

  private readNow<T>(fn: () => Promise<T>): Promise<T> {
    this.readers++;
    let running: Promise<T>;
    try {
      running = fn();
    } catch (error) {
      this.readDone();
      return Promise.reject(error);
    }
    return running.then(
      (value) => {
        this.readDone();
        return value;
      },
      (error: unknown) => {
        this.readDone();
        throw error;
      },
    );
  }

  private async readLater<T>(fn: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => this.readerQueue.push(resolve));
    return this.readNow(fn);
  }

  private readDone(): void {
    this.readers--;
    if (this.readers === 0) this.wakeWriter();
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
