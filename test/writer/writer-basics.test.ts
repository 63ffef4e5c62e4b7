import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleTypeEntry } from '../../src/format/dictionary-text.js';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { Storage } from '../../src/storage/storage.js';
import { ByteSink } from '../../src/writer/byte-sink.js';
import { encodeRecord } from '../../src/writer/entity-encoder.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { enumMembers, makeTypeEntry, reflectiveMembers } from '../../src/writer/type-definitions.js';
import { WriterDictionary } from '../../src/writer/writer-dictionary.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { get, objectIds } from './storage-checks.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const NOROOT = join(CONFORMANCE_DIR, 'storages', 'noroot');

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'writer-basics-'));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function record(entry: Parameters<typeof encodeRecord>[1], id: bigint, values: Parameters<typeof encodeRecord>[3]): Buffer {
  const sink = new ByteSink(16);
  encodeRecord(sink, entry, id, values);
  return Buffer.from(sink.bytes());
}

describe('encodeRecord', () => {
  const dictionary = WriterDictionary.base();

  it('writes the Integer example of §5.1', () => {
    expect(record(dictionary.require('java.lang.Integer'), 1000000000000000046n, [1000])).toEqual(
      hex('1c00000000000000 0f00000000000000 2e0064a7b3b6e00d e8030000'),
    );
  });

  it('writes strings as char lists and primitive arrays as element lists (§8.1, §8.3)', () => {
    const string = record(dictionary.require('java.lang.String'), 1n, ['Hello World']).subarray(24);
    expect(string.subarray(0, 20)).toEqual(hex('2600000000000000 0b00000000000000 4800 6500'));
    const ints = record(dictionary.require('[I'), 1n, [Int32Array.of(1, 2, 3, 4, 5)]).subarray(24);
    expect(ints).toEqual(hex('2400000000000000 0500000000000000 01000000 02000000 03000000 04000000 05000000'));
    // Plain arrays give the same bytes as typed arrays.
    expect(record(dictionary.require('[I'), 1n, [[1, 2, 3, 4, 5]]).subarray(24)).toEqual(ints);
    const map = record(dictionary.require('java.util.HashMap'), 1n, [[[2n, 3n], [4n, null]]]).subarray(24);
    expect(map).toEqual(hex('3000000000000000 0200000000000000 0200000000000000 0300000000000000 0400000000000000 0000000000000000'));
  });

  it('lays out a reflective class like the §7.3/§8.2 example, in text and bytes', () => {
    const members = reflectiveMembers('exp.Gen$Derived', [
      { name: 'baseStr', type: 'java.lang.String', declaredBy: 'exp.Gen$Base' },
      { name: 'baseInt', type: 'int', declaredBy: 'exp.Gen$Base' },
      { name: 'baseLong', type: 'long', declaredBy: 'exp.Gen$Base' },
      { name: 'dRef', type: 'java.lang.Object' },
      { name: 'dByte', type: 'byte' },
      { name: 'dDouble', type: 'double' },
    ]);
    const entry = makeTypeEntry(1000082n, 'exp.Gen$Derived', members);
    expect(assembleTypeEntry(entry)).toBe(
      [
        '0000000000001000082 exp.Gen$Derived{',
        '\tjava.lang.String exp.Gen$Base   #baseStr ,',
        '\tjava.lang.Object exp.Gen$Derived#dRef    ,',
        '\tint              exp.Gen$Base   #baseInt ,',
        '\tlong             exp.Gen$Base   #baseLong,',
        '\tbyte             exp.Gen$Derived#dByte   ,',
        '\tdouble           exp.Gen$Derived#dDouble ,',
        '}',
        '',
      ].join('\n'),
    );
    const content = record(entry, 1n, [1000000000000000139n, null, 11, 12n, 1, 3.5]).subarray(24);
    expect(content).toEqual(hex('8b0064a7b3b6e00d 0000000000000000 0b000000 0c00000000000000 01 0000000000000c40'));
  });

  it('describes enums with pseudo members first (§8.2)', () => {
    const entry = makeTypeEntry(1000077n, 'exp.Gen$WithState', enumMembers('exp.Gen$WithState', ['A', 'B'], [
      { name: 's', type: 'java.lang.String' },
      { name: 'n', type: 'int' },
    ]));
    expect(assembleTypeEntry(entry)).toBe(
      [
        '0000000000001000077 exp.Gen$WithState{',
        '\tenum A,',
        '\tenum B,',
        '\tjava.lang.String java.lang.Enum   #name   ,',
        '\tjava.lang.String exp.Gen$WithState#s      ,',
        '\tint              java.lang.Enum   #ordinal,',
        '\tint              exp.Gen$WithState#n      ,',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('rejects values that do not fit the members', () => {
    expect(() => record(dictionary.require('java.lang.String'), 1n, [5])).toThrow(TypeError);
    expect(() => record(dictionary.require('java.lang.Integer'), 1n, [])).toThrow(TypeError);
    expect(() => record(dictionary.require('[I'), 1n, [Float64Array.of(1)])).toThrow(TypeError);
    const sink = new ByteSink(16);
    expect(() => encodeRecord(sink, dictionary.require('java.util.Optional'), 1n, ['not a reference'])).toThrow(TypeError);
    expect(sink.length).toBe(0);
  });
});

describe('WriterDictionary', () => {
  it('reuses an entry of the same layout and gives a changed layout a new id above the maximum', () => {
    const dictionary = WriterDictionary.base();
    const v1 = dictionary.define('exp.V', reflectiveMembers('exp.V', [{ name: 'a', type: 'int' }]));
    expect(v1.typeId).toBe(1000064n);
    expect(dictionary.define('exp.V', reflectiveMembers('exp.V', [{ name: 'a', type: 'int' }]))).toBe(v1);
    const v2 = dictionary.define('exp.V', reflectiveMembers('exp.V', [{ name: 'a', type: 'long' }]));
    expect(v2.typeId).toBe(1000065n);
    expect(dictionary.current('exp.V')).toBe(v2);
    expect(dictionary.versions('exp.V')).toEqual([v1, v2]);
    expect(dictionary.text().endsWith('0000000000001000065 exp.V{\n\tlong exp.V#a,\n}\n')).toBe(true);
  });
});

describe('StorageWriter.create', () => {
  it('writes what Java 4.1 writes on a first start (the noroot storage)', () => {
    const dir = join(base, 'fresh1');
    StorageWriter.create(dir, { now: () => 1_700_000_000_000 }).close();
    for (const file of ['PersistenceTypeDictionary.ptd', 'channel_0/channel_0_1.dat']) {
      expect(readFileSync(join(dir, file)).equals(readFileSync(join(NOROOT, file))), file).toBe(true);
    }
    const log = parseTransactionLog(readFileSync(join(dir, 'channel_0', 'transactions_0.sft')));
    expect(log.entries.map((e) => [e.type, e.fileLength, e.fileNumber])).toEqual([
      ['creation', 0, 1n],
      ['store', 2552, undefined],
    ]);
    expect(log.entries[1]!.timestamp).toBe(1_700_000_000_000_000_000n);
  });

  it('spreads the built-in objects over channels by object id', async () => {
    const dir = join(base, 'fresh4');
    StorageWriter.create(dir, { channelCount: 4 }).close();
    const storage = await Storage.open(dir);
    try {
      expect(storage.entityCount).toBe(27);
      expect(storage.rootObjectId).toBe(0n);
      expect(storage.warnings).toEqual([]);
      expect(storage.channels.map((c) => c.objects.size)).toEqual([6, 7, 7, 7]);
      for (const id of objectIds(storage)) expect((await get(storage, `object/${id}`)).status).toBe(200);
    } finally {
      await storage.close();
    }
  });

  it('refuses a non-empty directory and a channel count that is not a power of two', () => {
    expect(() => StorageWriter.create(join(base, 'fresh1'))).toThrow(/not empty/);
    expect(() => StorageWriter.create(join(base, 'three'), { channelCount: 3 })).toThrow(/power of two/);
  });
});
