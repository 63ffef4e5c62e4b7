import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertStorage, type ConvertOptions } from '../../src/convert/convert-storage.js';
import type { ConvertReport } from '../../src/convert/convert-report.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { javaMissing, JavaRefused, startJava, type JavaLibrary } from '../helpers/real-systems/java-reference.js';

/**
 * `convert` against the real libraries: MicroStream 4.1 (EclipseStore 4.1.0 for an EclipseStore
 * storage, and for `--to eclipsestore`) starts on the converted storage and answers every object
 * of the new storage exactly as our server answers it on the source; every object left out as
 * garbage answers 404 there; the new data files hold exactly the source's live bytes. One JVM per
 * converted storage. Needs `java` and the reference commands (see java-reference.ts); without
 * them the file fails under CI and is skipped elsewhere, saying why.
 */

const missing = javaMissing();
if (missing !== undefined && process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
  throw new Error(`the Java tests cannot run: ${missing}`);
}
if (missing !== undefined) console.warn(`java-starts-on-convert: skipped, ${missing}`);

// EclipseStore 4.2 (chunk checksums) is looked for only by the case that needs it.
const missing42 = missing ?? javaMissing(['es42']);

let work: string;
let generated: string;
let generatedChecksums: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-java-convert-'));
  generated = join(work, 'generated');
  generateStorage({ directory: generated, entities: 2000, channelCount: 2, seed: 9, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, updateRatio: 0.3 });
  generatedChecksums = join(work, 'generated-crc32c');
  generateStorage({ directory: generatedChecksums, entities: 1500, channelCount: 2, seed: 4, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, updateRatio: 0.3, family: 'eclipsestore', checksums: 'crc32c' });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Case {
  readonly name: string;
  readonly source: () => string;
  readonly options: Omit<ConvertOptions, 'out'>;
  readonly library: JavaLibrary;
}

const corpus = (name: string): string => join(CONFORMANCE_DIR, 'storages', name);
const corpusEs = (name: string): string => join(CONFORMANCE_DIR, '..', 'conformance-es', 'storages', name);

const CASES: readonly Case[] = [
  { name: 'MicroStream 4.1 graph corpus, 2 channels → --channels 1', source: () => corpus('graph'), options: { channels: 1 }, library: 'ms41' },
  { name: 'MicroStream 4.1 collections corpus, channels unchanged (4)', source: () => corpus('collections'), options: {}, library: 'ms41' },
  { name: 'a storage generate wrote (updates, garbage), 2 channels → --channels 8', source: () => generated, options: { channels: 8 }, library: 'ms41' },
  { name: 'EclipseStore 4.1 graph corpus, 2 channels → --channels 4', source: () => corpusEs('graph'), options: { channels: 4 }, library: 'es41' },
  // MicroStream → EclipseStore: EclipseStore 4.1.0 answers each object as our server answers it on the MicroStream source.
  { name: '--to eclipsestore: MicroStream 4.1 graph corpus', source: () => corpus('graph'), options: { to: 'eclipsestore' }, library: 'es41' },
  { name: '--to eclipsestore: a storage generate wrote, → --channels 4', source: () => generated, options: { to: 'eclipsestore', channels: 4 }, library: 'es41' },
];

