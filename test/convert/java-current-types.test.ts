import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertStorage } from '../../src/convert/convert-storage.js';
import type { ConvertReport } from '../../src/convert/convert-report.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { JAVA_REFERENCE_VARIABLE, javaMissing, JavaRefused, startJava } from '../helpers/real-systems/java-reference.js';

/**
 * `convert --current-types` against the real MicroStream 4.1: on a storage where gen.Book was
 * stored in two shapes, the conversion holds every book in the newest one; MicroStream, with the
 * application's newest classes (gen.Book v2) first on its class path, starts on it and answers
 * every object exactly as our server answers it on the conversion, every book with the newest
 * type id. (Values by name against the source: current-types.test.ts.)
 */

const missing = javaMissing(['ms41']);
if (missing !== undefined && process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
  throw new Error(`the Java tests cannot run: ${missing}`);
}
if (missing !== undefined) console.warn(`java-current-types: skipped, ${missing}`);

let work: string;
let out: string;
let report: ConvertReport;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-java-current-types-'));
  const generated = join(work, 'generated');
  generateStorage({ directory: generated, entities: 2000, channelCount: 2, seed: 9, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, updateRatio: 0.3 });
  out = join(work, 'converted');
  report = await convertStorage(generated, { out, currentTypes: true, channels: 4 });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(missing !== undefined)('--current-types on a storage with gen.Book in two shapes', () => {
  it('MicroStream 4.1 with the newest classes starts and answers every object as our server does; every book in the newest shape', async () => {
    expect(report.currentTypes!.objects).toBeGreaterThan(10);
    const newest = report.currentTypes!.rewritten[0]!.toTypeId;
    const converted = await Storage.open(out);
    const appClasses = join(process.env[JAVA_REFERENCE_VARIABLE]!, 'generated-types-v2.jar');
    const java = await startJava('ms41', out, { APP_CLASSES: appClasses }).catch((error: unknown) => {
      throw error instanceof JavaRefused ? new Error(`ms41 refused the converted storage: ${error.message}`) : error;
    });
    try {
      const ids: bigint[] = [];
      for (const channel of converted.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
      const paths = ['/microstream/root', ...ids.map((id) => `/microstream/object/${id}`)];
      const differences: string[] = [];
      let books = 0;
      for (let i = 0; i < paths.length; i += 16) {
        await Promise.all(
          paths.slice(i, i + 16).map(async (path) => {
            const [ours, theirs] = await Promise.all([converted.consistent(() => answerRequest(converted, { instance: 'microstream' }, { method: 'GET', url: path, headers: {} })), java.get(path)]);
            const body = theirs.body.toString();
            if (ours.status !== theirs.status || ours.body.toString().replace(/@[0-9a-f]{1,8}(?=")/g, '@…') !== body.replace(/@[0-9a-f]{1,8}(?=")/g, '@…')) {
              differences.push(`${path}: ours ${ours.status} ${ours.body.subarray(0, 100).toString()} / ms41 ${theirs.status} ${body.slice(0, 100)}`);
            }
            const type = /"typeId":"(\d+)"/.exec(body)?.[1];
            if (type !== undefined && converted.dictionary.byId.get(BigInt(type))?.typeName === 'gen.Book') {
              books++;
              if (type !== newest) differences.push(`${path}: a gen.Book of type id ${type}, not ${newest}`);
            }
          }),
        );
      }
      expect(differences.slice(0, 5), `${differences.length} of ${paths.length} answers differ`).toEqual([]);
      expect(books).toBeGreaterThan(report.currentTypes!.objects);
    } finally {
      await java.stop();
      await converted.close();
    }
  });
});
