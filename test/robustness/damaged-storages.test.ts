import { appendFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { layoutEntity } from '../../src/format/entity-layout.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { Prng } from '../../src/writer/generator/prng.js';
import { send, startServer } from '../security/server.js';
import { DamageLab, mapDataFile, type CaseOutcome, type DamageCase } from './damage-lab.js';

/**
 * Damaged storages, generated from corpus storages: every case must either fail to start with an
 * error naming the file (and offset), or serve with each answer intact, reported as damaged, or
 * (where the damage cannot be told from valid data) different — never wrong (see damage-lab.ts).
 */

const DICTIONARY = 'PersistenceTypeDictionary.ptd';

/**
 * GAP-1, outside this suite's files: `layoutEntity` (src/format/entity-layout.ts) does not check
 * the headers of lists nested in lists with elements of different sizes. Requests are covered
 * (src/http/java/integrity.ts checks every record before rendering), but opening a storage decodes the
 * roots entity without that check, so a damaged nested list header there ends the start with
 * "RangeError: Offset is outside the bounds of the DataView" instead of naming file and offset.
 * The fix is proposed with this suite (checkNested in locateList). Set to false once it is in:
 * the GAP-1 test below then passes as a normal test and the flips are judged strictly.
 */
const GAP_1_OPEN = false;
const gapTolerated: string[] = [];

/** Whether a problem is explained by an open known gap (and so only counted). */
function knownGap(kind: string, problem: string): boolean {
  if (GAP_1_OPEN && kind === 'byte flip: list-header' && /opening crashed: RangeError: Offset is outside the bounds of the DataView/.test(problem)) {
    gapTolerated.push(problem);
    return true;
  }
  return false;
}
const outcomes: CaseOutcome[] = [];
const labs: DamageLab[] = [];

async function lab(corpus: string): Promise<DamageLab> {
  const l = await DamageLab.create(corpus);
  labs.push(l);
  return l;
}

async function runAll(l: DamageLab, cases: readonly DamageCase[]): Promise<CaseOutcome[]> {
  const results: CaseOutcome[] = [];
  for (const c of cases) {
    const outcome = await l.run(c);
    outcomes.push(outcome);
    results.push(outcome);
  }
  return results;
}

function problemsOf(results: readonly CaseOutcome[]): string[] {
  return results
    .flatMap((o) => o.problems.filter((p) => !knownGap(o.kind, p)).slice(0, 3).map((p) => `${o.kind} / ${o.name}: ${p}`))
    .slice(0, 20);
}

afterAll(() => {
  for (const l of labs) l.dispose();
  const byKind = new Map<string, { cases: number; startup: number; served: number; intact: number; reported: number; flagged: number; missing: number; undetectable: number; wrong: number }>();
  for (const o of outcomes) {
    const k = byKind.get(o.kind) ?? { cases: 0, startup: 0, served: 0, intact: 0, reported: 0, flagged: 0, missing: 0, undetectable: 0, wrong: 0 };
    k.cases++;
    if (o.result === 'startup-error') k.startup++;
    else if (o.result === 'served') k.served++;
    k.intact += o.counts.intact;
    k.reported += o.counts.reported;
    k.flagged += o.counts.flagged;
    k.missing += o.counts.missing;
    k.undetectable += o.counts.undetectable;
    k.wrong += o.counts.wrong + (o.result === 'crash' || o.result === 'hang' ? 1 : 0);
    byKind.set(o.kind, k);
  }
  const checked = outcomes.filter((o) => o.checkExitCode !== undefined);
  console.log(`check ran on ${checked.length} of ${outcomes.length} damaged copies: exit 1 on ${checked.filter((o) => o.checkExitCode === 1).length}, exit 0 on ${checked.filter((o) => o.checkExitCode === 0).length}`);
  const lines = [...byKind].map(([kind, k]) => `  ${kind}: ${k.cases} cases, ${k.startup} startup errors, ${k.served} served (answers: ${k.intact} intact, ${k.reported} reported, ${k.flagged} flagged, ${k.missing} missing, ${k.undetectable} undetectable, ${k.wrong} wrong)`);
  console.log(`damaged storages:\n${lines.join('\n')}`);
  if (gapTolerated.length > 0) console.log(`known gap GAP-1 (nested list headers at startup) explains ${gapTolerated.length} startup crash(es)`);
});

/** Flips one byte (xor with a non-zero mask) of a file in place. */
function flip(path: string, offset: number, mask: number): void {
  const bytes = readFileSync(path);
  bytes[offset] = bytes[offset]! ^ mask;
  writeFileSync(path, bytes);
}

describe('truncated data files', () => {
  // One test per corpus: together they took 22 s on a loaded machine.
  it.each(['noroot', 'arrays', 'graph'])('at every offset inside the last record of a head file (%s; arrays and graph: channel 1)', async (corpus) => {
    const l = await lab(corpus);
    const files = l.dataFiles();
    const data = corpus === 'noroot' ? files[0]! : files.filter((f) => f.path.startsWith('channel_1')).pop()!;
    const bytes = l.originalBytes(data.path);
    const { records } = mapDataFile(bytes, l.dictionary);
    const last = records[records.length - 1]!;
    const cases: DamageCase[] = [];
    // Every offset; in the big graph storage every offset of the header and every 7th after it.
    for (let cut = last.offset; cut < last.offset + last.length; cut += corpus === 'graph' && cut >= last.offset + 24 ? 7 : 1) {
      cases.push({
        kind: 'truncated data file',
        name: `${corpus} ${data.path} cut at ${cut}`,
        apply: (dir) => truncateSync(join(dir, data.path), cut),
      });
    }
    const results = await runAll(l, cases);
    expect(problemsOf(results)).toEqual([]);
  });

  it('a file before the head file cut short (graph), and a data file that is gone', async () => {
    const l = await lab('graph');
    const files = l.dataFiles();
    const first = files[0]!;
    const bytes = l.originalBytes(first.path);
    const { records } = mapDataFile(bytes, l.dictionary);
    const cases: DamageCase[] = [];
    for (const r of [records[0]!, records[Math.floor(records.length / 2)]!, records[records.length - 1]!]) {
      for (const into of [0, 7, 24, Math.floor(r.length / 2)]) {
        const cut = r.offset + into;
        cases.push({
          kind: 'truncated data file',
          name: `graph ${first.path} cut at ${cut}`,
          apply: (dir) => truncateSync(join(dir, first.path), cut),
        });
      }
    }
    cases.push({
      kind: 'missing data file',
      name: `graph ${first.path} deleted`,
      apply: (dir) => rmSync(join(dir, first.path)),
      startupErrorMentions: ['channel 0, file', /not found/],
    });
    const results = await runAll(l, cases);
    expect(problemsOf(results)).toEqual([]);
  });
});

describe('transaction logs', () => {
  it('truncated at every offset inside the last entry and at every entry boundary (noroot, arrays channel 1)', async () => {
    const results: CaseOutcome[] = [];
    for (const corpus of ['noroot', 'arrays']) {
      const l = await lab(corpus);
      const logs = l.logFiles();
      const log = logs[logs.length - 1]!;
      const bytes = l.originalBytes(log);
      const entries = parseTransactionLog(bytes).entries;
      const cuts = new Set<number>();
      const lastEntry = entries[entries.length - 1]!;
      for (let cut = lastEntry.offset; cut < bytes.length; cut++) cuts.add(cut);
      for (const e of entries) cuts.add(e.offset);
      const cases: DamageCase[] = [...cuts].map((cut) => ({
        kind: 'truncated transaction log',
        name: `${corpus} ${log} cut at ${cut}`,
        apply: (dir: string) => truncateSync(join(dir, log), cut),
        // Cutting a log rolls stores back: their objects may be gone or older.
        mayLose: () => true,
        mayChange: true,
      }));
      results.push(...(await runAll(l, cases)));
    }
    expect(problemsOf(results)).toEqual([]);
  });

  it('garbage: replaced, appended, and one flipped byte per entry field (noroot, collections)', async () => {
    const results: CaseOutcome[] = [];
    const random = new Prng(4711);
    for (const corpus of ['noroot', 'collections']) {
      const l = await lab(corpus);
      const log = l.logFiles()[0]!;
      const bytes = l.originalBytes(log);
      const entries = parseTransactionLog(bytes).entries;
      const garbage = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => random.below(256)));
      const cases: DamageCase[] = [
        { kind: 'garbage transaction log', name: `${corpus} ${log} replaced by random bytes`, apply: (dir) => writeFileSync(join(dir, log), garbage(bytes.length)), startupErrorMentions: [log.split('/')[1]!, 'offset'] },
        { kind: 'garbage transaction log', name: `${corpus} ${log} all zero`, apply: (dir) => writeFileSync(join(dir, log), Buffer.alloc(bytes.length)), startupErrorMentions: [log.split('/')[1]!, 'zero length'] },
      ];
      for (const n of [1, 2, 17, 40]) {
        cases.push({ kind: 'garbage transaction log', name: `${corpus} ${log} + ${n} random bytes`, apply: (dir) => appendFileSync(join(dir, log), garbage(n)) });
      }
      for (const e of entries) {
        const length = bytes[e.offset]!;
        // length, type, timestamp (low and high byte), file length (low and high byte), file number.
        const fields = [0, 1, 2, 9, 10, 17, ...(length >= 26 ? [18, 25] : [])];
        for (const field of fields) {
          const at = e.offset + field;
          const mask = 1 << random.below(8);
          cases.push({
            kind: 'garbage transaction log',
            name: `${corpus} ${log} entry at ${e.offset} byte +${field} ^ ${mask}`,
            apply: (dir) => flip(join(dir, log), at, mask),
            mayLose: () => true,
            mayChange: true,
          });
        }
      }
      results.push(...(await runAll(l, cases)));
    }
    expect(problemsOf(results)).toEqual([]);
  });
});

