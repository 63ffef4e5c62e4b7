import type { SourceReads } from './source.js';

/**
 * Chunks of a list of files read one after the other, with the first read of the next file
 * already under way while the current one is walked.
 *
 * A source reads ahead within a file (one chunk while the previous is walked), but a data file is
 * often a single chunk (MicroStream's default file size is 8 MiB): without this, a pass over a
 * storage whose files are not in the page cache waits for every file's read in turn, and the
 * disk and the processor take turns instead of working at the same time.
 */
export interface ReadAheadFile {
  readonly path: string;
  readonly from: number;
  readonly to: number;
}

interface Started {
  readonly iterator: AsyncIterator<Uint8Array>;
  readonly first: Promise<IteratorResult<Uint8Array>>;
}

export class FileReadAhead {
  private readonly started = new Map<number, Started>();

  constructor(
    private readonly reads: Pick<SourceReads, 'chunks'>,
    private readonly files: readonly ReadAheadFile[],
  ) {}

  /** The chunks of file `index`; starts reading file `index + 1`. Files are taken in order. */
  chunks(index: number): AsyncIterable<Uint8Array> {
    const own = this.started.get(index) ?? this.start(index);
    this.started.delete(index);
    if (index + 1 < this.files.length && !this.started.has(index + 1)) this.started.set(index + 1, this.start(index + 1));
    return {
      [Symbol.asyncIterator]: () => {
        let first: Promise<IteratorResult<Uint8Array>> | undefined = own.first;
        return {
          next: () => {
            const result = first ?? own.iterator.next();
            first = undefined;
            return result;
          },
          return: async () => {
            await own.iterator.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  /** Ends the reads started ahead and not taken (the pass stopped early): their files are closed. */
  async close(): Promise<void> {
    const left = [...this.started.values()];
    this.started.clear();
    for (const s of left) {
      await s.first.catch(() => undefined);
      await s.iterator.return?.().catch(() => undefined);
    }
  }

  private start(index: number): Started {
    const file = this.files[index]!;
    const iterator = this.reads.chunks(file.path, file.from, file.to)[Symbol.asyncIterator]();
    const first = iterator.next();
    // A failure is reported when the file is taken, not as an unhandled rejection meanwhile.
    first.catch(() => undefined);
    return { iterator, first };
  }
}