/** Stateless objects print as `Class@identityHashCode`, a number each JVM picks anew. */
function withoutIdentityHashes(body: Buffer): string {
  return body.toString().replace(/@[0-9a-f]{1,8}(?=")/g, '@…');
}

function idsOf(storage: Storage): bigint[] {
  const ids: bigint[] = [];
  for (const channel of storage.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
  return ids;
}

/** EclipseStore 4.2 storages with chunk checksums keep them: EclipseStore 4.2.0 verifies them when it starts. */
const CASES_42: readonly Case[] = [
  { name: 'EclipseStore 4.2 storage with crc32c chunk checksums, 2 channels → --channels 1', source: () => generatedChecksums, options: { channels: 1 }, library: 'es42' },
];

let counter = 0;

describe.skipIf(missing !== undefined).each(CASES)('$name', (c) => convertedAnswers(c));
describe.skipIf(missing42 !== undefined).each(CASES_42)('$name', (c) => convertedAnswers(c));

function convertedAnswers(c: Case): void {
  let out: string;
  let report: ConvertReport;

  beforeAll(async () => {
    out = join(work, `converted-${++counter}`);
    report = await convertStorage(c.source(), { out, ...c.options });
    console.log(
      `${c.name}: wrote ${report.written.objects} objects (${report.written.bytes} bytes), left out ${report.superseded.objects} older versions (${report.superseded.bytes} bytes) ` +
        `and ${report.garbage.objects} unreachable objects (${report.garbage.bytes} bytes); data files ${report.sourceDataBytes} → ${report.dataBytes} bytes`,
    );
  });

  it('the library starts on it and answers every object as our server does on the source; garbage answers 404; no byte more than the live ones', async () => {
    const source = await Storage.open(c.source());
    const converted = await Storage.open(out);
    const java = await startJava(c.library, out).catch((error: unknown) => {
      throw error instanceof JavaRefused ? new Error(`${c.library} refused the converted storage: ${error.message}`) : error;
    });
    try {
      expect(converted.channels.length).toBe(c.options.channels ?? source.channels.length);
      // A storage with chunk checksums keeps them (and EclipseStore 4.2.0 verifies them when it starts).
      expect(report.checksums).toBe(c.library === 'es42' ? 'crc32c' : 'none');
      const instance = source.family.defaultInstance;
      const javaInstance = converted.family.defaultInstance;
      expect(converted.family.name).toBe(c.options.to ?? source.family.name);
      const kept = idsOf(converted);
      const keptSet = new Set(kept);
      const garbage = idsOf(source).filter((id) => !keptSet.has(id));
      expect([kept.length, garbage.length]).toEqual([report.written.objects, report.garbage.objects]);
      const paths = ['/root', ...kept.map((id) => `/object/${id}`)];
      const differences: string[] = [];
      let liveBytes = 0;
      for (let i = 0; i < paths.length; i += 16) {
        await Promise.all(
          paths.slice(i, i + 16).map(async (path) => {
            const [ours, theirs] = await Promise.all([source.consistent(() => answerRequest(source, { instance }, { method: 'GET', url: `/${instance}${path}`, headers: {} })), java.get(`/${javaInstance}${path}`)]);
            if (ours.status !== theirs.status || withoutIdentityHashes(ours.body) !== withoutIdentityHashes(theirs.body)) {
              differences.push(`${path}: ours ${ours.status} ${ours.body.subarray(0, 100).toString()} / ${c.library} ${theirs.status} ${theirs.body.subarray(0, 100).toString()}`);
            }
          }),
        );
      }
      for (const id of kept) liveBytes += 24 + (await source.readEntity(id))!.content.length;
      expect(differences.slice(0, 5), `${differences.length} of ${paths.length} answers differ`).toEqual([]);
      const notFound: string[] = [];
      for (const id of garbage) {
        const answer = await java.get(`/${javaInstance}/object/${id}`);
        if (answer.status !== 404) notFound.push(`${id}: ${answer.status}`);
      }
      expect(notFound).toEqual([]);
      // The new data files hold the live records and nothing else (with checksums: and their chunk records); the dictionary is at most the source's.
      if (report.checksums === 'none') expect(report.dataBytes).toBe(liveBytes);
      else expect([report.written.bytes, report.dataBytes > liveBytes, report.dataBytes < report.sourceDataBytes]).toEqual([liveBytes, true, true]);
      const dictionary = readFileSync(join(out, 'PersistenceTypeDictionary.ptd'), 'utf8');
      expect(Buffer.byteLength(dictionary)).toBe(report.dictionary.bytes);
      if (c.options.to === undefined) {
        expect(Buffer.byteLength(dictionary)).toBeLessThanOrEqual(statSync(join(c.source(), 'PersistenceTypeDictionary.ptd')).size);
      } else {
        // Type names as migrated: no MicroStream package is left in entry names nor in declared types
        // (lines start with them); qualifiers (`Class#field`) stay as the migrator's parser keeps them.
        expect(dictionary).not.toMatch(/^(\d+ |\t+)one\.microstream\./m);
        expect(report.types.find((t) => t.typeName === 'one.microstream.persistence.types.PersistenceRoots$Default')?.writtenAs).toBe('org.eclipse.serializer.persistence.types.PersistenceRoots$Default');
      }
    } finally {
      await java.stop();
      await source.close();
      await converted.close();
    }
  });
}

describe.skipIf(missing !== undefined)('--allow-damage: a storage with a data file cut at 60 %', () => {
  it('MicroStream 4.1 starts on the conversion of its rescue and answers every object as our server does on the conversion', async () => {
    const damaged = join(work, 'damaged');
    cpSync(generated, damaged, { recursive: true });
    const file = join(damaged, 'channel_1', 'channel_1_3.dat');
    truncateSync(file, Math.floor(statSync(file).size * 0.6));
    const out = join(work, 'damaged-converted');
    const report = await convertStorage(damaged, { out, channels: 4, allowDamage: true });
    expect(report.rescuedFirst?.replacedReferences).toBeGreaterThan(0);
    const converted = await Storage.open(out);
    const java = await startJava('ms41', out).catch((error: unknown) => {
      throw error instanceof JavaRefused ? new Error(`ms41 refused the converted storage: ${error.message}`) : error;
    });
    try {
      const paths = ['/microstream/root', ...idsOf(converted).map((id) => `/microstream/object/${id}`)];
      expect(paths.length - 1).toBe(report.written.objects);
      const differences: string[] = [];
      for (let i = 0; i < paths.length; i += 16) {
        await Promise.all(
          paths.slice(i, i + 16).map(async (path) => {
            const [ours, theirs] = await Promise.all([converted.consistent(() => answerRequest(converted, { instance: 'microstream' }, { method: 'GET', url: path, headers: {} })), java.get(path)]);
            if (ours.status !== theirs.status || withoutIdentityHashes(ours.body) !== withoutIdentityHashes(theirs.body)) differences.push(`${path}: ours ${ours.status} / ms41 ${theirs.status}`);
          }),
        );
      }
      expect(differences.slice(0, 5), `${differences.length} of ${paths.length} answers differ`).toEqual([]);
    } finally {
      await java.stop();
      await converted.close();
    }
  });
});