/** The labs of the flip tests, one per corpus, shared by the parts of its flips. */
const flipLabs = new Map<string, Promise<DamageLab>>();

/** The `count` random flips of a corpus's records, always the same ones (seeded by the corpus). */
function flipCases(l: DamageLab, corpus: string, count: number): DamageCase[] {
  const random = new Prng(corpus.length * 7919);
  const files = l.dataFiles().filter((f) => f.size > 0);
  const maps = new Map(files.map((f) => [f.path, mapDataFile(l.originalBytes(f.path), l.dictionary)]));
  const cases: DamageCase[] = [];
  for (let i = 0; i < count; i++) {
    const file = random.pick(files);
    const { records, roles } = maps.get(file.path)!;
    const offset = random.below(file.size);
    const role = roles[offset]!;
    const mask = 1 + random.below(255);
    const record = records.find((r) => offset >= r.offset && offset < r.offset + r.length);
    // Records at or after the damaged one in this file may be lost when the walk stops there.
    let mayChange = role === 'value' || role === 'reference' || role === 'record-oid' || role === 'beyond' || role === 'gap';
    if (role === 'record-type' && record !== undefined) {
      const bytes = Buffer.from(l.originalBytes(file.path));
      bytes[offset] = bytes[offset]! ^ mask;
      const typeId = bytes.readBigInt64LE(record.offset + 8);
      const entry = l.dictionary.byId.get(typeId);
      if (entry !== undefined) {
        try {
          layoutEntity(entry, bytes.subarray(record.offset + 24, record.offset + record.length));
          mayChange = true; // another type with a layout that fits: indistinguishable from valid data
        } catch {
          // the layout check catches it
        }
      }
    }
    cases.push({
      kind: `byte flip: ${role}`,
      name: `${corpus} ${file.path} offset ${offset} ^ ${mask}${record === undefined ? '' : ` (record of ${record.objectId} at ${record.offset})`}`,
      apply: (dir) => flip(join(dir, file.path), offset, mask),
      // Values that still decode cannot be told from valid data; a changed reference or id may point nowhere.
      mayLose: () => mayChange,
      mayChange,
    });
  }
  return cases;
}

