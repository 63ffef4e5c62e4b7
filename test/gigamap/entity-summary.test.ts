import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeEntity } from '../../src/gigamap/entity-summary.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';

/**
 * The one-line entity summary (entity-summary.ts) where it cuts, on a tiny storage written here:
 * a referenced String of 60 characters shown whole and of 61 cut to 60 with an ellipsis; a
 * summary of exactly 200 characters whole and of 201 cut to 200; the members left out once 200
 * characters are reached; a String's own characters, a list by its length, null and other
 * references. Each expected line is spelled out from the values written.
 */

let work: string;
let storage: Storage;
const ids = new Map<string, bigint>();
const id = (name: string): bigint => ids.get(name)!;
const x = (n: number): string => 'x'.repeat(n);
const y = (n: number): string => 'y'.repeat(n);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'entity-summary-'));
  const dir = join(work, 'storage');
  const writer = StorageWriter.create(dir, { now: () => 1_700_000_000_000 });
  const string = writer.dictionary.require('java.lang.String');
  const bytes = writer.dictionary.require('[B');
  const note = writer.defineType('t.Note', reflectiveMembers('t.Note', [{ name: 'text', type: 'java.lang.String' }, { name: 'other', type: 'java.lang.Object' }, { name: 'n', type: 'int' }]));
  const fields = ['first', 'second', 'third', 'fourth'].map((name) => ({ name, type: 'java.lang.String' }));
  const wide = writer.defineType('t.Wide', reflectiveMembers('t.Wide', fields));
  const store = writer.beginStore();
  const add = (name: string, entry: typeof string, values: Parameters<typeof store.add>[2]): void => {
    const objectId = writer.newObjectId();
    ids.set(name, objectId);
    store.add(entry, objectId, values);
  };
  for (const [name, text] of [
    ['s0', ''],
    ['s1', 'y'],
    ['s42', y(42)],
    ['s51', x(51)],
    ['s60', x(60)],
    ['s61', x(60) + 'z'],
    ['s300', x(300)],
    ['graz', 'Graz'],
  ] as const) {
    add(name, string, [text]);
  }
  add('bytes', bytes, [Uint8Array.from([1, 2, 3])]);
  add('sixty', note, [id('s60'), id('bytes'), 5]);
  add('sixtyOne', note, [id('s61'), null, -1]);
  add('nulls', note, [null, id('sixty'), 0]);
  // "Wide{first=" … : 28 characters of names and separators for three members, 38 with the fourth and "}".
  add('exactly200', wide, [id('s60'), id('s60'), id('s42'), id('s0')]);
  add('just201', wide, [id('s60'), id('s60'), id('s42'), id('s1')]);
  add('full199', wide, [id('s60'), id('s60'), id('s51'), id('graz')]);
  writer.store(store);
  writer.close();
  storage = await Storage.open(dir);
});

afterAll(async () => {
  await storage?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('references in a summary', () => {
  it('a String of 60 characters whole, of 61 cut to its first 60 and an ellipsis', async () => {
    expect(await summarizeEntity(storage, id('sixty'))).toEqual({ typeName: 't.Note', summary: `Note{text=${x(60)}, other=[B@${id('bytes')}, n=5}` });
    expect(await summarizeEntity(storage, id('sixtyOne'))).toEqual({ typeName: 't.Note', summary: `Note{text=${x(60)}…, other=null, n=-1}` });
  });

  it('a null reference as null, an entity as its type and object id', async () => {
    expect(await summarizeEntity(storage, id('nulls'))).toEqual({ typeName: 't.Note', summary: `Note{text=null, other=t.Note@${id('sixty')}, n=0}` });
  });
});

describe('variable-length members', () => {
  it('a String’s own characters (at most 200 read), a list by its length', async () => {
    expect(await summarizeEntity(storage, id('graz'))).toEqual({ typeName: 'java.lang.String', summary: 'String{value=Graz}' });
    expect(await summarizeEntity(storage, id('s0'))).toEqual({ typeName: 'java.lang.String', summary: 'String{value=}' });
    expect(await summarizeEntity(storage, id('s300'))).toEqual({ typeName: 'java.lang.String', summary: `String{value=${x(187)}…` });
    expect(await summarizeEntity(storage, id('bytes'))).toEqual({ typeName: '[B', summary: '[B{elements=[3]}' });
  });
});

describe('the cut at 200 characters', () => {
  it('a summary of exactly 200 characters is whole; of 201, cut to 200 with an ellipsis', async () => {
    const exactly = `Wide{first=${x(60)}, second=${x(60)}, third=${y(42)}, fourth=}`;
    expect(exactly.length).toBe(200);
    expect(await summarizeEntity(storage, id('exactly200'))).toEqual({ typeName: 't.Wide', summary: exactly });
    const longer = `Wide{first=${x(60)}, second=${x(60)}, third=${y(42)}, fourth=y}`;
    expect(longer.length).toBe(201);
    expect(await summarizeEntity(storage, id('just201'))).toEqual({ typeName: 't.Wide', summary: `${longer.slice(0, 200)}…` });
  });

  it('members after 199 characters still count: the next separator reaches 200 and the line is cut there', async () => {
    const prefix = `Wide{first=${x(60)}, second=${x(60)}, third=${x(51)}`;
    expect(prefix.length).toBe(199);
    expect(await summarizeEntity(storage, id('full199'))).toEqual({ typeName: 't.Wide', summary: `${prefix},…` });
  });
});
