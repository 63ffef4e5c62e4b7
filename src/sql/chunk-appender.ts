import type { DuckDBAppender, DuckDBDataChunk, DuckDBValue, DuckDBDateValue, DuckDBTimestampValue, DuckDBTimeValue, DuckDBType, DuckDBVector } from '@duckdb/node-api';
import type { DuckModule } from './duck-module.js';

/**
 * Rows into a DuckDB table a data chunk (2,048 rows) at a time, with the call shape of DuckDB's
 * appender (`appendBigInt`, ..., `endRow`). Why: the appender costs one native call per value and
 * one per row, half the table build's CPU; a chunk's numeric columns are written into typed arrays
 * over the vector's memory (no native call) and handed over with one call per column and chunk.
 * Text and blob columns still cost one native call per value, when the chunk is handed over.
 */
/** Chunks handed over between two flushes of the appender (64 × 2,048 rows). */
const HELD_CHUNKS = 64;

export class ChunkAppender {
  private readonly types: readonly DuckDBType[];
  /** DuckDB's vector size: the most rows a chunk holds. */
  private readonly capacity = 2048;
  private chunk: DuckDBDataChunk;
  private vectors: DuckDBVector[];
  private row = 0;
  private column = 0;
  private readonly handedOver: DuckDBDataChunk[] = [];

  constructor(
    private readonly duck: DuckModule,
    private readonly appender: DuckDBAppender,
  ) {
    const types: DuckDBType[] = [];
    for (let i = 0; i < appender.columnCount; i++) types.push(appender.columnType(i));
    this.types = types;
    [this.chunk, this.vectors] = this.fresh();
  }

  private fresh(): [DuckDBDataChunk, DuckDBVector[]] {
    const chunk = this.duck.DuckDBDataChunk.create(this.types, this.capacity);
    const vectors: DuckDBVector[] = [];
    for (let i = 0; i < this.types.length; i++) vectors.push(chunk.getColumnVector(i));
    return [chunk, vectors];
  }

  private set(value: unknown): void {
    (this.vectors[this.column++] as DuckDBVector<DuckDBValue>).setItem(this.row, value as DuckDBValue);
  }

  appendNull(): void {
    this.set(null);
  }
  appendBigInt(value: bigint): void {
    this.set(value);
  }
  appendInteger(value: number): void {
    this.set(value);
  }
  appendSmallInt(value: number): void {
    this.set(value);
  }
  appendTinyInt(value: number): void {
    this.set(value);
  }
  appendFloat(value: number): void {
    this.set(value);
  }
  appendDouble(value: number): void {
    this.set(value);
  }
  appendBoolean(value: boolean): void {
    this.set(value);
  }
  appendVarchar(value: string): void {
    this.set(value);
  }
  appendBlob(value: Uint8Array): void {
    this.set(this.duck.blobValue(value));
  }
  appendTimestamp(value: DuckDBTimestampValue): void {
    this.set(value);
  }
  appendDate(value: DuckDBDateValue): void {
    this.set(value);
  }
  appendTime(value: DuckDBTimeValue): void {
    this.set(value);
  }

  endRow(): void {
    if (this.column !== this.types.length) throw new Error(`a row of ${this.column} values for a table of ${this.types.length} columns`);
    this.column = 0;
    if (++this.row === this.capacity) this.flush();
  }

  /** Hands the rows so far over to DuckDB. */
  flush(): void {
    if (this.row === 0) return;
    for (const vector of this.vectors) vector.flush();
    if (this.row < this.capacity) this.chunk.rowCount = this.row;
    this.appender.appendDataChunk(this.chunk);
    // A chunk's memory is freed when JS collects it; it is kept until the appender has written
    // what it holds into the table, so that nothing the appender still points at goes first.
    this.handedOver.push(this.chunk);
    if (this.handedOver.length >= HELD_CHUNKS) this.writeOut();
    this.row = 0;
    [this.chunk, this.vectors] = this.fresh();
  }

  private writeOut(): void {
    this.appender.flushSync();
    this.handedOver.length = 0;
  }

  closeSync(): void {
    this.flush();
    this.appender.closeSync();
    this.handedOver.length = 0;
  }
}