/**
 * Each corpus's flips (its count, always the same ones) run in tests of at most the part's size:
 * every case opens a damaged copy and asks for every answer (2,530 of them on `graph`), and the
 * 400 flips of `primitives` took 35–41 s as one test on a loaded machine, close to the timeout.
 */
const FLIPS = [
  ['primitives', 400, 100],
  ['arrays', 200, 100],
  ['graph', 60, 15],
] as const;
const FLIP_PARTS = FLIPS.flatMap(([corpus, count, perTest]) =>
  Array.from({ length: Math.ceil(count / perTest) }, (_, part) => [corpus, part * perTest + 1, Math.min(count, (part + 1) * perTest), count] as const),
);

describe('byte flips inside records', () => {
  it.each(FLIP_PARTS)('%s: random flips %i to %i of %i, classified by what the byte is', async (corpus, first, last, count) => {
    if (!flipLabs.has(corpus)) flipLabs.set(corpus, lab(corpus));
    const l = await flipLabs.get(corpus)!;
    const cases = flipCases(l, corpus, count);
    expect(cases).toHaveLength(count);
    const results = await runAll(l, cases.slice(first - 1, last));
    expect(problemsOf(results)).toEqual([]);
  });
});

describe('type dictionary', () => {
  it('missing, empty, cut short, with garbage, and without one entry in use', async () => {
    const l = await lab('graph');
    const text = l.originalBytes(DICTIONARY).toString('utf8');
    const cases: DamageCase[] = [
      { kind: 'missing dictionary', name: 'deleted', apply: (dir) => rmSync(join(dir, DICTIONARY)), mustRefuse: true, startupErrorMentions: [DICTIONARY] },
      { kind: 'malformed dictionary', name: 'empty', apply: (dir) => writeFileSync(join(dir, DICTIONARY), ''), mustRefuse: true, startupErrorMentions: [DICTIONARY, 'defines no types'] },
      { kind: 'malformed dictionary', name: 'a line of garbage', apply: (dir) => writeFileSync(join(dir, DICTIONARY), `${text.slice(0, 500)}\n%%garbage{{\n${text.slice(500)}`), mustRefuse: true, startupErrorMentions: [DICTIONARY, /line \d+/] },
      { kind: 'malformed dictionary', name: 'binary zeros', apply: (dir) => writeFileSync(join(dir, DICTIONARY), Buffer.alloc(300)), mustRefuse: true, startupErrorMentions: [DICTIONARY, 'defines no types'] },
    ];
    const random = new Prng(99);
    for (let i = 0; i < 12; i++) {
      const cut = 1 + random.below(text.length - 2);
      cases.push({
        kind: 'malformed dictionary',
        name: `cut at character ${cut}`,
        apply: (dir) => writeFileSync(join(dir, DICTIONARY), text.slice(0, cut)),
        // A cut between two entries is a valid, shorter dictionary: entities of the lost types are reported.
        startupErrorMentions: [DICTIONARY, /line \d+/],
        changesDictionary: true,
      });
    }
    // Remove whole entries that entities use: those entities answer a clear error.
    const entries = [...text.matchAll(/^(\d+) ([^\s{]+)\{[\s\S]*?^\}\n/gm)];
    for (const name of ['java.lang.String', 'java.util.ArrayList', 'java.lang.Integer', 'one.microstream.persistence.types.PersistenceRoots$Default']) {
      const entry = entries.find((e) => e[2] === name);
      if (entry === undefined) continue;
      cases.push({
        kind: 'type id missing from dictionary',
        name: `without ${name}`,
        apply: (dir) => writeFileSync(join(dir, DICTIONARY), text.replace(entry[0], '')),
        changesDictionary: true,
      });
    }
    const results = await runAll(l, cases);
    expect(problemsOf(results)).toEqual([]);
  });
});

describe('references to missing objects', () => {
  it('records turned into gaps: the object is gone, its referrers name it', async () => {
    const l = await lab('graph');
    const cases: DamageCase[] = [];
    const random = new Prng(5);
    const seen = new Map<bigint, number>();
    const all = l.dataFiles().flatMap((f) => mapDataFile(l.originalBytes(f.path), l.dictionary).records.map((r) => ({ ...r, path: f.path })));
    for (const r of all) seen.set(r.objectId, (seen.get(r.objectId) ?? 0) + 1);
    const single = all.filter((r) => seen.get(r.objectId) === 1);
    for (let i = 0; i < 20; i++) {
      const r = random.pick(single);
      cases.push({
        kind: 'reference to a missing object',
        name: `graph object ${r.objectId} (${r.path} at ${r.offset}) removed`,
        apply: (dir) => {
          const path = join(dir, r.path);
          const bytes = readFileSync(path);
          bytes.writeBigInt64LE(-BigInt(r.length), r.offset);
          writeFileSync(path, bytes);
        },
        mayLose: (id) => id === r.objectId,
      });
    }
    const results = await runAll(l, cases);
    expect(problemsOf(results)).toEqual([]);
  });
});

describe('what a client sees', () => {
  it('over HTTP: a cut-off record answers 500 naming file and offset; answers the damage may contradict carry a warning', async () => {
    const l = await lab('noroot');
    const dir = l.freshCopy();
    const [data] = l.dataFiles();
    const { records } = mapDataFile(l.originalBytes(data!.path), l.dictionary);
    const last = records[records.length - 1]!;
    truncateSync(join(dir, data!.path), last.offset + 30);
    const server = await startServer(dir);
    try {
      const cut = await send(server.port, 'GET', `/microstream/object/${last.objectId}`);
      expect(cut.status).toBe(500);
      expect(cut.body.toString()).toBe('<html><body><h2>500 Internal Server Error</h2></body></html>');
      expect(cut.headers['x-storage-inspector-error']).toBe(
        `FORMAT_TRUNCATED: ${join(dir, data!.path)} at offset ${last.offset}: the latest record of object ${last.objectId} (${last.length} bytes) is cut off after 30 bytes`,
      );
      const other = await send(server.port, 'GET', `/microstream/object/${records[0]!.objectId}`);
      expect(other.status).toBe(200);
      expect(other.headers['x-storage-inspector-warning']).toMatch(
        new RegExp(`^POSSIBLY_STALE: .*channel_0_1\\.dat is unreadable from offset ${last.offset} \\(record of ${last.length} bytes runs past the valid length ${last.offset + 30}\\); a newer version of object ${records[0]!.objectId} may be stored there$`),
      );
      const unknown = await send(server.port, 'GET', '/microstream/object/1000000000000000999');
      expect(unknown.status).toBe(404);
      expect(unknown.body.toString()).toBe('No entity found for objectId 1000000000000000999');
      expect(unknown.headers['x-storage-inspector-warning']).toMatch(/^POSSIBLY_MISSING: .* object 1000000000000000999 may be stored there$/);
      expect((await send(server.port, 'GET', '/microstream/root')).headers['x-storage-inspector-warning']).toMatch(/a newer roots entity may be stored there/);
    } finally {
      await server.close();
    }
  });
});

describe('known gaps', () => {
  (GAP_1_OPEN ? it.fails : it)('GAP-1: laying out a record checks the headers of nested lists', () => {
    const dictionary = parseTypeDictionary('1000001 test.Names{\n\t[list] names(\n\t\t[char] name,\n\t),\n}\n');
    const entry = dictionary.byId.get(1000001n)!;
    const content = Buffer.alloc(34);
    content.writeBigInt64LE(34n, 0); // the outer list: 34 bytes, one element
    content.writeBigInt64LE(1n, 8);
    content.writeBigInt64LE(18n, 16); // the nested [char]: 18 bytes, but claims 100 characters
    content.writeBigInt64LE(100n, 24);
    expect(() => layoutEntity(entry, content, { file: 'x.dat', offset: 24 })).toThrow(FormatError);
  });
});
