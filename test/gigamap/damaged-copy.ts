import { closeSync, cpSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecord } from '../../src/gigamap/record-fields.js';
import { Storage } from '../../src/storage/storage.js';
import { GIGAMAP_STORAGE } from './gigamap-corpus.js';

/** Copies of the GigaMap corpus storage with bytes changed on purpose (the vendored one is never written). */

const copies: string[] = [];

export function removeCopies(): void {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Patch {
  readonly file: string;
  readonly offset: number;
  readonly bytes: Buffer;
}

/** A copy of the corpus storage with the patches `damage` computes from it applied. */
export async function damagedCopy(damage: (storage: Storage) => Promise<Patch[]>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'gigamap-damaged-'));
  copies.push(dir);
  cpSync(GIGAMAP_STORAGE, dir, { recursive: true });
  const storage = await Storage.open(dir);
  let patches: Patch[];
  try {
    patches = await damage(storage);
  } finally {
    await storage.close();
  }
  for (const p of patches) {
    const fd = openSync(p.file.startsWith('/') ? p.file : join(dir, p.file), 'r+');
    writeSync(fd, p.bytes, 0, p.bytes.length, p.offset);
    closeSync(fd);
  }
  return dir;
}

export function long(value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(value);
  return b;
}

/** Where member `name` of a record sits in its file (fixed members), or element `i` of a one-reference list. */
export async function placeOf(storage: Storage, objectId: bigint, name: string, element?: number): Promise<{ file: string; offset: number }> {
  const record = (await readRecord(storage, objectId))!;
  const slot = record.layout.slots.find((s) => s.field.name === name)!;
  const within = slot.variable ? slot.elementsOffset + 8 * (element ?? 0) : slot.offset;
  return { file: record.file, offset: record.contentOffset + within };
}

