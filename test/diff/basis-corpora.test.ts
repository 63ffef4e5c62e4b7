import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { expectSameReport, sameState } from '../helpers/corpora/basis-pair.js';

/**
 * Storages written by MicroStream and EclipseStore (every storage of the conformance corpora, 4.2's
 * with chunk checksums among them) as the first storage, a copy of each as the second: unchanged,
 * then with some of its Strings stored again with another text and new ones added by the writer.
 * Each copy is opened on the first storage as its basis, with the whole walk's report and the whole
 * open's state.
 */

let base: string;
let count = 0;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'si-basis-corpora-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const CORPORA = ['conformance', 'conformance-ms8', 'conformance-es', 'conformance-es42', 'conformance-es-gigamap'];

describe('storages written by Java, as the first storage', () => {
  const storages = CORPORA.flatMap((corpus) => {
    const dir = join('test', 'fixtures', corpus, 'storages');
    return readdirSync(dir).map((name) => [`${corpus}/${name}`, join(dir, name)] as const);
  });
  it.each(storages)('%s: a copy, and the copy with Strings changed and added, each taken with the whole walk\'s report', async (_name, fixture) => {
    const copy = join(base, `j${count++}`);
    cpSync(fixture, copy, { recursive: true });
    // Some of its Strings (the first three met in the index), to be stored again with another text.
    const sa = await Storage.open(fixture);
    const strings: bigint[] = [];
    try {
      expect(sa.warnings).toEqual([]);
      const stringType = sa.dictionary.currentByName.get('java.lang.String')!.typeId;
      const ids: bigint[] = [];
      for (const channel of sa.channels) channel.objects.forEach((low, high) => void ids.push((BigInt(high) << 32n) | BigInt(low)));
      for (const id of ids.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))) {
        if (strings.length < 3 && (await sa.readEntity(id))!.typeId === stringType) strings.push(id);
      }
    } finally {
      await sa.close();
    }
    const unchanged = await expectSameReport(fixture, copy, true);
    expect(unchanged.equal).toBe(true);
    expect(await sameState(fixture, copy)).toBe(true);
    const w = await StorageWriter.open(copy);
    const store = w.beginStore();
    const string = w.dictionary.require('java.lang.String');
    for (const id of strings) store.add(string, id, [`changed ${id}`]);
    for (let i = 0; i < 5; i++) store.add(string, w.newObjectId(), [`added ${i}`]);
    w.store(store);
    w.close();
    const report = await expectSameReport(fixture, copy, true);
    expect([report.summary.added, report.summary.changed, report.summary.removed]).toEqual([5, strings.length, 0]);
    expect(await sameState(fixture, copy)).toBe(true);
  });
});
