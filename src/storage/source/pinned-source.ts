import type { SourceReader, StorageSource } from './source.js';

/**
 * A source seen through one snapshot's reader: every read, every listing and every snapshot a
 * `Storage` opened on it asks for goes to that reader. Tools that make one pass over a whole state
 * (`check`, `rescue`) open their storage on it inside `source.snapshot`, so that the listing, the
 * logs, the index and the record walk all read the same instant (for PostgreSQL: one REPEATABLE
 * READ transaction) instead of one transaction each.
 *
 * The snapshot belongs to the caller: `close` leaves the source open, and the pinned source must
 * not be used after the snapshot's function returned.
 */
export class PinnedSource implements StorageSource {
  readonly location: string;
  readonly kind: string;

  constructor(
    private readonly source: StorageSource,
    private readonly reader: SourceReader,
  ) {
    this.location = source.location;
    this.kind = source.kind;
  }

  snapshot<T>(fn: (reader: SourceReader) => Promise<T>): Promise<T> {
    return fn(this.reader);
  }

  read(path: string, position: number, length: number): Promise<Buffer> {
    return this.reader.read(path, position, length);
  }

  chunks(path: string, from: number, to: number): AsyncIterable<Uint8Array> {
    return this.reader.chunks(path, from, to);
  }

  readWhole(path: string, limit?: { readonly maxBytes: number; readonly tooLarge: (size: number) => Error }): Promise<Buffer> {
    return this.reader.readWhole(path, limit);
  }

  javaFilePath(folder: string, name: string): string {
    return this.source.javaFilePath(folder, name);
  }

  rootFilePath(name: string): string {
    return this.source.rootFilePath(name);
  }

  forget(path: string): void {
    this.source.forget(path);
  }

  /** The snapshot's owner closes the source. */
  async close(): Promise<void> {}
}
