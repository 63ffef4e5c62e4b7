import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readableTypeName } from '../../src/inspect/type-names.js';
import { checkStorage } from '../../src/check/check-storage.js';
import { rescueReportText } from '../../src/cli/reports/report-text.js';
import { layoutEntity } from '../../src/format/entity-layout.js';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { rootEntries } from '../../src/rescue/lost-constants.js';
import { rescueStorage, type RescueReport } from '../../src/rescue/rescue-storage.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { javaMissing, JavaRefused, startJava, type JavaLibrary } from '../helpers/real-systems/java-reference.js';
import { dictionaryOf, mapDataFile } from '../robustness/damage-lab.js';
import { corpusStorage } from '../security/server.js';

/**
 * The damage laboratory against the real library: for each damage, `rescue` writes a storage on
 * which MicroStream 4.1 (EclipseStore 4.1 for an EclipseStore storage) starts, loading the whole
 * graph reachable from the root, and answers every recovered object exactly as our server does on
 * the rescue. With --keep-dangling, the rescue of a storage that lost referenced objects is refused
 * the way `check` says. One JVM per storage. Needs `java` and the reference commands (see
 * java-reference.ts); without them the file fails under CI and is skipped elsewhere, saying why.
 */

const missing = javaMissing();
if (missing !== undefined && process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
  throw new Error(`the Java tests cannot run: ${missing}`);
}
if (missing !== undefined) console.warn(`java-starts-on-rescue: skipped, ${missing}`);

let work: string;
let generated: string;
let generatedEs: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-java-rescue-'));
  generated = join(work, 'generated');
  generatedEs = join(work, 'generated-es');
  generateStorage({ directory: generated, entities: 3000, channelCount: 2, seed: 5, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
  generateStorage({ directory: generatedEs, entities: 2000, channelCount: 2, seed: 7, fileMaximumSize: 16 * 1024, entitiesPerStore: 200, family: 'eclipsestore' });
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function recordsOf(dir: string, file: string) {
  const dictionary = dictionaryOf(readFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), 'utf8'));
  return mapDataFile(readFileSync(join(dir, file)), dictionary).records;
}

interface Damage {
  readonly name: string;
  readonly source: () => string;
  readonly library: JavaLibrary;
  readonly damage: (dir: string) => void;
  readonly intact?: boolean;
  /** Objects that others refer to are lost, so references are replaced. */
  readonly replaces?: boolean;
  /** Records of constants the roots entity lists are lost: they are written anew. */
  readonly constants?: boolean;
  /** The root reference's record is lost too: its roots entry is left out. */
  readonly rootLost?: boolean;
}

