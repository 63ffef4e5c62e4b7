/**
 * The parts of a Parquet file that are not values (parquet-rows.ts writes those): the columns'
 * declarations, the page headers and the footer (FileMetaData), in Thrift's compact protocol,
 * written by the few functions below; only the fields parquet-rows.ts needs.
 */

const UTF8 = new TextEncoder();

export type ParquetColumnType = 'int64' | 'int32' | 'text';

export interface ParquetColumn {
  readonly name: string;
  readonly type: ParquetColumnType;
  /** OPTIONAL (NULLs allowed) or REQUIRED. */
  readonly nullable: boolean;
  /**
   * Texts of few distinct values (member names): a dictionary page per row group and the rows'
   * indices into it as runs (RLE_DICTIONARY), a few bytes a run instead of the text per row.
   */
  readonly dictionary?: boolean;
}

export interface ChunkMeta {
  /** The column chunk's first page: its dictionary page, if it has one. */
  readonly offset: number;
  readonly dataOffset: number;
  readonly dictionary: boolean;
  readonly bytes: number;
  readonly values: number;
}

export interface RowGroupMeta {
  readonly rows: number;
  readonly bytes: number;
}

const T_I32 = 5;
const T_I64 = 6;
const T_BINARY = 8;
const T_LIST = 9;
const T_STRUCT = 12;

/** Bytes of a Thrift struct, field by field (ids ascending). */
class Compact {
  private readonly bytes: number[] = [];
  private last: number[] = [0];

  private field(id: number, type: number): void {
    const delta = id - this.last[this.last.length - 1]!;
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type);
    else {
      this.bytes.push(type);
      this.varint(zigzag(id));
    }
    this.last[this.last.length - 1] = id;
  }
  private varint(value: number): void {
    // Non-negative safe integers: what sizes, offsets and counts are.
    let v = value;
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
  }
  i32(id: number, value: number): this {
    this.field(id, T_I32);
    this.varint(zigzag(value));
    return this;
  }
  i64(id: number, value: number): this {
    this.field(id, T_I64);
    this.varint(zigzag(value));
    return this;
  }
  string(id: number, value: string): this {
    this.field(id, T_BINARY);
    this.binary(value);
    return this;
  }
  private binary(value: string): void {
    const bytes = UTF8.encode(value);
    this.varint(bytes.length);
    for (const b of bytes) this.bytes.push(b);
  }
  struct(id: number, body: (c: this) => void): this {
    this.field(id, T_STRUCT);
    this.last.push(0);
    body(this);
    this.bytes.push(0);
    this.last.pop();
    return this;
  }
  private listHeader(id: number, type: number, size: number): void {
    this.field(id, T_LIST);
    if (size < 15) this.bytes.push((size << 4) | type);
    else {
      this.bytes.push(0xf0 | type);
      this.varint(size);
    }
  }
  i32List(id: number, values: readonly number[]): this {
    this.listHeader(id, T_I32, values.length);
    for (const v of values) this.varint(zigzag(v));
    return this;
  }
  stringList(id: number, values: readonly string[]): this {
    this.listHeader(id, T_BINARY, values.length);
    for (const v of values) this.binary(v);
    return this;
  }
  structList<T>(id: number, items: readonly T[], body: (c: this, item: T) => void): this {
    this.listHeader(id, T_STRUCT, items.length);
    for (const item of items) {
      this.last.push(0);
      body(this, item);
      this.bytes.push(0);
      this.last.pop();
    }
    return this;
  }
  /** Fields written only when `yes`. */
  if(yes: boolean, body: (c: this) => void): this {
    if (yes) body(this);
    return this;
  }
  /** The struct's stop byte; the bytes. */
  end(): Uint8Array {
    this.bytes.push(0);
    return Uint8Array.from(this.bytes);
  }
}

function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

export function varint(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

// parquet.thrift: Type, Encoding, FieldRepetitionType, ConvertedType, CompressionCodec, PageType.
const TYPE = { int32: 1, int64: 2, text: 6 } as const;
export const PLAIN = 0;
export const RLE_DICTIONARY = 8;
const DICTIONARY_PAGE = 2;
const RLE = 3;
const REQUIRED = 0;
const OPTIONAL = 1;
const UTF8_CONVERTED = 0;
const UNCOMPRESSED = 0;
const DATA_PAGE = 0;

export function pageHeader(rows: number, size: number, encoding: number): Uint8Array {
  return new Compact()
    .i32(1, DATA_PAGE)
    .i32(2, size)
    .i32(3, size)
    .struct(5, (c) => c.i32(1, rows).i32(2, encoding).i32(3, RLE).i32(4, RLE))
    .end();
}

export function dictionaryPageHeader(entries: number, size: number): Uint8Array {
  return new Compact()
    .i32(1, DICTIONARY_PAGE)
    .i32(2, size)
    .i32(3, size)
    .struct(7, (c) => c.i32(1, entries).i32(2, PLAIN))
    .end();
}

export function fileMetaData(columns: readonly { readonly spec: ParquetColumn; readonly chunks: readonly ChunkMeta[] }[], groups: readonly RowGroupMeta[], rows: number): Uint8Array {
  const schema: (ParquetColumn | undefined)[] = [undefined, ...columns.map((c) => c.spec)];
  return new Compact()
    .i32(1, 1)
    .structList(2, schema, (c, spec) => {
      if (spec === undefined) c.string(4, 'schema').i32(5, columns.length);
      else {
        c.i32(1, TYPE[spec.type]).i32(3, spec.nullable ? OPTIONAL : REQUIRED).string(4, spec.name);
        if (spec.type === 'text') c.i32(6, UTF8_CONVERTED).struct(10, (l) => l.struct(1, () => undefined));
      }
    })
    .i64(3, rows)
    .structList(4, groups.map((g, i) => ({ g, i })), (c, { g, i }) => {
      c.structList(1, columns, (cc, column) => {
        const chunk = column.chunks[i]!;
        cc.i64(2, chunk.offset).struct(3, (m) =>
          m
            .i32(1, TYPE[column.spec.type])
            .i32List(2, [PLAIN, RLE, ...(chunk.dictionary ? [RLE_DICTIONARY] : [])])
            .stringList(3, [column.spec.name])
            .i32(4, UNCOMPRESSED)
            .i64(5, chunk.values)
            .i64(6, chunk.bytes)
            .i64(7, chunk.bytes)
            .i64(9, chunk.dataOffset)
            .if(chunk.dictionary, (d) => d.i64(11, chunk.offset)),
        );
      });
      c.i64(2, g.bytes).i64(3, g.rows);
    })
    .string(6, 'storage-inspector')
    .end();
}
