import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStorage } from '../../src/check/check-storage.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { rescueStorage, type RescueOptions } from '../../src/rescue/rescue-storage.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { javaMissing, JavaRefused, startJava } from '../helpers/real-systems/java-reference.js';
import { CORPUS, CRAFTED, damagedCopy } from './chunk-damage.js';

/**
 * `rescue` of storages whose chunks fail EclipseStore 4.2's checksums, and `generate --checksums`:
 * the real EclipseStore 4.2, started with the checksum setting the new files name (it verifies
 * every chunk), starts on the result and answers every object exactly as our server does. The
 * damaged chunk's objects are gone from the rescue, their referrers' references replaced. Needs
 * `java` and the es42 command (see java-reference.ts); fails under CI without them.
 */

const missing = javaMissing(['es42']);
if (missing !== undefined && process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
  throw new Error(`the Java tests cannot run: ${missing}`);
}
if (missing !== undefined) console.warn(`es42-starts-on-rescue: skipped, ${missing}`);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-es42-rescue-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Stateless objects print as `Class@identityHashCode`, a number each JVM picks anew. */
function withoutIdentityHashes(body: Buffer): string {
  return body.toString().replace(/@[0-9a-f]{1,8}(?=")/g, '@…');
}

/** Every object's answer of es42 on `dir` against ours; returns how many were compared. */
async function es42AnswersAsWeDo(dir: string): Promise<number> {
  const java = await startJava('es42', dir).catch((error: unknown) => {
    throw error instanceof JavaRefused ? new Error(`es42 refused: ${error.message}`) : error;
  });
  const storage = await Storage.open(dir);
  try {
    const instance = storage.family.defaultInstance;
    const ids: bigint[] = [];
    for (const channel of storage.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
    const paths = [`/${instance}/root`, ...ids.map((id) => `/${instance}/object/${id}`)];
    const differences: string[] = [];
    for (let i = 0; i < paths.length; i += 16) {
      await Promise.all(
        paths.slice(i, i + 16).map(async (path) => {
          const [ours, theirs] = await Promise.all([storage.consistent(() => answerRequest(storage, { instance }, { method: 'GET', url: path, headers: {} })), java.get(path)]);
          if (ours.status !== theirs.status || withoutIdentityHashes(ours.body) !== withoutIdentityHashes(theirs.body)) differences.push(`${path}: ours ${ours.status} ${ours.body.subarray(0, 100).toString()} / es42 ${theirs.status} ${theirs.body.subarray(0, 100).toString()}`);
        }),
      );
    }
    expect(differences.slice(0, 5), `${differences.length} of ${paths.length} answers differ`).toEqual([]);
    return paths.length;
  } finally {
    await storage.close();
    await java.stop();
  }
}

function fileHeaderSelection(dir: string): number {
  return readFileSync(join(dir, 'channel_0', 'channel_0_1.dat')).readUInt16LE(12);
}

interface RescueCase {
  readonly name: string;
  readonly source: () => string;
  readonly checksums?: RescueOptions['checksums'];
  /** The selection the rescue's file headers name (undefined: no header). */
  readonly selection: number | undefined;
  /** Objects of the damaged chunk: lost, or kept in an older version. */
  readonly unreadable: number;
}

const CASES: readonly RescueCase[] = [
  { name: 'a rotten byte of a String (corpus flip-entity)', source: () => join(CORPUS, 'damaged', 'crc32c', 'flip-entity'), selection: 0x4667, unreadable: 6 },
  { name: 'a changed chunk start (corpus flip-chunkstart)', source: () => join(CORPUS, 'damaged', 'crc32c', 'flip-chunkstart'), selection: 0x4667, unreadable: 6 },
  { name: 'flip-entity rescued with --checksums sha256', source: () => join(CORPUS, 'damaged', 'crc32c', 'flip-entity'), checksums: 'sha256', selection: 0x56ba, unreadable: 6 },
  { name: 'flip-entity rescued with --checksums none', source: () => join(CORPUS, 'damaged', 'crc32c', 'flip-entity'), checksums: 'none', selection: undefined, unreadable: 6 },
  {
    name: 'a payload byte of chained SHA-256 storage',
    source: () => damagedCopy(join(CORPUS, 'storages', 'graph-sha256'), join(work, 'sha-payload'), CRAFTED.find((c) => c.name === 'a byte of a payload')!.damage),
    selection: 0x56ba,
    // The chunk holds two records; only one of them is its object's newest version.
    unreadable: 1,
  },
];

describe.skipIf(missing !== undefined).each(CASES)('rescue: $name', (c) => {
  it('check finds the new storage clean, es42 starts on it verifying its checksums and answers as we do', async () => {
    const out = join(work, `out-${c.name.replace(/\W+/g, '-')}`);
    const report = await rescueStorage(c.source(), { out, ...(c.checksums === undefined ? {} : { checksums: c.checksums }) });
    const reasons = [...report.lost.map((l) => l.reason), ...report.olderVersions.map((o) => o.reason)];
    expect(reasons).toEqual(Array.from({ length: c.unreadable }, () => expect.stringMatching(/chunk/)));
    expect(report.danglingCount).toBe(0);
    expect(c.selection === undefined ? undefined : fileHeaderSelection(out)).toBe(c.selection);
    if (c.selection === undefined) expect(readFileSync(join(out, 'channel_0', 'channel_0_1.dat')).readBigInt64LE(0) > 0n).toBe(true);
    const check = await checkStorage(out);
    expect(check.problems).toEqual([]);
    expect(check.javaStarts).toBe(true);
    expect(await es42AnswersAsWeDo(out)).toBe(report.keptObjects + 1);
  }, 120_000);
});

describe.skipIf(missing !== undefined).each(['crc32c', 'sha256'] as const)('generate --checksums %s', (algorithm) => {
  it('es42 starts on it verifying every chunk and answers as we do; a flipped payload byte makes it refuse as check says', async () => {
    const dir = join(work, `generated-${algorithm}`);
    generateStorage({ directory: dir, entities: 1500, channelCount: 2, seed: 3, fileMaximumSize: 16 * 1024, entitiesPerStore: 100, family: 'eclipsestore', checksums: algorithm });
    expect(fileHeaderSelection(dir)).toBe(algorithm === 'crc32c' ? 0x4667 : 0x56ba);
    expect((await checkStorage(dir)).problems).toEqual([]);
    expect(await es42AnswersAsWeDo(dir)).toBeGreaterThan(1000);
    const damaged = damagedCopy(dir, join(work, `generated-${algorithm}-damaged`), CRAFTED.find((d) => d.name === 'a byte of a payload')!.damage);
    const check = await checkStorage(damaged);
    const refused = await startJava('es42', damaged).then(
      async (java) => {
        await java.stop();
        return 'started';
      },
      (error: unknown) => (error instanceof JavaRefused ? error.message : String(error)),
    );
    const cause = /Caused by: ([\w.$]+): (.*)$/m.exec(refused.split('\n').filter((l) => l.startsWith('Caused by: ')).at(-1) ?? '');
    expect(cause, refused).not.toBeNull();
    expect(check.problems.map((p) => p.java)).toContainEqual({ exception: cause![1], message: cause![2] });
  }, 120_000);
});
