/** Little builders for MicroStream binary data in unit tests. */

export class ByteBuilder {
  private readonly parts: Uint8Array[] = [];

  get length(): number {
    return this.parts.reduce((n, p) => n + p.length, 0);
  }

  int8(v: number): this {
    return this.push(1, (d) => d.setInt8(0, v));
  }
  int16(v: number): this {
    return this.push(2, (d) => d.setInt16(0, v, true));
  }
  uint16(v: number): this {
    return this.push(2, (d) => d.setUint16(0, v, true));
  }
  int32(v: number): this {
    return this.push(4, (d) => d.setInt32(0, v, true));
  }
  float32(v: number): this {
    return this.push(4, (d) => d.setFloat32(0, v, true));
  }
  int64(v: bigint): this {
    return this.push(8, (d) => d.setBigInt64(0, v, true));
  }
  float64(v: number): this {
    return this.push(8, (d) => d.setFloat64(0, v, true));
  }
  bytes(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
  /** A `[char]` list of the string's UTF-16 code units. */
  chars(text: string): this {
    this.int64(BigInt(16 + 2 * text.length)).int64(BigInt(text.length));
    for (let i = 0; i < text.length; i++) this.uint16(text.charCodeAt(i));
    return this;
  }
  /** A binary list whose elements are already encoded. */
  list(count: number, elements: Uint8Array): this {
    return this.int64(BigInt(16 + elements.length)).int64(BigInt(count)).bytes(elements);
  }
  build(): Uint8Array {
    const out = new Uint8Array(this.length);
    let pos = 0;
    for (const p of this.parts) {
      out.set(p, pos);
      pos += p.length;
    }
    return out;
  }
  private push(size: number, write: (d: DataView) => void): this {
    const b = new Uint8Array(size);
    write(new DataView(b.buffer));
    this.parts.push(b);
    return this;
  }
}

export function bytes(): ByteBuilder {
  return new ByteBuilder();
}

/** One entity record: length, type id, object id, content. */
export function record(typeId: bigint, objectId: bigint, content: Uint8Array): Uint8Array {
  return bytes().int64(BigInt(24 + content.length)).int64(typeId).int64(objectId).bytes(content).build();
}

/** Where the record of `objectId` starts in a data file's bytes (records walked by their lengths). */
export function recordOffset(data: Buffer, objectId: bigint): number {
  let at = 0;
  while (data.readBigInt64LE(at + 16) !== objectId) at += Number(data.readBigInt64LE(at));
  return at;
}