const DAMAGES: readonly Damage[] = [
  { name: 'the intact storage (MicroStream 4.1 corpus, graph)', source: () => corpusStorage('graph'), library: 'ms41', intact: true, damage: () => undefined },
  { name: 'a storage generate wrote', source: () => generated, library: 'ms41', intact: true, damage: () => undefined },
  { name: 'a data file the log names deleted', source: () => generated, library: 'ms41', replaces: true, damage: (dir) => rmSync(join(dir, 'channel_0', 'channel_0_2.dat')) },
  {
    name: 'a data file cut at 60 %',
    replaces: true,
    source: () => generated,
    library: 'ms41',
    damage: (dir) => {
      const file = join(dir, 'channel_1', 'channel_1_3.dat');
      truncateSync(file, Math.floor(statSync(file).size * 0.6));
    },
  },
  {
    name: '16 bytes overwritten in a transaction log',
    source: () => generated,
    library: 'ms41',
    damage: (dir) => {
      const log = join(dir, 'channel_1', 'transactions_1.sft');
      const bytes = readFileSync(log);
      const store = parseTransactionLog(bytes).entries.filter((e) => e.type === 'store')[5]!;
      bytes.fill(0xab, store.offset + 8, store.offset + 24);
      writeFileSync(log, bytes);
    },
  },
  {
    name: 'an impossible record length in a header',
    replaces: true,
    source: () => generated,
    library: 'ms41',
    damage: (dir) => {
      const file = join(dir, 'channel_1', 'channel_1_2.dat');
      const record = recordsOf(dir, file.slice(dir.length + 1))[3]!;
      const bytes = readFileSync(file);
      bytes.writeInt32LE(0x100, record.offset + 4); // high word: 2^40 more bytes
      writeFileSync(file, bytes);
    },
  },
  { name: 'an EclipseStore storage generate wrote, a data file cut at 60 %', source: () => generatedEs, library: 'es41', replaces: true, damage: (dir) => truncateFile(join(dir, 'channel_0', 'channel_0_2.dat'), 0.6) },
  { name: 'an EclipseStore storage generate wrote, a data file the log names deleted', source: () => generatedEs, library: 'es41', replaces: true, damage: (dir) => rmSync(join(dir, 'channel_1', 'channel_1_2.dat')) },
  // The first store's files hold the constants the roots list (empty collections, comparators, BigDecimal.ZERO, …).
  { name: 'constants the roots list: the data file with half of them deleted', source: () => generated, library: 'ms41', replaces: true, constants: true, rootLost: true, damage: (dir) => rmSync(join(dir, 'channel_0', 'channel_0_1.dat')) },
  { name: 'constants the roots list: their records in a data file overwritten', source: () => generated, library: 'ms41', replaces: true, constants: true, damage: (dir) => overwriteConstants(dir, 'channel_1/channel_1_1.dat') },
  { name: 'constants the roots list, EclipseStore: a data file cut inside their records', source: () => generatedEs, library: 'es41', replaces: true, constants: true, rootLost: true, damage: (dir) => truncateSync(join(dir, 'channel_0', 'channel_0_1.dat'), 200) },
  { name: 'constants the roots list, EclipseStore: their records in a data file overwritten', source: () => generatedEs, library: 'es41', replaces: true, constants: true, rootLost: true, damage: (dir) => overwriteConstants(dir, 'channel_0/channel_0_1.dat') },
];

/** The objects the (newest) roots entity of a storage generate wrote lists, but the root reference. */
function constantIds(dir: string): Set<bigint> {
  const dictionary = dictionaryOf(readFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), 'utf8'));
  const bytes = readFileSync(join(dir, 'channel_1', 'channel_1_1.dat'));
  const roots = mapDataFile(bytes, dictionary).records.filter((r) => dictionary.byId.get(r.typeId)?.typeName.endsWith('.PersistenceRoots$Default')).at(-1)!;
  const entries = rootEntries(layoutEntity(dictionary.byId.get(roots.typeId)!, bytes.subarray(roots.offset + 24, roots.offset + roots.length)));
  return new Set(entries.objectIds.filter((_, i) => entries.identifiers[i] !== 'ROOT'));
}

/** Overwrites the bytes from the first to the last record in `file` of a constant the roots list. */
function overwriteConstants(dir: string, file: string): void {
  const constants = constantIds(dir);
  const records = recordsOf(dir, file).filter((r) => constants.has(r.objectId));
  const bytes = readFileSync(join(dir, file));
  bytes.fill(0xab, records[0]!.offset, records.at(-1)!.offset + records.at(-1)!.length);
  writeFileSync(join(dir, file), bytes);
}

function truncateFile(file: string, fraction: number): void {
  truncateSync(file, Math.floor(statSync(file).size * fraction));
}

let counter = 0;

/**
 * Whether the library's answer for the roots entity holds every entry of ours, each naming the same
 * object; the `Object[]` of an enum's constants it makes anew when it stores the roots.
 */
function rootEntriesKept(ours: Buffer, theirs: Buffer): boolean {
  const entries = (body: Buffer): Map<string, string> => {
    const [ids, identifiers] = (JSON.parse(body.toString()) as { data: [string[], string[]] }).data;
    return new Map(identifiers.map((identifier, i) => [identifier, ids[i]!]));
  };
  const mine = entries(ours);
  const library = entries(theirs);
  return mine.size > 0 && [...mine].every(([identifier, id]) => (identifier.startsWith('enum ') ? library.has(identifier) : library.get(identifier) === id));
}

