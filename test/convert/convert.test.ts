import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStorage } from '../../src/check/check-storage.js';
import { runCli } from '../../src/cli/run-cli.js';
import { convertStorage, DamagedSourceError } from '../../src/convert/convert-storage.js';
import { rescueStorage } from '../../src/rescue/rescue-storage.js';
import { eclipseStoreTypeName } from '../../src/convert/eclipsestore-names.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { corpusStorage } from '../security/server.js';

/**
 * `convert` without the JVM (java-starts-on-convert.test.ts has the real libraries): every current
 * version that is reachable is written, byte for byte, into channel `oid % channels`; older versions
 * and garbage are left out and counted; the dictionary keeps what is used; wrong --out, wrong channel
 * counts and damaged sources are refused with nothing written.
 */

let work: string;
let generated: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-convert-'));
  generated = join(work, 'generated');
  generateStorage({ directory: generated, entities: 3000, channelCount: 2, seed: 11, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, updateRatio: 0.3 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };

function idsOf(storage: Storage): bigint[][] {
  return storage.channels.map((c) => {
    const ids: bigint[] = [];
    c.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
    return ids;
  });
}

async function recordCount(dir: string): Promise<number> {
  const check = await checkStorage(dir);
  return check.summary.objects;
}

describe.each([
  ['the graph corpus (MicroStream 4.1)', () => corpusStorage('graph')],
  ['a generated storage with updates', () => generated],
])('%s', (_name, source) => {
  it.each([1, 2, 4])('--channels %i: every reachable current version, byte for byte, in channel (object id modulo the channel count)', async (channels) => {
    const out = join(work, `out-${_name.length}-${channels}`);
    const report = await convertStorage(source(), { out, channels });
    expect(report.channels).toBe(channels);
    const before = await Storage.open(source());
    const after = await Storage.open(out);
    try {
      const ids = idsOf(after);
      ids.forEach((inChannel, c) => expect(inChannel.every((id) => id % BigInt(channels) === BigInt(c))).toBe(true));
      const all = ids.flat();
      expect(all.length).toBe(report.written.objects);
      const sourceObjects = idsOf(before).flat().length;
      expect(report.written.objects + report.garbage.objects).toBe(sourceObjects);
      for (const id of all) {
        const [a, b] = [await before.readEntity(id), await after.readEntity(id)];
        expect(b?.typeId).toBe(a?.typeId);
        expect(Buffer.compare(Buffer.from(b!.content), Buffer.from(a!.content))).toBe(0);
      }
      expect(after.rootsObjectId).toBe(before.rootsObjectId);
    } finally {
      await before.close();
      await after.close();
    }
    // Nothing reachable was left out: every reference of the new storage finds its object.
    const check = await checkStorage(out);
    expect(check.problems).toEqual([]);
    expect(check.javaStarts).toBe(true);
    // Converted once more, nothing is garbage or superseded any more.
    const again = await convertStorage(out, { out: `${out}-again`, channels });
    expect([again.written.objects, again.garbage.objects, again.superseded.objects]).toEqual([report.written.objects, 0, 0]);
    expect(again.dataBytes).toBe(report.dataBytes);
    expect(report.dataBytes).toBe(report.written.bytes);
    expect(readdirSync(work).filter((n) => n.includes('.convert-'))).toEqual([]);
  });
});

describe('what is left out', () => {
  it('the graph corpus: 94 older versions and 35 unreachable objects (as analyze counts them), per type', async () => {
    const out = join(work, 'graph-compact');
    const report = await convertStorage(corpusStorage('graph'), { out });
    expect(report.channels).toBe(2);
    expect([report.superseded.objects, report.garbage.objects]).toEqual([94, 35]);
    const totalRecords = report.types.reduce((n, t) => n + t.written + t.superseded + t.garbage, 0);
    expect(report.written.objects + report.superseded.objects + report.garbage.objects).toBe(totalRecords);
    const lists = report.types.find((t) => t.typeName === 'java.util.ArrayList')!;
    expect([lists.superseded, lists.garbage]).toEqual([76, 3]);
    expect(report.dataBytes).toBeLessThan(report.sourceDataBytes);
  });

  it('--keep-unreachable copies the garbage: no object is left out but older versions', async () => {
    const out = join(work, 'generated-kept');
    const report = await convertStorage(generated, { out, keepUnreachable: true });
    expect(report.garbage.objects).toBe(0);
    const before = await Storage.open(generated);
    try {
      expect(report.written.objects).toBe(idsOf(before).flat().length);
    } finally {
      await before.close();
    }
    expect(await recordCount(out)).toBe(report.written.objects);
  });

  it('the dictionary keeps the types in use and drops definitions no written object uses', async () => {
    // The evolution corpus holds two definitions of a type; only the newer one's objects are current.
    const source = corpusStorage('evolution');
    const out = join(work, 'evolution');
    const report = await convertStorage(source, { out });
    const written = parseTypeDictionary(readFileSync(join(out, 'PersistenceTypeDictionary.ptd'), 'utf8'));
    const original = parseTypeDictionary(readFileSync(join(source, 'PersistenceTypeDictionary.ptd'), 'utf8'));
    expect(written.entries.length).toBe(report.dictionary.entries);
    expect(original.entries.length - written.entries.length).toBe(report.dictionary.leftOut);
    const used = report.types.filter((t) => t.written > 0).map((t) => t.typeName);
    for (const name of used) expect(written.currentByName.has(name)).toBe(true);
    expect(await checkStorage(out).then((c) => c.problems)).toEqual([]);
  });
});

describe('--file-size', () => {
  it('a new data file once one reaches the size, as the library rolls its head file over between stores', async () => {
    const out = join(work, 'small-files');
    const report = await convertStorage(corpusStorage('graph'), { out, channels: 1, fileSize: 16 * 1024 });
    const sizes = readdirSync(join(out, 'channel_0'))
      .filter((f) => f.endsWith('.dat'))
      .map((f) => statSync(join(out, 'channel_0', f)).size);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    // Every file but the head reached the size; none exceeds it by more than the one store (a batch of the size) that reached it.
    expect(sizes.slice(0, -1).every((size) => size >= 16 * 1024 && size < 2 * 16 * 1024 + 8 * 1024)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(report.written.bytes);
    expect((await checkStorage(out)).problems).toEqual([]);
  });
});

describe('refused', () => {
  it('--channels 3 (the libraries accept only powers of two) and 2048 are usage errors; nothing is written', async () => {
    const three = await runCliInProcess(['convert', generated, '--out', join(work, 'three'), '--channels', '3']);
    expect(three.code).toBe(2);
    expect(three.stderr).toContain('--channels 3: MicroStream and EclipseStore accept only a power of two');
    expect(await runCli(['convert', generated, '--out', join(work, 'many'), '--channels', '2048'], quiet)).toBe(2);
    expect(existsSync(join(work, 'three'))).toBe(false);
  });

  it('--out existing (even empty), on a file, or inside the storage is a usage error', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    for (const out of [empty, file, join(generated, 'inside'), join(generated, 'channel_0', 'x')]) {
      const { code, stderr } = await runCliInProcess(['convert', generated, '--out', out]);
      expect([out, code]).toEqual([out, 2]);
      expect(stderr).toMatch(/exists|inside the storage/);
    }
    // The library function follows the same rule.
    await expect(convertStorage(generated, { out: join(generated, 'inside') })).rejects.toThrow(`--out ${join(generated, 'inside')} lies inside the storage ${generated}`);
    expect(readFileSync(file, 'utf8')).toBe('x');
    expect(readdirSync(empty)).toEqual([]);
    expect(existsSync(join(generated, 'inside'))).toBe(false);
  });

  it('a damaged source: check\'s findings, pointing at rescue; nothing at --out, nothing beside it', async () => {
    const damaged = join(work, 'damaged');
    cpSync(generated, damaged, { recursive: true });
    truncateSync(join(damaged, 'channel_1', 'channel_1_2.dat'), 100);
    const parent = join(work, 'damaged-out');
    mkdirSync(parent);
    await expect(convertStorage(damaged, { out: join(parent, 'new') })).rejects.toBeInstanceOf(DamagedSourceError);
    const { code, stderr } = await runCliInProcess(['convert', damaged, '--out', join(parent, 'new')]);
    expect(code).toBe(1);
    expect(stderr).toContain('MicroStream 4.1 would refuse to start.');
    expect(stderr).toContain('DATA_FILE_TOO_SHORT');
    expect(stderr).toContain(`run storage-inspector rescue ${damaged} --out <new-dir> first`);
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe('--allow-damage', () => {
  it('converts what rescue keeps of a damaged storage: the library would start, the rescue\'s figures reported, nothing left beside', async () => {
    const damaged = join(work, 'damaged-allowed');
    cpSync(generated, damaged, { recursive: true });
    truncateSync(join(damaged, 'channel_1', 'channel_1_2.dat'), 100);
    const parent = join(work, 'allowed-out');
    mkdirSync(parent);
    const out = join(parent, 'new');
    const report = await convertStorage(damaged, { out, channels: 1, allowDamage: true });
    const rescued = await rescueStorage(damaged, { out: join(work, 'allowed-rescue') });
    expect(report.rescuedFirst).toEqual({
      problems: ['MISSING_REFERENCE_TARGET', 'DATA_FILE_TOO_SHORT', 'RECORD_PAST_COMMITTED_END'],
      keptObjects: rescued.keptObjects,
      olderVersions: rescued.olderVersions.length,
      lost: rescued.lost.length,
      replacedReferences: rescued.replacedCount,
      rootEntriesLeftOut: rescued.rootEntriesLeftOut,
    });
    expect(report.rescuedFirst!.replacedReferences).toBeGreaterThan(0);
    expect(report.written.objects + report.garbage.objects).toBe(rescued.keptObjects);
    expect(report.source).toBe(damaged);
    const check = await checkStorage(out);
    expect([check.javaStarts, check.problems]).toEqual([true, []]);
    expect(readdirSync(parent)).toEqual(['new']);
    const { stdout: text } = await runCliInProcess(['convert', damaged, '--out', join(parent, 'again'), '--allow-damage']);
    expect(text).toContain(`  Rescued first:     the storage is damaged (MISSING_REFERENCE_TARGET, DATA_FILE_TOO_SHORT, RECORD_PAST_COMMITTED_END); converted what rescue keeps: `);
    expect(text).toContain(`${rescued.replacedCount} references to lost objects replaced`);
  });
});

describe('a storage without roots entity', () => {
  /** The graph corpus's Strings alone, without the roots entity (MicroStream: "No roots found for existing data"). */
  async function stringsOnly(dir: string): Promise<number> {
    const source = corpusStorage('graph');
    const storage = await Storage.open(source);
    const writer = StorageWriter.createForRecords(dir, readFileSync(join(source, 'PersistenceTypeDictionary.ptd'), 'utf8'), { channelCount: 1 });
    const store = writer.beginStore();
    try {
      const stringType = storage.dictionary.currentByName.get('java.lang.String')!.typeId;
      for (const id of idsOf(storage).flat()) {
        const entity = (await storage.readEntity(id))!;
        if (entity.typeId !== stringType) continue;
        const record = Buffer.alloc(24 + entity.content.length);
        record.writeBigInt64LE(BigInt(record.length), 0);
        record.writeBigInt64LE(entity.typeId, 8);
        record.writeBigInt64LE(id, 16);
        Buffer.from(entity.content).copy(record, 24);
        store.addRecord(record);
      }
      writer.store(store);
      return store.records;
    } finally {
      writer.close();
      await storage.close();
    }
  }

  it('is not emptied as if all were garbage: with --allow-damage it is refused unless --keep-unreachable copies every object', async () => {
    const dir = join(work, 'no-roots');
    const strings = await stringsOnly(dir);
    await expect(convertStorage(dir, { out: join(work, 'no-roots-out') })).rejects.toBeInstanceOf(DamagedSourceError);
    await expect(convertStorage(dir, { out: join(work, 'no-roots-out'), allowDamage: true })).rejects.toThrow(`the rescue of ${dir} has no roots entity, so no object is reachable: --keep-unreachable copies every object`);
    expect(existsSync(join(work, 'no-roots-out'))).toBe(false);
    const report = await convertStorage(dir, { out: join(work, 'no-roots-out'), allowDamage: true, keepUnreachable: true });
    expect(report.written.objects).toBe(strings);
    expect(strings).toBeGreaterThan(300);
  });
});

describe('the command', () => {
  it('prints the report as text and as JSON (ids and counts as the report has them)', async () => {
    const { code, stdout: text } = await runCliInProcess(['convert', corpusStorage('graph'), '--out', join(work, 'cli-text'), '--channels', '1']);
    expect(code).toBe(0);
    expect(text).toContain('Channels:          2 → 1');
    expect(text).toContain('Superseded:        94 older versions left out, 7,023 bytes');
    expect(text).toContain('Garbage:           35 unreachable objects left out, 1,869 bytes');
    const asJson = await runCliInProcess(['convert', corpusStorage('graph'), '--out', join(work, 'cli-json'), '--json']);
    expect(asJson.code).toBe(0);
    const json = asJson.stdout;
    const report = JSON.parse(json) as { written: { objects: number }; garbage: { objects: number; bytes: number }; channels: number };
    expect([report.written.objects, report.garbage.objects, report.garbage.bytes, report.channels]).toEqual([1228, 35, 1869, 2]);
  });
});

describe('--to', () => {
  it('type names as the Storage Migrator maps them: by whole package, inner classes kept, JDK, application types and arrays unchanged', () => {
    expect(eclipseStoreTypeName('one.microstream.reference.Lazy$Default')).toBe('org.eclipse.serializer.reference.Lazy$Default');
    expect(eclipseStoreTypeName('one.microstream.persistence.types.PersistenceRoots$Default')).toBe('org.eclipse.serializer.persistence.types.PersistenceRoots$Default');
    expect(eclipseStoreTypeName('one.microstream.storage.types.StorageConfiguration')).toBe('org.eclipse.store.storage.types.StorageConfiguration');
    expect(eclipseStoreTypeName('one.microstream.persistence.binary.one.microstream.collections.BinaryHandlerEqHashTable')).toBe(
      'org.eclipse.serializer.persistence.binary.org.eclipse.serializer.collections.BinaryHandlerEqHashTable',
    );
    // The migrator's table maps this package onto org.eclipse.serializer itself.
    expect(eclipseStoreTypeName('one.microstream.persistence.binary.util.Thing')).toBe('org.eclipse.serializer.Thing');
    // Only whole packages in the table: a subpackage not listed, the JDK, arrays and application types stay.
    expect(eclipseStoreTypeName('one.microstream.reference.inner.Thing')).toBe('one.microstream.reference.inner.Thing');
    expect(eclipseStoreTypeName('java.util.ArrayList')).toBe('java.util.ArrayList');
    expect(eclipseStoreTypeName('[Lone.microstream.reference.Lazy;')).toBe('[Lone.microstream.reference.Lazy;');
    expect(eclipseStoreTypeName('gen.Book')).toBe('gen.Book');
  });

  it('--to eclipsestore renames entry names and declared types, keeps qualifiers; the storage is an EclipseStore one', async () => {
    const out = join(work, 'to-es');
    const report = await convertStorage(corpusStorage('graph'), { out, to: 'eclipsestore' });
    expect([report.from, report.to]).toEqual(['microstream', 'eclipsestore']);
    const text = readFileSync(join(out, 'PersistenceTypeDictionary.ptd'), 'utf8');
    const dictionary = parseTypeDictionary(text);
    expect(dictionary.entries.filter((e) => e.typeName.startsWith('one.microstream.'))).toEqual([]);
    expect(dictionary.entries.flatMap((e) => e.fields).filter((f) => f.typeName.startsWith('one.microstream.'))).toEqual([]);
    expect(text).toContain('one.microstream.collections.EmptyTable#keys');
    const check = await checkStorage(out);
    expect([check.generation, check.javaStarts, check.problems]).toEqual(['EclipseStore 4.1', true, []]);
  });

  it('--to microstream from an EclipseStore storage is refused, naming why; nothing is written', async () => {
    const source = join(CONFORMANCE_DIR, '..', 'conformance-es', 'storages', 'graph');
    const parent = join(work, 'to-ms');
    mkdirSync(parent);
    const { code, stderr } = await runCliInProcess(['convert', source, '--out', join(parent, 'new'), '--to', 'microstream']);
    expect(code).toBe(2);
    expect(stderr).toContain('is an EclipseStore storage; convert does not move storages back to MicroStream');
    expect(readdirSync(parent)).toEqual([]);
  });
});
