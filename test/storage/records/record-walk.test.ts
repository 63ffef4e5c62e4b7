import { describe, expect, it } from 'vitest';
import { walkRecordBytes } from '../../../src/storage/records/record-walk.js';
import { ByteBuilder } from '../../helpers/corpora/bytes.js';
import { fileHeaderRecord } from '../../helpers/corpora/eclipsestore-files.js';

/** The whole-record walk sees the same records and problems however a source cuts its chunks. */

function recordBytes(id: number, typeId: number, contentLength: number): Uint8Array {
  const b = new ByteBuilder().int64(BigInt(24 + contentLength)).int64(BigInt(typeId)).int64(1000000000000000000n + BigInt(id));
  for (let i = 0; i < contentLength; i++) b.int8((id + i) & 0x7f);
  return b.build();
}

function gap(length: number): Uint8Array {
  const b = new ByteBuilder().int64(BigInt(-length));
  for (let i = 8; i < length; i++) b.int8(0x55);
  return b.build();
}

function file(...parts: Uint8Array[]): Uint8Array {
  const b = new ByteBuilder();
  for (const p of parts) b.bytes(p);
  return b.build();
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  // A reused buffer, like a source's: a chunk is only valid until the next one is asked for.
  const buffer = new Uint8Array(size);
  for (let at = 0; at < bytes.length; at += size) {
    const n = Math.min(size, bytes.length - at);
    buffer.set(bytes.subarray(at, at + n));
    yield buffer.subarray(0, n);
  }
}

async function walk(bytes: Uint8Array, chunk: number, length = bytes.length) {
  const seen: string[] = [];
  const problem = await walkRecordBytes(chunked(bytes.subarray(0, Math.min(length, bytes.length)), chunk), length, (view, at, offset, len, tl, _th, il) => {
    let sum = 0;
    for (let i = 24; i < len; i++) sum += view.getUint8(at + i);
    seen.push(`${offset}:${len}:${tl}:${il}:${sum}`);
  });
  return { seen, problem };
}

const SIZES = [1, 3, 7, 8, 13, 24, 25, 64, 100, 1000, 1 << 20];

describe('record walk over chunks', () => {
  const bytes = file(fileHeaderRecord(), recordBytes(1, 30, 10), gap(9), recordBytes(2, 31, 0), recordBytes(3, 30, 300), gap(40), recordBytes(4, 32, 5));

  it('gives the same records for every chunk size, skipping gaps and meta records', async () => {
    const whole = await walk(bytes, bytes.length);
    expect(whole.problem).toBeUndefined();
    expect(whole.seen).toHaveLength(4);
    for (const size of SIZES) expect(await walk(bytes, size), `chunks of ${size}`).toEqual(whole);
  });

  it('reports the same problem for every chunk size', async () => {
    const damaged = file(recordBytes(1, 30, 10), new ByteBuilder().int64(5n).build(), recordBytes(2, 30, 4));
    for (const size of SIZES) {
      expect(await walk(damaged, size), `chunks of ${size}`).toEqual({ seen: [expect.stringMatching(/^0:34:/)], problem: { offset: 34, message: 'invalid record length 5' } });
    }
    // The source ends inside a record that the committed length includes.
    const cut = recordBytes(1, 30, 50).subarray(0, 40);
    for (const size of SIZES) {
      const result = await walk(cut, size, 74);
      expect(result.seen, `chunks of ${size}`).toEqual([]);
      expect(result.problem?.offset).toBe(0);
    }
  });

  it('stops at the committed length, whatever lies after it in the chunk', async () => {
    const records = [recordBytes(1, 30, 10), recordBytes(2, 31, 0), recordBytes(3, 30, 300), recordBytes(4, 32, 5)];
    const bytes = file(...records);
    const afterTwo = records[0]!.length + records[1]!.length;
    for (const size of SIZES) {
      // The chunks hold all the bytes; the committed length ends after the second record, then inside the third.
      const chunks = async (length: number) => {
        const seen: string[] = [];
        const problem = await walkRecordBytes(chunked(bytes, size), length, (_view, _at, offset, len) => void seen.push(`${offset}:${len}`));
        return { seen, problem };
      };
      expect(await chunks(afterTwo), `chunks of ${size}`).toEqual({ seen: ['0:34', '34:24'], problem: undefined });
      expect(await chunks(afterTwo + 100), `chunks of ${size}`).toEqual({
        seen: ['0:34', '34:24'],
        problem: { offset: afterTwo, message: `record of 324 bytes runs past the committed length ${afterTwo + 100}` },
      });
    }
  });
});