/** Stateless objects print as `Class@identityHashCode`, a number each JVM picks anew. */
function withoutIdentityHashes(body: Buffer): string {
  return body.toString().replace(/@[0-9a-f]{1,8}(?=")/g, '@…');
}

function damagedCopy(d: Damage): string {
  const dir = join(work, `case-${++counter}`);
  cpSync(d.source(), dir, { recursive: true });
  d.damage(dir);
  return dir;
}

describe.skipIf(missing !== undefined).each(DAMAGES)('$name', (d) => {
  let dir: string;
  let out: string;
  let report: RescueReport;

  beforeAll(async () => {
    dir = damagedCopy(d);
    out = `${dir}-rescued`;
    report = await rescueStorage(dir, { out });
    const actions = new Map<string, number>();
    for (const r of report.replaced) actions.set(r.action, (actions.get(r.action) ?? 0) + 1);
    console.log(
      `${d.name}: kept ${report.keptObjects} (${report.olderVersions.length} in an older version), lost ${report.lost.length} known ids, ` +
        `${report.missingData.length} missing byte range(s), ${report.unreadableRegions.length} unreadable region(s), replaced ${report.replacedCount} references ${JSON.stringify(Object.fromEntries(actions))}`,
    );
  });

  // An intact storage is refused by nothing: there is no exception to name.
  if (d.intact !== true) {
    it('check names the exception the library refuses the damaged original with', async () => {
      const check = await checkStorage(dir);
      expect(check.javaStarts).toBe(false);
      expect(check.generation).toBe(d.library === 'es41' ? 'EclipseStore 4.1' : 'MicroStream 4.1');
      const refused = await startJava(d.library, dir).then(
        async (java) => {
          await java.stop();
          return 'started';
        },
        (error: unknown) => (error instanceof JavaRefused ? error.message : String(error)),
      );
      // The innermost cause is what the library says about the storage.
      const cause = /(?:Caused by: |Exception in thread "main" )([\w.$]+): (.*)$/.exec(refused.split('\n').filter((l) => /Caused by: |Exception in thread/.test(l)).at(-1) ?? '');
      expect(cause, refused).not.toBeNull();
      const said = check.problems.filter((p) => p.severity === 'refuses-start').map((p) => p.java);
      const missing = /^No entity found for objectId (\d+)$/.exec(cause![2]!);
      if (missing === null) {
        expect(said).toContainEqual({ exception: cause![1], message: cause![2] });
      } else {
        // The library walks the graph in its own order: it names one of the missing ids the roots reach.
        expect(said.some((j) => j?.exception === cause![1] && j?.message.startsWith('No entity found for objectId '))).toBe(true);
        const anew = report.constantsWrittenAnew.map((c) => c.objectId.toString());
        expect([...report.replaced.map((r) => r.lost.toString()), ...anew]).toContain(missing[1]);
      }
    });
  }

  it('the real library starts on the rescue and answers every recovered object as our server does', async () => {
    expect(report.hasRoots).toBe(true);
    expect(report.danglingCount).toBe(0);
    expect(report.replacedCount > 0).toBe(d.replaces === true);
    expect(report.constantsWrittenAnew.length > 0).toBe(d.constants === true);
    // Objects that held a constant written anew keep their reference to it.
    const anew = new Set(report.constantsWrittenAnew.map((c) => c.objectId));
    expect(report.replaced.filter((r) => anew.has(r.lost))).toEqual([]);
    expect(report.rootEntriesLeftOut.includes('ROOT')).toBe(d.rootLost === true);
    const text = rescueReportText(report);
    // The text names types for reading (`java.lang.Object[]` for `[Ljava.lang.Object;`), as every report does.
    for (const c of report.constantsWrittenAnew) expect(text).toContain(`  ${c.objectId} ${readableTypeName(c.typeName)} (${c.identifier})`);
    expect(text.includes("WARNING: the application's root reference is lost")).toBe(d.rootLost === true);
    const java = await startJava(d.library, out).catch((error: unknown) => {
      throw error instanceof JavaRefused ? new Error(`${d.library} refused the rescue: ${error.message}`) : error;
    });
    const storage = await Storage.open(out);
    try {
      const instance = storage.family.defaultInstance;
      const ids: bigint[] = [];
      for (const channel of storage.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
      expect(ids.length).toBe(report.keptObjects);
      const paths = [`/${instance}/root`, ...ids.map((id) => `/${instance}/object/${id}`)];
      const differences: string[] = [];
      for (let i = 0; i < paths.length; i += 16) {
        await Promise.all(
          paths.slice(i, i + 16).map(async (path) => {
            const [ours, theirs] = await Promise.all([storage.consistent(() => answerRequest(storage, { instance }, { method: 'GET', url: path, headers: {} })), java.get(path)]);
            const same = ours.status === theirs.status && withoutIdentityHashes(ours.body) === withoutIdentityHashes(theirs.body);
            // On its start the library registers what the roots lack (an entry left out, an enum the older roots did not list) and stores them.
            const rootsGrew = d.constants === true && path === `/${instance}/object/${storage.rootsObjectId}` && rootEntriesKept(ours.body, theirs.body);
            if (!same && !rootsGrew) {
              differences.push(`${path}: ours ${ours.status} ${ours.body.subarray(0, 100).toString()} / ${d.library} ${theirs.status} ${theirs.body.subarray(0, 100).toString()}`);
            }
          }),
        );
      }
      expect(differences.slice(0, 5), `${differences.length} of ${paths.length} answers differ`).toEqual([]);
    } finally {
      await storage.close();
      await java.stop();
    }
  });
});

describe.skipIf(missing !== undefined)('--keep-dangling', () => {
  it('a rescue that keeps references to a deleted file\'s objects is refused the way check says', async () => {
    const dir = damagedCopy(DAMAGES[2]!);
    const report = await rescueStorage(dir, { out: `${dir}-kept`, keepDangling: true });
    expect(report.danglingCount).toBeGreaterThan(0);
    expect(report.replacedCount).toBe(0);
    const check = await checkStorage(`${dir}-kept`);
    const problem = check.problems.find((p) => p.code === 'MISSING_REFERENCE_TARGET');
    expect(problem?.severity).toBe('refuses-start');
    expect(problem?.java?.message).toMatch(/^No entity found for objectId \d+$/);
    const refused = await startJava('ms41', `${dir}-kept`).then(
      async (java) => {
        await java.stop();
        return 'started';
      },
      (error: unknown) => (error instanceof JavaRefused ? error.message : String(error)),
    );
    expect(refused).toMatch(/StorageException: No entity found for objectId \d+/);
    const lostIds = new Set(report.dangling.map((r) => r.missing.toString()));
    expect(lostIds.has(/No entity found for objectId (\d+)/.exec(refused)![1]!)).toBe(true);
  });

  it('references only garbage holds are harmless: the library starts on a rescue that keeps them', async () => {
    // The README's example: the end of a file cut off; the two objects lost there were referred to by an unreachable address.
    const dir = join(work, 'graph-cut');
    cpSync(corpusStorage('graph'), dir, { recursive: true });
    truncateSync(join(dir, 'channel_1', 'channel_1_16.dat'), 3000);
    const before = await checkStorage(dir);
    expect(before.problems.filter((p) => p.code === 'MISSING_REFERENCE_TARGET').map((p) => [p.severity, p.count])).toEqual([['harmless', 2]]);
    const report = await rescueStorage(dir, { out: `${dir}-kept`, keepDangling: true });
    expect(report.danglingCount).toBe(2);
    const java = await startJava('ms41', `${dir}-kept`);
    try {
      expect((await java.get('/microstream/root')).status).toBe(200);
    } finally {
      await java.stop();
    }
  });
});
