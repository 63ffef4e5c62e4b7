import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertStorage } from '../../src/convert/convert-storage.js';
import { mapShape, planCurrentShapes, ShapeRewriter, type ShapeMapping } from '../../src/convert/current-shapes.js';
import { allMemberValues, layoutEntity, type MemberValue } from '../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * `convert --current-types`: objects stored in an older definition of their type are written in
 * the newest one where every member maps by name and declared type (values by name unchanged, new
 * members at their defaults), and kept and listed where the library's legacy mapping could pair
 * members otherwise. The real library on such a result: java-starts-on-convert.test.ts.
 */

let work: string;
let generated: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-current-types-'));
  generated = join(work, 'generated');
  // gen.Book is defined again halfway (int pages → long pages, + attributes, + score); some v1 books are never stored again.
  generateStorage({ directory: generated, entities: 2000, channelCount: 2, seed: 9, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, updateRatio: 0.3 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const dictionary = (members: string): ReturnType<typeof parseTypeDictionary> =>
  parseTypeDictionary(`0000000000001000100 x.A{\n${members.split('|')[0]}}\n0000000000001000101 x.A{\n${members.split('|')[1]}}\n`);

describe('which older definitions map', () => {
  it('same name and type copies, a lossless widening converts, a new member gets its default, a dropped member without a rival goes', () => {
    const d = dictionary('\tjava.lang.String x.A#name,\n\tint x.A#count,\n\tchar x.A#code,\n|\tjava.lang.String x.A#name,\n\tlong x.A#count,\n\tjava.util.Date x.A#born,\n');
    const plan = planCurrentShapes(d);
    expect([...plan.ambiguous.keys()]).toEqual([]);
    const mapping = plan.mappings.get(1000100n)!;
    expect(mapping.to.typeId).toBe(1000101n);
    // A record of the older definition: name → 7, count = -5, code = 'Z'.
    const record = Buffer.alloc(24 + 8 + 4 + 2);
    record.writeBigInt64LE(BigInt(record.length), 0);
    record.writeBigInt64LE(1000100n, 8);
    record.writeBigInt64LE(1000000000000000077n, 16);
    record.writeBigInt64LE(7n, 24);
    record.writeInt32LE(-5, 32);
    record.writeUInt16LE(0x5a, 36);
    const out = Buffer.from(new ShapeRewriter().rewrite(mapping, record));
    expect(out.length).toBe(24 + 8 + 8 + 8);
    expect([out.readBigInt64LE(0), out.readBigInt64LE(8), out.readBigInt64LE(16)]).toEqual([48n, 1000101n, 1000000000000000077n]);
    expect([out.readBigInt64LE(24), out.readBigInt64LE(32), out.readBigInt64LE(40)]).toEqual([7n, -5n, 0n]);
  });

  it('a dropped member and a new one of the same declared type are ambiguous (the library pairs them by similarity)', () => {
    const d = dictionary('\tjava.lang.String x.A#name,\n\tjava.lang.String x.A#color,\n|\tjava.lang.String x.A#name,\n\tjava.lang.String x.A#label,\n');
    expect(planCurrentShapes(d).ambiguous.get(1000100n)?.reason).toBe(
      'the library could pair the dropped member x.A#color (java.lang.String) with the new member x.A#label (java.lang.String) by similarity, not by name',
    );
  });

  it('a retyped member that is not a lossless widening is ambiguous; so is a widening with a rival of exactly the new type', () => {
    expect(mapShape(...entries(dictionary('\tint x.A#count,\n|\tjava.lang.String x.A#count,\n')))).toBe('member x.A#count changes its declared type from int to java.lang.String');
    expect(mapShape(...entries(dictionary('\tlong x.A#count,\n|\tint x.A#count,\n')))).toBe('member x.A#count changes its declared type from long to int');
    expect(mapShape(...entries(dictionary('\tint x.A#count,\n\tlong x.A#total,\n|\tlong x.A#count,\n')))).toBe(
      'x.A#count widens from int to long, and the library could pair x.A#total (long) with it by similarity instead',
    );
    expect(typeof mapShape(...entries(dictionary('\tint x.A#count,\n|\tlong x.A#count,\n')))).toBe('object');
  });

  it('the evolution corpus: Gadget\'s first shape keeps its shape (color and label are both Strings), with the reason', async () => {
      const out = join(work, 'evolution');
      const report = await convertStorage(join(CONFORMANCE_DIR, 'storages', 'evolution'), { out, currentTypes: true });
      expect(report.currentTypes).toEqual({
        objects: 0,
        rewritten: [],
        kept: [
          {
            typeName: 'conformance.evolution.Gadget',
            typeId: '1000066',
            newestTypeId: '1000067',
            // ...036 is unreachable and left out as garbage.
            objects: 2,
            objectIds: ['1000000000000000034', '1000000000000000035'],
            reason: 'the library could pair the dropped member conformance.evolution.Gadget#color (java.lang.String) with the new member conformance.evolution.Gadget#label (java.lang.String) by similarity, not by name',
          },
        ],
      });
      const converted = await Storage.open(out);
      try {
        expect((await converted.readEntity(1000000000000000034n))?.typeId).toBe(1000066n);
      } finally {
        await converted.close();
      }
  });
});

function entries(d: ReturnType<typeof parseTypeDictionary>): [ShapeMapping['from'], ShapeMapping['to']] {
  return [d.byId.get(1000100n)!, d.byId.get(1000101n)!];
}

/** Member values of an entity by field name. */
function byName(storageEntry: ShapeMapping['from'], content: Uint8Array): Map<string, MemberValue> {
  const layout = layoutEntity(storageEntry, content);
  const values = allMemberValues(layout);
  return new Map(layout.slots.map((s, i) => [s.field.name, values[i]!] as const));
}

describe('a generated storage with gen.Book in two shapes', () => {
  it('every v1 book is written as v2 with its values by name, new members at their defaults; without the option none is', async () => {
    const source = await Storage.open(generated);
    const out = join(work, 'generated-current');
    const plain = join(work, 'generated-plain');
    const report = await convertStorage(generated, { out, currentTypes: true });
    await convertStorage(generated, { out: plain });
    const converted = await Storage.open(out);
    const unchanged = await Storage.open(plain);
    try {
      const v1 = source.dictionary.entries.find((e) => e.typeName === 'gen.Book' && e.fields.some((f) => f.name === 'pages' && f.typeName === 'int'))!;
      const v2 = source.dictionary.currentByName.get('gen.Book')!;
      expect(v2.typeId).not.toBe(v1.typeId);
      const books: bigint[] = [];
      for (const channel of converted.channels) {
        channel.objects.forEach((low, high) => books.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
      }
      let rewritten = 0;
      for (const id of books) {
        const before = (await source.readEntity(id))!;
        if (before.typeId !== v1.typeId) continue;
        rewritten++;
        const after = (await converted.readEntity(id))!;
        expect(after.typeId).toBe(v2.typeId);
        expect((await unchanged.readEntity(id))!.typeId).toBe(v1.typeId);
        const old = byName(v1, before.content);
        const now = byName(v2, after.content);
        for (const [name, value] of old) expect([name, now.get(name)]).toEqual([name, value]);
        expect([now.get('attributes'), now.get('score')]).toEqual([0n, '0.0']);
      }
      expect(rewritten).toBeGreaterThan(10);
      expect(report.currentTypes).toEqual({ objects: rewritten, rewritten: [{ typeName: 'gen.Book', fromTypeId: String(v1.typeId), toTypeId: String(v2.typeId), objects: rewritten }], kept: [] });
      // The older definition is no longer used: the new dictionary leaves it out.
      expect(converted.dictionary.byId.has(v1.typeId)).toBe(false);
      expect(converted.dictionary.byId.has(v2.typeId)).toBe(true);
    } finally {
      await source.close();
      await converted.close();
      await unchanged.close();
    }
  });
});
